package main

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	demoPageRe = regexp.MustCompile(`demo booking page: +(http://\S+/book/([0-9a-f-]{36})\?key=(pk_live_\S+))`)
	demoFullRe = regexp.MustCompile(`demo API key, all scopes: (\S+)`)
)

// demoStart starts slotd on an empty data directory and returns what it
// printed: the booking page's URL and the demo's secret key.
func demoStart(t *testing.T) (s *server, pageURL, business, publishable, full string) {
	s = start(t, "")
	out := s.stdout.String()
	m := demoPageRe.FindStringSubmatch(out)
	require.NotNil(t, m, "the start prints the booking page: %s", out)
	k := demoFullRe.FindStringSubmatch(out)
	require.NotNil(t, k, out)
	return s, m[1], m[2], m[3], k[1]
}

// The quick start's booking page: the demo has a publishable key allowed
// from slotd's own origin (and the loopback default's other names), and
// the URL printed at start opens the page; a booking made from that
// origin with that key is taken (decisions §1).
func TestDemoPrintsABookingPageThatWorks(t *testing.T) {
	s, pageURL, business, pk, full := demoStart(t)
	require.True(t, strings.HasPrefix(pageURL, s.base+"/book/"), "%s under %s", pageURL, s.base)
	assert.Contains(t, s.stdout.String(), "(allowed from "+s.base+")")

	res, err := http.Get(pageURL)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, res.Header.Get("Content-Type"), "text/html")

	me := s.get("/api/v1/me", full).Body
	require.Equal(t, business, me["id"])
	r := s.request(pcall{method: "GET", path: "/api/v1/services", key: pk, header: map[string]string{"Origin": s.base}})
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	require.NotEmpty(t, r.Body["data"])
	r = s.request(pcall{method: "GET", path: "/api/v1/services", key: pk, header: map[string]string{"Origin": "https://elsewhere.example"}})
	requireError(t, r, 403, "ORIGIN_NOT_ALLOWED")
}

// A secret key in a booking page's address gets a page that says what a
// booking page takes, how to make such a key and that a secret key must
// never sit in a web page: told by the key's form alone (a key that is
// not the business's gets the same page, so it is no oracle).
func TestBookingPageWithASecretKeySaysWhatItTakes(t *testing.T) {
	s, _, business, _, full := demoStart(t)
	for _, key := range []string{full, "sk_live_notakeyofanybusinessatall000000"} {
		res, err := http.Get(s.base + "/book/" + business + "?key=" + key)
		require.NoError(t, err)
		raw, err := io.ReadAll(res.Body)
		res.Body.Close()
		require.NoError(t, err)
		require.Equal(t, 400, res.StatusCode)
		assert.Equal(t, "no-referrer", res.Header.Get("Referrer-Policy"))
		assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
		page := string(raw)
		assert.Contains(t, page, "A booking page takes a publishable key")
		assert.Contains(t, page, "pk_live_")
		assert.Contains(t, page, "/admin/v1/businesses/"+business+"/keys")
		assert.Contains(t, page, "A secret key must never sit in a web page")
		assert.NotContains(t, page, key, "the page does not repeat the key")
	}
	require.Equal(t, 200, s.get("/api/v1/me", full).Status, "the key still works: the page only explained")
}

// The quick start in a browser: the booking page's URL the start printed
// opens on its own (not embedded), and a visitor books with clicks; the
// booking is there through the API. Axe checks each step.
func TestBrowserDemoBookingPage(t *testing.T) {
	s, pageURL, business, _, full := demoStart(t)
	// An American visitor: dates and times in en-US's own forms, one date
	// format from the day's heading to the summary.
	b := newBrowser(t, browserOpts{Lang: "en-US", TimeZone: "Europe/Amsterdam"})
	// First the mistake the issue saw: the secret key in the address.
	b.Navigate(t, s.base+"/book/"+business+"?key="+full)
	b.WaitText(t, "h1", "A booking page takes a publishable key", nil)
	b.Axe(t, "demo-secret-key", nil)
	b.Shot(t, "demo-secret-key")
	b.takeJSErrors() // the page's own 400 is the browser's one console error

	b.Navigate(t, pageURL)
	b.WaitVisible(t, `.choice[data-service]`, nil)
	b.step(t, nil, "demo-service", "Choose a service")
	b.Click(t, `.choice[data-service]`, nil)
	b.WaitVisible(t, `.day[data-day]:enabled`, nil)
	b.step(t, nil, "demo-day", "Choose a day")
	b.Click(t, `.day[data-day]:enabled`, nil)
	b.WaitVisible(t, `.time[data-start]`, nil)
	b.step(t, nil, "demo-time", "Choose a time")
	heading := b.Text(t, "#step-title + p", nil)
	assert.Regexp(t, `^[A-Z][a-z]+day, [A-Z][a-z]+ \d{1,2}$`, heading, "en-US's own date form")
	first := b.Text(t, `.time[data-start]`, nil)
	assert.Regexp(t, `^[1-9]\d?:\d\d\s(AM|PM)`, first, "en-US's own time form, not 09:00 AM")
	b.Click(t, `.time[data-start]`, nil)
	// A service only one staff member gives skips the staff step.
	b.WaitVisible(t, `#f-firstName, .choice[data-staff="any"]`, nil)
	if b.Text(t, "#step-title", nil) != "Your details" {
		b.step(t, nil, "demo-staff", "Choose who you would like")
		b.Click(t, `.choice[data-staff="any"]`, nil)
	}
	b.step(t, nil, "demo-details", "Your details")
	b.SendKeys(t, "#f-firstName", "Demi", nil)
	b.SendKeys(t, "#f-lastName", "Quickstart", nil)
	b.SendKeys(t, "#f-email", "demi@example.com", nil)
	b.Click(t, "button[type=submit]", nil)
	b.step(t, nil, "demo-confirm", "Check and confirm")
	assert.True(t, strings.HasPrefix(b.Text(t, `[data-summary="when"]`, nil), heading+", "), "the summary says the day as the heading did")
	assert.NotEmpty(t, b.Text(t, `[data-summary="price"]`, nil))
	b.Click(t, `[data-action="confirm"]`, nil)
	b.step(t, nil, "demo-booked", "Your appointment is booked")
	b.RequireNoJSErrors(t)

	list := s.get("/api/v1/appointments", full).Body["data"].([]any)
	require.Len(t, list, 1)
	a := list[0].(map[string]any)
	assert.Equal(t, "demi@example.com", a["customer"].(map[string]any)["email"])
	assert.Equal(t, "confirmed", a["status"])
}

// GET / says what the server is and where its API, booking page and
// documentation are, without a key.
func TestRootSaysWhatThisIs(t *testing.T) {
	s := start(t, "")
	r := s.get("/", "")
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	assert.Equal(t, "slotd", r.Body["name"])
	assert.Equal(t, s.base+"/api/v1", r.Body["api"])
	assert.Equal(t, s.base+"/book/{businessId}?key=<publishable key>", r.Body["bookingPage"])
	assert.Contains(t, r.Body["documentation"], "docs/api-v1.md")
	assert.NotContains(t, string(r.Raw), "Demo Salon", "nothing of any business")
}
