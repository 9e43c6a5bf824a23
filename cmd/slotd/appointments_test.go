package main

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const (
	seriesID = "b69f2ff5-8789-5324-8710-1b16313c5229"
	bramID   = "95269c55-98d9-5dac-a440-a4ad84eb6baa"
)

func TestWorldSeriesAreMaterialized(t *testing.T) {
	s := startWorld(t)
	ids := walk(t, s, "/api/v1/appointments", nil, "3")
	require.Len(t, ids, 4, "FREQ=WEEKLY;COUNT=4")
	r := s.get("/api/v1/appointments?limit=100", keyFull)
	var starts []string
	for _, d := range r.Body["data"].([]any) {
		a := d.(map[string]any)
		starts = append(starts, a["startTime"].(string))
		require.Equal(t, seriesID, a["recurringSeriesId"])
		require.Equal(t, true, a["isRecurringOccurrence"])
		require.Equal(t, "confirmed", a["status"])
		require.Equal(t, map[string]any{"id": bramID, "name": "Bram"}, a["staffMember"])
		require.Equal(t, evaID, a["customer"].(map[string]any)["id"])
		require.Equal(t, "eva@example.com", a["customer"].(map[string]any)["email"])
		require.EqualValues(t, 3500, a["basePriceCents"])
		require.Equal(t, "EUR", a["currency"])
		segs := a["segments"].([]any)
		require.Len(t, segs, 1)
		require.Equal(t, a["startTime"], segs[0].(map[string]any)["startTime"])
	}
	require.Equal(t, []string{"2027-01-26T09:00:00.000Z", "2027-01-19T09:00:00.000Z", "2027-01-12T09:00:00.000Z", "2027-01-05T09:00:00.000Z"}, starts,
		"startTime descending; Amsterdam wall clock kept (no DST change in January)")

	one := s.get("/api/v1/appointments/"+ids[0], keyFull)
	require.Equal(t, 200, one.Status)
	require.Equal(t, ids[0], one.Body["id"])
	requireError(t, s.get("/api/v1/appointments/"+seriesID, keyFull), 404, "NOT_FOUND")
	requireError(t, s.get("/api/v1/appointments/"+ids[0], keyStudio), 404, "NOT_FOUND")

	// Reloading the world adds nothing: occurrence ids are stable.
	world := s.adminDo("POST", "/admin/v1/world", mustRead(t, "testdata/world.json"))
	require.Equal(t, 200, world.Status, "%s", world.Raw)
	require.Len(t, walk(t, s, "/api/v1/appointments", nil, "100"), 4)
}

func TestAppointmentListFilters(t *testing.T) {
	s := startWorld(t)
	count := func(q string) int {
		r := s.get("/api/v1/appointments?limit=100&"+q, keyFull)
		require.Equal(t, 200, r.Status, "%s: %s", q, r.Raw)
		return len(r.Body["data"].([]any))
	}
	require.Equal(t, 4, count("staffMemberId="+bramID))
	require.Equal(t, 0, count("staffMemberId="+annaID))
	require.Equal(t, 4, count("customerId="+evaID+"&serviceId="+haircutID+"&status=confirmed"))
	require.Equal(t, 0, count("status=cancelled"))
	require.Equal(t, 2, count("from=2027-01-12T09:00:00Z&to=2027-01-19T09:00:00Z"), "both ends inclusive")
	require.Equal(t, 1, count("from=2027-01-26T09:00:00Z"))
	require.Equal(t, 1, count("to=2027-01-05T09:00:00Z"))
	require.Equal(t, 4, count("updatedSince=2026-01-01T00:00:00Z"))
	require.Equal(t, 0, count("updatedSince=2030-01-01T00:00:00Z"))
	requireField(t, s.get("/api/v1/appointments?status=done", keyFull), "status", "invalid_option")
	requireField(t, s.get("/api/v1/appointments?from=yesterday", keyFull), "from", "invalid_date")
	requireField(t, s.get("/api/v1/appointments?from=2027-02-01T00:00:00Z&to=2027-01-01T00:00:00Z", keyFull), "to", "invalid")
	requireField(t, s.get("/api/v1/appointments?customerId=eva", keyFull), "customerId", "invalid_format")
	requireField(t, s.get("/api/v1/appointments?sort=asc", keyFull), "sort", "unknown_field")

	// A walk with a filter, repeated on every page, sees each record once.
	all := walk(t, s, "/api/v1/appointments", map[string][]string{"from": {"2027-01-10T00:00:00Z"}}, "1")
	require.Len(t, all, 3)
	r := s.get("/api/v1/appointments?limit=1&from=2027-01-10T00:00:00Z", keyFull)
	cur := r.Body["nextCursor"].(string)
	requireField(t, s.get("/api/v1/appointments?limit=1&cursor="+cur, keyFull), "cursor", "invalid")
}

func TestAvailability(t *testing.T) {
	s := startWorld(t)
	get := func(q string) resp { return s.get("/api/v1/availability/slots?"+q, keyFull) }
	// Tuesday 2027-01-05: Anna and Bram work 09:00-12:30 and 13:00-18:00
	// Amsterdam (08:00Z-11:30Z, 12:00Z-17:00Z); Bram has the series'
	// haircut at 09:00Z; Chris is not bookable.
	r := get("serviceId=" + haircutID + "&from=2027-01-05T00:00:00Z&to=2027-01-05T23:59:59Z")
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	require.Equal(t, "no-store", r.Header.Get("Cache-Control"))
	slots := map[string][]any{}
	var order []string
	for _, d := range r.Body["data"].([]any) {
		m := d.(map[string]any)
		slots[m["startTime"].(string)] = m["staffMemberIds"].([]any)
		order = append(order, m["startTime"].(string))
	}
	require.Equal(t, "2027-01-05T08:00:00.000Z", order[0])
	require.Equal(t, "2027-01-05T16:30:00.000Z", order[len(order)-1])
	require.ElementsMatch(t, []any{annaID, bramID}, slots["2027-01-05T08:00:00.000Z"])
	require.Equal(t, []any{annaID}, slots["2027-01-05T09:00:00.000Z"], "Bram is booked")
	require.Equal(t, []any{annaID}, slots["2027-01-05T08:45:00.000Z"], "would run into Bram's booking")
	require.Contains(t, slots, "2027-01-05T11:00:00.000Z")
	require.NotContains(t, slots, "2027-01-05T11:15:00.000Z", "would run into the lunch break")

	only := get("serviceId=" + haircutID + "&from=2027-01-05T09:00:00Z&to=2027-01-05T09:00:00Z&staffMemberId=" + bramID)
	require.Empty(t, only.Body["data"])
	require.Empty(t, get("serviceId=06cf7518-da7d-553f-a5c9-64471b777e38&from=2027-01-05T00:00:00Z&to=2027-01-06T00:00:00Z").Body["data"], "inactive service")

	requireField(t, get("from=2027-01-05T00:00:00Z&to=2027-01-06T00:00:00Z"), "serviceId", "required")
	requireField(t, get("serviceId="+deletedSvcID+"&from=2027-01-05T00:00:00Z&to=2027-01-06T00:00:00Z"), "serviceId", "invalid")
	m := requireField(t, get("serviceId="+haircutID+"&from=2027-01-01T00:00:00Z&to=2027-02-02T00:00:00Z"), "to", "too_large")
	require.EqualValues(t, 31, m["limit"])
	requireField(t, get("serviceId="+haircutID+"&from=2027-01-06T00:00:00Z&to=2027-01-05T00:00:00Z"), "to", "invalid")
	requireField(t, get("serviceId="+haircutID+"&from=2027-01-05T00:00:00Z&to=2027-01-06T00:00:00Z&staffMemberId=00000000-0000-4000-8000-000000000000"), "staffMemberId", "invalid")
	studio := s.get("/api/v1/availability/slots?serviceId="+massageID+"&from=2027-01-05T00:00:00Z&to=2027-01-06T00:00:00Z", keyStudio)
	require.Equal(t, 200, studio.Status)
	require.NotEmpty(t, studio.Body["data"])
	requireField(t, s.get("/api/v1/availability/slots?serviceId="+massageID+"&from=2027-01-05T00:00:00Z&to=2027-01-06T00:00:00Z", keyFull), "serviceId", "invalid")
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// TestAvailabilityIsNeverStale checks the server-side memo of availability
// answers at its edges: a booking changes the answer at once, and so does
// the clock passing the minimum notice by a single second.
func TestAvailabilityIsNeverStale(t *testing.T) {
	s := startWorld(t)
	// The salon needs 60 minutes' notice; the test clock starts at
	// 2026-12-01T08:00:00Z, a Tuesday on which Anna works from 08:00Z.
	q := "/api/v1/availability/slots?serviceId=" + haircutID + "&from=2026-12-01T09:00:00Z&to=2026-12-01T09:30:00Z&staffMemberId=" + annaID
	starts := func() []string {
		var out []string
		for _, d := range s.get(q, keyFull).Body["data"].([]any) {
			out = append(out, d.(map[string]any)["startTime"].(string))
		}
		return out
	}
	require.Equal(t, []string{"2026-12-01T09:00:00.000Z", "2026-12-01T09:15:00.000Z", "2026-12-01T09:30:00.000Z"}, starts())
	require.Equal(t, starts(), starts(), "asked twice, answered alike")
	s.clock.Advance(time.Second) // 09:00 is now 59m59s away: too soon
	require.Equal(t, []string{"2026-12-01T09:15:00.000Z", "2026-12-01T09:30:00.000Z"}, starts())
	r := s.post("/api/v1/appointments", keyFull, "stale-1", booking(haircutID, "2026-12-01T09:30:00Z", annaID, "stale@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	require.Empty(t, starts(), "09:30 is booked, and a 09:15 haircut would run into it")
}
