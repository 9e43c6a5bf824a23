package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Customers' manage links (decisions §7) through a real server: every
// appointment the API shows carries its manageUrl; the link's JSON needs
// no key, says what the business's customerChanges setting allows now,
// survives a restart, and answers any other token with the same 404,
// counted against the client IP's failed-authentication limit.
func TestManageLink(t *testing.T) {
	s := startWorld(t)
	r := s.post("/api/v1/appointments", keyFull, "manage-1", booking(haircutID, tue+"10:00:00Z", annaID, "manage@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	a := r.Body["appointment"].(map[string]any)
	id := a["id"].(string)
	link := a["manageUrl"].(string)
	require.True(t, strings.HasPrefix(link, s.base+"/manage/"), link)
	token := strings.TrimPrefix(link, s.base+"/manage/")
	require.Len(t, token, 64)
	require.Equal(t, link, s.get("/api/v1/appointments/"+id, keyFull).Body["manageUrl"], "the same link wherever the API shows it")
	replay := s.post("/api/v1/appointments", keyFull, "manage-1", booking(haircutID, tue+"10:00:00Z", annaID, "manage@example.com"))
	require.Equal(t, link, replay.Body["appointment"].(map[string]any)["manageUrl"], "and in a replayed answer")

	m := s.get("/api/v1/manage/"+token, "")
	require.Equal(t, 200, m.Status, "%s", m.Raw)
	require.Equal(t, id, m.Body["appointment"].(map[string]any)["id"])
	require.Equal(t, "manage@example.com", m.Body["appointment"].(map[string]any)["customer"].(map[string]any)["email"])
	require.Equal(t, true, m.Body["canCancel"])
	require.Equal(t, true, m.Body["canReschedule"])
	require.Equal(t, tue+"10:00:00.000Z", m.Body["cancelBefore"], "no notice by default: until the start")
	require.Equal(t, "no-store", m.Header.Get("Cache-Control"))
	require.NotEmpty(t, m.Header.Get("X-RateLimit-Limit"))

	// Past the start nothing can change; a cancelled booking neither.
	s.clock.Set(time.Date(2026, 12, 8, 10, 0, 0, 0, time.UTC))
	m = s.get("/api/v1/manage/"+token, "")
	require.Equal(t, false, m.Body["canCancel"])
	require.Nil(t, m.Body["cancelBefore"])
	s.clock.Set(testEpoch)

	s.stop()
	s2 := start(t, s.data)
	require.Equal(t, 200, s2.get("/api/v1/manage/"+token, "").Status, "the link survives a restart")
	require.Equal(t, 200, s2.call("POST", "/api/v1/appointments/"+id+"/status", `{"status":"cancelled"}`).Status)
	m = s2.get("/api/v1/manage/"+token, "")
	require.Equal(t, "cancelled", m.Body["appointment"].(map[string]any)["status"])
	require.Equal(t, false, m.Body["canCancel"])
	require.Equal(t, false, m.Body["canReschedule"])

	requireError(t, s2.get("/api/v1/manage/"+token+"?x=1", ""), 400, "VALIDATION_ERROR")
	forged := []byte(token)
	forged[63] ^= 1
	for _, bad := range []string{"nope", strings.Repeat("A", 64), string(forged), token[:63]} {
		requireError(t, s2.get("/api/v1/manage/"+bad, ""), 404, "NOT_FOUND")
	}
	for range 20 {
		s2.get("/api/v1/manage/"+string(forged), "")
	}
	requireError(t, s2.get("/api/v1/manage/"+token, ""), 429, "RATE_LIMITED")
}

// The business's customerChanges setting: notices measured back from the
// start, each change allowed or not.
func TestManageLinkFollowsTheSetting(t *testing.T) {
	s := startWorldWith(t, map[string]any{"allowReschedule": false, "cancelMinNoticeMinutes": 1440})

	r := s.post("/api/v1/appointments", keyFull, "set-1", booking(haircutID, tue+"10:00:00Z", annaID, "set@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	token := r.Body["appointment"].(map[string]any)["manageUrl"].(string)
	token = token[strings.LastIndex(token, "/")+1:]

	m := s.get("/api/v1/manage/"+token, "")
	assert.Equal(t, true, m.Body["canCancel"])
	assert.Equal(t, "2026-12-07T10:00:00.000Z", m.Body["cancelBefore"], "a day before the start")
	assert.Equal(t, false, m.Body["canReschedule"])
	assert.Nil(t, m.Body["rescheduleBefore"], "rescheduling is not allowed at all")

	s.clock.Set(time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC))
	m = s.get("/api/v1/manage/"+token, "")
	assert.Equal(t, false, m.Body["canCancel"], "within the notice")
	assert.Equal(t, "2026-12-07T10:00:00.000Z", m.Body["cancelBefore"])
}

// Cancelling through the manage link: the business's setting judged in
// its actor (a status that cannot change first, then the window), every
// effect of the API's cancel, and changedBy "customer" in the events; a
// booking made with a publishable key is the customer's too, and the
// business's own changes say "business".
func TestManageLinkCancel(t *testing.T) {
	s := startPublishableWorld(t, nil, "--webhooks-allow-insecure")
	rcv := newReceiver(t)
	reg := `{"url":%q,"eventTypes":["appointment.created","appointment.cancelled"]}`
	require.Equal(t, 201, s.hook("POST", "/api/v1/webhooks", fmt.Sprintf(reg, rcv.URL+"/hook")).Status)

	byBusiness := linkToken(t, s.post("/api/v1/appointments", keyFull, "c-1", booking(haircutID, tue+"10:00:00Z", annaID, "one@example.com")))
	byCustomer := linkToken(t, s.request(pcall{method: "POST", path: "/api/v1/appointments", key: keyPublishable,
		body: booking(haircutID, tue+"11:00:00Z", annaID, "two@example.com"), header: map[string]string{"Idempotency-Key": "c-2"}}))

	r := s.request(pcall{method: "POST", path: "/api/v1/manage/" + byBusiness + "/cancel"})
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	a := r.Body["appointment"].(map[string]any)
	require.Equal(t, "cancelled", a["status"])
	require.Equal(t, false, r.Body["canCancel"])
	require.Equal(t, "cancelled", s.get("/api/v1/appointments/"+a["id"].(string), keyFull).Body["status"])
	// Cancelled already: the status cannot change, whatever the setting.
	requireError(t, s.request(pcall{method: "POST", path: "/api/v1/manage/" + byBusiness + "/cancel"}), 422, "INVALID_STATUS_TRANSITION")
	requireError(t, s.request(pcall{method: "POST", path: "/api/v1/manage/" + strings.Repeat("A", 64) + "/cancel"}), 404, "NOT_FOUND")

	changedBy := map[string]string{} // event type and appointment start -> changedBy
	require.Eventually(t, func() bool {
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		for _, b := range rcv.bodies {
			var ev struct {
				Type      string `json:"type"`
				ChangedBy string `json:"changedBy"`
				Data      struct {
					StartTime string `json:"startTime"`
				} `json:"data"`
			}
			if json.Unmarshal(b, &ev) == nil && ev.Type != "webhook.test" {
				changedBy[ev.Type+" "+ev.Data.StartTime] = ev.ChangedBy
			}
		}
		return len(changedBy) >= 3
	}, 10*time.Second, 20*time.Millisecond)
	assert.Equal(t, map[string]string{
		"appointment.created " + tue + "10:00:00.000Z":   "business",
		"appointment.created " + tue + "11:00:00.000Z":   "customer",
		"appointment.cancelled " + tue + "10:00:00.000Z": "customer",
	}, changedBy)

	// Within the notice the setting refuses, and nothing changes.
	s.clock.Set(time.Date(2026, 12, 8, 10, 59, 0, 0, time.UTC))
	m := s.get("/api/v1/manage/"+byCustomer, "")
	require.Equal(t, true, m.Body["canCancel"], "no notice by default")
	s.clock.Set(time.Date(2026, 12, 8, 11, 0, 0, 0, time.UTC))
	requireError(t, s.request(pcall{method: "POST", path: "/api/v1/manage/" + byCustomer + "/cancel"}), 422, "INVALID_STATUS_TRANSITION")
}

// A cancellation the setting does not allow is OUTSIDE_CHANGE_WINDOW.
func TestManageLinkCancelOutsideTheWindow(t *testing.T) {
	s := startWorldWith(t, map[string]any{"cancelMinNoticeMinutes": 1440})
	r := s.post("/api/v1/appointments", keyFull, "w-1", booking(haircutID, tue+"10:00:00Z", annaID, "w@example.com"))
	token := linkToken(t, r)
	s.clock.Set(time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC))
	requireError(t, s.request(pcall{method: "POST", path: "/api/v1/manage/" + token + "/cancel"}), 422, "OUTSIDE_CHANGE_WINDOW")
	require.Equal(t, "confirmed", s.get("/api/v1/appointments/"+r.Body["appointment"].(map[string]any)["id"].(string), keyFull).Body["status"])
	s.clock.Set(time.Date(2026, 12, 7, 9, 59, 0, 0, time.UTC))
	require.Equal(t, 200, s.request(pcall{method: "POST", path: "/api/v1/manage/" + token + "/cancel"}).Status)
}

// linkToken is the manage link's token of a booking's 201.
func linkToken(t *testing.T, r resp) string {
	t.Helper()
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	l := r.Body["appointment"].(map[string]any)["manageUrl"].(string)
	return l[strings.LastIndex(l, "/")+1:]
}

// startWorldWith starts testdata/world.json with the salon's
// customerChanges set to changes.
func startWorldWith(t *testing.T, changes map[string]any) *server {
	t.Helper()
	return start(t, "", "--world", salonWorld(t, func(biz map[string]any) { biz["customerChanges"] = changes }))
}

// Rescheduling through the manage link: a PATCH of the start with the
// booking rules enforced, judged first by the setting; counted against
// maxReschedules across a restart.
func TestManageLinkReschedule(t *testing.T) {
	s := startWorldWith(t, map[string]any{"maxReschedules": 1, "rescheduleMinNoticeMinutes": 60})
	r := s.post("/api/v1/appointments", keyFull, "r-1", booking(haircutID, tue+"10:00:00Z", annaID, "r@example.com"))
	token := linkToken(t, r)
	id := r.Body["appointment"].(map[string]any)["id"].(string)
	require.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "r-2", booking(haircutID, tue+"14:00:00Z", annaID, "other@example.com")).Status)
	require.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "r-3", booking(haircutID, tue+"14:00:00Z", bramID, "third@example.com")).Status)
	move := func(body string) resp {
		return s.request(pcall{method: "POST", path: "/api/v1/manage/" + token + "/reschedule", body: body})
	}

	requireField(t, move(`{}`), "startTime", "required")
	requireField(t, move(`{"startTime":"tomorrow"}`), "startTime", "invalid_date")
	requireField(t, move(`{"startTime":"`+tue+`11:00:00Z","staffMemberId":"`+annaID+`"}`), "staffMemberId", "unknown_field")
	requireError(t, move(`{"startTime":"`+tue+`14:00:00Z"}`), 409, "NO_STAFF_AVAILABLE") // Anna and Bram both booked
	requireError(t, move(`{"startTime":"`+tue+`11:40:00Z"}`), 422, "SLOT_NOT_OFFERED")

	m := move(`{"startTime":"` + tue + `11:00:00Z"}`)
	require.Equal(t, 200, m.Status, "%s", m.Raw)
	a := m.Body["appointment"].(map[string]any)
	require.Equal(t, tue+"11:00:00.000Z", a["startTime"])
	require.Equal(t, annaID, a["staffMember"].(map[string]any)["id"], "the same staff member when free")
	require.Equal(t, false, m.Body["canReschedule"], "one move allowed, one made")
	require.Nil(t, m.Body["rescheduleBefore"])
	require.Equal(t, true, m.Body["canCancel"])
	require.Equal(t, tue+"11:00:00.000Z", s.get("/api/v1/appointments/"+id, keyFull).Body["startTime"])

	s.stop()
	s2 := start(t, s.data)
	requireError(t, s2.request(pcall{method: "POST", path: "/api/v1/manage/" + token + "/reschedule",
		body: `{"startTime":"` + tue + `12:00:00Z"}`}), 422, "OUTSIDE_CHANGE_WINDOW")
	require.Equal(t, tue+"11:00:00.000Z", s2.get("/api/v1/appointments/"+id, keyFull).Body["startTime"], "nothing changed")
}

// The reschedule notice: within rescheduleMinNoticeMinutes of the start
// the setting refuses.
func TestManageLinkRescheduleNotice(t *testing.T) {
	s := startWorldWith(t, map[string]any{"rescheduleMinNoticeMinutes": 60})
	r := s.post("/api/v1/appointments", keyFull, "n-1", booking(haircutID, tue+"10:00:00Z", annaID, "n@example.com"))
	token := linkToken(t, r)
	s.clock.Set(time.Date(2026, 12, 8, 9, 0, 0, 0, time.UTC))
	requireError(t, s.request(pcall{method: "POST", path: "/api/v1/manage/" + token + "/reschedule",
		body: `{"startTime":"` + tue + `15:00:00Z"}`}), 422, "OUTSIDE_CHANGE_WINDOW")
}

// The starts a booking may be moved to through its link: availability
// for its own service with its own time not counted against it, its own
// staff member only when locked to them; each one offered is accepted by
// the reschedule. Refused as the move would be.
func TestManageLinkSlots(t *testing.T) {
	s := startWorldWith(t, map[string]any{"maxReschedules": 1})
	book := func(key, start, staff, email string, locked bool) resp {
		b := booking(haircutID, tue+start, staff, email)
		if locked {
			b = strings.TrimSuffix(b, "}") + `,"staffLocked":true}`
		}
		r := s.post("/api/v1/appointments", keyFull, key, b)
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		return r
	}
	mine := linkToken(t, book("s-1", "10:00:00Z", annaID, "mine@example.com", true))
	book("s-2", "10:30:00Z", annaID, "anna2@example.com", false)
	book("s-3", "11:00:00Z", bramID, "bram@example.com", false)

	window := "?from=" + tue + "09:00:00Z&to=" + tue + "11:30:00Z"
	r := s.get("/api/v1/manage/"+mine+"/slots"+window, "")
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	starts := map[string][]any{}
	for _, x := range r.Body["data"].([]any) {
		m := x.(map[string]any)
		starts[m["startTime"].(string)] = m["staffMemberIds"].([]any)
	}
	require.Contains(t, starts, tue+"10:00:00.000Z", "its own time is free for it")
	require.Contains(t, starts, tue+"09:30:00.000Z")
	require.NotContains(t, starts, tue+"10:30:00.000Z", "Anna is booked then")
	require.Contains(t, starts, tue+"11:00:00.000Z", "Anna is free then; Bram is not, and does not count: it is locked to Anna")
	for _, ids := range starts {
		require.Equal(t, []any{annaID}, ids, "locked to Anna")
	}

	requireField(t, s.get("/api/v1/manage/"+mine+"/slots?from="+tue+"09:00:00Z", ""), "to", "required")
	requireField(t, s.get("/api/v1/manage/"+mine+"/slots"+window+"&serviceId="+haircutID, ""), "serviceId", "unknown_field")
	requireError(t, s.get("/api/v1/manage/"+strings.Repeat("A", 64)+"/slots"+window, ""), 404, "NOT_FOUND")

	m := s.request(pcall{method: "POST", path: "/api/v1/manage/" + mine + "/reschedule", body: `{"startTime":"` + tue + `09:30:00Z"}`})
	require.Equal(t, 200, m.Status, "an offered start is accepted: %s", m.Raw)
	requireError(t, s.get("/api/v1/manage/"+mine+"/slots"+window, ""), 422, "OUTSIDE_CHANGE_WINDOW")
}
