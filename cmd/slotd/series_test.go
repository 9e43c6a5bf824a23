package main

import (
	"fmt"
	"io"
	"mime/quotedprintable"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Series (decisions §11).

// seriesBody is a series of haircuts from tue at start with rule.
func seriesBody(start, staff, rule, extra string) string {
	b := fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"rule":%q,"customer":{"firstName":"Sam","email":"sam@example.com"}`, haircutID, tue+start, rule)
	if staff != "" {
		b += fmt.Sprintf(`,"staffMemberId":%q`, staff)
	}
	return b + extra + "}"
}

// preview is the occurrences of a series preview, as "MM-DD HH:MM code
// staff" lines (code "ok" for one that fits).
func preview(t *testing.T, s *server, body string) []string {
	t.Helper()
	r := s.post("/api/v1/appointment-series/preview", keyFull, "", body)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	var out []string
	for _, x := range r.Body["occurrences"].([]any) {
		o := x.(map[string]any)
		code := "ok"
		if o["ok"] != true {
			code = o["code"].(string)
		}
		var who []string
		for _, id := range o["staffMemberIds"].([]any) {
			who = append(who, map[string]string{annaID: "anna", bramID: "bram", chrisID: "chris"}[id.(string)])
		}
		out = append(out, fmt.Sprintf("%s %s %s", o["startTime"].(string)[5:16], code, strings.Join(who, ",")))
	}
	return out
}

// TestSeriesPreview: every occurrence is judged against the state and
// against the series' own earlier occurrences, on the business's wall
// clock; nothing is booked.
func TestSeriesPreview(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(biz map[string]any) {
		for _, x := range biz["services"].([]any) {
			if svc := x.(map[string]any); svc["id"] == haircutID {
				svc["bookingLimits"] = map[string]any{"perDay": nil, "perWeek": 2}
			}
		}
	}))
	// Anna's third Tuesday at 10:00 is taken.
	taken := s.post("/api/v1/appointments", keyFull, "t-1", booking(colourID, "2026-12-22T09:45:00Z", annaID, "t@example.com"))
	require.Equal(t, 201, taken.Status, "%s", taken.Raw)
	assert.Equal(t, []string{"12-08T10:00 ok anna", "12-15T10:00 ok anna", "12-22T10:00 SLOT_TAKEN ", "12-29T10:00 ok anna"},
		preview(t, s, seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=4", "")))
	// Daily from Tuesday against two haircuts a week: the series' own
	// first two occurrences reach the limit for the rest of the week.
	assert.Equal(t, []string{"12-08T10:00 ok anna", "12-09T10:00 ok anna", "12-10T10:00 BOOKING_LIMIT_REACHED ", "12-11T10:00 BOOKING_LIMIT_REACHED "},
		preview(t, s, seriesBody("10:00:00Z", annaID, "FREQ=DAILY;COUNT=4", "")))
	// Unpinned, each occurrence is assigned on its own.
	assert.Equal(t, []string{"12-08T10:00 ok anna", "12-09T10:00 ok anna", "12-10T10:00 ok bram", "12-11T10:00 ok bram"},
		preview(t, s, seriesBody("10:00:00Z", "", "FREQ=DAILY;COUNT=4", `,"enforceBookingRules":true`)))
	// BYDAY, every other week.
	assert.Equal(t, []string{"12-08T10:00 ok anna", "12-10T10:00 ok anna", "12-22T10:00 SLOT_TAKEN ", "12-24T10:00 ok anna"},
		preview(t, s, seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=4", "")))
	// Nothing was booked: the first is still free.
	assert.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "t-2", booking(haircutID, tue+"10:00:00Z", annaID, "t2@example.com")).Status)
}

// TestSeriesPreviewAcrossDST: a weekly series keeps its local time across
// the spring change of the clocks.
func TestSeriesPreviewAcrossDST(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(biz map[string]any) {
		biz["bookingRules"].(map[string]any)["maxAdvanceDays"] = 200
	}))
	got := preview(t, s, fmt.Sprintf(`{"serviceId":%q,"startTime":"2027-03-23T09:00:00Z","staffMemberId":%q,"rule":"FREQ=WEEKLY;COUNT=3","customerId":%q}`, haircutID, annaID, evaID))
	assert.Equal(t, []string{"03-23T09:00 ok anna", "03-30T08:00 ok anna", "04-06T08:00 ok anna"}, got, "10:00 in Amsterdam, CET then CEST")
}

// TestSeriesValidation: each bad input is named by its path.
func TestSeriesValidation(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(map[string]any) {}))
	post := func(body string) resp { return s.post("/api/v1/appointment-series/preview", keyFull, "", body) }
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=YEARLY;COUNT=2", "")), "rule", "invalid_format")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;BYSETPOS=1;COUNT=2", "")), "rule", "invalid_format")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=53", "")), "rule", "too_large")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY", "")), "rule", "invalid")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;UNTIL=20261201T000000Z", "")), "rule", "invalid")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=DAILY;UNTIL=20291201T000000Z", "")), "rule", "invalid") // past maxAdvanceDays
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;BYDAY=MO;COUNT=2", "")), "startTime", "invalid") // a Tuesday
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=2", `,"onConflict":"maybe"`)), "onConflict", "invalid_option")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=2", `,"customerId":"`+evaID+`"`)), "customer", "invalid")
	requireField(t, post(fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"rule":"FREQ=WEEKLY;COUNT=2"}`, haircutID, tue+"10:00:00Z")), "customer", "invalid")
	requireField(t, post(fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"rule":"FREQ=WEEKLY;COUNT=2","customerId":%q}`, haircutID, tue+"10:00:00Z", annaID)), "customerId", "invalid")
	requireField(t, post(fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"rule":"FREQ=WEEKLY;COUNT=2","customerId":%q}`, annaID, tue+"10:00:00Z", evaID)), "serviceId", "invalid")
}

// TestSeriesBook: fail mode books nothing and names the occurrence that
// is taken; skip mode books the others; the series is one record, its
// answer replayed byte for byte after a restart; GET shows it; each
// occurrence is an appointment with its own events and manage link; the
// customer gets one e-mail listing every date.
func TestSeriesBook(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(map[string]any) {}))
	taken := s.post("/api/v1/appointments", keyFull, "t-1", booking(colourID, "2026-12-22T09:45:00Z", annaID, "t@example.com"))
	require.Equal(t, 201, taken.Status, "%s", taken.Raw)

	// Fail (the default): 409 naming the third of four, nothing booked.
	r := s.post("/api/v1/appointment-series", keyFull, "s-fail", seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=4", ""))
	requireError(t, r, 409, "SERIES_CONFLICT")
	assert.Equal(t, []any{map[string]any{"startTime": "2026-12-22T10:00:00.000Z", "code": "SLOT_TAKEN"}}, r.Body["conflicts"])
	assert.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "t-2", booking(haircutID, tue+"10:00:00Z", annaID, "t2@example.com")).Status,
		"the first occurrence's time was not taken")
	again := s.post("/api/v1/appointment-series", keyFull, "s-fail", seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=4", ""))
	require.Equal(t, "true", again.Header.Get("Idempotency-Replayed"))
	assert.Equal(t, string(r.Raw), string(again.Raw), "the refusal, replayed")

	// Skip: the other occurrences are booked (the first is now taken too).
	r = s.post("/api/v1/appointment-series", keyFull, "s-skip", seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=4", `,"onConflict":"skip","notes":"weekly"`))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	id := r.Body["id"].(string)
	assert.Equal(t, "FREQ=WEEKLY;COUNT=4", r.Body["rule"])
	assert.Equal(t, []any{map[string]any{"startTime": tue + "10:00:00.000Z", "code": "SLOT_TAKEN"},
		map[string]any{"startTime": "2026-12-22T10:00:00.000Z", "code": "SLOT_TAKEN"}}, r.Body["skipped"])
	occ := r.Body["occurrences"].([]any)
	require.Len(t, occ, 2)
	var ids []string
	for _, x := range occ {
		a := x.(map[string]any)
		assert.Equal(t, id, a["recurringSeriesId"])
		assert.Equal(t, true, a["isRecurringOccurrence"])
		assert.Equal(t, "weekly", a["notes"])
		assert.NotEmpty(t, a["manageUrl"])
		ids = append(ids, a["id"].(string))
	}
	assert.Equal(t, []string{"2026-12-15T10:00:00.000Z", "2026-12-29T10:00:00.000Z"},
		[]string{occ[0].(map[string]any)["startTime"].(string), occ[1].(map[string]any)["startTime"].(string)})

	g := s.get("/api/v1/appointment-series/"+id, keyFull)
	require.Equal(t, 200, g.Status, "%s", g.Raw)
	assert.Equal(t, []any{ids[0], ids[1]}, g.Body["occurrenceIds"])
	assert.Equal(t, haircutID, g.Body["serviceId"])
	requireError(t, s.get("/api/v1/appointment-series/"+annaID, keyFull), 404, "NOT_FOUND")

	// One e-mail listing both dates.
	var mail string
	require.Eventually(t, func() bool {
		for _, m := range outboxMails(s.data) {
			if strings.Contains(m, "Your 2 appointments at") {
				mail = m
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "no series confirmation")
	assert.Contains(t, mail, "15 December 2026")
	assert.Contains(t, mail, "29 December 2026")
	plain, err := io.ReadAll(quotedprintable.NewReader(strings.NewReader(mail)))
	require.NoError(t, err)
	links := regexp.MustCompile(`to cancel or change it: (http\S+/manage/[A-Za-z0-9_-]+)`).FindAllStringSubmatch(string(plain), -1)
	require.GreaterOrEqual(t, len(links), 2, "each date with its own manage link: %s", plain)
	assert.NotEqual(t, links[0][1], links[1][1], "a link per occurrence")

	// After a restart: the same answer, byte for byte; the same series.
	s.stop()
	s2 := start(t, s.data)
	replay := s2.post("/api/v1/appointment-series", keyFull, "s-skip", seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=4", `,"onConflict":"skip","notes":"weekly"`))
	require.Equal(t, "true", replay.Header.Get("Idempotency-Replayed"))
	// Byte for byte but for the manage links' host: this test's second
	// server listens on another port (a --public-url would fix it).
	host := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/`)
	assert.Equal(t, host.ReplaceAllString(string(r.Raw), ""), host.ReplaceAllString(string(replay.Raw), ""))
	assert.Equal(t, g.Raw, s2.get("/api/v1/appointment-series/"+id, keyFull).Raw)
	requireError(t, s2.post("/api/v1/appointment-series", keyFull, "s-fail", seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=4", "")),
		409, "SERIES_CONFLICT")
}

// TestSeriesRace: 32 series at once over overlapping weeks, pinned to
// Anna: no staff member is booked twice at a time, and every series is
// booked whole or not at all.
func TestSeriesRace(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(map[string]any) {}))
	starts := []string{"2026-12-08T10:00:00Z", "2026-12-15T10:00:00Z", "2026-12-08T10:30:00Z", "2026-12-22T10:00:00Z"}
	got := raceBodies(t, func(i int, body string) resp {
		return s.post("/api/v1/appointment-series", keyFull, fmt.Sprint("race-", i), body)
	}, 32, func(i int) string {
		return fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"staffMemberId":%q,"rule":"FREQ=WEEKLY;COUNT=3","customer":{"firstName":"R","email":"r%d@example.com"}}`,
			haircutID, starts[i%len(starts)], annaID, i)
	})
	assert.Equal(t, 32, got["201"]+got["409 SERIES_CONFLICT"], "%v", got)
	assert.Positive(t, got["201"])
	// Every booked series whole: 3 occurrences each, none overlapping.
	l := s.get("/api/v1/appointments?limit=100&staffMemberId="+annaID+"&from=2026-12-01T00:00:00Z&to=2027-02-01T00:00:00Z", keyFull)
	require.Equal(t, 200, l.Status, "%s", l.Raw)
	perSeries := map[string]int{}
	busy := map[string]bool{}
	for _, x := range l.Body["data"].([]any) {
		a := x.(map[string]any)
		if a["status"] != "confirmed" || a["recurringSeriesId"] == nil {
			continue
		}
		perSeries[a["recurringSeriesId"].(string)]++
		at := a["startTime"].(string)
		require.False(t, busy[at], "Anna booked twice at %s", at)
		busy[at] = true
	}
	assert.Len(t, perSeries, got["201"])
	for id, n := range perSeries {
		assert.Equal(t, 3, n, "series %s is not whole", id)
	}
	t.Logf("32 series at once: %v", got)
}

// TestSeriesCancel: cancelling a series from a date on cancels the
// occurrences from then that may be cancelled, names those that may not,
// and frees their time; one occurrence cancelled through its own manage
// link leaves the others.
func TestSeriesCancel(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(map[string]any) {}))
	r := s.post("/api/v1/appointment-series", keyFull, "c-1", seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=4", ""))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	id := r.Body["id"].(string)
	var occ []string
	for _, x := range r.Body["occurrences"].([]any) {
		occ = append(occ, x.(map[string]any)["id"].(string))
	}
	// The first occurrence's customer cancels it through its manage link.
	link := r.Body["occurrences"].([]any)[0].(map[string]any)["manageUrl"].(string)
	token := link[strings.LastIndex(link, "/")+1:]
	require.Equal(t, 200, s.request(pcall{method: "POST", path: "/api/v1/manage/" + token + "/cancel"}).Status)
	assert.Equal(t, "confirmed", s.get("/api/v1/appointments/"+occ[1], keyFull).Body["status"], "the others stay")
	// The last one completed: it may not be cancelled.
	require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+occ[3]+"/status", `{"status":"completed"}`).Status)

	c := s.request(pcall{method: "POST", path: "/api/v1/appointment-series/" + id + "/cancel", key: keyFull, body: `{"from":"2026-12-10T00:00:00Z"}`})
	require.Equal(t, 200, c.Status, "%s", c.Raw)
	assert.Equal(t, []any{occ[1], occ[2]}, c.Body["cancelled"])
	assert.Equal(t, []any{map[string]any{"id": occ[3], "code": "INVALID_STATUS_TRANSITION"}}, c.Body["skipped"])
	assert.Equal(t, "cancelled", s.get("/api/v1/appointments/"+occ[2], keyFull).Body["status"])
	assert.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "c-2", booking(haircutID, "2026-12-15T10:00:00Z", annaID, "c2@example.com")).Status,
		"the cancelled occurrence's time is free")
	requireError(t, s.request(pcall{method: "POST", path: "/api/v1/appointment-series/" + annaID + "/cancel", key: keyFull}), 404, "NOT_FOUND")
	requireField(t, s.request(pcall{method: "POST", path: "/api/v1/appointment-series/" + id + "/cancel", key: keyFull, body: `{"from":"soon"}`}), "from", "invalid_date")
	require.Eventually(t, func() bool { return outboxHas(t, s, "2 of your appointments at") }, 10*time.Second, 10*time.Millisecond)
}

// TestSeriesHardKill: the real binary is killed (SIGKILL) during a storm
// of series bookings; after the restart every acknowledged series is
// there whole, and no series is there in part.
func TestSeriesHardKill(t *testing.T) {
	bin := buildBinary(t)
	data := t.TempDir()
	s, proc := startBinary(t, bin, data, "--world", "testdata/world.json")
	day := time.Now().UTC().AddDate(0, 0, 2).Truncate(24 * time.Hour)
	var mu sync.Mutex
	acked := map[string][]string{} // series id -> its occurrences
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				at := day.AddDate(0, 0, i%5).Add(time.Duration(8*60+(w*90+i*15)%480) * time.Minute)
				body := fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"rule":"FREQ=WEEKLY;COUNT=4","onConflict":"skip","customer":{"firstName":"K","email":"k%d-%d@example.com"}}`,
					haircutID, at.Format(time.RFC3339), w, i)
				status, b, _, err := clusterCall("POST", s.base, "/api/v1/appointment-series", body, "Idempotency-Key", fmt.Sprintf("kill-%d-%d", w, i))
				if err != nil {
					return // killed
				}
				if status != 201 {
					continue
				}
				var occ []string
				for _, x := range b["occurrences"].([]any) {
					occ = append(occ, x.(map[string]any)["id"].(string))
				}
				mu.Lock()
				acked[b["id"].(string)] = occ
				mu.Unlock()
			}
		})
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 20 }, 30*time.Second, 5*time.Millisecond)
	require.NoError(t, proc.Process.Signal(syscall.SIGKILL))
	_ = proc.Wait()
	close(stop)
	wg.Wait()

	s2, _ := startBinary(t, bin, data)
	for id, occ := range acked {
		g := s2.get("/api/v1/appointment-series/"+id, keyFull)
		require.Equal(t, 200, g.Status, "acknowledged series %s lost: %s", id, g.Raw)
		require.Len(t, g.Body["occurrenceIds"], len(occ))
		for _, o := range occ {
			require.Equal(t, 200, s2.get("/api/v1/appointments/"+o, keyFull).Status, "occurrence %s of %s lost", o, id)
		}
	}
	// No series in part: every occurrence on file belongs to a series
	// that lists it, and every series lists only occurrences on file.
	bySeries := map[string]int{}
	for cursor := ""; ; {
		q := "/api/v1/appointments?limit=100"
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		l := s2.get(q, keyFull)
		require.Equal(t, 200, l.Status, "%s", l.Raw)
		for _, x := range l.Body["data"].([]any) {
			if sid, ok := x.(map[string]any)["recurringSeriesId"].(string); ok {
				bySeries[sid]++
			}
		}
		if l.Body["hasMore"] != true {
			break
		}
		cursor = l.Body["nextCursor"].(string)
	}
	for sid, n := range bySeries {
		g := s2.get("/api/v1/appointment-series/"+sid, keyFull)
		if g.Status == 404 {
			continue // a world file's series: not booked through the API
		}
		require.Len(t, g.Body["occurrenceIds"], n, "series %s is there in part", sid)
	}
	t.Logf("%d series acknowledged before the kill, all whole after the restart", len(acked))
}

// repeatHaircut offers "repeat weekly" for the haircut, up to weeks.
func repeatHaircut(weeks any) func(biz map[string]any) {
	return func(biz map[string]any) {
		for _, x := range biz["services"].([]any) {
			if svc := x.(map[string]any); svc["id"] == haircutID {
				svc["repeatWeeks"] = weeks
			}
		}
	}
}

// TestSeriesOnTheBookingPage: a service's repeatWeeks is shown with it
// and survives a restart; bad values are refused with their path; a
// booking page's publishable key previews and books a series, the rules
// enforced, and may not book one past them.
func TestSeriesOnTheBookingPage(t *testing.T) {
	s := startPublishableWorld(t, nil)
	require.Equal(t, 200, s.putSalon(func(biz map[string]any) {
		repeatHaircut(6)(biz)
		biz["apiKeys"] = append(biz["apiKeys"].([]any), map[string]any{"key": keyPublishable, "kind": "publishable", "allowedOrigins": []string{pageOrigin}})
	}).Status)
	repeat := func(s *server) map[string]any {
		out := map[string]any{}
		for _, x := range s.get("/api/v1/services?limit=100", keyFull).Body["data"].([]any) {
			svc := x.(map[string]any)
			out[svc["id"].(string)] = svc["repeatWeeks"]
		}
		return out
	}
	assert.EqualValues(t, 6, repeat(s)[haircutID])
	assert.Nil(t, repeat(s)[colourID])
	for _, bad := range []any{1, 53, "weekly"} {
		r := s.putSalon(repeatHaircut(bad))
		require.Equal(t, 400, r.Status, "%v: %s", bad, r.Raw)
		assert.Contains(t, string(r.Raw), `"services.0.repeatWeeks"`, "%v", bad)
	}

	page := func(path, idem, body string) resp {
		h := map[string]string{"Origin": pageOrigin}
		if idem != "" {
			h["Idempotency-Key"] = idem
		}
		return s.request(pcall{method: "POST", path: path, key: keyPublishable, header: h, body: body})
	}
	p := page("/api/v1/appointment-series/preview", "", seriesBody("10:00:00Z", "", "FREQ=WEEKLY;COUNT=3", ""))
	require.Equal(t, 200, p.Status, "%s", p.Raw)
	assert.Len(t, p.Body["occurrences"], 3)
	r := page("/api/v1/appointment-series", "p-1", seriesBody("10:00:00Z", "", "FREQ=WEEKLY;COUNT=3", ""))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	assert.Len(t, r.Body["occurrences"], 3)
	requireError(t, page("/api/v1/appointment-series", "p-2", seriesBody("13:00:00Z", "", "FREQ=WEEKLY;COUNT=3", `,"enforceBookingRules":false`)), 403, "INSUFFICIENT_SCOPE")
	requireError(t, page("/api/v1/appointment-series/preview", "", seriesBody("13:00:00Z", "", "FREQ=WEEKLY;COUNT=3", `,"enforceBookingRules":false`)), 403, "INSUFFICIENT_SCOPE")
	requireError(t, s.request(pcall{method: "GET", path: "/api/v1/appointment-series/" + r.Body["id"].(string), key: keyPublishable,
		header: map[string]string{"Origin": pageOrigin}}), 403, "INSUFFICIENT_SCOPE")

	s.stop()
	s2 := start(t, s.data)
	assert.EqualValues(t, 6, repeat(s2)[haircutID])
}
