package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The booking page's two ways of booking more than one appointment at
// once (decisions §11), in a real browser: "add another service" books a
// basket, "repeat weekly" a series. Each new step is checked by Axe.

// appointmentsOf are the salon's appointments of the customer with
// address email, by start, read through the API with the secret key.
func appointmentsOf(t *testing.T, s *server, email string) []map[string]any {
	t.Helper()
	r := s.get("/api/v1/appointments?limit=100", keyFull)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	var out []map[string]any
	for _, x := range r.Body["data"].([]any) {
		a := x.(map[string]any)
		if a["customer"].(map[string]any)["email"] == email {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b map[string]any) int {
		return strings.Compare(a["startTime"].(string), b["startTime"].(string))
	})
	return out
}

// bookedEvents counts the slotd:booked events the host page heard.
func bookedEvents(t *testing.T, b *browser) int {
	t.Helper()
	n := 0
	for _, e := range hostEvents(t, b) {
		if e.Detail["type"] == "slotd:booked" {
			n++
		}
	}
	return n
}

// A haircut and a manicure in one visit: the second service is added on
// the day step (and removed and added again), the times are the chain's,
// picking one holds nothing and skips the staff step, and confirming
// books both back to back as one basket.
func TestBrowserBookingBasket(t *testing.T) {
	site := startBookingSite(t, nil)
	s := site.s
	b := newBrowser(t, browserOpts{Lang: "en-GB", TimeZone: "Europe/Amsterdam"})
	b.Navigate(t, site.host+"/")
	f := b.Frame(t, "#booking iframe")
	b.Click(t, `.choice[data-service="`+haircutID+`"]`, f)
	b.WaitVisible(t, `[data-action="add-service"]`, f)
	b.step(t, f, "day", "Choose a day")
	assert.Equal(t, "Haircut · 30 min · €35.00", b.Text(t, `[data-chosen="service"]`, f))

	press(t, b, f, `[data-action="add-service"]`)
	b.WaitVisible(t, `.choice[data-service="`+manicureID+`"]`, f)
	b.step(t, f, "add-service", "Choose another service")
	offered := frameEval[[]string](t, b, f, `return [...this.querySelectorAll('.choice')].map((e) => e.dataset.service);`)
	assert.NotContains(t, offered, haircutID, "the chosen service is not offered again")
	press(t, b, f, `.choice[data-service="`+manicureID+`"]`)
	b.WaitText(t, `[data-chosen="service"]`, "Haircut + Manicure · 75 min · €65.00", f)
	b.step(t, f, "basket-day", "Choose a day")
	assert.Equal(t, "Remove Manicure", b.Text(t, `[data-remove="`+manicureID+`"]`, f))

	// Removed, it is one service again; added back, a basket.
	b.Click(t, `[data-remove="`+manicureID+`"]`, f)
	b.WaitText(t, `[data-chosen="service"]`, "Haircut · 30 min · €35.00", f)
	b.Run(t, chromedp.WaitNotPresent(chromedp.CSS(`[data-remove]`), chromedp.FromNode(f)))
	b.Click(t, `[data-action="add-service"]`, f)
	b.Click(t, `.choice[data-service="`+manicureID+`"]`, f)
	b.WaitText(t, `[data-chosen="service"]`, "Haircut + Manicure", f)

	b.Click(t, `.day[data-day="2026-12-08"]`, f)
	b.WaitVisible(t, `.time[data-start^="2026-12-08T10:00"]`, f)
	b.step(t, f, "basket-time", "Choose a time")
	press(t, b, f, `.time[data-start^="2026-12-08T10:00"]`)
	b.step(t, f, "basket-details", "Your details") // no staff step
	assert.False(t, frameEval[bool](t, b, f, "return !this.getElementById('hold').hidden;"), "a basket holds nothing")
	assert.Contains(t, b.Text(t, "#step p", f), "11:00–12:15 (Europe/Amsterdam)")
	selected := waitEvent(t, b, "slotd:time-selected")
	assert.Equal(t, "2026-12-08T10:00:00.000Z", selected.Detail["startTime"])
	b.SendKeys(t, "#f-firstName", "Lena", f)
	b.SendKeys(t, "#f-email", "lena.basket@example.com", f)
	press(t, b, f, "button[type=submit]")

	b.step(t, f, "basket-confirm", "Check and confirm")
	assert.Equal(t, "Haircut", b.Text(t, `[data-item="0"] [data-summary="service"]`, f))
	assert.Contains(t, b.Text(t, `[data-item="0"] [data-summary="when"]`, f), "11:00–11:30 (Europe/Amsterdam)")
	assert.Equal(t, "Manicure", b.Text(t, `[data-item="1"] [data-summary="service"]`, f))
	assert.Contains(t, b.Text(t, `[data-item="1"] [data-summary="when"]`, f), "11:30–12:15 (Europe/Amsterdam)")
	assert.Equal(t, "Bram", b.Text(t, `[data-item="1"] [data-summary="staff"]`, f), "only Bram does manicures")
	assert.Equal(t, "€65.00", b.Text(t, `[data-summary="total"]`, f))
	press(t, b, f, `[data-action="confirm"]`)

	b.step(t, f, "basket-booked", "Your appointments are booked")
	assert.Equal(t, 2, frameEval[int](t, b, f, "return this.querySelectorAll('.booked > li').length;"))
	waitEvent(t, b, "slotd:booked")
	assert.Equal(t, 2, bookedEvents(t, b), "one booked event per appointment")

	got := appointmentsOf(t, s, "lena.basket@example.com")
	require.Len(t, got, 2)
	require.NotNil(t, got[0]["basketId"])
	assert.Equal(t, got[0]["basketId"], got[1]["basketId"], "one basket")
	assert.Equal(t, haircutID, got[0]["service"].(map[string]any)["id"])
	assert.Equal(t, manicureID, got[1]["service"].(map[string]any)["id"])
	assert.Equal(t, tue+"10:00:00.000Z", got[0]["startTime"])
	assert.Equal(t, got[0]["endTime"], got[1]["startTime"], "back to back")
	b.RequireNoJSErrors(t)
}

// A haircut every week: the confirm step offers up to the service's
// repeatWeeks, previews the weeks chosen (the hold given up, or it would
// refuse the first), keeps the button disabled while a week is not free,
// and books the series.
func TestBrowserBookingRepeatWeekly(t *testing.T) {
	site := startBookingSite(t, func(biz map[string]any) {
		for _, x := range biz["services"].([]any) {
			if svc := x.(map[string]any); svc["id"] == haircutID {
				svc["repeatWeeks"] = 4
			}
		}
	})
	s := site.s
	// The fourth week is taken with everyone who cuts hair online.
	for i, staff := range []string{annaID, bramID} {
		r := s.post("/api/v1/appointments", keyFull, fmt.Sprint("week4-", i), booking(haircutID, "2026-12-29T10:00:00Z", staff, fmt.Sprintf("w4-%d@example.com", i)))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
	}

	b := newBrowser(t, browserOpts{Lang: "en-GB", TimeZone: "Europe/Amsterdam"})
	b.Navigate(t, site.host+"/")
	f := b.Frame(t, "#booking iframe")
	b.Click(t, `.choice[data-service="`+haircutID+`"]`, f)
	b.Click(t, `.day[data-day="2026-12-08"]`, f)
	b.Click(t, `.time[data-start^="2026-12-08T10:00"]`, f)
	b.Click(t, `.choice[data-staff="any"]`, f)
	b.SendKeys(t, "#f-firstName", "Rik", f)
	b.SendKeys(t, "#f-email", "rik.weekly@example.com", f)
	b.Click(t, "button[type=submit]", f)
	b.step(t, f, "repeat-confirm", "Check and confirm")
	b.WaitText(t, "#hold", "We are holding this time for you", f)
	options := frameEval[[]string](t, b, f, `return [...this.querySelectorAll('#f-repeat option')].map((o) => o.textContent);`)
	assert.Equal(t, []string{"Does not repeat", "2 weeks", "3 weeks", "4 weeks"}, options)
	assert.Equal(t, "Repeat weekly", b.Text(t, `label[for="f-repeat"]`, f))

	// Four weeks: the fourth is not free, and the button says no.
	chooseWeeks(t, b, f, 4)
	b.WaitVisible(t, `.dates li[data-occurrence^="2026-12-29"]`, f)
	b.WaitText(t, "#repeat-note", "Please choose fewer weeks or another time.", f)
	assert.Equal(t, "false", frameEval[string](t, b, f, `return this.querySelector('.dates li[data-occurrence^="2026-12-29"]').dataset.ok;`))
	assert.Contains(t, b.Text(t, `.dates li[data-occurrence^="2026-12-29"]`, f), "Please choose another time.")
	assert.True(t, frameEval[bool](t, b, f, `return this.querySelector('[data-action="confirm"]').disabled;`))
	assert.True(t, frameEval[bool](t, b, f, "return this.getElementById('hold').hidden;"), "the hold was given up")
	b.Axe(t, "repeat-blocked", f)
	b.Shot(t, "repeat-blocked")

	// Three weeks, every one free.
	chooseWeeks(t, b, f, 3)
	b.Run(t, chromedp.WaitNotPresent(chromedp.CSS("#repeat-note"), chromedp.FromNode(f)))
	b.WaitVisible(t, `.dates li[data-occurrence^="2026-12-22"]`, f)
	dates := frameEval[[]string](t, b, f, `return [...this.querySelectorAll('.dates li')].map((e) => e.dataset.occurrence + ' ' + e.dataset.ok);`)
	assert.Equal(t, []string{"2026-12-08T10:00:00.000Z true", "2026-12-15T10:00:00.000Z true", "2026-12-22T10:00:00.000Z true"}, dates)
	assert.Contains(t, b.Text(t, `.dates li[data-occurrence^="2026-12-15"]`, f), "Tuesday 15 December, 11:00–11:30 (Europe/Amsterdam)")
	assert.Contains(t, b.Text(t, `.dates li[data-occurrence^="2026-12-15"]`, f), "Free")
	assert.Equal(t, "€35.00 per appointment", b.Text(t, `[data-summary="price"]`, f))
	b.step(t, f, "repeat-preview", "Check and confirm")
	press(t, b, f, `[data-action="confirm"]`)

	b.step(t, f, "repeat-booked", "Your appointments are booked")
	assert.Equal(t, 3, frameEval[int](t, b, f, "return this.querySelectorAll('.booked > li').length;"))
	waitEvent(t, b, "slotd:booked")
	assert.Equal(t, 3, bookedEvents(t, b), "one booked event per appointment")

	got := appointmentsOf(t, s, "rik.weekly@example.com")
	require.Len(t, got, 3)
	require.NotNil(t, got[0]["recurringSeriesId"])
	for i, a := range got {
		assert.Equal(t, got[0]["recurringSeriesId"], a["recurringSeriesId"], "one series")
		assert.Equal(t, fmt.Sprintf("2026-12-%02dT10:00:00.000Z", 8+7*i), a["startTime"])
		assert.Equal(t, true, a["isRecurringOccurrence"])
	}
	b.RequireNoJSErrors(t)
}

// A week taken between the preview and the click: the series is refused
// whole (SERIES_CONFLICT) with a sentence, the preview shows which week,
// and the visitor books the first week alone, without the hold given up
// for the preview.
func TestBrowserBookingRepeatConflictThenOnce(t *testing.T) {
	site := startBookingSite(t, func(biz map[string]any) {
		for _, x := range biz["services"].([]any) {
			if svc := x.(map[string]any); svc["id"] == haircutID {
				svc["repeatWeeks"] = 3
			}
		}
	})
	s := site.s
	b := newBrowser(t, browserOpts{Lang: "nl-NL", TimeZone: "Europe/Amsterdam"})
	b.Navigate(t, s.base+bookPath+"&locale=nl&service="+haircutID)
	b.Click(t, `.day[data-day="2026-12-08"]`, nil)
	b.Click(t, `.time[data-start^="2026-12-08T10:00"]`, nil)
	b.Click(t, `.choice[data-staff="any"]`, nil)
	b.SendKeys(t, "#f-firstName", "Sem", nil)
	b.SendKeys(t, "#f-email", "sem.once@example.com", nil)
	b.Click(t, "button[type=submit]", nil)
	b.step(t, nil, "repeat-confirm-nl", "Controleren en bevestigen")
	assert.Equal(t, "Wekelijks herhalen", b.Text(t, `label[for="f-repeat"]`, nil))
	chooseWeeks(t, b, nil, 3)
	b.WaitText(t, `.dates li[data-occurrence^="2026-12-22"]`, "Vrij", nil)

	for i, staff := range []string{annaID, bramID} {
		r := s.post("/api/v1/appointments", keyFull, fmt.Sprint("week3-", i), booking(haircutID, "2026-12-22T10:00:00Z", staff, fmt.Sprintf("w3-%d@example.com", i)))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
	}
	b.Click(t, `[data-action="confirm"]`, nil)
	b.WaitText(t, "#alert", "Helaas, niet elke week is nog vrij. Kies minder weken of een andere tijd.", nil)
	b.WaitText(t, "#repeat-note", "Kies minder weken of een andere tijd.", nil)
	assert.Equal(t, "false", frameEval[string](t, b, nil, `return this.querySelector('.dates li[data-occurrence^="2026-12-22"]').dataset.ok;`))
	assert.True(t, frameEval[bool](t, b, nil, `return this.querySelector('[data-action="confirm"]').disabled;`))
	b.Axe(t, "repeat-conflict", nil)
	b.Shot(t, "repeat-conflict")
	requireRefusalsOnly(t, b, 409)
	assert.Empty(t, appointmentsOf(t, s, "sem.once@example.com"), "nothing booked")

	chooseWeeks(t, b, nil, 0)
	b.Run(t, chromedp.WaitNotPresent(chromedp.CSS(".dates"), in(nil)...))
	press(t, b, nil, `[data-action="confirm"]`)
	b.step(t, nil, "once-booked", "Uw afspraak is geboekt")
	got := appointmentsOf(t, s, "sem.once@example.com")
	require.Len(t, got, 1)
	assert.Equal(t, tue+"10:00:00.000Z", got[0]["startTime"])
	assert.Nil(t, got[0]["recurringSeriesId"])
	b.RequireNoJSErrors(t)
}

// chooseWeeks picks n weeks in "Repeat weekly" with the keyboard, as a
// person without a mouse does: Tab to the select, then arrow keys.
func chooseWeeks(t *testing.T, b *browser, f *chromedp.Node, n int) {
	t.Helper()
	tabTo(t, b, f, "#f-repeat")
	for range 60 {
		v := frameEval[int](t, b, f, "return Number(this.getElementById('f-repeat').value);")
		switch {
		case v == n:
			return
		case v < n:
			b.Key(t, kb.ArrowDown)
		default:
			b.Key(t, kb.ArrowUp)
		}
	}
	t.Fatalf("could not choose %d weeks", n)
}
