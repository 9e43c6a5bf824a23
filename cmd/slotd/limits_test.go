package main

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Booking limits (decisions §9) through a real server: a haircut may be
// booked three times a day per staff member. However many bookings race
// for the last places, exactly the limit's worth get through: the business
// actor decides one at a time against the tally of what it has booked.

// limitedHaircut edits the salon so that a staff member takes at most
// perDay haircuts a day.
func limitedHaircut(perDay int) func(biz map[string]any) {
	return func(biz map[string]any) {
		for _, s := range biz["services"].([]any) {
			if svc := s.(map[string]any); svc["id"] == haircutID {
				svc["bookingLimits"] = map[string]any{"perDay": perDay, "perWeek": nil}
			}
		}
	}
}

// race sends n bookings of a haircut on tue at once, each at one of the
// day's starts in turn, pinned to staff when it is not "", and returns
// the answers by status and code.
func race(t *testing.T, post func(i int, body string) resp, n int, staff string) map[string]int {
	t.Helper()
	starts := []string{"08:00", "08:30", "09:00", "09:30", "10:00", "10:30", "11:00", "12:00", "12:30", "13:00",
		"13:30", "14:00", "14:30", "15:00", "15:30", "16:00"}
	return raceBodies(t, post, n, func(i int) string {
		return booking(haircutID, tue+starts[i%len(starts)]+":00Z", staff, fmt.Sprintf("race%d@example.com", i))
	})
}

// raceBodies posts n bodies at once and counts the answers by status
// and, for a refusal, code ("201", "409 SLOT_TAKEN").
func raceBodies(t *testing.T, post func(i int, body string) resp, n int, body func(i int) string) map[string]int {
	t.Helper()
	var mu sync.Mutex
	got := map[string]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := post(i, body(i))
			key := fmt.Sprint(r.Status)
			if r.Status != 201 {
				key += " " + fmt.Sprint(r.Body["code"])
			}
			mu.Lock()
			got[key]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return got
}

func TestBookingLimits(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, limitedHaircut(3)))
	svc := s.get("/api/v1/services/"+haircutID, keyFull)
	assert.Equal(t, map[string]any{"perDay": float64(3), "perWeek": nil}, svc.Body["bookingLimits"])

	// 64 at once, pinned to Anna: three get through; the rest are refused
	// for the limit, or (before it was reached) for a start already taken.
	post := func(i int, body string) resp {
		return s.post("/api/v1/appointments", keyFull, fmt.Sprint("pin-", i), body)
	}
	got := race(t, post, 64, annaID)
	require.Equal(t, 3, got["201"], "%v", got)
	require.Equal(t, 64, got["201"]+got["422 BOOKING_LIMIT_REACHED"]+got["409 SLOT_TAKEN"], "%v", got)
	assert.Positive(t, got["422 BOOKING_LIMIT_REACHED"])
	assert.Empty(t, annaSlots(t, s), "Anna is offered nothing more that day")
	v := checkAnna(t, s, tue+"16:30:00Z")
	assert.Equal(t, "BOOKING_LIMIT_REACHED", v["code"])

	// 64 at once, nobody pinned: three for Bram, who also cuts hair; Anna,
	// at her limit, is passed over, and then everyone is at it.
	post = func(i int, body string) resp {
		return s.post("/api/v1/appointments", keyFull, fmt.Sprint("auto-", i), body)
	}
	got = race(t, post, 64, "")
	require.Equal(t, 3, got["201"], "%v", got)
	require.Equal(t, 64, got["201"]+got["422 BOOKING_LIMIT_REACHED"]+got["409 NO_STAFF_AVAILABLE"], "%v", got)
	perStaff := map[string]int{}
	list := s.get("/api/v1/appointments?from="+tue+"00:00:00Z&to="+tue+"23:59:00Z&limit=100", keyFull)
	require.Equal(t, 200, list.Status, "%s", list.Raw)
	for _, a := range list.Body["data"].([]any) {
		perStaff[a.(map[string]any)["staffMember"].(map[string]any)["id"].(string)]++
	}
	assert.Equal(t, map[string]int{annaID: 3, bramID: 3}, perStaff)
	requireError(t, s.post("/api/v1/appointments", keyFull, "auto-last", booking(haircutID, tue+"16:30:00Z", "", "x@example.com")),
		422, "BOOKING_LIMIT_REACHED")

	// Without the rules the limit does not apply.
	loose := `{"serviceId":"` + haircutID + `","startTime":"` + tue + `16:45:00Z","staffMemberId":"` + annaID +
		`","enforceBookingRules":false,"customer":{"firstName":"Loose","email":"loose@example.com"}}`
	r := s.post("/api/v1/appointments", keyFull, "loose", loose)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	looseID := r.Body["appointment"].(map[string]any)["id"].(string)

	// A cancelled booking frees its place; reinstating it once the place is
	// taken again is refused.
	wed := "2026-12-09T"
	var ids []string
	for i, at := range []string{"09:00", "10:00", "13:00"} {
		r := s.post("/api/v1/appointments", keyFull, fmt.Sprint("wed-", i), booking(haircutID, wed+at+":00Z", annaID, fmt.Sprintf("w%d@example.com", i)))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		ids = append(ids, r.Body["appointment"].(map[string]any)["id"].(string))
	}
	requireError(t, s.post("/api/v1/appointments", keyFull, "wed-3", booking(haircutID, wed+"14:00:00Z", annaID, "w3@example.com")), 422, "BOOKING_LIMIT_REACHED")
	status := func(id, to string) resp {
		return s.request(pcall{method: "POST", path: "/api/v1/appointments/" + id + "/status", key: keyFull, body: `{"status":"` + to + `"}`})
	}
	require.Equal(t, 200, status(ids[0], "cancelled").Status)
	// A live hold takes the freed place as a booking would.
	hold := s.post("/api/v1/holds", keyFull, "wed-hold", `{"serviceId":"`+haircutID+`","startTime":"`+wed+`14:00:00Z","staffMemberId":"`+annaID+`"}`)
	require.Equal(t, 201, hold.Status, "%s", hold.Raw)
	requireError(t, s.post("/api/v1/appointments", keyFull, "wed-4", booking(haircutID, wed+"15:00:00Z", annaID, "w4@example.com")), 422, "BOOKING_LIMIT_REACHED")
	requireError(t, status(ids[0], "confirmed"), 422, "BOOKING_LIMIT_REACHED")
	// Released, the hold frees it again, and the reinstatement goes through.
	del := s.request(pcall{method: "DELETE", path: "/api/v1/holds/" + hold.Body["id"].(string), key: keyFull})
	require.Equal(t, 204, del.Status, "%s", del.Raw)
	require.Equal(t, 200, status(ids[0], "confirmed").Status)

	// After a restart the tally is rebuilt from the journal.
	s.stop()
	s2 := start(t, s.data)
	requireError(t, s2.post("/api/v1/appointments", keyFull, "after", booking(haircutID, wed+"16:00:00Z", annaID, "w5@example.com")), 422, "BOOKING_LIMIT_REACHED")
	assert.Equal(t, 200, s2.get("/api/v1/appointments/"+looseID, keyFull).Status)
}

// TestClusterBookingLimits: 64 bookings at once, spread over the three
// nodes of a cluster, against a limit of three haircuts a day for Anna:
// exactly three get through, wherever they were sent, since one actor
// owns the salon and decides them one at a time.
func TestClusterBookingLimits(t *testing.T) {
	clusterFaultTest(t)
	bin := buildBinary(t)
	procs := startNodes(t, bin, 3, false, "--world", salonWorld(t, limitedHaircut(3)))
	post := func(i int, body string) resp {
		status, b, _, err := clusterCall("POST", procs[i%len(procs)].pub, "/api/v1/appointments", body, "Idempotency-Key", fmt.Sprint("cluster-", i))
		if err != nil {
			return resp{Status: 0, Body: map[string]any{"code": err.Error()}}
		}
		return resp{Status: status, Body: b}
	}
	got := race(t, post, 64, annaID)
	require.Equal(t, 3, got["201"], "%v", got)
	require.Equal(t, 64, got["201"]+got["422 BOOKING_LIMIT_REACHED"]+got["409 SLOT_TAKEN"], "%v", got)

	var booked int
	for _, a := range listAll(t, procs[0]) {
		if a["staffMember"].(map[string]any)["id"] == annaID && a["startTime"].(string)[:11] == tue {
			booked++
		}
	}
	require.Equal(t, 3, booked)
}
