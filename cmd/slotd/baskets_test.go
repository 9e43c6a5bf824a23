package main

import (
	"fmt"
	"io"
	"mime/quotedprintable"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Baskets (decisions §11).

const (
	manicureID = "5d0dee30-031a-57e5-a32b-046b216baac0"
	permID     = "06cf7518-da7d-553f-a5c9-64471b777e38" // retired: not bookable
)

// basketBody is a basket from startTime of items, each "service" or
// "service@staff", for a new customer, with extra members.
func basketBody(startTime string, items []string, extra string) string {
	var parts []string
	for _, it := range items {
		svc, staff, _ := strings.Cut(it, "@")
		if staff == "" {
			parts = append(parts, fmt.Sprintf(`{"serviceId":%q}`, svc))
		} else {
			parts = append(parts, fmt.Sprintf(`{"serviceId":%q,"staffMemberId":%q}`, svc, staff))
		}
	}
	return fmt.Sprintf(`{"startTime":%q,"items":[%s],"customer":{"firstName":"Bo","email":"bo@example.com"}%s}`,
		startTime, strings.Join(parts, ","), extra)
}

// withBuffers gives the haircut a buffer of 10 minutes after it, and the
// colour one of 5 before it.
func withBuffers(biz map[string]any) {
	for _, x := range biz["services"].([]any) {
		switch svc := x.(map[string]any); svc["id"] {
		case haircutID:
			svc["bufferAfterMinutes"] = 10
		case colourID:
			svc["bufferBeforeMinutes"] = 5
		}
	}
}

// TestBasketBook: a cut then a colour, back to back with their buffers,
// in one write: each appointment with its basket, its events and its
// manage link; one e-mail listing both; GET shows the basket; the answer
// replayed byte for byte after a restart.
func TestBasketBook(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, withBuffers))
	body := basketBody(tue+"12:00:00Z", []string{haircutID + "@" + bramID, colourID}, `,"notes":"both"`)
	r := s.post("/api/v1/baskets", keyFull, "b-1", body)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	id := r.Body["id"].(string)
	appts := r.Body["appointments"].([]any)
	require.Len(t, appts, 2)
	cut, colour := appts[0].(map[string]any), appts[1].(map[string]any)
	assert.Equal(t, tue+"12:00:00.000Z", cut["startTime"])
	assert.Equal(t, tue+"12:45:00.000Z", colour["startTime"], "30 minutes, 10 after, 5 before: off the 15-minute grid is fine")
	assert.Equal(t, bramID, cut["staffMember"].(map[string]any)["id"])
	assert.Equal(t, annaID, colour["staffMember"].(map[string]any)["id"], "only Anna colours")
	for _, a := range []map[string]any{cut, colour} {
		assert.Equal(t, id, a["basketId"])
		assert.Equal(t, "both", a["notes"])
		assert.NotEmpty(t, a["manageUrl"])
		g := s.get("/api/v1/appointments/"+a["id"].(string), keyFull)
		assert.Equal(t, id, g.Body["basketId"])
	}
	one := s.post("/api/v1/appointments", keyFull, "one", booking(haircutID, tue+"15:00:00Z", "", "o@example.com"))
	require.Equal(t, 201, one.Status, "%s", one.Raw)
	plainAppt := one.Body["appointment"].(map[string]any)
	assert.Contains(t, plainAppt, "basketId")
	assert.Nil(t, plainAppt["basketId"], "null elsewhere")
	assert.Equal(t, cut["customerId"], colour["customerId"])

	g := s.get("/api/v1/baskets/"+id, keyFull)
	require.Equal(t, 200, g.Status, "%s", g.Raw)
	assert.Equal(t, []any{cut["id"], colour["id"]}, g.Body["appointmentIds"])
	requireError(t, s.get("/api/v1/baskets/"+annaID, keyFull), 404, "NOT_FOUND")

	require.Eventually(t, func() bool { return outboxHas(t, s, "one after the other") }, 10*time.Second, 10*time.Millisecond)
	for _, m := range outboxMails(s.data) {
		if !strings.Contains(m, "one after the other") {
			continue
		}
		plain, err := io.ReadAll(quotedprintable.NewReader(strings.NewReader(m)))
		require.NoError(t, err)
		assert.Contains(t, string(plain), "Haircut with Bram")
		assert.Contains(t, string(plain), "Full colour with Anna")
		links := regexp.MustCompile(`to cancel or change it: (http\S+/manage/[A-Za-z0-9_-]+)`).FindAllStringSubmatch(string(plain), -1)
		require.GreaterOrEqual(t, len(links), 2, "each appointment with its own manage link: %s", plain)
		assert.NotEqual(t, links[0][1], links[1][1])
	}

	s.stop()
	s2 := start(t, s.data)
	replay := s2.post("/api/v1/baskets", keyFull, "b-1", body)
	require.Equal(t, "true", replay.Header.Get("Idempotency-Replayed"))
	host := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/`)
	assert.Equal(t, host.ReplaceAllString(string(r.Raw), ""), host.ReplaceAllString(string(replay.Raw), ""))
	assert.Equal(t, g.Raw, s2.get("/api/v1/baskets/"+id, keyFull).Raw)
}

// TestBasketAllOrNothing: a basket whose second item does not fit books
// nothing and names the item; its refusal is replayed after a restart.
func TestBasketAllOrNothing(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(map[string]any) {}))
	// Anna colours at 13:15: a colour right after a 12:00 cut would
	// rinse while she applies that one, and only Anna colours.
	require.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "t-1", booking(colourID, tue+"13:15:00Z", annaID, "t@example.com")).Status)
	body := basketBody(tue+"12:00:00Z", []string{haircutID, colourID}, "")
	r := s.post("/api/v1/baskets", keyFull, "b-2", body)
	requireError(t, r, 409, "NO_STAFF_AVAILABLE")
	require.Len(t, r.Body["fields"], 1, "%s", r.Raw)
	assert.Equal(t, "items.1", r.Body["fields"].([]any)[0].(map[string]any)["path"])
	// Pinned, the item's own code.
	r = s.post("/api/v1/baskets", keyFull, "b-3", basketBody(tue+"12:00:00Z", []string{haircutID, colourID + "@" + annaID}, ""))
	requireError(t, r, 409, "SLOT_TAKEN")
	assert.Equal(t, "items.1", r.Body["fields"].([]any)[0].(map[string]any)["path"])
	// Nothing was booked: the haircut at 12:00 is still free for both
	// who cut.
	for i, st := range []string{annaID, bramID} {
		assert.Equal(t, 201, s.post("/api/v1/appointments", keyFull, fmt.Sprint("f-", i), booking(haircutID, tue+"12:00:00Z", st, fmt.Sprintf("f%d@example.com", i))).Status)
	}
	s.stop()
	s2 := start(t, s.data)
	again := s2.post("/api/v1/baskets", keyFull, "b-2", body)
	require.Equal(t, "true", again.Header.Get("Idempotency-Replayed"))
	requireError(t, again, 409, "NO_STAFF_AVAILABLE")
	assert.Equal(t, "items.1", again.Body["fields"].([]any)[0].(map[string]any)["path"])
}

// TestBasketValidation: each bad input is named by its path.
func TestBasketValidation(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(map[string]any) {}))
	n := 0
	post := func(body string) resp { n++; return s.post("/api/v1/baskets", keyFull, fmt.Sprint("v-", n), body) }
	at := tue + "12:00:00Z"
	requireField(t, post(basketBody(at, []string{haircutID}, "")), "items", "too_small")
	requireField(t, post(basketBody(at, []string{haircutID, manicureID, haircutID, manicureID, haircutID, manicureID}, "")), "items", "too_large")
	requireField(t, post(basketBody(at, []string{haircutID, annaID}, "")), "items.1.serviceId", "invalid")
	requireField(t, post(basketBody(at, []string{haircutID + "@" + colourID, manicureID}, "")), "items.0.staffMemberId", "invalid")
	requireField(t, post(`{"startTime":"`+at+`","items":[{"serviceId":"`+haircutID+`"},{"x":1}],"customerId":"`+evaID+`"}`), "items.1.serviceId", "required")
	requireField(t, post(`{"startTime":"`+at+`","items":[{"serviceId":"`+haircutID+`"},{"serviceId":"`+manicureID+`","x":1}],"customerId":"`+evaID+`"}`), "items.1.x", "unknown_field")
	requireField(t, post(basketBody(at, []string{haircutID, manicureID}, `,"customerId":"`+evaID+`"`)), "customer", "invalid")
	requireField(t, post(`{"startTime":"`+at+`","items":[{"serviceId":"`+haircutID+`"},{"serviceId":"`+manicureID+`"}],"customerId":"`+annaID+`"}`), "customerId", "invalid")
	requireField(t, post(`{"items":[{"serviceId":"`+haircutID+`"},{"serviceId":"`+manicureID+`"}],"customerId":"`+evaID+`"}`), "startTime", "required")
	// A service that is not bookable: its own code, naming the item.
	r := post(basketBody(at, []string{haircutID, permID}, ""))
	requireError(t, r, r.Status, "SERVICE_NOT_BOOKABLE")
	assert.Equal(t, "items.1", r.Body["fields"].([]any)[0].(map[string]any)["path"])
	requireError(t, s.post("/api/v1/baskets", keyFull, "", basketBody(at, []string{haircutID, manicureID}, "")), 400, "IDEMPOTENCY_KEY_REQUIRED")
}

// chainStarts asks for the chain of services over Tuesday, and returns
// each slot's items as "HH:MM service staff…" lines, one slot a line.
func chainStarts(t *testing.T, s *server, key, query string) ([]string, resp) {
	t.Helper()
	r := s.get("/api/v1/availability/slots?"+query, key)
	if r.Status != 200 {
		return nil, r
	}
	names := map[string]string{annaID: "anna", bramID: "bram", chrisID: "chris", haircutID: "cut", colourID: "colour", manicureID: "mani"}
	var out []string
	for _, x := range r.Body["data"].([]any) {
		sl := x.(map[string]any)
		var line []string
		for _, y := range sl["items"].([]any) {
			it := y.(map[string]any)
			var who []string
			for _, id := range it["staffMemberIds"].([]any) {
				who = append(who, names[id.(string)])
			}
			line = append(line, fmt.Sprintf("%s %s %s", it["startTime"].(string)[11:16], names[it["serviceId"].(string)], strings.Join(who, ",")))
		}
		require.Equal(t, sl["startTime"], sl["items"].([]any)[0].(map[string]any)["startTime"])
		out = append(out, strings.Join(line, " | "))
	}
	return out, r
}

// TestChainAvailability: GET /availability/slots?serviceIds=a,b offers the
// starts where the whole chain fits, each with its items, and every start
// offered is one a basket booked right after accepts.
func TestChainAvailability(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, withBuffers))
	// Anna colours at 15:00 (from 14:55 with its buffer): a colour 45
	// minutes after a cut rinses into it from a 12:45 cut on, and from a
	// 13:45 one on applies into it or runs past her day.
	require.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "t-1", booking(colourID, tue+"15:00:00Z", annaID, "t@example.com")).Status)
	q := fmt.Sprintf("serviceIds=%s,%s&from=%s&to=%s", haircutID, colourID, tue+"12:00:00Z", tue+"15:00:00Z")
	got, r := chainStarts(t, s, keyFull, q)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	assert.Equal(t, []string{"12:00 cut anna,bram | 12:45 colour anna", "12:15 cut anna,bram | 13:00 colour anna", "12:30 cut anna,bram | 13:15 colour anna"}, got)
	slot := r.Body["data"].([]any)[0].(map[string]any)
	assert.Equal(t, tue+"14:15:00.000Z", slot["endTime"], "the last item's end")
	// Every start offered is accepted by a basket booked right after.
	for i, x := range r.Body["data"].([]any) {
		at := x.(map[string]any)["startTime"].(string)
		b := s.post("/api/v1/baskets", keyFull, fmt.Sprint("c-", i), basketBody(at, []string{haircutID, colourID}, ""))
		require.Equal(t, 201, b.Status, "offered at %s: %s", at, b.Raw)
		c := s.request(pcall{method: "POST", path: "/api/v1/baskets/" + b.Body["id"].(string) + "/cancel", key: keyFull})
		require.Equal(t, 200, c.Status, "%s", c.Raw)
	}
	// Narrowed to a staff member: every item pinned to them.
	got, _ = chainStarts(t, s, keyFull, q+"&staffMemberId="+bramID)
	assert.Empty(t, got, "Bram does not colour")
	got, _ = chainStarts(t, s, keyFull, fmt.Sprintf("serviceIds=%s,%s&from=%s&to=%s", haircutID, manicureID, tue+"12:00:00Z", tue+"12:00:00Z"))
	assert.Equal(t, []string{"12:00 cut anna,bram | 12:40 mani bram"}, got)

	// The query, checked by name.
	bad := func(query, path, reason string) {
		t.Helper()
		requireField(t, s.get("/api/v1/availability/slots?"+query+"&from="+tue+"09:00:00Z&to="+tue+"12:00:00Z", keyFull), path, reason)
	}
	bad("serviceIds="+haircutID+","+haircutID, "serviceIds", "invalid")
	bad("serviceIds="+haircutID+","+annaID, "serviceIds", "invalid")
	bad("serviceIds="+haircutID, "serviceIds", "invalid")
	bad("serviceIds="+haircutID+",nope", "serviceIds", "invalid_format")
	bad("serviceIds="+strings.Repeat(haircutID+",", 5)+haircutID, "serviceIds", "invalid")
	bad("serviceIds="+haircutID+","+colourID+"&serviceId="+haircutID, "serviceId", "invalid")
	requireField(t, s.get("/api/v1/availability/slots?from="+tue+"09:00:00Z&to="+tue+"12:00:00Z", keyFull), "serviceId", "required")
}

// TestBasketCancel: cancelling a basket cancels what may be cancelled,
// names the rest, frees the time and sends one e-mail.
func TestBasketCancel(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(map[string]any) {}))
	r := s.post("/api/v1/baskets", keyFull, "k-1", basketBody(tue+"12:00:00Z", []string{haircutID + "@" + annaID, colourID}, ""))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	id := r.Body["id"].(string)
	cut := r.Body["appointments"].([]any)[0].(map[string]any)["id"].(string)
	colour := r.Body["appointments"].([]any)[1].(map[string]any)["id"].(string)
	require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+cut+"/status", `{"status":"completed"}`).Status)
	c := s.request(pcall{method: "POST", path: "/api/v1/baskets/" + id + "/cancel", key: keyFull})
	require.Equal(t, 200, c.Status, "%s", c.Raw)
	assert.Equal(t, []any{colour}, c.Body["cancelled"])
	assert.Equal(t, []any{map[string]any{"id": cut, "code": "INVALID_STATUS_TRANSITION"}}, c.Body["skipped"])
	assert.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "k-2", booking(colourID, tue+"12:30:00Z", annaID, "k@example.com")).Status,
		"the colour's time is free")
	again := s.request(pcall{method: "POST", path: "/api/v1/baskets/" + id + "/cancel", key: keyFull})
	require.Equal(t, 200, again.Status)
	assert.Equal(t, []any{}, again.Body["cancelled"], "nothing left to cancel")
	requireError(t, s.request(pcall{method: "POST", path: "/api/v1/baskets/" + annaID + "/cancel", key: keyFull}), 404, "NOT_FOUND")
	requireField(t, s.request(pcall{method: "POST", path: "/api/v1/baskets/" + id + "/cancel", key: keyFull, body: `{"from":"x"}`}), "from", "unknown_field")
	require.Eventually(t, func() bool { return outboxHas(t, s, "Your appointments at") }, 10*time.Second, 10*time.Millisecond)
}

// TestBasketPublishable: a booking page books a basket with its
// publishable key, the rules enforced; past the rules it may not.
func TestBasketPublishable(t *testing.T) {
	s := startPublishableWorld(t, nil)
	r := s.request(pcall{method: "POST", path: "/api/v1/baskets", key: keyPublishable, header: map[string]string{"Idempotency-Key": "p-1", "Origin": pageOrigin},
		body: basketBody(tue+"12:00:00Z", []string{haircutID, manicureID}, "")})
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	r = s.request(pcall{method: "POST", path: "/api/v1/baskets", key: keyPublishable, header: map[string]string{"Idempotency-Key": "p-2", "Origin": pageOrigin},
		body: basketBody(tue+"13:00:00Z", []string{haircutID, manicureID}, `,"enforceBookingRules":false`)})
	requireError(t, r, 403, "INSUFFICIENT_SCOPE")
	requireError(t, s.request(pcall{method: "GET", path: "/api/v1/baskets/" + annaID, key: keyPublishable, header: map[string]string{"Origin": pageOrigin}}), 403, "INSUFFICIENT_SCOPE")
}

// TestBasketRace: baskets racing over overlapping starts for one staff
// member never double-book him and are never booked in part.
func TestBasketRace(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(map[string]any) {}))
	starts := []string{"12:00:00Z", "12:15:00Z", "12:30:00Z", "13:00:00Z"}
	got := raceBodies(t, func(i int, body string) resp {
		return s.post("/api/v1/baskets", keyFull, fmt.Sprint("race-", i), body)
	}, 24, func(i int) string {
		return strings.Replace(basketBody(tue+starts[i%len(starts)], []string{haircutID + "@" + bramID, manicureID + "@" + bramID}, ""),
			"bo@example.com", fmt.Sprintf("r%d@example.com", i), 1)
	})
	assert.Equal(t, 24, got["201"]+got["409 SLOT_TAKEN"], "%v", got)
	l := s.get("/api/v1/appointments?limit=100&staffMemberId="+bramID+"&from="+tue+"00:00:00Z&to="+tue+"23:00:00Z", keyFull)
	require.Equal(t, 200, l.Status, "%s", l.Raw)
	perBasket := map[string]int{}
	var spans [][2]string
	for _, x := range l.Body["data"].([]any) {
		a := x.(map[string]any)
		perBasket[a["basketId"].(string)]++
		spans = append(spans, [2]string{a["startTime"].(string), a["endTime"].(string)})
	}
	assert.Len(t, perBasket, got["201"])
	for id, n := range perBasket {
		assert.Equal(t, 2, n, "basket %s is not whole", id)
	}
	for i := range spans {
		for j := range i {
			overlap := spans[i][0] < spans[j][1] && spans[j][0] < spans[i][1]
			assert.False(t, overlap, "Bram booked twice: %v and %v", spans[i], spans[j])
		}
	}
	t.Logf("24 baskets at once: %v", got)
}
