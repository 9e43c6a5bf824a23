package main

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const colourID = "d2694ab1-3c85-5e54-bf1d-996f6e4cd775"

// TestAvailabilityAgreesWithBooking samples both sides of the availability
// promise through the HTTP API: every start offered can be booked right
// then (for a listed staff member, and unpinned), and every grid start not
// offered is refused. The calendar fills up as the test books, so later
// rounds see gaps, neighbours and full days.
func TestAvailabilityAgreesWithBooking(t *testing.T) {
	availabilityAgrees(t, startWorld(t), 7, 10)
}

// TestAvailabilityAgreesWithBookingPolicies is the same with the service
// policies of decisions §9: a haircut with buffers of 15 and 10 minutes
// and at most two a day per staff member, a colour with 10 minutes after,
// and at most four bookings a day per staff member.
func TestAvailabilityAgreesWithBookingPolicies(t *testing.T) {
	world := salonWorld(t, func(biz map[string]any) {
		bufferedHaircut(15, 10)(biz)
		limitedHaircut(2)(biz)
		for _, x := range biz["services"].([]any) {
			if svc := x.(map[string]any); svc["id"] == colourID {
				svc["bufferAfterMinutes"] = 10
			}
		}
		biz["bookingLimits"] = map[string]any{"perStaffPerDay": 4}
	})
	availabilityAgrees(t, start(t, "", "--world", world), 8, 10)
}

// TestAvailabilityAgreesWithBookingClasses is the same with capacity
// (decisions §10): the haircut a class of three seats that needs the one
// basin, so starts are offered to join sessions, and refused when they
// are full or the basin is in another one.
func TestAvailabilityAgreesWithBookingClasses(t *testing.T) {
	world := salonWorld(t, func(biz map[string]any) {
		haircutClass(3)(biz)
		basinHaircut(biz)
	})
	joined := availabilityAgrees(t, start(t, "", "--world", world), 9, 1)
	require.Positive(t, joined, "no booking joined a session: the test proves nothing")
}

// availabilityAgrees runs the sampling of TestAvailabilityAgreesWithBooking
// on s, seeded with seed, over the next days days (one: the day fills up,
// and a class's sessions with it), and returns how many bookings joined a
// class session.
func availabilityAgrees(t *testing.T, s *server, seed uint64, days int) (joined int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	services := []string{haircutID, colourID}
	staff := []string{"", annaID, bramID}
	booked, refused := 0, 0
	for round := 0; round < 60; round++ {
		svc := services[r.IntN(len(services))]
		pin := staff[r.IntN(len(staff))]
		day := testEpoch.Truncate(24*time.Hour).AddDate(0, 0, 1+r.IntN(days))
		offered := slotsOn(t, s, svc, pin, day)
		if len(offered) > 0 && r.IntN(3) > 0 {
			starts := keysOf(offered)
			at := starts[r.IntN(len(starts))]
			res := s.post("/api/v1/appointments", keyFull, fmt.Sprint("prop-", round), booking(svc, at, pin, fmt.Sprintf("p%d@example.com", round)))
			require.Equal(t, 201, res.Status, "round %d: %s offered for %q but refused: %s", round, at, pin, res.Raw)
			if pin != "" {
				require.Equal(t, pin, res.Body["appointment"].(map[string]any)["staffMember"].(map[string]any)["id"])
			}
			if ses, ok := res.Body["appointment"].(map[string]any)["session"].(map[string]any); ok && ses["seatsTaken"].(float64) > 1 {
				joined++
			}
			booked++
			continue
		}
		// A grid start of that day that is not offered must be refused.
		for try := 0; try < 20; try++ {
			at := day.Add(time.Duration(r.IntN(96)) * 15 * time.Minute).Format("2006-01-02T15:04:05.000Z")
			if _, ok := offered[at]; ok {
				continue
			}
			res := s.post("/api/v1/appointments", keyFull, fmt.Sprint("neg-", round, "-", try), booking(svc, at, pin, fmt.Sprintf("n%d@example.com", round)))
			require.NotEqual(t, 201, res.Status, "round %d: %s not offered for %q but booked", round, at, pin)
			refused++
			break
		}
	}
	require.Greater(t, booked, 10)
	require.Greater(t, refused, 10)
	return joined
}

// slotsOn returns the starts offered on day, each with its staff.
func slotsOn(t *testing.T, s *server, svc, staff string, day time.Time) map[string][]any {
	q := url.Values{"serviceId": {svc}, "from": {day.Format(time.RFC3339)}, "to": {day.Add(24*time.Hour - time.Second).Format(time.RFC3339)}}
	if staff != "" {
		q.Set("staffMemberId", staff)
	}
	r := s.get("/api/v1/availability/slots?"+q.Encode(), keyFull)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	out := map[string][]any{}
	for _, d := range r.Body["data"].([]any) {
		m := d.(map[string]any)
		out[m["startTime"].(string)] = m["staffMemberIds"].([]any)
	}
	return out
}

func keysOf(m map[string][]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}
