package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// External busy time (decisions §8) through a real server: pushed per
// source, it takes a staff member's time exactly as a booking does, for
// availability, bookings (pinned or not, rules enforced or not), holds,
// moves and explained availability, and leaves bookings already there
// alone.

// chrisID is the salon's third staff member who cuts hair.
const chrisID = "ddb4804a-27d9-5ea9-a275-13245714110f"

func (s *server) putBusy(staff, source, body string) resp {
	return s.request(pcall{method: "PUT", path: "/api/v1/staff/" + staff + "/busy-times/" + source, key: keyCalendars, body: body})
}

// busyBody is a PUT body for tue's window [08:00Z, 18:00Z) with the given
// intervals, each "HH:MM-HH:MM" (UTC) on tue.
func busyBody(intervals ...string) string {
	var items []string
	for i, iv := range intervals {
		from, to, _ := strings.Cut(iv, "-")
		items = append(items, fmt.Sprintf(`{"start":"%s%s:00Z","end":"%s%s:00Z","externalId":"evt-%d","title":"Dentist"}`, tue, from, tue, to, i+1))
	}
	return `{"from":"` + tue + `08:00:00Z","to":"` + tue + `18:00:00Z","busy":[` + strings.Join(items, ",") + `]}`
}

func annaSlots(t *testing.T, s *server) map[string]bool {
	t.Helper()
	r := s.get("/api/v1/availability/slots?serviceId="+haircutID+"&from="+tue+"08:00:00Z&to="+tue+"18:00:00Z&staffMemberId="+annaID, keyFull)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	out := map[string]bool{}
	for _, x := range r.Body["data"].([]any) {
		out[x.(map[string]any)["startTime"].(string)[11:16]] = true
	}
	return out
}

func TestBusyTime(t *testing.T) {
	s := startCalendarWorld(t)
	before := s.post("/api/v1/appointments", keyFull, "b-0", booking(haircutID, tue+"13:00:00Z", annaID, "under@example.com"))
	require.Equal(t, 201, before.Status, "%s", before.Raw)
	underID := before.Body["appointment"].(map[string]any)["id"].(string)
	require.True(t, annaSlots(t, s)["10:00"])

	r := s.putBusy(annaID, "google:primary", busyBody("10:00-11:00", "12:45-14:00"))
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	assert.Equal(t, map[string]any{"staffMemberId": annaID, "source": "google:primary", "from": tue + "08:00:00.000Z",
		"to": tue + "18:00:00.000Z", "count": float64(2), "updatedAt": "2026-12-01T08:00:00.000Z"}, r.Body)

	slots := annaSlots(t, s)
	for _, busy := range []string{"09:45", "10:00", "10:30", "10:45", "12:30", "13:30"} {
		assert.False(t, slots[busy], "%s is busy", busy)
	}
	for _, free := range []string{"09:30", "11:00", "14:00"} {
		assert.True(t, slots[free], "%s is free", free)
	}
	assert.Equal(t, "confirmed", s.get("/api/v1/appointments/"+underID, keyFull).Body["status"], "a booking already there is left alone")

	// Pinned over it: SLOT_TAKEN, rules enforced or not; a hold too.
	requireError(t, s.post("/api/v1/appointments", keyFull, "b-1", booking(haircutID, tue+"10:00:00Z", annaID, "x1@example.com")), 409, "SLOT_TAKEN")
	loose := strings.TrimSuffix(booking(haircutID, tue+"10:15:00Z", annaID, "x2@example.com"), "}") + `,"enforceBookingRules":false}`
	requireError(t, s.post("/api/v1/appointments", keyFull, "b-2", loose), 409, "SLOT_TAKEN")
	requireError(t, s.post("/api/v1/holds", keyFull, "b-3", `{"serviceId":"`+haircutID+`","startTime":"`+tue+`10:00:00Z","staffMemberId":"`+annaID+`"}`), 409, "SLOT_TAKEN")
	// Moving a booking onto it with Anna: SLOT_TAKEN.
	moved := s.request(pcall{method: "PATCH", path: "/api/v1/appointments/" + underID, key: keyFull,
		body: `{"startTime":"` + tue + `10:30:00Z","staffMemberId":"` + annaID + `"}`})
	requireError(t, moved, 409, "SLOT_TAKEN")

	// Unpinned, the assignment passes over Anna; with everyone busy,
	// NO_STAFF_AVAILABLE.
	auto := s.post("/api/v1/appointments", keyFull, "b-4", booking(haircutID, tue+"10:00:00Z", "", "x3@example.com"))
	require.Equal(t, 201, auto.Status, "%s", auto.Raw)
	assert.NotEqual(t, annaID, auto.Body["appointment"].(map[string]any)["staffMember"].(map[string]any)["id"])
	require.Equal(t, 200, s.putBusy(bramID, "crm", busyBody("10:00-11:00")).Status)
	require.Equal(t, 200, s.putBusy(chrisID, "crm", busyBody("10:00-11:00")).Status)
	requireError(t, s.post("/api/v1/appointments", keyFull, "b-5", booking(haircutID, tue+"10:30:00Z", "", "x4@example.com")), 409, "NO_STAFF_AVAILABLE")

	// Explained: the staff member's verdict names the source.
	c := s.post("/api/v1/availability/check", keyFull, "", `{"serviceId":"`+haircutID+`","staffMemberId":"`+annaID+`","startTimes":["`+tue+`10:15:00Z"]}`)
	require.Equal(t, 200, c.Status, "%s", c.Raw)
	sv := c.Body["data"].([]any)[0].(map[string]any)["staff"].([]any)[0].(map[string]any)
	assert.Equal(t, "SLOT_TAKEN", sv["code"])
	assert.Equal(t, "google:primary", sv["busySource"])
	assert.Equal(t, "evt-1", sv["externalId"])

	// The list, by start, filtered by source.
	list := s.request(pcall{method: "GET", path: "/api/v1/staff/" + annaID + "/busy-times?from=" + tue + "00:00:00Z&to=" + tue + "23:00:00Z", key: keyCalendars})
	require.Equal(t, 200, list.Status, "%s", list.Raw)
	data := list.Body["data"].([]any)
	require.Len(t, data, 2)
	assert.Equal(t, map[string]any{"source": "google:primary", "start": tue + "10:00:00.000Z", "end": tue + "11:00:00.000Z", "externalId": "evt-1", "title": "Dentist"}, data[0])
	none := s.request(pcall{method: "GET", path: "/api/v1/staff/" + annaID + "/busy-times?from=" + tue + "00:00:00Z&to=" + tue + "23:00:00Z&source=crm", key: keyCalendars})
	assert.Empty(t, none.Body["data"])

	// It survives a restart; a new window replaces exactly what it
	// intersects; DELETE clears the source.
	s.stop()
	s2 := start(t, s.data)
	assert.False(t, annaSlots(t, s2)["10:00"])
	require.Equal(t, 200, s2.putBusy(annaID, "google:primary",
		`{"from":"`+tue+`09:00:00Z","to":"`+tue+`12:00:00Z","busy":[{"start":"`+tue+`11:00:00Z","end":"`+tue+`11:30:00Z"}]}`).Status)
	slots = annaSlots(t, s2)
	assert.True(t, slots["10:00"], "the old interval in the window is gone")
	assert.False(t, slots["11:00"], "the new one is there")
	assert.False(t, slots["13:30"], "outside the window, kept")
	require.Equal(t, 204, s2.request(pcall{method: "DELETE", path: "/api/v1/staff/" + annaID + "/busy-times/google:primary", key: keyCalendars}).Status)
	assert.True(t, annaSlots(t, s2)["11:00"])
	require.Equal(t, 204, s2.request(pcall{method: "DELETE", path: "/api/v1/staff/" + annaID + "/busy-times/google:primary", key: keyCalendars}).Status, "nothing to clear is fine")
}

func TestBusyTimeRefusals(t *testing.T) {
	s := startCalendarWorld(t)
	requireField(t, s.putBusy(annaID, "Google", busyBody()), "source", "invalid_format")
	requireField(t, s.putBusy(annaID, strings.Repeat("a", 65), busyBody()), "source", "invalid_format")
	requireError(t, s.putBusy("not-a-uuid", "crm", busyBody()), 404, "NOT_FOUND")
	requireError(t, s.putBusy(haircutID, "crm", busyBody()), 404, "NOT_FOUND")
	requireError(t, s.request(pcall{method: "PUT", path: "/api/v1/staff/" + annaID + "/busy-times/crm", key: keyFull, body: busyBody()}), 403, "INSUFFICIENT_SCOPE")
	requireField(t, s.putBusy(annaID, "crm", `{"from":"2026-01-01T00:00:00Z","to":"2027-02-06T00:00:00Z","busy":[]}`), "to", "too_large")
	requireField(t, s.putBusy(annaID, "crm", `{"from":"2026-01-02T00:00:00Z","to":"2026-01-01T00:00:00Z","busy":[]}`), "to", "invalid")
	requireField(t, s.putBusy(annaID, "crm", `{"from":"`+tue+`08:00:00Z","to":"`+tue+`09:00:00Z","busy":[{"start":"`+tue+`08:30:00Z","end":"`+tue+`09:30:00Z"}]}`), "busy.0.start", "invalid")
	requireField(t, s.putBusy(annaID, "crm", `{"from":"`+tue+`08:00:00Z","to":"`+tue+`09:00:00Z","busy":[{"start":"`+tue+`08:30:00Z","end":"`+tue+`08:30:00Z"}]}`), "busy.0.end", "invalid")
	requireField(t, s.putBusy(annaID, "crm", `{"from":"`+tue+`08:00:00Z","to":"`+tue+`09:00:00Z","busy":[{"start":"`+tue+`08:30:00Z"}]}`), "busy.0.end", "required")
	requireField(t, s.putBusy(annaID, "crm", `{"from":"`+tue+`08:00:00Z","to":"`+tue+`09:00:00Z"}`), "busy", "required")
	var many strings.Builder
	many.WriteString(`{"from":"2026-12-01T00:00:00Z","to":"2027-01-01T00:00:00Z","busy":[`)
	for i := range 10001 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `{"start":"2026-12-02T00:00:%02d.%03dZ","end":"2026-12-02T00:01:00Z"}`, i/1000%60, i%1000)
	}
	many.WriteString(`]}`)
	require.Greater(t, many.Len(), 64<<10, "a body the 64 KiB limit would refuse")
	requireField(t, s.putBusy(annaID, "crm", many.String()), "busy", "too_large")
	list := s.request(pcall{method: "GET", path: "/api/v1/staff/" + annaID + "/busy-times?from=2026-01-01T00:00:00Z", key: keyCalendars})
	requireField(t, list, "to", "required")
}

// A busy-time PUT racing 32 bookings of the same staff member and time:
// the actor orders them. Whatever came first, once the PUT is answered no
// booking over it is taken, and the bookings taken never overlap.
func TestBusyTimeRacesBookings(t *testing.T) {
	s := startCalendarWorld(t)
	var wg sync.WaitGroup
	answers := make([]int, 32)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := []string{"15:00", "15:15", "15:30", "15:45"}[i%4]
			r := s.post("/api/v1/appointments", keyFull, fmt.Sprint("race-", i), booking(haircutID, tue+start+":00Z", annaID, fmt.Sprintf("race%d@example.com", i)))
			answers[i] = r.Status
		}()
	}
	put := s.putBusy(annaID, "crm", busyBody("15:00-16:00"))
	wg.Wait()
	require.Equal(t, 200, put.Status, "%s", put.Raw)
	taken := 0
	for _, st := range answers {
		require.Contains(t, []int{201, 409}, st)
		if st == 201 {
			taken++
		}
	}
	assert.LessOrEqual(t, taken, 2, "at most 15:00 and 15:30, or 15:15 and 15:45, each once")
	for i := range 8 {
		requireError(t, s.post("/api/v1/appointments", keyFull, fmt.Sprint("after-", i), booking(haircutID, tue+"15:30:00Z", annaID, "late@example.com")), 409, "SLOT_TAKEN")
	}
}
