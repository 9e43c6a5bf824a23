package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Resources (decisions §10), the catalogue: a business declares its rooms
// and machines with their quantities in the world file or through the
// admin API, and the API lists them (scope services:read, a list envelope
// like services).

const (
	roomID  = "0b8e2f7c-4d1a-4c6e-9f3b-2a5d7e8c1b40"
	laserID = "6f1d3e2a-9c4b-4a7e-8d5f-1b2c3d4e5f60"
)

func withResources(rs ...map[string]any) func(biz map[string]any) {
	return func(biz map[string]any) {
		list := make([]any, len(rs))
		for i, r := range rs {
			list[i] = r
		}
		biz["resources"] = list
	}
}

func TestResourceCatalogue(t *testing.T) {
	room := map[string]any{"id": roomID, "name": "Treatment room", "quantity": 2}
	laser := map[string]any{"id": laserID, "name": "Laser", "isActive": false}
	s := start(t, "", "--world", salonWorld(t, withResources(room, laser)))

	list := s.get("/api/v1/resources", keyFull)
	require.Equal(t, 200, list.Status, "%s", list.Raw)
	data := list.Body["data"].([]any)
	require.Len(t, data, 2)
	got := map[string]map[string]any{}
	for _, x := range data {
		r := x.(map[string]any)
		got[r["id"].(string)] = r
	}
	assert.Equal(t, "Treatment room", got[roomID]["name"])
	assert.Equal(t, float64(2), got[roomID]["quantity"])
	assert.Equal(t, true, got[roomID]["isActive"])
	assert.Equal(t, float64(1), got[laserID]["quantity"], "quantity defaults to 1")
	assert.Equal(t, false, got[laserID]["isActive"])
	assert.Equal(t, false, list.Body["hasMore"])

	active := s.get("/api/v1/resources?isActive=true", keyFull)
	require.Equal(t, 200, active.Status, "%s", active.Raw)
	require.Len(t, active.Body["data"].([]any), 1)
	requireError(t, s.get("/api/v1/resources?isActive=yes", keyFull), 400, "VALIDATION_ERROR")

	one := s.get("/api/v1/resources/"+roomID, keyFull)
	require.Equal(t, 200, one.Status, "%s", one.Raw)
	assert.Equal(t, got[roomID], one.Body)
	requireError(t, s.get("/api/v1/resources/"+haircutID, keyFull), 404, "NOT_FOUND")
	requireError(t, s.get("/api/v1/resources/not-a-uuid", keyFull), 404, "NOT_FOUND")
	requireError(t, s.get("/api/v1/resources/"+roomID+"?x=1", keyFull), 400, "VALIDATION_ERROR")
	assert.Equal(t, 200, s.get("/api/v1/resources", keyServices).Status, "services:read is the scope")

	// The admin API's put changes a resource and refuses a bad one with
	// its path; nothing changes on a refusal.
	put := s.putSalon
	bad := put(withResources(map[string]any{"id": roomID, "name": "Treatment room", "quantity": 0}))
	requireError(t, bad, 400, "VALIDATION_ERROR")
	assert.Contains(t, string(bad.Raw), `"path":"resources.0.quantity"`)
	room["quantity"] = 3
	require.Equal(t, 200, put(withResources(room, laser)).Status)
	after := s.get("/api/v1/resources/"+roomID, keyFull)
	assert.Equal(t, float64(3), after.Body["quantity"])
	assert.Equal(t, got[roomID]["createdAt"], after.Body["createdAt"])

	// After a restart, from the journal.
	s.stop()
	s2 := start(t, s.data)
	assert.Equal(t, after.Body, s2.get("/api/v1/resources/"+roomID, keyFull).Body)
}

// basinHaircut makes the salon's haircut need its one wash basin: Anna
// and Bram both cut hair, but only one of them at a time.
func basinHaircut(biz map[string]any) {
	biz["resources"] = []any{map[string]any{"id": roomID, "name": "Wash basin", "quantity": 1}}
	for _, s := range biz["services"].([]any) {
		if svc := s.(map[string]any); svc["id"] == haircutID {
			svc["resources"] = []any{map[string]any{"resourceId": roomID}}
		}
	}
}

// TestResourceEnforced: bookings, holds, moves, availability and the
// check all count the basin's one unit (decisions §10); the staff member
// is judged first; the rules being skipped does not lift it; a restart
// keeps it.
func TestResourceEnforced(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, basinHaircut))
	svc := s.get("/api/v1/services/"+haircutID, keyFull)
	assert.Equal(t, []any{map[string]any{"resourceId": roomID, "quantity": float64(1)}}, svc.Body["resources"])

	r := s.post("/api/v1/appointments", keyFull, "r-1", booking(haircutID, tue+"10:00:00Z", annaID, "r1@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	anna := r.Body["appointment"].(map[string]any)
	assert.Equal(t, []any{map[string]any{"id": roomID, "name": "Wash basin", "quantity": float64(1)}}, anna["resources"])

	requireError(t, s.post("/api/v1/appointments", keyFull, "r-2", booking(haircutID, tue+"10:00:00Z", bramID, "r2@example.com")),
		409, "RESOURCE_UNAVAILABLE")
	requireError(t, s.post("/api/v1/appointments", keyFull, "r-3", booking(haircutID, tue+"10:15:00Z", "", "r3@example.com")),
		409, "RESOURCE_UNAVAILABLE")
	requireError(t, s.post("/api/v1/appointments", keyFull, "r-4", booking(haircutID, tue+"10:00:00Z", annaID, "r4@example.com")),
		409, "SLOT_TAKEN") // the staff member is judged first
	loose := `{"serviceId":"` + haircutID + `","startTime":"` + tue + `10:05:00Z","staffMemberId":"` + bramID +
		`","enforceBookingRules":false,"customer":{"firstName":"L","email":"loose@example.com"}}`
	requireError(t, s.post("/api/v1/appointments", keyFull, "r-5", loose), 409, "RESOURCE_UNAVAILABLE")

	v := s.post("/api/v1/availability/check", keyFull, "", `{"serviceId":"`+haircutID+`","staffMemberId":"`+bramID+`","startTimes":["`+tue+`10:00:00Z"]}`)
	require.Equal(t, 200, v.Status, "%s", v.Raw)
	sv := v.Body["data"].([]any)[0].(map[string]any)["staff"].([]any)[0].(map[string]any)
	assert.Equal(t, "RESOURCE_UNAVAILABLE", sv["code"])
	assert.Equal(t, roomID, sv["resourceId"])

	free := func(s *server) map[string]bool {
		r := s.get("/api/v1/availability/slots?serviceId="+haircutID+"&from="+tue+"09:00:00Z&to="+tue+"11:00:00Z", keyFull)
		require.Equal(t, 200, r.Status, "%s", r.Raw)
		out := map[string]bool{}
		for _, x := range r.Body["data"].([]any) {
			out[x.(map[string]any)["startTime"].(string)[11:16]] = true
		}
		return out
	}
	slots := free(s)
	for _, taken := range []string{"09:45", "10:00", "10:15"} {
		assert.False(t, slots[taken], "%s would share the basin", taken)
	}
	assert.True(t, slots["09:30"] && slots["10:30"], "%v", slots)

	// A hold takes the basin too; released, it gives it back.
	h := s.post("/api/v1/holds", keyFull, "r-h", holdBody("10:30:00Z", bramID, 0))
	require.Equal(t, 201, h.Status, "%s", h.Raw)
	requireError(t, s.post("/api/v1/appointments", keyFull, "r-6", booking(haircutID, tue+"10:30:00Z", annaID, "r6@example.com")),
		409, "RESOURCE_UNAVAILABLE")
	rel := s.request(pcall{method: "DELETE", path: "/api/v1/holds/" + h.Body["id"].(string), key: keyFull})
	require.Equal(t, 204, rel.Status, "%s", rel.Raw)
	b := s.post("/api/v1/appointments", keyFull, "r-7", booking(haircutID, tue+"10:30:00Z", bramID, "r7@example.com"))
	require.Equal(t, 201, b.Status, "%s", b.Raw)
	bram := b.Body["appointment"].(map[string]any)

	// A move onto the basin's busy time is refused; Anna cancelled, it
	// goes through.
	move := func(to string) resp {
		return s.request(pcall{method: "PATCH", path: "/api/v1/appointments/" + bram["id"].(string), key: keyFull,
			body: `{"startTime":"` + tue + to + `"}`})
	}
	requireError(t, move("10:15:00Z"), 409, "RESOURCE_UNAVAILABLE")
	require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+anna["id"].(string)+"/status", `{"status":"cancelled"}`).Status)
	require.Equal(t, 200, move("10:00:00Z").Status)

	// After a restart, from the journal: Bram's 10:00 holds the basin.
	s.stop()
	s2 := start(t, s.data)
	requireError(t, s2.post("/api/v1/appointments", keyFull, "r-8", booking(haircutID, tue+"10:00:00Z", annaID, "r8@example.com")),
		409, "RESOURCE_UNAVAILABLE")
	assert.False(t, free(s2)["10:00"])
	assert.True(t, free(s2)["10:30"])
}

// raceRoom sends 64 bookings at once over four back-to-back half hours,
// alternately pinned to Anna and Bram, who share the one basin, and
// counts the answers: exactly one booking per half hour may get through.
func raceRoom(t *testing.T, post func(i int, body string) resp) map[string]int {
	t.Helper()
	staff := []string{annaID, bramID}
	starts := []string{"14:00", "14:30", "15:00", "15:30"}
	return raceBodies(t, post, 64, func(i int) string {
		return booking(haircutID, tue+starts[i%4]+":00Z", staff[(i/4)%2], fmt.Sprintf("race%d@example.com", i))
	})
}

// TestResourceRace: through one node, exactly one 201 per half hour.
func TestResourceRace(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, basinHaircut))
	got := raceRoom(t, func(i int, body string) resp {
		return s.post("/api/v1/appointments", keyFull, fmt.Sprintf("race-%d", i), body)
	})
	assert.Equal(t, 4, got["201"], "%v", got)
	assert.Equal(t, 64, got["201"]+got["409 RESOURCE_UNAVAILABLE"]+got["409 SLOT_TAKEN"], "%v", got)
	t.Logf("64 bookings over two staff and one basin, four half hours: %v", got)
}

// TestClusterResourceRace: the same across a three-node cluster, each
// booking sent to a node in turn; the basin's business decides them all
// on its one owner.
func TestClusterResourceRace(t *testing.T) {
	clusterFaultTest(t)
	bin := buildBinary(t)
	procs := startNodes(t, bin, 3, false, "--world", salonWorld(t, basinHaircut))
	got := raceRoom(t, func(i int, body string) resp {
		status, b, _, err := clusterCall("POST", procs[i%len(procs)].pub, "/api/v1/appointments", body, "Idempotency-Key", fmt.Sprint("cluster-room-", i))
		if err != nil {
			return resp{Status: 0, Body: map[string]any{"code": err.Error()}}
		}
		return resp{Status: status, Body: b}
	})
	require.Equal(t, 4, got["201"], "%v", got)
	require.Equal(t, 64, got["201"]+got["409 RESOURCE_UNAVAILABLE"]+got["409 SLOT_TAKEN"], "%v", got)
	var booked int
	for _, a := range listAll(t, procs[0]) {
		if a["startTime"].(string)[:11] == tue && len(a["resources"].([]any)) == 1 {
			booked++
		}
	}
	require.Equal(t, 4, booked, "one haircut per half hour holds the basin")
	t.Logf("across three nodes: %v", got)
}

// TestResourceBusyTime: busy time blocks a resource as §8's blocks a
// staff member (decisions §10: a room under repair), every unit of it,
// with the same bodies and answers naming resourceId.
func TestResourceBusyTime(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(biz map[string]any) {
		basinHaircut(biz)
		biz["apiKeys"] = append(biz["apiKeys"].([]any), map[string]any{"key": keyCalendars,
			"scopes": []string{"calendars:manage", "appointments:read"}})
	}))
	put := func(id, body string) resp {
		return s.request(pcall{method: "PUT", path: "/api/v1/resources/" + id + "/busy-times/repair", key: keyCalendars, body: body})
	}
	r := put(roomID, busyBody("10:00-11:00"))
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	assert.Equal(t, roomID, r.Body["resourceId"])
	assert.Equal(t, float64(1), r.Body["count"])
	requireError(t, put(annaID, busyBody("10:00-11:00")), 404, "NOT_FOUND")
	requireError(t, put(haircutID, busyBody("10:00-11:00")), 404, "NOT_FOUND")

	requireError(t, s.post("/api/v1/appointments", keyFull, "rb-1", booking(haircutID, tue+"10:30:00Z", annaID, "rb1@example.com")),
		409, "RESOURCE_UNAVAILABLE")
	assert.False(t, annaSlots(t, s)["10:00"], "under the repair")
	assert.True(t, annaSlots(t, s)["11:00"])

	list := s.request(pcall{method: "GET", path: "/api/v1/resources/" + roomID + "/busy-times?from=" + tue + "00:00:00Z&to=" + tue + "23:00:00Z", key: keyCalendars})
	require.Equal(t, 200, list.Status, "%s", list.Raw)
	require.Len(t, list.Body["data"].([]any), 1)
	assert.Equal(t, "repair", list.Body["data"].([]any)[0].(map[string]any)["source"])

	// After a restart it still blocks; cleared, the room is free again.
	s.stop()
	s2 := start(t, s.data)
	requireError(t, s2.post("/api/v1/appointments", keyFull, "rb-2", booking(haircutID, tue+"10:00:00Z", bramID, "rb2@example.com")),
		409, "RESOURCE_UNAVAILABLE")
	del := s2.request(pcall{method: "DELETE", path: "/api/v1/resources/" + roomID + "/busy-times/repair", key: keyCalendars})
	require.Equal(t, 204, del.Status, "%s", del.Raw)
	ok := s2.post("/api/v1/appointments", keyFull, "rb-3", booking(haircutID, tue+"10:00:00Z", bramID, "rb3@example.com"))
	require.Equal(t, 201, ok.Status, "%s", ok.Raw)
}

// TestResourceFeed: a calendar feed of a resource (decisions §10) shows
// the bookings that take it, whoever gives them, and only those.
func TestResourceFeed(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(biz map[string]any) {
		basinHaircut(biz)
		biz["apiKeys"] = append(biz["apiKeys"].([]any), map[string]any{"key": keyCalendars,
			"scopes": []string{"calendars:manage", "appointments:read"}})
	}))
	mk := func(body string) resp { return s.post("/api/v1/calendar-feeds", keyCalendars, "", body) }
	requireError(t, mk(`{"staffMemberId":"`+annaID+`","resourceId":"`+roomID+`"}`), 400, "VALIDATION_ERROR")
	bad := mk(`{"resourceId":"` + haircutID + `"}`)
	requireError(t, bad, 400, "VALIDATION_ERROR")
	assert.Contains(t, string(bad.Raw), `"path":"resourceId"`)
	r := mk(`{"resourceId":"` + roomID + `"}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	assert.Equal(t, roomID, r.Body["resourceId"])
	assert.Nil(t, r.Body["staffMemberId"])
	url := r.Body["url"].(string)

	cut := s.post("/api/v1/appointments", keyFull, "rf-1", booking(haircutID, tue+"09:00:00Z", annaID, "rf1@example.com"))
	require.Equal(t, 201, cut.Status, "%s", cut.Raw)
	colour := s.post("/api/v1/appointments", keyFull, "rf-2", booking("d2694ab1-3c85-5e54-bf1d-996f6e4cd775", tue+"10:00:00Z", annaID, "rf2@example.com"))
	require.Equal(t, 201, colour.Status, "%s", colour.Raw)

	f := getFeed(t, url, "")
	require.Equal(t, 200, f.status)
	assert.Contains(t, f.body, "X-WR-CALNAME:Salon Example – Wash basin\r\n")
	var evs []map[string]string
	for _, ev := range vevents(t, f.body) { // the world's series of Bram's haircuts takes the basin too, from January
		if strings.HasPrefix(ev["DTSTART"], "20261208") {
			evs = append(evs, ev)
		}
	}
	require.Len(t, evs, 1, "the colour takes no basin")
	assert.Equal(t, "Haircut (Anna)", evs[0]["SUMMARY"])

	// After a restart the feed still shows the basin.
	s.stop()
	s2 := start(t, s.data)
	list := s2.get("/api/v1/calendar-feeds", keyCalendars)
	require.Equal(t, 200, list.Status)
	assert.Equal(t, roomID, list.Body["data"].([]any)[0].(map[string]any)["resourceId"])
}

// TestResourceFreedOffersWaitlist: when a cancellation frees the basin,
// a waitlist entry pinned to another staff member, who was free all
// along, is offered the start the basin blocked.
func TestResourceFreedOffersWaitlist(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, basinHaircut))
	// Bram cuts at 09:00 and 10:30; between them only the basin, held by
	// Anna from 10:00, keeps him from 09:45 and 10:00.
	for i, at := range []string{"09:00:00Z", "10:30:00Z"} {
		r := s.post("/api/v1/appointments", keyFull, fmt.Sprintf("rw-b%d", i), booking(haircutID, tue+at, bramID, fmt.Sprintf("rwb%d@example.com", i)))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
	}
	a := s.post("/api/v1/appointments", keyFull, "rw-a", booking(haircutID, tue+"10:00:00Z", annaID, "rwa@example.com"))
	require.Equal(t, 201, a.Status, "%s", a.Raw)
	body := fmt.Sprintf(`{"serviceId":%q,"staffMemberId":%q,"from":%q,"to":%q,"customer":{"firstName":"W","email":"w@example.com"}}`,
		haircutID, bramID, tue+"09:30:00Z", tue+"10:30:00Z")
	e := s.post("/api/v1/waitlist-entries", keyFull, "rw-e", body)
	require.Equal(t, 201, e.Status, "%s", e.Raw)
	id := e.Body["id"].(string)
	assert.Equal(t, "waiting", s.entry(id)["status"], "Bram is free at 10:00, the basin is not")

	require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+a.Body["appointment"].(map[string]any)["id"].(string)+"/status", `{"status":"cancelled"}`).Status)
	offered := s.waitEntry(id, "offered")
	assert.Equal(t, tue+"09:45:00.000Z", offerOf(offered)["startTime"], "the earliest start the basin freed")
}
