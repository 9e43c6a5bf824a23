package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Holds through the real server (decisions §6).

func holdBody(start, staff string, ttl int) string {
	b := fmt.Sprintf(`{"serviceId":%q,"startTime":%q`, haircutID, tue+start)
	if staff != "" {
		b += fmt.Sprintf(`,"staffMemberId":%q`, staff)
	}
	if ttl > 0 {
		b += fmt.Sprintf(`,"ttlSeconds":%d`, ttl)
	}
	return b + "}"
}

func heldBooking(hold, email string) string {
	return fmt.Sprintf(`{"holdId":%q,"customer":{"firstName":"Noor","email":%q}}`, hold, email)
}

// TestHoldRace: two clients race for one slot; one holds it, and the
// other's booking, hold and PATCH onto it are refused until the hold is
// released or expires; a booking with the hold books exactly its time.
func TestHoldRace(t *testing.T) {
	s := startWorld(t)
	h := s.post("/api/v1/holds", keyFull, "h-1", holdBody("10:00:00Z", annaID, 60))
	require.Equal(t, 201, h.Status, "%s", h.Raw)
	hold := h.Body["id"].(string)
	require.Equal(t, annaID, h.Body["staffMemberId"])
	require.Equal(t, tue+"10:30:00.000Z", h.Body["endTime"])
	require.Equal(t, "2026-12-01T08:01:00.000Z", h.Body["expiresAt"])
	require.Equal(t, "active", h.Body["status"])

	// The other client is refused while it lives.
	requireError(t, s.post("/api/v1/appointments", keyFull, "b-1", booking(haircutID, tue+"10:00:00Z", annaID, "b@example.com")), 409, "SLOT_TAKEN")
	requireError(t, s.post("/api/v1/holds", keyFull, "h-2", holdBody("10:15:00Z", annaID, 0)), 409, "SLOT_TAKEN")
	slots := s.get("/api/v1/availability/slots?serviceId="+haircutID+"&staffMemberId="+annaID+"&from="+tue+"09:30:00Z&to="+tue+"10:30:00Z", keyFull)
	require.Equal(t, []string{tue + "09:30:00.000Z", tue + "10:30:00.000Z"}, startTimes(slots), "the held time is not offered")
	other := s.post("/api/v1/appointments", keyFull, "b-2", booking(haircutID, tue+"11:00:00Z", annaID, "b@example.com"))
	require.Equal(t, 201, other.Status, "%s", other.Raw)
	requireError(t, s.call("PATCH", "/api/v1/appointments/"+appointmentOf(other)["id"].(string), `{"startTime":"`+tue+`10:15:00Z","staffMemberId":"`+annaID+`"}`), 409, "SLOT_TAKEN")

	// Extend, read back, then book with it: exactly the held footprint.
	s.clock.Advance(30 * time.Second)
	ext := s.call("PATCH", "/api/v1/holds/"+hold, `{"ttlSeconds":600}`)
	require.Equal(t, 200, ext.Status, "%s", ext.Raw)
	require.Equal(t, "2026-12-01T08:10:30.000Z", ext.Body["expiresAt"])
	requireField(t, s.call("PATCH", "/api/v1/holds/"+hold, `{"ttlSeconds":1800}`), "ttlSeconds", "too_large")
	requireField(t, s.call("PATCH", "/api/v1/holds/"+hold, `{"ttlSeconds":10}`), "ttlSeconds", "too_small")
	require.Equal(t, "active", s.get("/api/v1/holds/"+hold, keyFull).Body["status"])
	requireField(t, s.post("/api/v1/appointments", keyFull, "b-3", `{"holdId":"`+hold+`","serviceId":"`+haircutID+`","customer":{"firstName":"A","email":"a@example.com"}}`), "serviceId", "unknown_field")

	b := s.post("/api/v1/appointments", keyFull, "b-4", heldBooking(hold, "held@example.com"))
	require.Equal(t, 201, b.Status, "%s", b.Raw)
	a := appointmentOf(b)
	require.Equal(t, tue+"10:00:00.000Z", a["startTime"])
	require.Equal(t, annaID, a["staffMember"].(map[string]any)["id"])
	used := s.get("/api/v1/holds/"+hold, keyFull)
	require.Equal(t, "booked", used.Body["status"])
	require.Equal(t, a["id"], used.Body["appointmentId"])
	requireError(t, s.post("/api/v1/appointments", keyFull, "b-5", heldBooking(hold, "again@example.com")), 409, "HOLD_EXPIRED")
	requireError(t, s.call("DELETE", "/api/v1/holds/"+hold, ""), 409, "HOLD_EXPIRED")
	requireField(t, s.post("/api/v1/appointments", keyFull, "b-6", heldBooking(salonID, "x@example.com")), "holdId", "invalid")
	requireError(t, s.get("/api/v1/holds/"+salonID, keyFull), 404, "NOT_FOUND")
	requireError(t, s.get("/api/v1/holds/"+hold, keyStudio), 404, "NOT_FOUND")

	// Released: bookable at once; DELETE again is 204.
	h2 := s.post("/api/v1/holds", keyFull, "h-3", holdBody("12:00:00Z", "", 0))
	require.Equal(t, 201, h2.Status, "%s", h2.Raw)
	id2 := h2.Body["id"].(string)
	require.Equal(t, 204, s.call("DELETE", "/api/v1/holds/"+id2, "").Status)
	require.Equal(t, 204, s.call("DELETE", "/api/v1/holds/"+id2, "").Status)
	require.Equal(t, "released", s.get("/api/v1/holds/"+id2, keyFull).Body["status"])
	requireError(t, s.post("/api/v1/appointments", keyFull, "b-7", heldBooking(id2, "late@example.com")), 409, "HOLD_EXPIRED")
	rb := s.post("/api/v1/appointments", keyFull, "b-8", booking(haircutID, tue+"12:00:00Z", h2.Body["staffMemberId"].(string), "c@example.com"))
	require.Equal(t, 201, rb.Status, "%s", rb.Raw)

	// The POST replays as it was answered.
	again := s.post("/api/v1/holds", keyFull, "h-1", holdBody("10:00:00Z", annaID, 60))
	require.Equal(t, string(h.Raw), string(again.Raw))
	require.Equal(t, "true", again.Header.Get("Idempotency-Replayed"))
}

// TestHoldExpiresAcrossRestart: expiry frees the time at expiresAt on the
// server's clock, with no request to wake it, after a restart too.
func TestHoldExpiresAcrossRestart(t *testing.T) {
	data := t.TempDir()
	s := start(t, data, "--world", "testdata/world.json")
	h := s.post("/api/v1/holds", keyFull, "h-1", holdBody("10:00:00Z", annaID, 120))
	require.Equal(t, 201, h.Status, "%s", h.Raw)
	hold := h.Body["id"].(string)
	s.stop()

	s = start(t, data, "--world", "testdata/world.json")
	require.Equal(t, "active", s.get("/api/v1/holds/"+hold, keyFull).Body["status"])
	requireError(t, s.post("/api/v1/appointments", keyFull, "b-1", booking(haircutID, tue+"10:00:00Z", annaID, "b@example.com")), 409, "SLOT_TAKEN")
	s.clock.Advance(121 * time.Second)
	require.Eventually(t, func() bool { return s.get("/api/v1/holds/"+hold, keyFull).Body["status"] == "expired" }, 10*time.Second, 5*time.Millisecond)
	requireError(t, s.post("/api/v1/appointments", keyFull, "b-2", heldBooking(hold, "h@example.com")), 409, "HOLD_EXPIRED")
	ok := s.post("/api/v1/appointments", keyFull, "b-3", booking(haircutID, tue+"10:00:00Z", annaID, "b@example.com"))
	require.Equal(t, 201, ok.Status, "%s", ok.Raw)
}

func startTimes(r resp) []string {
	var out []string
	for _, d := range r.Body["data"].([]any) {
		out = append(out, d.(map[string]any)["startTime"].(string))
	}
	return out
}
