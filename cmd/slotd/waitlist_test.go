package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/webhook/mail/mailtest"
)

// The waitlist through the real server (decisions §6).

func entryBody(email, from, to string) string {
	return fmt.Sprintf(`{"serviceId":%q,"staffMemberId":%q,"from":%q,"to":%q,"customer":{"firstName":"W","email":%q}}`,
		haircutID, annaID, tue+from, tue+to, email)
}

func (s *server) entry(id string) map[string]any {
	r := s.get("/api/v1/waitlist-entries/"+id, keyFull)
	require.Equal(s.t, 200, r.Status, "%s", r.Raw)
	return r.Body
}

func (s *server) waitEntry(id, status string) map[string]any {
	var e map[string]any
	require.Eventually(s.t, func() bool { e = s.entry(id); return e["status"] == status }, 10*time.Second, 5*time.Millisecond,
		"entry %s never became %s: %v", id, status, func() any { return e })
	return e
}

func offerOf(e map[string]any) map[string]any { return e["offer"].(map[string]any) }

// TestWaitlistOffers: a cancellation offers the freed time to the oldest
// matching entry with a hold that blocks others; booking with it books the
// entry; the next entry gets the rest; a lapse hands the time on; offers
// and timers survive a restart; entries past their window expire.
func TestWaitlistOffers(t *testing.T) {
	data := t.TempDir()
	s := start(t, data, "--world", "testdata/world.json", "--webhooks-allow-insecure")
	rcv := newReceiver(t)
	ep, _ := s.register(rcv, "/w", "waitlist.offered")

	a := s.post("/api/v1/appointments", keyFull, "a-1", booking(haircutID, tue+"10:00:00Z", annaID, "a@example.com"))
	require.Equal(t, 201, a.Status, "%s", a.Raw)
	mk := func(key, email string) string {
		r := s.post("/api/v1/waitlist-entries", keyFull, key, entryBody(email, "09:00:00Z", "12:00:00Z"))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		require.Equal(t, "waiting", r.Body["status"])
		require.Nil(t, r.Body["offer"])
		s.clock.Advance(time.Millisecond) // distinct createdAt: a fixed order
		return r.Body["id"].(string)
	}
	e1, e2, e3 := mk("w-1", "one@example.com"), mk("w-2", "two@example.com"), mk("w-3", "three@example.com")
	requireField(t, s.post("/api/v1/waitlist-entries", keyFull, "w-4", entryBody("x@example.com", "09:00:00Z", "08:00:00Z")), "to", "invalid")
	list := s.get("/api/v1/waitlist-entries?status=waiting", keyFull)
	require.Len(t, list.Body["data"], 3)

	// The cancellation frees 10:00-10:30: the oldest entry is offered the
	// earliest start that became bookable (09:45), the next one the next
	// (10:15); the third gets nothing.
	cx := s.call("POST", "/api/v1/appointments/"+appointmentOf(a)["id"].(string)+"/status", `{"status":"cancelled"}`)
	require.Equal(t, 200, cx.Status, "%s", cx.Raw)
	o1 := offerOf(s.waitEntry(e1, "offered"))
	require.Equal(t, tue+"09:45:00.000Z", o1["startTime"])
	require.Equal(t, annaID, o1["staffMemberId"])
	o2 := offerOf(s.waitEntry(e2, "offered"))
	require.Equal(t, tue+"10:15:00.000Z", o2["startTime"])
	require.Equal(t, "waiting", s.entry(e3)["status"])
	h1 := s.get("/api/v1/holds/"+o1["holdId"].(string), keyFull)
	require.Equal(t, e1, h1.Body["waitlistEntryId"])
	require.Equal(t, "2026-12-01T08:15:00.003Z", h1.Body["expiresAt"], "900 s")

	// The offer's hold blocks everyone else.
	requireError(t, s.post("/api/v1/appointments", keyFull, "b-1", booking(haircutID, tue+"09:45:00Z", annaID, "b@example.com")), 409, "SLOT_TAKEN")

	// The offer was announced to the subscribed endpoint, as the entry.
	s.waitDeliveries(ep, func(ds []map[string]any) bool { return len(ds) == 2 && settled(ds) })
	_, bodies := rcv.events()
	var offered []any
	for _, body := range bodies {
		var ev struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &ev))
		require.Equal(t, "waitlist.offered", ev.Type)
		require.Equal(t, "offered", ev.Data["status"])
		offered = append(offered, ev.Data["id"])
	}
	require.ElementsMatch(t, []any{e1, e2}, offered)

	// Booking with the hold books the entry.
	b := s.post("/api/v1/appointments", keyFull, "b-2", heldBooking(o1["holdId"].(string), "one@example.com"))
	require.Equal(t, 201, b.Status, "%s", b.Raw)
	booked := s.entry(e1)
	require.Equal(t, "booked", booked["status"])
	require.Equal(t, appointmentOf(b)["id"], booked["appointmentId"])

	// Offers and their timers survive a restart; the lapse of e2's offer
	// hands the time to e3, and e2 waits again.
	s.stop()
	s = start(t, data, "--world", "testdata/world.json", "--webhooks-allow-insecure")
	require.Equal(t, "offered", s.entry(e2)["status"])
	s.clock.Advance(16 * time.Minute)
	o3 := offerOf(s.waitEntry(e3, "offered"))
	require.Equal(t, tue+"10:15:00.000Z", o3["startTime"])
	require.Equal(t, "waiting", s.waitEntry(e2, "waiting")["status"])
	require.Equal(t, "expired", s.get("/api/v1/holds/"+o2["holdId"].(string), keyFull).Body["status"])

	// Deleting an offered entry releases its hold: the time goes to e2.
	require.Equal(t, 204, s.call("DELETE", "/api/v1/waitlist-entries/"+e3, "").Status)
	requireError(t, s.get("/api/v1/waitlist-entries/"+e3, keyFull), 404, "NOT_FOUND")
	require.Equal(t, tue+"10:15:00.000Z", offerOf(s.waitEntry(e2, "offered"))["startTime"])

	// Past its window, an entry that waits expires.
	s.clock.Advance(16 * time.Minute) // e2's offer lapses; nobody else waits
	s.waitEntry(e2, "waiting")
	s.clock.Advance(8 * 24 * time.Hour)
	s.waitEntry(e2, "expired")

	// Since the restart: e3 offered, e2 offered again, both lapsed or released.
	mfs := s.scrape()
	nOffered, _ := value(mfs, "slotd_waitlist_offers_total", "outcome", "offered")
	lapsed, _ := value(mfs, "slotd_waitlist_offers_total", "outcome", "lapsed")
	expired, _ := value(mfs, "slotd_holds_total", "outcome", "expired")
	require.Equal(t, []float64{2, 3, 2}, []float64{nOffered, lapsed, expired})
}

// TestWaitlistOfferMail: the offer reaches the entry's customer by e-mail,
// with the time held, in the business's time zone, and the offer reference.
func TestWaitlistOfferMail(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{User: smtpUser, Password: smtpPassword})
	s := startSMTPWorld(t, srv)
	a := s.post("/api/v1/appointments", keyFull, "a-1", booking(haircutID, tue+"10:00:00Z", annaID, "booked@example.com"))
	require.Equal(t, 201, a.Status, "%s", a.Raw)
	e := s.post("/api/v1/waitlist-entries", keyFull, "w-1", entryBody(mailCustomer, "10:00:00Z", "10:00:00Z"))
	require.Equal(t, 201, e.Status, "%s", e.Raw)
	require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+appointmentOf(a)["id"].(string)+"/status", `{"status":"cancelled"}`).Status)
	hold := offerOf(s.waitEntry(e.Body["id"].(string), "offered"))["holdId"].(string)

	msgs := waitMail(t, srv, 3) // confirmation, cancellation, offer
	var offer *mailtest.Message
	for i := range msgs {
		if len(msgs[i].To) == 1 && msgs[i].To[0] == mailCustomer {
			offer = &msgs[i]
		}
	}
	require.NotNil(t, offer, "no message to the entry's customer")
	p := requireSMTPMail(t, *offer, "A time at Salon Example has become free for you")
	text, _ := p.Part("text/plain")
	require.Contains(t, text.Body, hold)
	require.Contains(t, text.Body, "11:00", "10:00Z is 11:00 in Amsterdam")
}
