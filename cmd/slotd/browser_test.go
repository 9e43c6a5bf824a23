package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/webhook/mail/mailtest"
	"github.com/slotd/slotd/webhook/payment/paymenttest"
)

// The booking flow of decisions §7 in a real browser, as a visitor goes
// through it: a business's own site on a second loopback origin embeds
// the widget, the visitor books with clicks and the keyboard, the host page
// hears the events, the booking is read back through the API, the manage
// link is taken from the confirmation e-mail and used to move and cancel.
// Axe checks every step; -screenshots DIR keeps a picture of each.

// bookingSite is slotd with a business whose publishable key allows the
// host site's origin, the host site itself, and the SMTP server the
// confirmations go to.
type bookingSite struct {
	s    *server
	host string // the host site's origin, http://127.0.0.2:port
	smtp *mailtest.Server
}

// hostPages are the business's own site: the widget inline on /, a
// button that opens it as a modal on /modal. record.js keeps every slotd
// event the page hears, as DOM events and as messages, for the test.
const hostPages = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Salon Example</title><script src="/record.js"></script>
<script src="%[1]s/embed.js" async></script></head>
<body><main><h1>Salon Example</h1>%[2]s</main></body></html>`

const recordJS = `window.events = []; window.messages = []; window.warnings = [];
const warn = console.warn;
console.warn = (...a) => { window.warnings.push(a.join(' ')); warn.apply(console, a); };
for (const n of ['ready', 'resize', 'time-selected', 'booked', 'payment-required', 'error', 'close']) {
  document.addEventListener('slotd:' + n, (e) => window.events.push({target: e.target.id || e.target.tagName, detail: e.detail}));
}
window.addEventListener('message', (e) => window.messages.push({origin: e.origin, data: e.data}));
document.addEventListener('DOMContentLoaded', () => {
  const b = document.getElementById('open');
  if (b) b.addEventListener('click', () => {
    window.dialog = Slotd.open({key: b.dataset.key, business: b.dataset.business, locale: b.dataset.locale, title: 'Book',
      prefill: {lastName: 'Bakker', phone: '+31 6 1234 5678'}, utm: {utm_source: 'modal'}});
  });
});`

// startBookingSite starts the host site and slotd; edit, when not nil,
// changes the salon in the world file first, args are slotd's own.
func startBookingSite(t *testing.T, edit func(biz map[string]any), args ...string) *bookingSite {
	t.Helper()
	var base atomic.Pointer[string]
	mux := http.NewServeMux()
	host := startServerOn(t, "127.0.0.2", mux)
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, hostPages, *base.Load(), body)
		}
	}
	mux.HandleFunc("GET /{$}", page(`<div id="booking" data-slotd-booking data-key="`+keyPublishable+`" data-business="`+salonID+`"></div>`))
	// The salon's site is beige: the widget takes its colours, and its
	// background through a transparent page.
	mux.HandleFunc("GET /themed", page(`<style>body{background:#efe3cf}</style><div id="booking" data-slotd-booking data-key="`+keyPublishable+`" data-business="`+salonID+
		`" data-primary-color="#7a3e00" data-text-color="2b1d0e" data-background-color="transparent"></div>`))
	// A key that does not list this site.
	mux.HandleFunc("GET /denied", page(`<div id="booking" data-slotd-booking data-key="`+keyElsewhere+`" data-business="`+salonID+`" data-primary-color="red"></div>`))
	mux.HandleFunc("GET /modal", page(`<button id="open" type="button" data-key="`+keyPublishable+`" data-business="`+salonID+`" data-locale="nl">Afspraak maken</button>`))
	mux.HandleFunc("GET /record.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, recordJS)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })

	path := salonWorld(t, func(biz map[string]any) {
		biz["apiKeys"] = append(biz["apiKeys"].([]any), map[string]any{"key": keyPublishable, "kind": "publishable", "allowedOrigins": []string{host.URL}},
			map[string]any{"key": keyElsewhere, "kind": "publishable", "allowedOrigins": []string{"https://other.example"}})
		if edit != nil {
			edit(biz)
		}
	})

	smtp := mailtest.Start(t, mailtest.Options{User: smtpUser, Password: smtpPassword, Pipelining: true})
	s := start(t, "", append([]string{"--world", path, "--smtp", smtp.Addr, "--smtp-user", smtpUser, "--smtp-password", smtpPassword,
		"--smtp-from", smtpFrom}, args...)...)
	base.Store(&s.base)
	mux.HandleFunc("GET /base", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, s.base) })
	return &bookingSite{s: s, host: host.URL, smtp: smtp}
}

// frameEval runs body as a function whose this is the document of frame
// (the top-level page's when frame is nil), in that document's own
// JavaScript context, and decodes what it returns.
func frameEval[T any](t *testing.T, b *browser, frame *chromedp.Node, body string) T {
	t.Helper()
	fn := "function() {\n" + body + "\n}"
	if frame == nil {
		return browserValue(t, b, chromedp.Evaluate[T]("("+fn+").call(document)", chromedp.EvalAwaitPromise))
	}
	return browserValue(t, b, onFrameDocument[T](frame, fn))
}

// tabTo presses Tab until the element sel matches has the focus, as a
// person without a mouse does, and fails when it is not reachable in 60.
func tabTo(t *testing.T, b *browser, frame *chromedp.Node, sel string) {
	t.Helper()
	check := fmt.Sprintf("const a = this.activeElement; return Boolean(a && a.matches(%q));", sel)
	for range 60 {
		if frameEval[bool](t, b, frame, check) {
			return
		}
		b.Key(t, kb.Tab)
	}
	t.Fatalf("%s is not reachable with Tab", sel)
}

// press reaches sel with Tab and activates it with Enter.
func press(t *testing.T, b *browser, frame *chromedp.Node, sel string) {
	t.Helper()
	tabTo(t, b, frame, sel)
	b.Key(t, kb.Enter)
}

// hostEvent is one event the host page heard.
type hostEvent struct {
	Target string         `json:"target"`
	Detail map[string]any `json:"detail"`
}

func hostEvents(t *testing.T, b *browser) []hostEvent {
	t.Helper()
	var evs []hostEvent
	b.Eval(t, "window.events", &evs)
	return evs
}

// waitEvent waits until the host page has heard an event of type typ and
// returns the last one.
func waitEvent(t *testing.T, b *browser, typ string) hostEvent {
	t.Helper()
	deadline := time.Now().Add(browserActionTimeout)
	for {
		evs := hostEvents(t, b)
		for i := len(evs) - 1; i >= 0; i-- {
			if evs[i].Detail["type"] == typ {
				return evs[i]
			}
		}
		require.False(t, time.Now().After(deadline), "no %s event; heard %v", typ, evs)
		time.Sleep(50 * time.Millisecond)
	}
}

// step checks a step of a flow: its heading, Axe on its document, and
// a screenshot on request.
//
// The wait for the heading is logged: each step is called right after the
// action that leads to it, so it is how long the visitor waited (with
// the polling's 50 ms grain).
func (b *browser) step(t *testing.T, frame *chromedp.Node, name, heading string) {
	t.Helper()
	start := time.Now()
	b.WaitText(t, "#step-title", heading, frame)
	t.Logf("step %s shown after %v", name, time.Since(start).Round(time.Millisecond))
	b.Axe(t, name, frame)
	b.Shot(t, name)
}

var manageLinkRe = regexp.MustCompile(`http://127\.0\.0\.1:\d+/manage/[A-Za-z0-9_-]{64}`)

// mailTo waits for the message to address and returns its text part.
func (site *bookingSite) mailTo(t *testing.T, address string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, m := range site.smtp.Messages() {
			if len(m.To) == 1 && m.To[0] == address {
				p, err := m.Parse()
				require.NoError(t, err)
				text, ok := p.Part("text/plain")
				require.True(t, ok)
				return text.Body
			}
		}
		require.False(t, time.Now().After(deadline), "no e-mail to %s", address)
		time.Sleep(20 * time.Millisecond)
	}
}

// requireRefusalsOnly takes the browser's errors so far, which must all be
// its own report of the refused answers (status) the page explained.
func requireRefusalsOnly(t *testing.T, b *browser, status int) {
	t.Helper()
	errs := b.takeJSErrors()
	require.NotEmpty(t, errs)
	for _, e := range errs {
		require.Contains(t, e, fmt.Sprintf("the server responded with a status of %d", status))
	}
}

func TestBrowserBookingWidget(t *testing.T) {
	site := startBookingSite(t, func(biz map[string]any) { biz["customerChanges"] = map[string]any{"cancelMinNoticeMinutes": 60} })
	s := site.s
	b := newBrowser(t, browserOpts{Lang: "en-GB", TimeZone: "Europe/Amsterdam"})
	start := time.Now()
	b.Navigate(t, site.host+"/?utm_source=newsletter&utm_campaign=winter")
	f := b.Frame(t, "#booking iframe")
	b.WaitVisible(t, `.choice[data-service="`+haircutID+`"]`, f)
	t.Logf("first step shown %v after navigation", time.Since(start).Round(time.Millisecond))
	b.step(t, f, "service", "Choose a service")
	waitEvent(t, b, "slotd:ready")

	b.Click(t, `.choice[data-service="`+haircutID+`"]`, f)
	b.WaitVisible(t, `.day[data-day="2026-12-08"]`, f)
	b.step(t, f, "day", "Choose a day")
	assert.Equal(t, "Haircut · 30 min · €35.00", b.Text(t, `[data-chosen="service"]`, f), "the day step names the service")
	b.WaitVisible(t, `.day[data-day="2026-12-06"]:disabled`, f) // a Sunday: closed, greyed, not selectable

	b.Click(t, `.day[data-day="2026-12-08"]`, f)
	b.WaitVisible(t, `.time[data-start^="2026-12-08T10:00"]`, f)
	b.step(t, f, "time", "Choose a time")

	// Someone else takes 10:00 with every staff member while the visitor
	// looks: picking it is refused with a sentence, and it is gone.
	for i, staff := range []string{annaID, bramID} {
		r := s.post("/api/v1/appointments", keyFull, fmt.Sprintf("race-%d", i), booking(haircutID, tue+"10:00:00Z", staff, fmt.Sprintf("race%d@example.com", i)))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
	}
	b.Click(t, `.time[data-start^="2026-12-08T10:00"]`, f)
	b.WaitText(t, "#alert", "Please choose another time.", f)
	refused := waitEvent(t, b, "slotd:error")
	assert.Contains(t, []any{"SLOT_TAKEN", "NO_STAFF_AVAILABLE"}, refused.Detail["code"])
	b.Run(t, chromedp.WaitNotPresent(chromedp.CSS(`.time[data-start^="2026-12-08T10:00"]`), chromedp.FromNode(f)))
	b.Shot(t, "refused")
	requireRefusalsOnly(t, b, 409)

	// 11:00 with the keyboard: a hold, its countdown, then the staff.
	press(t, b, f, `.time[data-start^="2026-12-08T11:00"]`)
	b.step(t, f, "staff", "Choose who you would like")
	b.WaitText(t, "#hold", "We are holding this time for you for 5:00", f)
	held := waitEvent(t, b, "slotd:time-selected")
	assert.Equal(t, "2026-12-08T11:00:00.000Z", held.Detail["startTime"])
	b.Click(t, `.choice[data-staff="`+annaID+`"]`, f)

	b.step(t, f, "details", "Your details")
	b.SendKeys(t, "#f-firstName", "Ana", f)
	b.Click(t, "button[type=submit]", f)
	b.WaitText(t, "#alert", "Please check the marked fields.", f)
	b.WaitText(t, "#f-email-err", "Please fill this in.", f)
	b.Shot(t, "details-refused")
	b.SendKeys(t, "#f-email", "ana.widget@example.com", f)
	b.SendKeys(t, "#f-lastName", "de Vries", f)
	press(t, b, f, "button[type=submit]")

	b.step(t, f, "confirm", "Check and confirm")
	assert.Equal(t, "Anna", b.Text(t, `[data-summary="staff"]`, f))
	assert.Contains(t, b.Text(t, `[data-summary="when"]`, f), "12:00–12:30 (Europe/Amsterdam)")
	assert.Equal(t, "€35.00", b.Text(t, `[data-summary="price"]`, f), "the price before confirming")
	b.Click(t, `[data-action="confirm"]`, f)
	b.step(t, f, "booked", "Your appointment is booked")
	assert.Equal(t, "€35.00", b.Text(t, `[data-summary="price"]`, f), "and after")

	booked := waitEvent(t, b, "slotd:booked")
	assert.Equal(t, "booking", booked.Target, "re-emitted on the container")
	d := booked.Detail
	assert.Equal(t, float64(1), d["version"])
	assert.Equal(t, haircutID, d["serviceId"])
	assert.Equal(t, annaID, d["staffMemberId"])
	assert.Equal(t, "confirmed", d["status"])
	assert.Equal(t, "2026-12-08T11:00:00.000Z", d["startTime"])
	id := d["appointmentId"].(string)

	// Every event reached the host page twice, from slotd's origin only,
	// and none carries the visitor's personal data.
	var messages []struct {
		Origin string         `json:"origin"`
		Data   map[string]any `json:"data"`
	}
	b.Eval(t, "window.messages", &messages)
	types := map[string]bool{}
	for _, m := range messages {
		assert.Equal(t, s.base, m.Origin)
		assert.Equal(t, float64(1), m.Data["version"])
		types[m.Data["type"].(string)] = true
	}
	for _, typ := range []string{"slotd:ready", "slotd:resize", "slotd:time-selected", "slotd:error", "slotd:booked"} {
		assert.True(t, types[typ], typ)
	}
	all, err := json.Marshal(hostEvents(t, b))
	require.NoError(t, err)
	for _, personal := range []string{"ana.widget", "Ana", "Vries"} {
		assert.NotContains(t, string(all), personal)
	}
	// The iframe is as tall as the page in it, which ends with the
	// summary: it grew and shrank with the steps.
	var height float64
	b.Eval(t, "document.querySelector('#booking iframe').getBoundingClientRect().height", &height)
	content := frameEval[float64](t, b, f, "return this.getElementById('app').getBoundingClientRect().bottom;")
	assert.InDelta(t, content, height, 2, "the iframe took its content's height")
	assert.Less(t, height, 640.0, "and shrank below its first height")

	// The booking through the API: the visitor's, with the host page's UTM
	// values as metadata.
	a := s.get("/api/v1/appointments/"+id, keyFull).Body
	assert.Equal(t, map[string]any{"utm_source": "newsletter", "utm_campaign": "winter"}, a["metadata"])
	assert.Equal(t, "ana.widget@example.com", a["customer"].(map[string]any)["email"])
	link := manageLinkRe.FindString(site.mailTo(t, "ana.widget@example.com"))
	require.Equal(t, a["manageUrl"], link, "the confirmation carries the manage link")
	b.RequireNoJSErrors(t)

	// The manage page: move the booking to Wednesday, then try to cancel it
	// too late, then cancel it in time.
	b.Navigate(t, link)
	b.WaitVisible(t, `[data-action="reschedule"]`, nil)
	b.step(t, nil, "manage", "Your appointment")
	b.Click(t, `[data-action="reschedule"]`, nil)
	b.WaitVisible(t, `.day[data-day="2026-12-09"]`, nil)
	b.step(t, nil, "manage-day", "Choose a day")
	b.Click(t, `.day[data-day="2026-12-09"]`, nil)
	b.WaitVisible(t, `.time[data-start^="2026-12-09T09:00"]`, nil)
	b.Click(t, `.time[data-start^="2026-12-09T09:00"]`, nil)
	press(t, b, nil, `[data-action="move"]`)
	b.WaitText(t, "#alert", "Your appointment has been moved.", nil)
	b.step(t, nil, "moved", "Your appointment")
	assert.Equal(t, "2026-12-09T09:00:00.000Z", s.get("/api/v1/appointments/"+id, keyFull).Body["startTime"])

	s.clock.Set(time.Date(2026, 12, 9, 8, 30, 0, 0, time.UTC)) // inside the hour's notice
	b.Click(t, `[data-action="cancel"]`, nil)
	b.Click(t, `[data-action="cancel-yes"]`, nil)
	b.WaitText(t, "#alert", "This change can no longer be made online. Please contact Salon Example.", nil)
	b.Shot(t, "cancel-refused")
	requireRefusalsOnly(t, b, 422)
	b.Run(t, chromedp.WaitNotPresent(chromedp.CSS(`[data-action="cancel"]`)))

	s.clock.Set(testEpoch)
	b.Navigate(t, link)
	b.Click(t, `[data-action="cancel"]`, nil)
	b.step(t, nil, "cancel-ask", "Do you really want to cancel this appointment?")
	b.Click(t, `[data-action="cancel-yes"]`, nil)
	b.WaitText(t, "#alert", "Your appointment has been cancelled.", nil)
	assert.Equal(t, "Cancelled", b.Text(t, `[data-summary="status"]`, nil))
	b.step(t, nil, "cancelled", "Your appointment")
	assert.Equal(t, "cancelled", s.get("/api/v1/appointments/"+id, keyFull).Body["status"])
	b.RequireNoJSErrors(t)
}

// The same flow in Dutch, 320 px wide, in New York, in the modal, with
// the keyboard alone; the weeks around the two DST changes show each
// time in both zones right.
func TestBrowserBookingDutchNarrowElsewhere(t *testing.T) {
	site := startBookingSite(t, nil)
	s := site.s
	s.clock.Set(time.Date(2026, 10, 19, 7, 0, 0, 0, time.UTC)) // Monday, before both changes
	b := newBrowser(t, browserOpts{Width: 320, Height: 640, Lang: "nl-NL", TimeZone: "America/New_York"})
	b.Navigate(t, site.host+"/modal")
	press(t, b, nil, "#open")
	f := b.Frame(t, "[data-slotd-modal] iframe")
	b.WaitVisible(t, `.choice[data-service="`+haircutID+`"]`, f)
	b.step(t, f, "service", "Kies een behandeling")
	var width float64
	b.Eval(t, "window.innerWidth", &width)
	require.Equal(t, 320.0, width)
	var overflow bool
	overflow = frameEval[bool](t, b, f, "return this.documentElement.scrollWidth > this.documentElement.clientWidth;")
	assert.False(t, overflow, "nothing wider than 320 px")

	press(t, b, f, `.choice[data-service="`+haircutID+`"]`)
	b.WaitVisible(t, `.day[data-day="2026-10-27"]`, f)
	b.step(t, f, "day", "Kies een dag")

	// Tuesday 20 October: Amsterdam on summer time, New York too.
	// Tuesday 27 October: Amsterdam back on winter time, New York still on
	// summer time. Tuesday 3 November: both on winter time.
	for _, c := range []struct{ day, utc, mine string }{
		{"2026-10-20", "2026-10-20T08:00", "04:00 uw tijd"},
		{"2026-10-27", "2026-10-27T09:00", "05:00 uw tijd"},
		{"2026-11-03", "2026-11-03T09:00", "04:00 uw tijd"},
	} {
		press(t, b, f, `.day[data-day="`+c.day+`"]`)
		sel := `.time[data-start^="` + c.utc + `"]`
		b.WaitVisible(t, sel, f)
		assert.Equal(t, "10:00\n"+c.mine, b.Text(t, sel, f), c.day)
		press(t, b, f, `[data-action="back"]`)
		b.WaitVisible(t, `.day[data-day="`+c.day+`"]`, f)
	}
	press(t, b, f, `.day[data-day="2026-10-27"]`)
	b.step(t, f, "time", "Kies een tijd")
	b.WaitText(t, ".zone", "Tijden staan in Europe/Amsterdam. Uw eigen tijd (America/New_York) staat naast elke tijd.", f)
	press(t, b, f, `.time[data-start^="2026-10-27T09:00"]`)
	b.step(t, f, "staff", "Kies bij wie")
	press(t, b, f, `.choice[data-staff="any"]`)
	b.step(t, f, "details", "Uw gegevens")
	assert.Equal(t, "Bakker", browserValue(t, b, chromedp.Value(chromedp.CSS("#f-lastName"), chromedp.FromNode(f))), "prefilled")
	assert.Equal(t, "+31 6 1234 5678", browserValue(t, b, chromedp.Value(chromedp.CSS("#f-phone"), chromedp.FromNode(f))))
	tabTo(t, b, f, "#f-firstName")
	b.Run(t, chromedp.KeyEvent("Noor"))
	tabTo(t, b, f, "#f-email")
	b.Run(t, chromedp.KeyEvent("noor@example.nl"))
	press(t, b, f, "button[type=submit]")
	b.step(t, f, "confirm", "Controleren en bevestigen")
	assert.Contains(t, b.Text(t, `[data-summary="when"]`, f), "10:00–10:30 (Europe/Amsterdam) · 05:00 uw tijd")
	press(t, b, f, `[data-action="confirm"]`)
	b.step(t, f, "booked", "Uw afspraak is geboekt")
	booked := waitEvent(t, b, "slotd:booked")
	assert.Equal(t, "2026-10-27T09:00:00.000Z", booked.Detail["startTime"])
	a := s.get("/api/v1/appointments/"+booked.Detail["appointmentId"].(string), keyFull).Body
	assert.Equal(t, map[string]any{"firstName": "Noor", "lastName": "Bakker", "email": "noor@example.nl", "phone": "+31 6 1234 5678"},
		omit(a["customer"].(map[string]any), "id"))
	assert.Equal(t, map[string]any{"utm_source": "modal"}, a["metadata"], "Slotd.open's utm")
	link := manageLinkRe.FindString(site.mailTo(t, "noor@example.nl"))
	require.NotEmpty(t, link)

	// The close button closes the modal and gives the focus back.
	press(t, b, nil, "[data-slotd-modal] button")
	b.Run(t, chromedp.WaitNotPresent(chromedp.CSS("[data-slotd-modal]")))
	assert.True(t, frameEval[bool](t, b, nil, "return this.activeElement.id === 'open';"))

	// The manage page speaks the browser's language and shows both zones.
	b.Navigate(t, link)
	b.step(t, nil, "manage", "Uw afspraak")
	assert.Equal(t, "dinsdag 27 oktober, 10:00–10:30 (Europe/Amsterdam) · 05:00 uw tijd", b.Text(t, `[data-summary="when"]`, nil))
	assert.Equal(t, "Bevestigd", b.Text(t, `[data-summary="status"]`, nil))
	b.RequireNoJSErrors(t)
}

// A service paid in advance: with a redirect provider the page offers its
// checkout in the top window; with a client-secret provider it hands the
// secret to the host page, whose own form takes the payment.
func TestBrowserBookingPrepayment(t *testing.T) {
	for _, provider := range []string{"redirect", "client_secret"} {
		t.Run(provider, func(t *testing.T) {
			var baseURL string
			if provider == "redirect" {
				d := paymenttest.NewMollie(payAPIKey)
				t.Cleanup(d.Close)
				baseURL = d.URL()
			} else {
				d := paymenttest.NewStripe(payAPIKey, paySecret)
				t.Cleanup(d.Close)
				baseURL = d.URL()
			}
			site := startBookingSite(t, func(biz map[string]any) {
				biz["payments"] = map[string]any{"provider": provider, "requiresPayment": true, "holdMinutes": 15, "baseUrl": baseURL,
					"apiKey": payAPIKey, "webhookSecret": paySecret, "returnUrl": "https://salon.example/thanks"}
			}, "--webhooks-allow-insecure")
			b := newBrowser(t, browserOpts{Lang: "en-GB", TimeZone: "Europe/Amsterdam"})
			b.Navigate(t, site.host+"/")
			f := b.Frame(t, "#booking iframe")
			b.Click(t, `.choice[data-service="`+haircutID+`"]`, f)
			b.Click(t, `.day[data-day="2026-12-08"]`, f)
			b.Click(t, `.time[data-start^="2026-12-08T13:00"]`, f)
			b.Click(t, `.choice[data-staff="any"]`, f)
			b.SendKeys(t, "#f-firstName", "Sam", f)
			b.SendKeys(t, "#f-email", "sam@example.com", f)
			b.Click(t, "button[type=submit]", f)
			b.Click(t, `[data-action="confirm"]`, f)
			b.step(t, f, "reserved", "Your appointment is reserved")
			booked := waitEvent(t, b, "slotd:booked")
			assert.Equal(t, "pending_payment", booked.Detail["status"])
			pay := waitEvent(t, b, "slotd:payment-required")
			assert.Equal(t, booked.Detail["appointmentId"], pay.Detail["appointmentId"])
			require.Equal(t, "pending", site.s.paymentOf(booked.Detail["appointmentId"].(string)).Body["status"])
			if provider == "redirect" {
				url := pay.Detail["checkoutUrl"].(string)
				assert.True(t, strings.HasPrefix(url, baseURL+"/"), "the provider's checkout: %s", url)
				assert.NotContains(t, pay.Detail, "clientSecret")
				attrs := browserValue(t, b, chromedp.Attributes(chromedp.CSS(`[data-action="pay"]`), chromedp.FromNode(f)))
				assert.Equal(t, url, attrs["href"])
				assert.Equal(t, "_top", attrs["target"])
			} else {
				assert.NotEmpty(t, pay.Detail["clientSecret"])
				assert.NotContains(t, pay.Detail, "checkoutUrl")
				b.WaitText(t, "#step", "Please complete the payment on this page.", f)
			}
			b.RequireNoJSErrors(t)
		})
	}
}

// How long a visitor waits for the first free days: from navigation to the
// day grid drawn from the availability answer, on loopback, for a page
// opened with its service chosen (the loader's data-service). Logged, not
// asserted: a timing on a shared machine is a measurement, not a test.
func TestBrowserFirstSlots(t *testing.T) {
	s := startPublishableWorld(t, nil)
	b := newBrowser(t, browserOpts{})
	var took []float64
	for i := range 7 {
		b.Navigate(t, s.base+bookPath+"&service="+haircutID+fmt.Sprintf("&n=%d", i))
		b.WaitVisible(t, ".day.free", nil)
		var ms float64
		b.Eval(t, "performance.getEntriesByName('slotd:first-slots')[0].startTime", &ms)
		took = append(took, ms)
	}
	slices.Sort(took)
	t.Logf("first free days drawn after %.0f ms (median of %d loads; fastest %.0f, slowest %.0f)", took[len(took)/2], len(took), took[0], took[len(took)-1])
	b.RequireNoJSErrors(t)
}

// keyElsewhere is a publishable key of the salon for another site.
const keyElsewhere = "pk_live_for_another_site_only_0000000000"

// Embedded on the salon's beige page, the widget takes the host's colours
// (the loader's data attributes) and shows the page through; Axe still
// finds the contrast sufficient. An invalid colour is named in the
// console and ignored.
func TestBrowserWidgetTakesTheHostsColours(t *testing.T) {
	site := startBookingSite(t, nil)
	b := newBrowser(t, browserOpts{Lang: "en-GB", TimeZone: "Europe/Amsterdam"})
	b.Navigate(t, site.host+"/themed")
	f := b.Frame(t, "#booking iframe")
	b.WaitVisible(t, `.choice[data-service="`+haircutID+`"]`, f)
	b.step(t, f, "themed-service", "Choose a service")
	style := frameEval[map[string]string](t, b, f, `const cs = getComputedStyle(this.documentElement), body = getComputedStyle(this.body);
		return {accent: cs.getPropertyValue('--accent').trim(), ink: cs.getPropertyValue('--ink').trim(), bg: body.backgroundColor};`)
	assert.Equal(t, "#7a3e00", style["accent"], "the host's primary colour")
	assert.Equal(t, "#2b1d0e", style["ink"], "the host's text colour, # optional")
	assert.Equal(t, "rgba(0, 0, 0, 0)", style["bg"], "transparent: the host's beige shows through")
	b.Click(t, `.choice[data-service="`+haircutID+`"]`, f)
	b.WaitVisible(t, `.day[data-day="2026-12-08"]`, f)
	b.Click(t, `.day[data-day="2026-12-08"]`, f)
	b.WaitVisible(t, `.time[data-start^="2026-12-08T10:00"]`, f)
	b.step(t, f, "themed-time", "Choose a time")
	b.RequireNoJSErrors(t)
}

// A key that does not list the host's origin: Chrome shows its grey box
// and says why only in a CSP error; the loader adds a warning that names
// allowedOrigins and the origin to add.
func TestBrowserWidgetWarnsOfAnOriginTheKeyDoesNotList(t *testing.T) {
	site := startBookingSite(t, nil)
	b := newBrowser(t, browserOpts{Lang: "en-GB", TimeZone: "Europe/Amsterdam"})
	b.Navigate(t, site.host+"/denied")
	var warnings []string
	deadline := time.Now().Add(20 * time.Second)
	for {
		b.Eval(t, "window.warnings", &warnings)
		if len(warnings) >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.Len(t, warnings, 2, "%v", warnings)
	assert.Equal(t, `Slotd: primaryColor "red" is not a hex colour such as #0b5cad; it is ignored.`, warnings[0])
	assert.Contains(t, warnings[1], "add "+site.host+" to the key's allowedOrigins")
	b.takeJSErrors() // the browser's own CSP refusal of the frame
}

// omit is m less the named keys.
func omit(m map[string]any, keys ...string) map[string]any {
	out := maps.Clone(m)
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// A class on the booking page (decisions §10): each time shows the
// places its session still has, and a full session is not offered.
func TestBrowserBookingClassSeats(t *testing.T) {
	site := startBookingSite(t, func(biz map[string]any) {
		haircutClass(3)(biz)
		for _, st := range biz["staff"].([]any) { // Anna alone teaches it
			if m := st.(map[string]any); m["id"] != annaID {
				m["assignedServiceIds"] = []any{}
			}
		}
	})
	for i := range 3 { // Anna's 13:00 session full, her 14:00 one with a place taken
		r := site.s.post("/api/v1/appointments", keyFull, fmt.Sprint("full-", i), booking(haircutID, tue+"13:00:00Z", annaID, fmt.Sprintf("f%d@example.com", i)))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
	}
	r := site.s.post("/api/v1/appointments", keyFull, "one", booking(haircutID, tue+"14:00:00Z", annaID, "one@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)

	b := newBrowser(t, browserOpts{Lang: "en-GB", TimeZone: "Europe/Amsterdam"})
	b.Navigate(t, site.host+"/")
	f := b.Frame(t, "#booking iframe")
	b.Click(t, `.choice[data-service="`+haircutID+`"]`, f)
	b.Click(t, `.day[data-day="2026-12-08"]`, f)
	b.WaitText(t, `.time[data-start^="2026-12-08T14:00"] .seats`, "2 places left", f)
	assert.Equal(t, "3 places left", b.Text(t, `.time[data-start^="2026-12-08T15:00"] .seats`, f), "an unopened session")
	starts := frameEval[[]string](t, b, f, `return [...this.querySelectorAll('.time')].map((e) => e.dataset.start);`)
	assert.NotContains(t, starts, tue+"13:00:00.000Z", "the full session is not offered")
	assert.Contains(t, starts, tue+"13:30:00.000Z")
	b.Axe(t, "class times", f)

	// Booked from the page, the session has one place fewer.
	b.Click(t, `.time[data-start^="2026-12-08T14:00"]`, f)
	b.SendKeys(t, "#f-firstName", "Sam", f)
	b.SendKeys(t, "#f-email", "sam@example.com", f)
	b.Click(t, "button[type=submit]", f)
	b.Click(t, `[data-action="confirm"]`, f)
	booked := waitEvent(t, b, "slotd:booked")
	a := site.s.get("/api/v1/appointments/"+booked.Detail["appointmentId"].(string), keyFull)
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(2)}, session(t, a))
	b.RequireNoJSErrors(t)
}
