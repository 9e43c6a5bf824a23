package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
)

// scrape reads the admin listener's /metrics with the admin token.
func (s *server) scrape() map[string]*dto.MetricFamily {
	s.t.Helper()
	r := s.adminDo("GET", "/metrics", nil)
	require.Equal(s.t, 200, r.Status, "%s", r.Raw)
	require.Contains(s.t, r.Header.Get("Content-Type"), "text/plain")
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(r.Raw))
	require.NoError(s.t, err, "%s", r.Raw)
	return mfs
}

// value is the value of the series of family name whose labels include
// labels (counter, gauge, or a histogram's sample count); ok is false
// when there is none.
func value(mfs map[string]*dto.MetricFamily, name string, labels ...string) (v float64, ok bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
next:
	for _, m := range mf.GetMetric() {
		have := map[string]string{}
		for _, lp := range m.GetLabel() {
			have[lp.GetName()] = lp.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// TestMetricsEndToEnd drives the real server through a booking (with its
// webhook delivery and confirmation e-mail), a 404 and a 429, then reads
// /metrics: every family is there with the labels and values those
// requests imply.
func TestMetricsEndToEnd(t *testing.T) {
	s := startWorld(t, "--webhooks-allow-insecure", "--webhook-retry-scale", retryScale)
	rcv := newReceiver(t)
	hook, _ := s.register(rcv, "/crm", "appointment.created")
	r := s.post("/api/v1/appointments", keyFull, "m-1", booking(haircutID, tue+"10:00:00Z", annaID, "m1@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	appt := r.Body["appointment"].(map[string]any)["id"].(string)
	require.Equal(t, 200, s.get("/api/v1/appointments/"+appt, keyFull).Status)
	requireError(t, s.get("/api/v1/no/such/thing", keyFull), 404, "NOT_FOUND")
	s.waitDeliveries(hook, func(ds []map[string]any) bool { return len(ds) == 1 && ds[0]["status"] == "delivered" })
	// The confirmation e-mail goes out in the background: wait for its
	// count rather than for the file.
	var mfs map[string]*dto.MetricFamily
	require.Eventually(t, func() bool {
		mfs = s.scrape()
		sent, _ := value(mfs, "slotd_mail_sends_total", "outcome", "sent")
		open, _ := value(mfs, "slotd_webhook_deliveries_open")
		return sent >= 1 && open == 0
	}, 10*time.Second, 20*time.Millisecond, "the confirmation was never sent")
	// Last, the failed-authentication limit: 20 wrong keys, then a 429.
	for i := range 20 {
		requireError(t, s.get("/api/v1/me", fmt.Sprint("sk_wrong_", i)), 401, "UNAUTHORIZED")
	}
	requireError(t, s.get("/api/v1/me", "sk_wrong"), 429, "RATE_LIMITED")
	mfs = s.scrape()

	want := func(name string, min float64, labels ...string) {
		t.Helper()
		v, ok := value(mfs, name, labels...)
		require.True(t, ok, "no %s%v", name, labels)
		require.GreaterOrEqual(t, v, min, "%s%v", name, labels)
	}
	pub := []string{"listener", "public"}
	want("slotd_http_requests_total", 1, append(pub, "route", "/api/v1/appointments", "method", "POST", "code", "201")...)
	want("slotd_http_requests_total", 1, append(pub, "route", "/api/v1/appointments/{id}", "method", "GET", "code", "200")...)
	want("slotd_http_requests_total", 1, append(pub, "route", "unmatched", "method", "GET", "code", "404")...)
	want("slotd_http_requests_total", 20, append(pub, "route", "/api/v1/me", "method", "GET", "code", "401")...)
	want("slotd_http_requests_total", 1, append(pub, "route", "/api/v1/me", "method", "GET", "code", "429")...)
	want("slotd_http_requests_total", 1, "listener", "admin", "route", "/metrics", "method", "GET", "code", "200")
	want("slotd_http_request_duration_seconds", 1, append(pub, "route", "/api/v1/appointments", "method", "POST")...)
	want("slotd_http_responses_total", 1, "class", "2xx")
	want("slotd_ratelimit_refusals_total", 1, "limiter", "failed_auth")
	want("slotd_webhook_pings_total", 1, "outcome", "ok")
	want("slotd_webhook_deliveries_total", 1, "kind", "ladder", "outcome", "delivered")
	want("slotd_webhook_deliveries_open", 0)
	want("slotd_mail_sends_total", 1, "outcome", "sent")
	want("slotd_mail_outbox_backlog", 0)
	want("slotd_mail_outbox_oldest_age_seconds", 0)
	want("slotd_journal_commits_total", 1)
	want("slotd_journal_wal_syncs_total", 1)
	want("slotd_journal_commit_duration_seconds", 1)
	want("slotd_journal_wal_fsync_duration_seconds", 1)
	want("slotd_journal_commits_per_wal_sync", 0)
	want("slotd_journal_commit_seconds_total", 0)
	want("slotd_business_actors", 1)
	want("go_goroutines", 1)
	want("process_start_time_seconds", 1)
	for name := range mfs {
		if !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") {
			require.True(t, strings.HasPrefix(name, "slotd_"), "%s lacks the slotd_ prefix", name)
		}
	}
	for _, m := range mfs["slotd_http_requests_total"].GetMetric() {
		for _, lp := range m.GetLabel() {
			require.NotContains(t, lp.GetValue(), appt, "never a raw path")
		}
	}

	// With a token set, /metrics wants it, as pprof and /admin/v1 do.
	requireError(t, do(t, "GET", s.admin+"/metrics", "", nil), 401, "UNAUTHORIZED")
	require.Equal(t, 200, do(t, "GET", s.admin+"/readyz", "", nil).Status)
}

// TestAccessLogLines: every request leaves one line in the server's log
// with its route pattern, status, duration, request id and business, and
// never the key, the path's ids, the query string or an e-mail address.
func TestAccessLogLines(t *testing.T) {
	s := startWorld(t)
	r := s.post("/api/v1/appointments", keyFull, "a-1", booking(haircutID, tue+"10:00:00Z", annaID, "noor.access@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	appt := r.Body["appointment"].(map[string]any)["id"].(string)
	got := s.get("/api/v1/appointments/"+appt+"?x=noor.access@example.com", keyFull)
	require.Equal(t, 400, got.Status)
	requireError(t, s.get("/api/v1/me", "sk_wrong_key"), 401, "UNAUTHORIZED")
	require.Equal(t, 200, do(t, "GET", s.admin+"/healthz", "", nil).Status)

	log := waitLog(t, s, 4)
	lines := accessLines(log)
	require.Len(t, lines, 4, log)
	re := func(s string) string { return strings.NewReplacer("{", `\{`, "}", `\}`).Replace(s) }
	require.Regexp(t, `^\S+Z access public POST /api/v1/appointments 201 [0-9.]+(µs|ms|s) request_id=`+r.Header.Get("X-Request-Id")+` business=`+salonID+`$`, lines[0])
	require.Regexp(t, re(` access public GET /api/v1/appointments/{id} 400 \S+ request_id=`)+got.Header.Get("X-Request-Id")+` business=`+salonID+`$`, lines[1])
	require.Regexp(t, ` access public GET /api/v1/me 401 \S+ request_id=\S+$`, lines[2], "no business for a failed key")
	require.Regexp(t, ` access admin GET /healthz 200 \S+ request_id=\S+$`, lines[3])
	for _, l := range lines {
		require.NotContains(t, l, keyFull)
		require.NotContains(t, l, "sk_wrong_key")
		require.NotContains(t, l, appt)
		require.NotContains(t, l, "@")
		require.NotContains(t, l, "?")
	}
	require.NotContains(t, log, keyFull, "nor anywhere else in the log")
}

// TestAccessLogFormats: --access-log json writes one JSON object per
// request; off writes none; SLOTD_ACCESS_LOG works as every flag's
// variable does; an unknown format is a command-line error.
func TestAccessLogFormats(t *testing.T) {
	s := startWorld(t, "--access-log", "json")
	require.Equal(t, 200, s.get("/api/v1/me", keyFull).Status)
	log := waitLog(t, s, 1)
	var rec map[string]any
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "{") && strings.Contains(l, `"msg":"access"`) {
			require.NoError(t, json.Unmarshal([]byte(l), &rec), l)
		}
	}
	require.NotNil(t, rec, log)
	require.Equal(t, "public", rec["listener"])
	require.Equal(t, "GET", rec["method"])
	require.Equal(t, "/api/v1/me", rec["route"])
	require.EqualValues(t, 200, rec["status"])
	require.Positive(t, rec["duration"])
	require.Equal(t, salonID, rec["business"])
	require.NotEmpty(t, rec["request_id"])

	c, err := parseConfig([]string{"--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--world", "testdata/world.json"},
		func(k string) string { return map[string]string{"SLOTD_ACCESS_LOG": "off"}[k] }, io.Discard)
	require.NoError(t, err)
	off := startConfig(t, c)
	require.Equal(t, 200, off.get("/api/v1/me", keyFull).Status)
	off.stop() // the log is complete once the server has stopped
	require.Empty(t, accessLines(off.log.String()), off.log.String())

	var out, errb bytes.Buffer
	require.Equal(t, 2, run([]string{"serve", "--access-log", "verbose"}, func(string) string { return "" }, &out, &errb))
	require.Contains(t, errb.String(), "-access-log")
	require.Contains(t, errb.String(), "usage: slotd serve")
	errb.Reset()
	bad := func(k string) string { return map[string]string{"SLOTD_ACCESS_LOG": "xml"}[k] }
	require.Equal(t, 2, run([]string{"serve"}, bad, &out, &errb))
	require.Contains(t, errb.String(), "SLOTD_ACCESS_LOG")
}

// accessLines are the access log's lines in a server log.
func accessLines(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, " access ") || strings.Contains(l, `"msg":"access"`) {
			out = append(out, l)
		}
	}
	return out
}

// waitLog waits until the server's log holds n access lines: a line is
// written once its answer is sent, so it may trail the client a little.
func waitLog(t *testing.T, s *server, n int) string {
	t.Helper()
	var log string
	require.Eventually(t, func() bool { log = s.log.String(); return len(accessLines(log)) >= n }, 5*time.Second, 5*time.Millisecond,
		"the access log never had %d lines", n)
	return log
}

// TestAdminReadsOfUnknownBusinessesStartNoActor: asking the admin API about
// ids that were never put answers 404 and leaves no business actor behind.
func TestAdminReadsOfUnknownBusinessesStartNoActor(t *testing.T) {
	s := startWorld(t)
	actors := func() float64 {
		v, ok := value(s.scrape(), "slotd_business_actors")
		require.True(t, ok)
		return v
	}
	before := actors()
	for range 5 {
		r := s.adminDo("GET", "/admin/v1/businesses/"+uuid.NewString()+"/keys", nil)
		require.Equal(t, 404, r.Status, "%s", r.Raw)
	}
	require.Equal(t, before, actors())
	require.Equal(t, 200, s.adminDo("GET", "/admin/v1/businesses/"+salonID+"/keys", nil).Status)
}

// --log-format json makes every line slotd writes on stderr JSON: its own
// log, Pebble's, the access log (compact becomes JSON) and the last line
// of a failed start.
func TestLogFormatJSON(t *testing.T) {
	s := startWorld(t, "--log-format", "json", "--access-log", "compact")
	require.Equal(t, 200, s.get("/api/v1/me", keyFull).Status)
	require.Equal(t, 404, s.get("/nope", keyFull).Status)
	s.stop()
	requireJSONLines(t, s.log.String(), 3)

	var out, errb bytes.Buffer
	bad := filepath.Join(t.TempDir(), "world.json")
	require.NoError(t, os.WriteFile(bad, []byte("{"), 0o644))
	code := run([]string{"serve", "--data", t.TempDir(), "--world", bad, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
		"--access-log", "json"}, func(string) string { return "" }, &out, &errb)
	require.Equal(t, 1, code)
	requireJSONLines(t, errb.String(), 1)
	require.Contains(t, errb.String(), `"msg":"slotd stopped"`, "--access-log json alone makes the server's log JSON too")
}

func requireJSONLines(t *testing.T, text string, atLeast int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	require.GreaterOrEqual(t, len(lines), atLeast, "%s", text)
	for _, l := range lines {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &v), "not JSON: %q", l)
	}
}
