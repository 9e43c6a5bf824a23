package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// POST /availability/check through the real server (decisions §6).

func checkBody(staff string, starts ...string) string {
	b := fmt.Sprintf(`{"serviceId":%q`, haircutID)
	if staff != "" {
		b += fmt.Sprintf(`,"staffMemberId":%q`, staff)
	}
	return b + `,"startTimes":["` + strings.Join(starts, `","`) + `"]}`
}

// TestCheckAgreesWithBooking: each start's code, and each staff member's,
// is what a booking made right after gets.
func TestCheckAgreesWithBooking(t *testing.T) {
	s := startWorld(t)
	a := s.post("/api/v1/appointments", keyFull, "a-1", booking(haircutID, tue+"10:00:00Z", annaID, "a@example.com"))
	require.Equal(t, 201, a.Status, "%s", a.Raw)
	h := s.post("/api/v1/holds", keyFull, "h-1", holdBody("11:00:00Z", bramID, 0))
	require.Equal(t, 201, h.Status, "%s", h.Raw)

	starts := []string{tue + "10:00:00Z", tue + "11:00:00Z", tue + "10:05:00Z", tue + "06:00:00Z", "2026-12-01T08:30:00Z",
		"2027-06-01T10:00:00Z", tue + "11:15:00Z", "2026-12-31T13:00:00Z", tue + "12:30:00Z"}
	r := s.call("POST", "/api/v1/availability/check", checkBody("", starts...))
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	data := r.Body["data"].([]any)
	require.Len(t, data, len(starts))
	codes := map[string]any{}
	for i, d := range data {
		v := d.(map[string]any)
		require.Equal(t, starts[i], strings.Replace(v["startTime"].(string), ".000Z", "Z", 1), "request order")
		codes[starts[i]] = v["code"]
		require.Equal(t, v["code"] == nil, v["bookable"])
		staff := v["staff"].([]any)
		require.NotEmpty(t, staff)
		for _, sv := range staff {
			m := sv.(map[string]any)
			require.Equal(t, m["code"] == nil, m["free"])
		}
	}
	require.Equal(t, map[string]any{
		tue + "10:00:00Z": nil, // Anna is booked, Bram is free
		tue + "11:00:00Z": nil, // Bram is held, Anna is free
		tue + "10:05:00Z": "SLOT_NOT_OFFERED", tue + "06:00:00Z": "SLOT_NOT_OFFERED",
		"2026-12-01T08:30:00Z": "BOOKING_TOO_SOON", "2027-06-01T10:00:00Z": "BOOKING_TOO_FAR_AHEAD",
		tue + "11:15:00Z": "SLOT_NOT_OFFERED", "2026-12-31T13:00:00Z": "BOOKING_PERIOD_RESTRICTED", tue + "12:30:00Z": nil,
	}, codes)

	// Per staff member, and pinned: exactly what a pinned booking gets.
	for _, staff := range []string{annaID, bramID} {
		p := s.call("POST", "/api/v1/availability/check", checkBody(staff, starts...))
		require.Equal(t, 200, p.Status, "%s", p.Raw)
		for i, d := range p.Body["data"].([]any) {
			v := d.(map[string]any)
			require.Len(t, v["staff"], 1)
			require.Equal(t, staff, v["staff"].([]any)[0].(map[string]any)["id"])
			got := s.post("/api/v1/appointments", keyFull, fmt.Sprintf("c-%s-%d", staff, i), booking(haircutID, starts[i], staff, fmt.Sprintf("c%d@example.com", i)))
			if v["code"] == nil {
				require.Equal(t, 201, got.Status, "%s checked bookable for %s: %s", starts[i], staff, got.Raw)
				// Undo it, so the next staff member sees the same calendar.
				id := appointmentOf(got)["id"].(string)
				require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+id+"/status", `{"status":"cancelled"}`).Status)
				continue
			}
			require.Equal(t, v["code"], got.Body["code"], "%s for %s: %s", starts[i], staff, got.Raw)
		}
	}

	requireField(t, s.call("POST", "/api/v1/availability/check", `{"serviceId":"`+haircutID+`","startTimes":[]}`), "startTimes", "too_small")
	requireField(t, s.call("POST", "/api/v1/availability/check", `{"serviceId":"`+deletedSvcID+`","startTimes":["`+tue+`10:00:00Z"]}`), "serviceId", "invalid")
	requireField(t, s.call("POST", "/api/v1/availability/check", `{"serviceId":"`+haircutID+`","startTimes":["tomorrow"]}`), "startTimes.0", "invalid_date")
	ro := do(t, "POST", s.base+"/api/v1/availability/check", keyRead, []byte(checkBody("", tue+"10:00:00Z")))
	require.Equal(t, 200, ro.Status, "a read-only key may check: %s", ro.Raw)
}

// TestHoldBookingRace64: 64 clients mixing holds and bookings race for one
// slot of one staff member: exactly one wins, and every other one is
// refused with SLOT_TAKEN.
func TestHoldBookingRace64(t *testing.T) {
	s := startWorld(t)
	var wg sync.WaitGroup
	results := make([]resp, 64)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				results[i] = s.post("/api/v1/holds", keyFull, fmt.Sprint("rh-", i), holdBody("14:00:00Z", annaID, 0))
				return
			}
			results[i] = s.post("/api/v1/appointments", keyFull, fmt.Sprint("rb-", i), booking(haircutID, tue+"14:00:00Z", annaID, fmt.Sprintf("r%d@example.com", i)))
		}()
	}
	wg.Wait()
	won := 0
	for _, r := range results {
		switch r.Status {
		case 201:
			won++
		default:
			require.Equal(t, 409, r.Status, "%s", r.Raw)
			require.Equal(t, "SLOT_TAKEN", r.Body["code"])
		}
	}
	require.Equal(t, 1, won, "exactly one winner")
	slots := s.get("/api/v1/availability/slots?serviceId="+haircutID+"&staffMemberId="+annaID+"&from="+tue+"14:00:00Z&to="+tue+"14:00:00Z", keyFull)
	require.Empty(t, slots.Body["data"])
}
