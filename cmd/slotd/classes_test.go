package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/webhook/payment/paymenttest"
)

// Classes (decisions §10): a service with capacity above 1 sells seats
// of sessions; each seat is an appointment of its own, and the staff
// member (and any resource) is taken once per session.

// haircutClass makes the salon's haircut a class of capacity seats.
func haircutClass(capacity int) func(biz map[string]any) {
	return func(biz map[string]any) {
		for _, s := range biz["services"].([]any) {
			if svc := s.(map[string]any); svc["id"] == haircutID {
				svc["capacity"] = capacity
			}
		}
	}
}

// session is an answer's appointment's session.
func session(t *testing.T, r resp) map[string]any {
	t.Helper()
	require.Contains(t, []int{200, 201}, r.Status, "%s", r.Raw)
	a := r.Body
	if x, ok := r.Body["appointment"]; ok {
		a = x.(map[string]any)
	}
	s, _ := a["session"].(map[string]any)
	return s
}

// classSlots is the class's starts on tue between from and to (HH:MM,
// UTC) with their seats left and staff.
func classSlots(t *testing.T, s *server, from, to string) map[string]string {
	t.Helper()
	r := s.get("/api/v1/availability/slots?serviceId="+haircutID+"&from="+tue+from+":00Z&to="+tue+to+":00Z", keyFull)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	out := map[string]string{}
	for _, x := range r.Body["data"].([]any) {
		sl := x.(map[string]any)
		var who []string
		for _, id := range sl["staffMemberIds"].([]any) {
			who = append(who, map[string]string{annaID: "anna", bramID: "bram", chrisID: "chris"}[id.(string)])
		}
		out[sl["startTime"].(string)[11:16]] = fmt.Sprintf("%v %s", sl["seatsLeft"], strings.Join(who, ","))
	}
	return out
}

func TestClassSeats(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, haircutClass(3)))
	assert.EqualValues(t, 3, s.get("/api/v1/services/"+haircutID, keyFull).Body["capacity"])
	assert.EqualValues(t, 1, s.get("/api/v1/services/"+colourID, keyFull).Body["capacity"])
	assert.Equal(t, "3 anna,bram", classSlots(t, s, "09:00", "09:00")["09:00"], "an unopened start shows the capacity")

	// Three seats of Anna's 10:00 session, each its own appointment.
	var seats []string
	for i := range 3 {
		r := s.post("/api/v1/appointments", keyFull, fmt.Sprint("seat-", i), booking(haircutID, tue+"10:00:00Z", annaID, fmt.Sprintf("seat%d@example.com", i)))
		assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(i + 1)}, session(t, r))
		seats = append(seats, r.Body["appointment"].(map[string]any)["id"].(string))
	}
	assert.Len(t, map[string]bool{seats[0]: true, seats[1]: true, seats[2]: true}, 3)
	requireError(t, s.post("/api/v1/appointments", keyFull, "seat-3", booking(haircutID, tue+"10:00:00Z", annaID, "late@example.com")),
		409, "SESSION_FULL")
	// A replay is the first answer, byte for byte: the session as that
	// booking left it.
	first := s.post("/api/v1/appointments", keyFull, "seat-0", booking(haircutID, tue+"10:00:00Z", annaID, "seat0@example.com"))
	require.Equal(t, "true", first.Header.Get("Idempotency-Replayed"))
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(1)}, session(t, first))
	// Read back, each seat shows the session live.
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(3)}, session(t, s.get("/api/v1/appointments/"+seats[0], keyFull)))
	// Anna is taken once: anything else overlapping the session is taken.
	requireError(t, s.post("/api/v1/appointments", keyFull, "colour", booking(colourID, tue+"09:00:00Z", annaID, "c@example.com")),
		409, "SLOT_TAKEN")
	// A service that is not a class shows no session.
	c := s.post("/api/v1/appointments", keyFull, "colour-2", booking(colourID, tue+"13:00:00Z", annaID, "c@example.com"))
	require.Equal(t, 201, c.Status, "%s", c.Raw)
	assert.Nil(t, c.Body["appointment"].(map[string]any)["session"])

	// The full session is not offered; Bram would open one.
	assert.Equal(t, "3 bram", classSlots(t, s, "10:00", "10:00")["10:00"])
	b := s.post("/api/v1/appointments", keyFull, "bram-1", booking(haircutID, tue+"10:00:00Z", bramID, "b1@example.com"))
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(1)}, session(t, b))
	assert.Equal(t, "2 bram", classSlots(t, s, "10:00", "10:00")["10:00"])
	// Unpinned, a booking joins the session with a free seat, the fullest first.
	u := s.post("/api/v1/appointments", keyFull, "any-1", booking(haircutID, tue+"10:00:00Z", "", "u1@example.com"))
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(2)}, session(t, u))
	assert.Equal(t, bramID, u.Body["appointment"].(map[string]any)["staffMember"].(map[string]any)["id"])

	// The check names the full session per staff member.
	v := s.post("/api/v1/availability/check", keyFull, "", `{"serviceId":"`+haircutID+`","startTimes":["`+tue+`10:00:00Z"]}`)
	require.Equal(t, 200, v.Status, "%s", v.Raw)
	codes := map[string]any{}
	for _, x := range v.Body["data"].([]any)[0].(map[string]any)["staff"].([]any) {
		codes[x.(map[string]any)["id"].(string)] = x.(map[string]any)["code"]
	}
	assert.Equal(t, "SESSION_FULL", codes[annaID], "%s", v.Raw)
	assert.Nil(t, codes[bramID], "%s", v.Raw)

	// A seat cancelled frees a seat, not the time.
	require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+seats[2]+"/status", `{"status":"cancelled"}`).Status)
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(2)}, session(t, s.get("/api/v1/appointments/"+seats[0], keyFull)))
	assert.Equal(t, "1 anna,bram", classSlots(t, s, "10:00", "10:00")["10:00"])
	requireError(t, s.post("/api/v1/appointments", keyFull, "colour-3", booking(colourID, tue+"09:00:00Z", annaID, "c@example.com")),
		409, "SLOT_TAKEN")

	// A PATCH moves one seat alone.
	m := s.request(pcall{method: "PATCH", path: "/api/v1/appointments/" + seats[1], key: keyFull, body: `{"startTime":"` + tue + `11:00:00Z"}`})
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(1)}, session(t, m))
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(1)}, session(t, s.get("/api/v1/appointments/"+seats[0], keyFull)))

	// The cancelled seat comes back into its session; once it is full
	// again, reinstating is SESSION_FULL.
	require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+seats[2]+"/status", `{"status":"confirmed"}`).Status)
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(2)}, session(t, s.get("/api/v1/appointments/"+seats[2], keyFull)))

	// The last seat cancelled frees the time.
	for _, id := range []string{seats[0], seats[2]} {
		require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+id+"/status", `{"status":"cancelled"}`).Status)
	}
	o := s.post("/api/v1/appointments", keyFull, "colour-4", booking(colourID, tue+"09:00:00Z", annaID, "c@example.com"))
	require.Equal(t, 201, o.Status, "%s", o.Raw)
	requireError(t, s.call("POST", "/api/v1/appointments/"+seats[0]+"/status", `{"status":"confirmed"}`), 409, "SLOT_TAKEN")

	// After a restart, from the journal: the same sessions.
	s.stop()
	s2 := start(t, s.data)
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(2)}, session(t, s2.get("/api/v1/appointments/"+u.Body["appointment"].(map[string]any)["id"].(string), keyFull)))
	assert.Equal(t, "1 bram", classSlots(t, s2, "10:00", "10:00")["10:00"])
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(1)}, session(t, s2.get("/api/v1/appointments/"+seats[1], keyFull)))
}

// raceClass sends 64 bookings of Anna's 14:00 session of capacity 10
// at once.
func raceClass(t *testing.T, post func(i int, body string) resp) map[string]int {
	t.Helper()
	return raceBodies(t, post, 64, func(i int) string {
		return booking(haircutID, tue+"14:00:00Z", annaID, fmt.Sprintf("yogi%d@example.com", i))
	})
}

// TestClassRace: through one node, exactly ten seats.
func TestClassRace(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, haircutClass(10)))
	got := raceClass(t, func(i int, body string) resp {
		return s.post("/api/v1/appointments", keyFull, fmt.Sprintf("race-%d", i), body)
	})
	assert.Equal(t, map[string]int{"201": 10, "409 SESSION_FULL": 54}, got)
	taken := 0
	l := s.get("/api/v1/appointments?limit=100&staffMemberId="+annaID+"&from="+tue+"14:00:00Z&to="+tue+"14:01:00Z", keyFull)
	require.Equal(t, 200, l.Status, "%s", l.Raw)
	for _, x := range l.Body["data"].([]any) {
		a := x.(map[string]any)
		if a["startTime"] != tue+"14:00:00.000Z" {
			continue
		}
		assert.Equal(t, map[string]any{"capacity": float64(10), "seatsTaken": float64(10)}, a["session"])
		taken++
	}
	assert.Equal(t, 10, taken, "%s", l.Raw)
	t.Logf("64 bookings for one session of ten: %v", got)
}

// TestClusterClassRace: the same across a three-node cluster.
func TestClusterClassRace(t *testing.T) {
	clusterFaultTest(t)
	bin := buildBinary(t)
	procs := startNodes(t, bin, 3, false, "--world", salonWorld(t, haircutClass(10)))
	got := raceClass(t, func(i int, body string) resp {
		status, b, _, err := clusterCall("POST", procs[i%len(procs)].pub, "/api/v1/appointments", body, "Idempotency-Key", fmt.Sprint("cluster-class-", i))
		if err != nil {
			return resp{Status: 0, Body: map[string]any{"code": err.Error()}}
		}
		return resp{Status: status, Body: b}
	})
	require.Equal(t, map[string]int{"201": 10, "409 SESSION_FULL": 54}, got)
	seats := 0
	for _, a := range listAll(t, procs[0]) {
		if a["startTime"] == tue+"14:00:00.000Z" && a["session"] != nil {
			seats++
		}
	}
	require.Equal(t, 10, seats)
	t.Logf("across three nodes: %v", got)
}

// TestClassHoldsRoomLimitsWaitlist: a live hold takes a seat; a session
// takes its room once however many seats it holds; booking limits count
// sessions, not seats; a freed seat is offered to the waitlist.
func TestClassHoldsRoomLimitsWaitlist(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(biz map[string]any) {
		haircutClass(2)(biz)
		basinHaircut(biz)      // one basin, which every haircut session needs
		limitedHaircut(1)(biz) // one haircut session per staff member a day
	}))
	first := s.post("/api/v1/appointments", keyFull, "c-1", booking(haircutID, tue+"10:00:00Z", annaID, "c1@example.com"))
	assert.Equal(t, map[string]any{"capacity": float64(2), "seatsTaken": float64(1)}, session(t, first))
	firstID := first.Body["appointment"].(map[string]any)["id"].(string)

	// The hold joins Anna's session (the limit counts the session once)
	// and takes its second seat; the session has the basin once.
	h := s.post("/api/v1/holds", keyFull, "c-h", holdBody("10:00:00Z", annaID, 0))
	require.Equal(t, 201, h.Status, "%s", h.Raw)
	assert.Equal(t, map[string]any{"capacity": float64(2), "seatsTaken": float64(2)}, session(t, s.get("/api/v1/appointments/"+firstID, keyFull)))
	requireError(t, s.post("/api/v1/appointments", keyFull, "c-2", booking(haircutID, tue+"10:00:00Z", annaID, "c2@example.com")),
		409, "SESSION_FULL")
	requireError(t, s.post("/api/v1/appointments", keyFull, "c-3", booking(haircutID, tue+"10:00:00Z", bramID, "c3@example.com")),
		409, "RESOURCE_UNAVAILABLE") // Bram would open a second session: the basin is in Anna's
	requireError(t, s.post("/api/v1/appointments", keyFull, "c-4", booking(haircutID, tue+"13:00:00Z", annaID, "c4@example.com")),
		422, "BOOKING_LIMIT_REACHED") // a second session for Anna that day

	// A waitlist entry for Anna at 10:00 waits while the session is
	// full; the hold released, the freed seat is offered to it.
	body := fmt.Sprintf(`{"serviceId":%q,"staffMemberId":%q,"from":%q,"to":%q,"customer":{"firstName":"W","email":"w@example.com"}}`,
		haircutID, annaID, tue+"09:30:00Z", tue+"10:30:00Z")
	e := s.post("/api/v1/waitlist-entries", keyFull, "c-e", body)
	require.Equal(t, 201, e.Status, "%s", e.Raw)
	id := e.Body["id"].(string)
	assert.Equal(t, "waiting", s.entry(id)["status"])
	rel := s.request(pcall{method: "DELETE", path: "/api/v1/holds/" + h.Body["id"].(string), key: keyFull})
	require.Equal(t, 204, rel.Status, "%s", rel.Raw)
	offered := s.waitEntry(id, "offered")
	assert.Equal(t, tue+"10:00:00.000Z", offerOf(offered)["startTime"], "the freed seat")
	assert.Equal(t, map[string]any{"capacity": float64(2), "seatsTaken": float64(2)}, session(t, s.get("/api/v1/appointments/"+firstID, keyFull)),
		"the offer's hold keeps the seat")

	// Booked with the offer's hold, the seat is an appointment of the
	// session.
	b := s.post("/api/v1/appointments", keyFull, "c-5", fmt.Sprintf(`{"holdId":%q,"customer":{"firstName":"W","email":"w@example.com"}}`, offerOf(offered)["holdId"]))
	assert.Equal(t, map[string]any{"capacity": float64(2), "seatsTaken": float64(2)}, session(t, b))
	assert.Equal(t, tue+"10:00:00.000Z", b.Body["appointment"].(map[string]any)["startTime"])
}

// TestClassWorldFile: a world file's appointments of a class at one
// start fill one session, and one too many is refused with its path; the
// sessions, and world appointments' buffers, survive a restart.
func TestClassWorldFile(t *testing.T) {
	seat := func(i int, at string) map[string]any {
		return map[string]any{"id": fmt.Sprintf("00000000-0000-4000-8000-%012d", i), "customerId": evaID, "serviceId": haircutID,
			"staffMemberId": annaID, "startTime": tue + at, "status": "confirmed"}
	}
	withSeats := func(n int) func(biz map[string]any) {
		return func(biz map[string]any) {
			haircutClass(3)(biz)
			var as []any
			for i := range n {
				as = append(as, seat(i, "10:00:00Z"))
			}
			for _, s := range biz["services"].([]any) {
				if svc := s.(map[string]any); svc["id"] == colourID {
					svc["bufferAfterMinutes"] = 15
				}
			}
			as = append(as, map[string]any{"id": "00000000-0000-4000-8000-000000000099", "customerId": evaID, "serviceId": colourID,
				"staffMemberId": annaID, "startTime": tue + "13:00:00Z", "status": "confirmed"})
			biz["appointments"] = as
		}
	}
	s := start(t, "", "--world", salonWorld(t, withSeats(3)))
	first := "/api/v1/appointments/00000000-0000-4000-8000-000000000000"
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(3)}, session(t, s.get(first, keyFull)))
	requireError(t, s.post("/api/v1/appointments", keyFull, "w-1", booking(haircutID, tue+"10:00:00Z", annaID, "w1@example.com")),
		409, "SESSION_FULL")
	assert.EqualValues(t, 15, s.get("/api/v1/appointments/00000000-0000-4000-8000-000000000099", keyFull).Body["bufferAfterMinutes"])

	// A fourth seat in the file: refused, naming it.
	r := s.putSalon(withSeats(4))
	require.Equal(t, 400, r.Status, "%s", r.Raw)
	assert.Contains(t, string(r.Raw), `"appointments.3.startTime"`)

	// From the journal after a restart: the same session, the same buffer.
	s.stop()
	s2 := start(t, s.data)
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(3)}, session(t, s2.get(first, keyFull)))
	requireError(t, s2.post("/api/v1/appointments", keyFull, "w-2", booking(haircutID, tue+"10:00:00Z", annaID, "w2@example.com")),
		409, "SESSION_FULL")
	assert.EqualValues(t, 15, s2.get("/api/v1/appointments/00000000-0000-4000-8000-000000000099", keyFull).Body["bufferAfterMinutes"])
	requireError(t, s2.post("/api/v1/appointments", keyFull, "w-3", booking(haircutID, tue+"14:30:00Z", annaID, "w3@example.com")),
		409, "SLOT_TAKEN") // Anna's colour from the file ends at 14:30, its buffer at 14:45
}

// TestClassPrepayment: a seat waiting for its payment holds its place in
// the session (decisions §5, §10); paid, it keeps it; cancelled, it gives
// it up.
func TestClassPrepayment(t *testing.T) {
	stripe := paymenttest.NewStripe(payAPIKey, paySecret)
	t.Cleanup(stripe.Close)
	var w map[string]any
	require.NoError(t, json.Unmarshal(mustRead(t, payWorld(t, map[string]any{"provider": "client_secret", "requiresPayment": true, "holdMinutes": 15,
		"baseUrl": stripe.URL(), "apiKey": payAPIKey, "webhookSecret": paySecret, "returnUrl": "https://salon.example/thanks"})), &w))
	for _, b := range w["businesses"].([]any) {
		if biz := b.(map[string]any); biz["id"] == salonID {
			haircutClass(2)(biz)
		}
	}
	raw, err := json.Marshal(w)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "world.json")
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	s := start(t, "", "--world", path, "--webhooks-allow-insecure")

	var ids []string
	for i := range 2 {
		r := s.post("/api/v1/appointments", keyFull, fmt.Sprint("pay-", i), booking(haircutID, tue+"10:00:00Z", annaID, fmt.Sprintf("p%d@example.com", i)))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		require.Equal(t, "pending_payment", appointmentOf(r)["status"])
		assert.Equal(t, map[string]any{"capacity": float64(2), "seatsTaken": float64(i + 1)}, session(t, r))
		ids = append(ids, appointmentOf(r)["id"].(string))
	}
	requireError(t, s.post("/api/v1/appointments", keyFull, "pay-2", booking(haircutID, tue+"10:00:00Z", annaID, "p2@example.com")),
		409, "SESSION_FULL")

	pid := s.paymentOf(ids[0]).Body["providerPaymentId"].(string)
	ev, sig := stripe.Pay(pid, s.clock.Now())
	st, err := stripe.Send(s.base+payHookFmt+salonID, ev, sig)
	require.NoError(t, err)
	require.Equal(t, 200, st)
	assert.Equal(t, map[string]any{"capacity": float64(2), "seatsTaken": float64(2)}, session(t, s.get("/api/v1/appointments/"+ids[0], keyFull)))
	assert.Equal(t, "confirmed", s.get("/api/v1/appointments/"+ids[0], keyFull).Body["status"])

	require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+ids[1]+"/status", `{"status":"cancelled"}`).Status)
	r := s.post("/api/v1/appointments", keyFull, "pay-3", booking(haircutID, tue+"10:00:00Z", annaID, "p3@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	assert.Equal(t, map[string]any{"capacity": float64(2), "seatsTaken": float64(2)}, session(t, r))
}

// TestClassManageLink: a seat's customer moves or cancels their own seat
// through its manage link; the session's other seats stay where they are.
func TestClassManageLink(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(biz map[string]any) {
		haircutClass(3)(biz)
		biz["customerChanges"] = map[string]any{"maxReschedules": 2}
	}))
	var tokens, ids []string
	for i := range 2 {
		r := s.post("/api/v1/appointments", keyFull, fmt.Sprint("m-", i), booking(haircutID, tue+"10:00:00Z", annaID, fmt.Sprintf("m%d@example.com", i)))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		tokens, ids = append(tokens, linkToken(t, r)), append(ids, r.Body["appointment"].(map[string]any)["id"].(string))
	}
	// The manage page offers seat 0 the unopened 11:00, with every place.
	sl := s.get("/api/v1/manage/"+tokens[0]+"/slots?from="+tue+"10:00:00Z&to="+tue+"11:00:00Z", "")
	require.Equal(t, 200, sl.Status, "%s", sl.Raw)
	seats := map[string]any{}
	for _, x := range sl.Body["data"].([]any) {
		seats[x.(map[string]any)["startTime"].(string)[11:16]] = x.(map[string]any)["seatsLeft"]
	}
	assert.EqualValues(t, 3, seats["11:00"], "%s", sl.Raw)

	m := s.request(pcall{method: "POST", path: "/api/v1/manage/" + tokens[0] + "/reschedule", body: `{"startTime":"` + tue + `11:00:00Z"}`})
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(1)}, session(t, m))
	assert.Equal(t, map[string]any{"capacity": float64(3), "seatsTaken": float64(1)}, session(t, s.get("/api/v1/appointments/"+ids[1], keyFull)))
	c := s.request(pcall{method: "POST", path: "/api/v1/manage/" + tokens[1] + "/cancel"})
	require.Equal(t, 200, c.Status, "%s", c.Raw)
	assert.Equal(t, "confirmed", s.get("/api/v1/appointments/"+ids[0], keyFull).Body["status"], "the other seat is left alone")
	assert.Equal(t, "3 anna,bram", classSlots(t, s, "10:00", "10:00")["10:00"], "the last seat cancelled freed the time")
}

// TestClassFeed: a staff member's calendar feed shows a session as one
// event saying how many places are taken (and whose, when the feed shows
// names), not an event per seat; the last seat cancelled cancels it.
func TestClassFeed(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(biz map[string]any) {
		haircutClass(12)(biz)
		biz["apiKeys"] = append(biz["apiKeys"].([]any), map[string]any{"key": keyCalendars,
			"scopes": []string{"calendars:manage", "appointments:read"}})
	}))
	r := s.post("/api/v1/calendar-feeds", keyCalendars, "", `{"staffMemberId":"`+annaID+`","includeCustomerNames":true}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	url := r.Body["url"].(string)
	var ids []string
	for i, name := range []string{"Ana", "Bo", "Cas"} {
		b := s.post("/api/v1/appointments", keyFull, fmt.Sprint("f-", i), fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"staffMemberId":%q,"customer":{"firstName":%q,"lastName":"Jansen","email":"%s@example.com"}}`,
			haircutID, tue+"10:00:00Z", annaID, name, strings.ToLower(name)))
		require.Equal(t, 201, b.Status, "%s", b.Raw)
		ids = append(ids, b.Body["appointment"].(map[string]any)["id"].(string))
	}
	evs := vevents(t, getFeed(t, url, "").body)
	require.Len(t, evs, 1, "one event for the session")
	assert.Equal(t, `Haircut – 3 of 12 places: Ana J.\, Bo J.\, Cas J.`, evs[0]["SUMMARY"])
	assert.Equal(t, "CONFIRMED", evs[0]["STATUS"])

	for _, id := range ids {
		require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+id+"/status", `{"status":"cancelled"}`).Status)
	}
	evs = vevents(t, getFeed(t, url, "").body)
	require.Len(t, evs, 1)
	assert.Equal(t, "CANCELLED", evs[0]["STATUS"], "calendar apps remove the session")
}
