// Package page serves slotd's own web pages (decisions §7): the booking
// page /book/{businessId}, the customer's manage page /manage/{token},
// the loader /embed.js, and the scripts and styles behind them.
//
// Everything is inside the binary (go:embed) and written by hand in plain
// JavaScript and CSS: no build step, no framework, no request to anyone
// but slotd. The pages are thin: the server writes a shell holding the
// few facts it has already checked (the business, its zone, the page's
// language), and the scripts do the rest through the public API, with the
// page's publishable key (booking) or the link's token (manage) as the only
// credential they hold. So the pages take no path the API does not: every
// rule, refusal and event is the API's own.
//
// Every HTML answer carries the same security headers (Headers): a
// Content-Security-Policy allowing scripts, styles and requests to slotd
// only, with frame-ancestors the key's allowed origins for the booking page
// and none for the others; nosniff; and a referrer policy that never sends
// a manage link's path to another site.
package page
