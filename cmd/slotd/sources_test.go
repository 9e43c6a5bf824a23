package main

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Calendar sources (decisions §8) through a real server: an ICS calendar
// on a local server, fetched within 5 seconds of the source's creation and
// again every refreshMinutes on the server's clock, its events occupying
// the staff member as pushed busy time does; a failed fetch keeps them
// and says why; an unchanged calendar costs a 304; the fetches resume
// after a restart; deleting the source frees the time.

// icsServer serves one calendar, with an ETag, counting its fetches.
type icsServer struct {
	mu      sync.Mutex
	body    string
	fail    bool
	fetches int
	ifNone  []string      // each fetch's If-None-Match
	kick    chan struct{} // a fetch was answered
}

func newICSServer(body string) *icsServer {
	return &icsServer{body: body, kick: make(chan struct{}, 1)}
}

func (c *icsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer func() {
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}()
	c.fetches++
	c.ifNone = append(c.ifNone, r.Header.Get("If-None-Match"))
	if c.fail {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	sum := sha256.Sum256([]byte(c.body))
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	_, _ = w.Write([]byte(c.body))
}

func (c *icsServer) set(f func(c *icsServer)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(c)
}

func (c *icsServer) seen() (int, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fetches, append([]string(nil), c.ifNone...)
}

// dentist is a calendar with one event on tue, in Amsterdam's wall clock
// (UTC+1 in December): "HH:MM" local start, an hour long; and a weekly
// team meeting that the calendar app marks free (TRANSP:TRANSPARENT).
func dentist(localStart string) string {
	hhmm := strings.ReplaceAll(localStart, ":", "")
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
		"BEGIN:VEVENT\r\nUID:dentist-1@example.com\r\nDTSTAMP:20261101T000000Z\r\n" +
		"DTSTART;TZID=Europe/Amsterdam:20261208T" + hhmm + "00\r\nDURATION:PT1H\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\n" +
		"BEGIN:VEVENT\r\nUID:team@example.com\r\nDTSTAMP:20261101T000000Z\r\n" +
		"DTSTART:20261201T140000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY\r\nTRANSP:TRANSPARENT\r\nSUMMARY:Team\r\nEND:VEVENT\r\n" +
		"END:VCALENDAR\r\n"
}

func (s *server) sources(staff string) string { return "/api/v1/staff/" + staff + "/calendar-sources" }

// source reads a calendar source.
func (s *server) source(staff, id string) map[string]any {
	s.t.Helper()
	r := s.request(pcall{method: "GET", path: s.sources(staff) + "/" + id, key: keyCalendars})
	require.Equal(s.t, 200, r.Status, "%s", r.Raw)
	return r.Body
}

// untilFetched moves the server's clock a second at a time until the
// source's lastSyncAt or lastError changes from before (at most 10 s of
// real time): the fetch runs on the network, after a timer the test
// cannot see armed, and its outcome is journalled after that.
func (s *server) untilFetched(cal *icsServer, staff, id string, before map[string]any) map[string]any {
	s.t.Helper()
	return s.untilFetchedWithin(cal, staff, id, before, 0)
}

// untilFetchedWithin is untilFetched advancing the server's clock by at
// most within in all (0: without bound): once it has, it only waits. A
// fetch is real I/O; advanced on while one was in flight, the clock could
// stamp it later than it was due on a loaded machine.
func (s *server) untilFetchedWithin(cal *icsServer, staff, id string, before map[string]any, within time.Duration) map[string]any {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var kick chan struct{}
	if cal != nil {
		kick = cal.kick
	}
	var advanced time.Duration
	for {
		now := s.source(staff, id)
		if now["lastSyncAt"] != before["lastSyncAt"] || now["lastError"] != before["lastError"] {
			return now
		}
		require.True(s.t, time.Now().Before(deadline), "source %s never fetched: %v", id, now)
		if within == 0 || advanced < within {
			s.clock.Advance(time.Second)
			advanced += time.Second
		}
		select {
		case <-kick:
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func checkAnna(t *testing.T, s *server, at string) map[string]any {
	t.Helper()
	c := s.post("/api/v1/availability/check", keyFull, "", `{"serviceId":"`+haircutID+`","staffMemberId":"`+annaID+`","startTimes":["`+at+`"]}`)
	require.Equal(t, 200, c.Status, "%s", c.Raw)
	return c.Body["data"].([]any)[0].(map[string]any)["staff"].([]any)[0].(map[string]any)
}

func TestCalendarSource(t *testing.T) {
	cal := newICSServer(dentist("11:00")) // 10:00Z
	ics := httptest.NewServer(cal)
	defer ics.Close()
	s := startCalendarWorld(t, "--webhooks-allow-insecure")
	require.True(t, annaSlots(t, s)["10:00"])

	created := s.request(pcall{method: "POST", path: s.sources(annaID), key: keyCalendars, body: `{"url":"` + ics.URL + `/anna.ics"}`})
	require.Equal(t, 201, created.Status, "%s", created.Raw)
	id := created.Body["id"].(string)
	assert.Equal(t, map[string]any{"id": id, "url": ics.URL + "/anna.ics", "refreshMinutes": float64(15), "lastSyncAt": nil,
		"lastError": nil, "createdAt": "2026-12-01T08:00:00.000Z"}, created.Body)

	// The first fetch within 5 s of creation, on the server's clock.
	first := s.untilFetchedWithin(cal, annaID, id, created.Body, 5*time.Second)
	assert.Nil(t, first["lastError"])
	at, err := time.Parse(time.RFC3339, first["lastSyncAt"].(string))
	require.NoError(t, err)
	assert.LessOrEqual(t, at.Sub(testEpoch), 5*time.Second)

	source := "ics:" + id
	list := s.request(pcall{method: "GET", path: "/api/v1/staff/" + annaID + "/busy-times?from=" + tue + "00:00:00Z&to=" + tue + "23:00:00Z", key: keyCalendars})
	require.Equal(t, 200, list.Status, "%s", list.Raw)
	require.Equal(t, []any{map[string]any{"source": source, "start": tue + "10:00:00.000Z", "end": tue + "11:00:00.000Z",
		"externalId": "dentist-1@example.com", "title": "Dentist"}}, list.Body["data"], "the transparent meeting is not busy")

	requireError(t, s.post("/api/v1/appointments", keyFull, "s-1", booking(haircutID, tue+"10:00:00Z", annaID, "x1@example.com")), 409, "SLOT_TAKEN")
	v := checkAnna(t, s, tue+"10:15:00Z")
	assert.Equal(t, "SLOT_TAKEN", v["code"])
	assert.Equal(t, source, v["busySource"])
	assert.Equal(t, "dentist-1@example.com", v["externalId"])
	assert.True(t, annaSlots(t, s)["14:00"])

	// The dentist moves to 15:00 local: at the next refresh 10:00 is free
	// and 14:00Z is not.
	cal.set(func(c *icsServer) { c.body = dentist("15:00") })
	s.clock.Advance(14 * time.Minute)
	moved := s.untilFetched(cal, annaID, id, first)
	assert.Nil(t, moved["lastError"])
	slots := annaSlots(t, s)
	assert.True(t, slots["10:00"])
	assert.False(t, slots["14:00"])

	// Unchanged: the next fetch sends the ETag and gets a 304.
	s.clock.Advance(14 * time.Minute)
	same := s.untilFetched(cal, annaID, id, moved)
	n, ifNone := cal.seen()
	require.Equal(t, 3, n)
	assert.Empty(t, ifNone[0])
	assert.NotEmpty(t, ifNone[2], "a conditional fetch")
	assert.Nil(t, same["lastError"])

	// Down: lastError says why, the busy time stays.
	cal.set(func(c *icsServer) { c.fail = true })
	s.clock.Advance(14 * time.Minute)
	down := s.untilFetched(cal, annaID, id, same)
	assert.Equal(t, "the calendar server answered 503 Service Unavailable", down["lastError"])
	assert.Equal(t, same["lastSyncAt"], down["lastSyncAt"])
	assert.False(t, annaSlots(t, s)["14:00"], "a failed fetch keeps the previous intervals")

	metrics := string(s.adminDo("GET", "/metrics", nil).Raw)
	for _, outcome := range []string{"updated", "unchanged", "unreachable"} {
		assert.Contains(t, metrics, `slotd_calendar_source_fetches_total{outcome="`+outcome+`"}`)
	}

	// After a restart, the fetches resume on their schedule.
	cal.set(func(c *icsServer) { c.fail = false; c.body = dentist("16:00") })
	s.stop()
	s2 := start(t, s.data, "--webhooks-allow-insecure")
	assert.False(t, annaSlots(t, s2)["14:00"], "the busy time was journalled")
	s2.clock.Set(testEpoch.Add(time.Hour)) // the last fetch began about 08:42, so the next is overdue
	back := s2.untilFetched(cal, annaID, id, down)
	assert.Nil(t, back["lastError"])
	slots = annaSlots(t, s2)
	assert.True(t, slots["14:00"])
	assert.False(t, slots["15:00"])

	// Deleting the source frees its time.
	del := s2.request(pcall{method: "DELETE", path: s2.sources(annaID) + "/" + id, key: keyCalendars})
	require.Equal(t, 204, del.Status, "%s", del.Raw)
	assert.True(t, annaSlots(t, s2)["15:00"])
	requireError(t, s2.request(pcall{method: "GET", path: s2.sources(annaID) + "/" + id, key: keyCalendars}), 404, "NOT_FOUND")
	empty := s2.request(pcall{method: "GET", path: s2.sources(annaID), key: keyCalendars})
	assert.Empty(t, empty.Body["data"])
}

// Bad input to calendar sources gets the documented errors.
func TestCalendarSourceInput(t *testing.T) {
	s := startCalendarWorld(t)
	post := func(staff, body string) resp {
		return s.request(pcall{method: "POST", path: s.sources(staff), key: keyCalendars, body: body})
	}
	requireField(t, post(annaID, `{"url":"http://calendar.example.com/a.ics"}`), "url", "invalid_url")
	requireField(t, post(annaID, `{}`), "url", "required")
	requireField(t, post(annaID, `{"url":"https://calendar.example.com/a.ics","refreshMinutes":4}`), "refreshMinutes", "too_small")
	requireField(t, post(annaID, `{"url":"https://calendar.example.com/a.ics","refreshMinutes":1441}`), "refreshMinutes", "too_large")
	requireField(t, post(annaID, `{"url":"https://calendar.example.com/a.ics","colour":"red"}`), "colour", "unknown_field")
	requireError(t, post("00000000-0000-4000-8000-000000000000", `{"url":"https://calendar.example.com/a.ics"}`), 404, "NOT_FOUND")

	ok := post(annaID, `{"url":"webcal://calendar.example.com/a.ics","refreshMinutes":60}`)
	require.Equal(t, 201, ok.Status, "%s", ok.Raw)
	assert.Equal(t, float64(60), ok.Body["refreshMinutes"])
	requireError(t, post(annaID, `{"url":"webcal://calendar.example.com/a.ics"}`), 409, "CONFLICT")
	require.Equal(t, 201, post(chrisID, `{"url":"webcal://calendar.example.com/a.ics"}`).Status, "another staff member may share the calendar")

	requireError(t, s.request(pcall{method: "DELETE", path: s.sources(chrisID) + "/" + ok.Body["id"].(string), key: keyCalendars}), 404, "NOT_FOUND")
	requireError(t, s.request(pcall{method: "GET", path: s.sources(annaID), key: keyFull}), 403, "INSUFFICIENT_SCOPE")

	// An address the guard refuses is judged when it is dialled, as a
	// webhook's: lastError says so.
	guarded := post(bramID, `{"url":"https://127.0.0.1/a.ics"}`)
	require.Equal(t, 201, guarded.Status, "%s", guarded.Raw)
	got := s.untilFetched(nil, bramID, guarded.Body["id"].(string), guarded.Body)
	assert.Contains(t, got["lastError"], "the calendar's address is not allowed")
	assert.Nil(t, got["lastSyncAt"])
}

// TestClusterCalendarSourceTakeOver: a calendar source's fetches move with
// its business. The owner's first fetch never ends (the calendar server
// holds it) and the owner is killed; the node that takes the salon over
// resumes the source from the journal, fetches it within seconds, and its
// busy time refuses a booking there.
func TestClusterCalendarSourceTakeOver(t *testing.T) {
	clusterFaultTest(t)
	bin := buildBinary(t)
	var (
		mu     sync.Mutex
		served int
	)
	first, release := make(chan struct{}), make(chan struct{})
	ics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served++
		n := served
		mu.Unlock()
		if n == 1 {
			close(first)
			select { // the owner's fetch: held until the owner is gone
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		_, _ = w.Write([]byte(dentist("11:00")))
	}))
	defer ics.Close()
	defer close(release)

	procs := startNodes(t, bin, 3, false, "--world", calendarWorld(t), "--webhooks-allow-insecure")
	victim := ownerOf(t, procs, keyCalendars)
	status, body, _, err := clusterCallKey(keyCalendars, "POST", victim.pub, "/api/v1/staff/"+annaID+"/calendar-sources",
		`{"url":"`+ics.URL+`/anna.ics"}`)
	require.NoError(t, err)
	require.Equal(t, 201, status, "%v", body)
	id := body["id"].(string)
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("the owner did not fetch the calendar within 10 s of its creation")
	}
	require.NoError(t, victim.cmd.Process.Kill())

	var survivor *clusterProc
	for _, p := range procs {
		if p != victim {
			survivor = p
		}
	}
	var src map[string]any
	require.Eventually(t, func() bool {
		status, b, _, err := clusterCallKey(keyCalendars, "GET", survivor.pub, "/api/v1/staff/"+annaID+"/calendar-sources/"+id, "")
		src = b
		return err == nil && status == 200 && b["lastSyncAt"] != nil
	}, 60*time.Second, 50*time.Millisecond, "the survivor never fetched the source")
	require.Nil(t, src["lastError"])

	status, body, _, err = clusterCall("POST", survivor.pub, "/api/v1/appointments",
		booking(haircutID, tue+"10:00:00Z", annaID, "taken@example.com"), "Idempotency-Key", "over-the-dentist")
	require.NoError(t, err)
	require.Equal(t, 409, status, "%v", body)
	require.Equal(t, "SLOT_TAKEN", body["code"])
}
