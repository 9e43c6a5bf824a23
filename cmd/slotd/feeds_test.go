package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Calendar feeds (decisions §8) through a real server: made with the
// calendars:manage scope, shown once, polled as iCalendar with ETags,
// revoked by deleting them.

const keyCalendars = "sk_example_salon_calendars"

// startCalendarWorld starts the test world with a key of the salon's that
// has calendars:manage.
func startCalendarWorld(t *testing.T, args ...string) *server {
	t.Helper()
	return start(t, "", append([]string{"--world", calendarWorld(t)}, args...)...)
}

// calendarWorld writes the test world with the salon's calendars key.
func calendarWorld(t *testing.T) string {
	t.Helper()
	return salonWorld(t, func(biz map[string]any) {
		biz["apiKeys"] = append(biz["apiKeys"].([]any), map[string]any{"key": keyCalendars,
			"scopes": []string{"calendars:manage", "appointments:read"},
			"limits": map[string]any{"perMinute": 1000000, "perHour": 100000000, "mutationsPerMinute": 1000000}})
	})
}

// feed is one GET of a feed's URL.
type feed struct {
	status int
	header http.Header
	body   string
}

func getFeed(t *testing.T, url, etag string) feed {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	require.NoError(t, err)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return feed{status: res.StatusCode, header: res.Header, body: string(b)}
}

// vevents are the events of an iCalendar text: each one's properties by
// name, lines unfolded.
func vevents(t *testing.T, ics string) []map[string]string {
	t.Helper()
	require.True(t, strings.HasSuffix(ics, "\r\n"))
	unfolded := strings.ReplaceAll(ics, "\r\n ", "")
	var out []map[string]string
	var cur map[string]string
	for _, line := range strings.Split(strings.TrimSuffix(unfolded, "\r\n"), "\r\n") {
		switch line {
		case "BEGIN:VEVENT":
			cur = map[string]string{}
		case "END:VEVENT":
			out = append(out, cur)
			cur = nil
		default:
			if cur != nil {
				name, value, _ := strings.Cut(line, ":")
				cur[name] = value
			}
		}
	}
	return out
}

func TestCalendarFeed(t *testing.T) {
	s := startCalendarWorld(t)
	mk := func(body string) resp { return s.post("/api/v1/calendar-feeds", keyCalendars, "", body) }

	r := mk(`{"staffMemberId":"` + annaID + `"}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	anna := r.Body
	assert.Equal(t, annaID, anna["staffMemberId"])
	assert.Equal(t, false, anna["includeCustomerNames"])
	url := anna["url"].(string)
	require.Regexp(t, `^`+regexp.QuoteMeta(s.base)+`/feeds/[A-Za-z0-9_-]{64}\.ics$`, url)
	assert.Equal(t, "webcal://"+strings.TrimPrefix(url, "http://"), anna["webcalUrl"])
	r = mk(`{"staffMemberId":null,"includeCustomerNames":true}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	all := r.Body["url"].(string)

	list := s.get("/api/v1/calendar-feeds", keyCalendars)
	require.Equal(t, 200, list.Status)
	data := list.Body["data"].([]any)
	require.Len(t, data, 2)
	for _, f := range data {
		assert.NotContains(t, f, "url", "the address is shown once")
		assert.NotContains(t, f, "webcalUrl")
	}

	// Bookings: Anna's, Bram's, and one of Anna's cancelled.
	book := func(idem, start, staff, email string) string {
		r := s.post("/api/v1/appointments", keyFull, idem, booking(haircutID, start, staff, email))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		return r.Body["appointment"].(map[string]any)["id"].(string)
	}
	a1 := book("f-1", tue+"09:00:00Z", annaID, "feed1@example.com")
	a2 := book("f-2", tue+"10:00:00Z", annaID, "feed2@example.com")
	b1 := book("f-3", tue+"09:00:00Z", bramID, "feed3@example.com")
	require.Equal(t, 200, s.post("/api/v1/appointments/"+a2+"/status", keyFull, "", `{"status":"cancelled"}`).Status)

	f := getFeed(t, url, "")
	require.Equal(t, 200, f.status)
	assert.Equal(t, "text/calendar; charset=utf-8", f.header.Get("Content-Type"))
	assert.Equal(t, "private, no-cache", f.header.Get("Cache-Control"))
	require.NotEmpty(t, f.header.Get("ETag"))
	assert.Contains(t, f.body, "X-WR-CALNAME:Salon Example – Anna\r\n")
	assert.Contains(t, f.body, "X-WR-TIMEZONE:Europe/Amsterdam\r\n")
	assert.Contains(t, f.body, "REFRESH-INTERVAL;VALUE=DURATION:PT15M\r\n")
	evs := vevents(t, f.body)
	byUID := map[string]map[string]string{}
	for _, e := range evs {
		byUID[e["UID"]] = e
	}
	e1 := byUID[a1+"-0@slotd"]
	require.NotNil(t, e1, "%s", f.body)
	assert.Equal(t, "20261208T090000Z", e1["DTSTART"])
	assert.Equal(t, "20261208T093000Z", e1["DTEND"])
	assert.Equal(t, "CONFIRMED", e1["STATUS"])
	assert.Equal(t, "0", e1["SEQUENCE"])
	assert.Equal(t, "Haircut", e1["SUMMARY"], "no customer data unless asked for")
	e2 := byUID[a2+"-0@slotd"]
	require.NotNil(t, e2)
	assert.Equal(t, "CANCELLED", e2["STATUS"])
	assert.Equal(t, "1", e2["SEQUENCE"], "version 2: the cancellation")
	assert.NotContains(t, byUID, b1+"-0@slotd", "Bram's booking is not in Anna's feed")
	assert.NotContains(t, f.body, "feed1@example.com")

	// Nothing new: 304. A change: a new body and ETag.
	same := getFeed(t, url, f.header.Get("ETag"))
	assert.Equal(t, 304, same.status)
	assert.Empty(t, same.body)
	book("f-4", tue+"12:00:00Z", annaID, "feed4@example.com")
	moved := getFeed(t, url, f.header.Get("ETag"))
	require.Equal(t, 200, moved.status)
	assert.NotEqual(t, f.header.Get("ETag"), moved.header.Get("ETag"))
	assert.Len(t, vevents(t, moved.body), len(evs)+1)

	whole := vevents(t, getFeed(t, all, "").body)
	names := map[string]string{}
	for _, e := range whole {
		names[e["UID"]] = e["SUMMARY"]
	}
	assert.Equal(t, "Haircut (Bram) – Noor B.", names[b1+"-0@slotd"], "the business's feed, naming the staff member, with first names and initials")
	assert.Equal(t, "Haircut (Anna) – Noor B.", names[a1+"-0@slotd"], "the same time with Anna")

	// The feed survives a restart; deleting it revokes the address.
	s.stop()
	s2 := start(t, s.data)
	require.Equal(t, 200, getFeed(t, strings.Replace(url, s.base, s2.base, 1), "").status)
	id := anna["id"].(string)
	del := s2.request(pcall{method: "DELETE", path: "/api/v1/calendar-feeds/" + id, key: keyCalendars})
	require.Equal(t, 204, del.Status, "%s", del.Raw)
	requireError(t, respOf(t, getFeed(t, strings.Replace(url, s.base, s2.base, 1), "")), 404, "NOT_FOUND")
	requireError(t, s2.request(pcall{method: "DELETE", path: "/api/v1/calendar-feeds/" + id, key: keyCalendars}), 404, "NOT_FOUND")
	for _, bad := range []string{"/feeds/nothing.ics", "/feeds/" + strings.Repeat("A", 64) + ".ics", strings.TrimSuffix(strings.TrimPrefix(all, s.base), ".ics")} {
		requireError(t, s2.get(bad, ""), 404, "NOT_FOUND")
	}
}

// respOf makes a feed answer a resp, for requireError.
func respOf(t *testing.T, f feed) resp {
	r := resp{Status: f.status, Header: f.header, Raw: []byte(f.body)}
	require.NoError(t, json.Unmarshal(r.Raw, &r.Body))
	return r
}

// The scope, its plan, the body and the limit of 50.
func TestCalendarFeedRefusals(t *testing.T) {
	s := startCalendarWorld(t)
	r := s.post("/api/v1/calendar-feeds", keyFull, "", `{"staffMemberId":null}`)
	requireError(t, r, 403, "INSUFFICIENT_SCOPE")
	assert.Equal(t, "calendars:manage", r.Body["scope"])
	requireField(t, s.post("/api/v1/calendar-feeds", keyCalendars, "", `{"staffMemberId":"`+haircutID+`"}`), "staffMemberId", "invalid")
	requireField(t, s.post("/api/v1/calendar-feeds", keyCalendars, "", `{"staffMemberId":null,"extra":1}`), "extra", "unknown_field")
	requireField(t, s.post("/api/v1/calendar-feeds", keyCalendars, "", `{"includeCustomerNames":"yes"}`), "includeCustomerNames", "invalid")
	big := `{"includeCustomerNames":false,"x":"` + strings.Repeat("a", 100<<10) + `"}`
	requireField(t, s.post("/api/v1/calendar-feeds", keyCalendars, "", big), "x", "unknown_field") // over 64 KiB: read, then refused as a body
	huge := `{"x":"` + strings.Repeat("a", 1<<20) + `"}`
	requireField(t, s.post("/api/v1/calendar-feeds", keyCalendars, "", huge), "(body)", "too_large")
	for i := range 50 {
		r := s.post("/api/v1/calendar-feeds", keyCalendars, fmt.Sprint("ignored-", i), `{}`)
		require.Equal(t, 201, r.Status, "%d: %s", i, r.Raw)
	}
	requireError(t, s.post("/api/v1/calendar-feeds", keyCalendars, "", `{}`), 409, "CONFLICT")
}

// An independent RFC 5545 reader, Python's icalendar from Debian, reads
// the feed: every event with its times, status, sequence and summary.
func TestFeedReadByPython(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import icalendar").Run(); err != nil {
		if os.Getenv("SLOTD_BROWSER_TESTS") == "1" {
			t.Fatalf("python3-icalendar is missing: %v", err)
		}
		t.Skip("Debian's python3-icalendar is not installed")
	}
	s := startCalendarWorld(t)
	r := s.post("/api/v1/calendar-feeds", keyCalendars, "", `{"includeCustomerNames":true}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	// A name that needs escaping and folding.
	long := booking(haircutID, tue+"09:00:00Z", annaID, "py@example.com")
	long = strings.Replace(long, `"firstName":"Noor"`, `"firstName":"Zoë; Anne-Marie, the very long name that goes on\\\\ and on"`, 1)
	require.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "py-1", long).Status)
	require.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "py-2", booking(haircutID, tue+"13:00:00Z", bramID, "py2@example.com")).Status)
	f := getFeed(t, r.Body["url"].(string), "")
	require.Equal(t, 200, f.status)
	path := filepath.Join(t.TempDir(), "feed.ics")
	require.NoError(t, os.WriteFile(path, []byte(f.body), 0o600))
	script := `
import icalendar, json, sys
cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
assert str(cal['VERSION']) == '2.0' and cal['PRODID']
out = []
for e in cal.walk('VEVENT'):
    out.append({'uid': str(e['UID']), 'start': e.decoded('DTSTART').isoformat(), 'end': e.decoded('DTEND').isoformat(),
                'status': str(e['STATUS']), 'sequence': int(e['SEQUENCE']), 'summary': str(e['SUMMARY']),
                'stamp': e.decoded('DTSTAMP').isoformat()})
print(json.dumps({'name': str(cal['X-WR-CALNAME']), 'events': out}))
`
	out, err := exec.Command(py, "-c", script, path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var got struct {
		Name   string `json:"name"`
		Events []struct {
			UID, Start, End, Status, Summary, Stamp string
			Sequence                                int
		} `json:"events"`
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	assert.Equal(t, "Salon Example", got.Name)
	require.Len(t, got.Events, 6, "ours, and the world's four of Eva's in January")
	assert.Equal(t, "2026-12-08T09:00:00+00:00", got.Events[0].Start)
	assert.Equal(t, "2026-12-08T09:30:00+00:00", got.Events[0].End)
	assert.Equal(t, "Haircut (Anna) – Zoë; Anne-Marie, the very long name that goes on\\ and on B.", got.Events[0].Summary)
	assert.Equal(t, "CONFIRMED", got.Events[0].Status)
	assert.Equal(t, "2026-12-08T13:00:00+00:00", got.Events[1].Start)
	assert.Equal(t, "Haircut (Bram) – Noor B.", got.Events[1].Summary)
	_, err = time.Parse(time.RFC3339, got.Events[1].Stamp)
	assert.NoError(t, err)
}
