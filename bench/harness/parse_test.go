package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

func TestParseGCLine(t *testing.T) {
	d, ok := parseGCLine("gc 7 @2.031s 4%: 0.019+2.1+0.004 ms clock, 0.038+0.52/1.9/0.31+0.008 ms cpu, 40->41->20 MB, 41 MB goal, 0 MB stacks, 0 MB globals, 2 P")
	require.True(t, ok)
	assert.InDelta(t, 2.776, ms(d), 1e-9)
	d, ok = parseGCLine("gc 12 @10.5s 9%: 0.1+3+0.2 ms clock, 0.2+1/2/0+0.4 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)")
	require.True(t, ok)
	assert.InDelta(t, 3.6, ms(d), 1e-9)
	for _, line := range []string{"", "time=… level=INFO msg=x", "gc 1 @0.1s 1%: garbage", "gc 1 @0.1s 1%: 1+1+1 ms clock, x+1 ms cpu"} {
		_, ok := parseGCLine(line)
		assert.False(t, ok, line)
	}
}

func TestGCTraceThroughLineWriter(t *testing.T) {
	var g gcTrace
	var sink []byte
	w := &lineWriter{out: writerFunc(func(p []byte) { sink = append(sink, p...) }), line: g.observe}
	for _, chunk := range []string{"gc 1 @0.1s 1%: 0+1+0 ms clock, 0.5+1/1/0+0.5 ms cpu, 1->1->1 MB\nslotd: ser", "ving\ngc 2 @0.2s 1%: 0+1+0 ms clock, 1+0/0/0+0 ms c", "pu, 1 MB\n"} {
		_, err := w.Write([]byte(chunk))
		require.NoError(t, err)
	}
	cpu, cycles := g.snapshot()
	assert.Equal(t, int64(2), cycles)
	assert.Equal(t, 4*time.Millisecond, cpu)
	assert.Contains(t, string(sink), "slotd: serving\n", "everything reaches the log")
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

func TestParsePgbench(t *testing.T) {
	out := `pgbench (15.18 (Debian 15.18-0+deb12u1))
transaction type: /tmp/x/insert.sql
scaling factor: 1
query mode: simple
number of clients: 16
number of threads: 2
maximum number of tries: 1
duration: 15 s
number of transactions actually processed: 106839
number of failed transactions: 3 (0.003%)
latency average = 2.236 ms
initial connection time = 21.504 ms
tps = 7155.693208 (without initial connection time)
`
	r, err := parsePgbench(out)
	require.NoError(t, err)
	assert.Equal(t, pgbenchResult{tps: 7155.693208, processed: 106839, failed: 3}, r)
	_, err = parsePgbench("pgbench: error: connection refused")
	assert.Error(t, err)
}

func TestPgbenchLatencies(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "pg-before")
	require.NoError(t, os.WriteFile(prefix+".123", []byte("0 0 1500 0 1700000000 1\n1 0 2500 0 1700000000 2\n"), 0o600))
	require.NoError(t, os.WriteFile(prefix+".123.1", []byte("2 0 failed 0 1700000000 3\n3 0 900 0 1700000000 4\n"), 0o600))
	lat, err := pgbenchLatencies(prefix)
	require.NoError(t, err)
	assert.ElementsMatch(t, []time.Duration{1500 * time.Microsecond, 2500 * time.Microsecond, 900 * time.Microsecond}, lat)
}

func TestOverlaps(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2027, 1, 4, h, m, 0, 0, time.UTC) }
	n, ex := overlaps([]span{
		{at(9, 0), at(10, 0), "a"},
		{at(10, 0), at(10, 30), "b"}, // touches a: fine
		{at(9, 30), at(9, 45), "c"},  // inside a
		{at(9, 40), at(11, 0), "d"},  // overlaps a, b, c
		{at(12, 0), at(12, 30), "e"},
		{at(12, 40), at(13, 0), "e"}, // two segments of one appointment never count
	})
	assert.Equal(t, 4, n) // a-c, a-d, c-d, b-d
	assert.Len(t, ex, 3)
	n, _ = overlaps(nil)
	assert.Zero(t, n)
}

func TestAppointmentID(t *testing.T) {
	id, ok := appointmentID([]byte(`{"appointment":{"id":"0f8fad5b-d9cb-469f-a165-70867728950e","status":"confirmed"},"requiresPayment":false}`))
	assert.True(t, ok)
	assert.Equal(t, "0f8fad5b-d9cb-469f-a165-70867728950e", id)
	_, ok = appointmentID([]byte(`{"error":"x","code":"SLOT_TAKEN"}`))
	assert.False(t, ok)
}

func TestCountMailsAndDataSize(t *testing.T) {
	data := t.TempDir()
	c := newMailCounter(filepath.Join(data, "outbox"))
	n, err := c.count()
	require.NoError(t, err)
	assert.Zero(t, n, "no outbox yet")
	require.NoError(t, os.Mkdir(filepath.Join(data, "outbox"), 0o755))
	for _, name := range []string{"a.eml", "b.eml", "c.tmp"} {
		require.NoError(t, os.WriteFile(filepath.Join(data, "outbox", name), make([]byte, 1000), 0o600))
	}
	require.NoError(t, os.WriteFile(filepath.Join(data, "000001.log"), make([]byte, 300), 0o600))
	n, err = c.count()
	require.NoError(t, err)
	assert.Equal(t, 2, n)

	// A day's mailbox, read as it grows: entries are the From lines at
	// the top or after a blank line; quoted ones and a half-written tail
	// are not counted until they are whole.
	mbox := filepath.Join(data, "outbox", "2026-11-26.mbox")
	entry := func(body string) string { return "From a@b Thu Nov 26 10:00:00 2026\nSubject: x\n\n" + body + "\n\n" }
	grow := func(s string) {
		f, err := os.OpenFile(mbox, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		require.NoError(t, err)
		_, err = f.WriteString(s)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	long := strings.Repeat("x", 3<<20) // longer than the read buffer
	grow(entry(">From quoted\n\n>From quoted after a blank line") + entry(long) + "From a@b Thu")
	n, err = c.count()
	require.NoError(t, err)
	assert.Equal(t, 4, n, "2 .eml + 2 whole entries")
	grow(" Nov 26 10:00:00 2026\n\n\n" + entry("body"))
	n, err = c.count()
	require.NoError(t, err)
	assert.Equal(t, 6, n)
	size, err := dataSize(data)
	require.NoError(t, err)
	assert.Equal(t, int64(300), size, "the outbox is not counted")
}

func TestProfileShares(t *testing.T) {
	top := `File: slotd
Type: cpu
Duration: 9.01s, Total samples = 17.50s (194.2%)
Showing nodes accounting for 17.50s, 100% of 17.50s total
      flat  flat%   sum%        cum   cum%
     0.10s  0.57%  0.57%     12.00s 68.57%  github.com/valyala/fasthttp.(*Server).serveConn
         0     0%  0.57%      4.38s 25.03%  runtime.gcBgMarkWorker
     0.50s  2.86%  3.43%      3.00s 17.14%  runtime.mallocgc
         0     0%  3.43%      2.00s 11.43%  github.com/cockroachdb/pebble/v2.(*DB).compact
         0     0%  3.43%      1.50s  8.57%  github.com/cockroachdb/pebble/v2.(*DB).compact.func1
         0     0%  3.43%      0.70s  4.00%  github.com/slotd/slotd/actors/model/input.ParseObject (inline)
`
	total, shares := profileShares(top)
	assert.InDelta(t, 17.5, total, 1e-9)
	assert.InDelta(t, 68.57, shares["HTTP server (fasthttp)"], 1e-9)
	assert.InDelta(t, 25.03, shares["GC background marking"], 1e-9)
	assert.InDelta(t, 11.43, shares["Pebble compactions"], 1e-9, "the outermost function of a category counts")
	assert.InDelta(t, 4.0, shares["request decoding (model/input)"], 1e-9)
	assert.Zero(t, shares["e-mail (webhook/mail)"])
	assert.Equal(t, "17.5s sampled: HTTP server (fasthttp) 69%, GC background marking 25%, allocation (mallocgc, assists included) 17%, Pebble compactions 11%, engine (actors/, model codecs included) 4%, request decoding (model/input) 4%",
		profileText(&Profile{Seconds: total, Shares: shares}))
}

func TestSeriesRequests(t *testing.T) {
	l := testLayout(t, smallSpec())
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	b, sm, day := l.seriesRound(5)
	var bodies [2]map[string]any
	for kind := range seriesKinds {
		prepareSeriesRequest(req, "http://127.0.0.1:1", l, 11, 5, kind, b, sm, day)
		assert.Equal(t, "POST", string(req.Header.Method()))
		assert.Equal(t, l.bearer[b], string(req.Header.Peek("Authorization")))
		assert.Equal(t, "series-11-5-"+seriesKinds[kind].name, string(req.Header.Peek("Idempotency-Key")))
		require.NoError(t, json.Unmarshal(req.Body(), &bodies[kind]), "%s", req.Body())
		assert.Equal(t, l.serviceID(b, 0).String(), bodies[kind]["serviceId"])
		assert.Equal(t, l.staffID(b, sm).String(), bodies[kind]["staffMemberId"])
		assert.Equal(t, false, bodies[kind]["enforceBookingRules"])
		assert.Equal(t, map[string]any{"firstName": "Series", "email": seriesKinds[kind].name + "11.k5.b" + strconv.Itoa(b) + "@bench.example"},
			bodies[kind]["customer"])
	}
	assert.Equal(t, "/api/v1/appointment-series", string(req.URI().Path()))
	assert.Equal(t, day.Add(6*time.Hour).Format(time.RFC3339), bodies[0]["startTime"])
	assert.Equal(t, day.Add(6*time.Hour+30*time.Minute).Format(time.RFC3339), bodies[1]["startTime"])
	assert.NotContains(t, bodies[0], "rule")
	assert.Equal(t, "FREQ=WEEKLY;COUNT=12", bodies[1]["rule"])

	assert.True(t, answerBooks([]byte(`{"id":"x","rule":"r","occurrences":[`+strings.Repeat(`{"id":"a"},`, 11)+`{"id":"a"}],"skipped":[]}`), 1, 12))
	assert.False(t, answerBooks([]byte(`{"id":"x","occurrences":[{"id":"a"}]}`), 1, 12))
	assert.True(t, answerBooks([]byte(`{"appointment":{"id":"0f8fad5b-d9cb-469f-a165-70867728950e"}}`), 0, 1))
}

// The admin listener's /metrics in the Prometheus text format: samples
// without labels, by name.
func TestParseMetrics(t *testing.T) {
	m := parseMetrics(`# HELP slotd_businesses_resident Businesses in memory.
# TYPE slotd_businesses_resident gauge
slotd_businesses_resident 2000
slotd_businesses_let_go_total 8123
go_memstats_heap_inuse_bytes 1.2345678e+08
go_gc_duration_seconds{quantile="0.5"} 0.0001
go_gc_duration_seconds_count 17
broken
not_a_number x
`)
	assert.Equal(t, map[string]float64{"slotd_businesses_resident": 2000, "slotd_businesses_let_go_total": 8123,
		"go_memstats_heap_inuse_bytes": 123456780, "go_gc_duration_seconds_count": 17}, m)
	assert.Equal(t, int64(2000), metricInt(m, metricResident))
	assert.Equal(t, int64(123456780), metricInt(m, "go_memstats_heap_inuse_bytes"))
	assert.Equal(t, int64(-1), metricInt(m, "slotd_businesses_waiting_to_wake"), "absent")
}

// TestWALSyncs: the WAL fsyncs of a storm are the histogram's growth
// between two readings; the slow ones those past the bucket nearest
// below the p99.9 target.
func TestWALSyncs(t *testing.T) {
	const name = "slotd_journal_wal_fsync_duration_seconds_bucket"
	read := func(counts ...int) map[float64]int64 {
		var b strings.Builder
		for i, le := range []string{"0.001", "0.043865333106187024", "0.09527111042761806", "0.24164008605130552", "+Inf"} {
			fmt.Fprintf(&b, "%s{le=%q} %d\n", name, le, counts[i])
		}
		b.WriteString("slotd_journal_wal_fsync_duration_seconds_count 9\n# HELP x\n")
		return parseBuckets(b.String(), name)
	}
	before := read(10, 12, 12, 12, 12)
	after := read(100, 110, 110, 111, 111)
	w := walSyncs(before, after)
	if w.Syncs != 99 || w.Slow != 1 || math.Abs(w.SlowOverMS-43.865) > 0.01 || math.Abs(w.SlowestMS-241.64) > 0.01 {
		t.Fatalf("walSyncs = %+v", *w)
	}
	if w := walSyncs(before, before); w.Syncs != 0 || w.Slow != 0 {
		t.Fatalf("no syncs: %+v", *w)
	}
	if walSyncs(before, nil) != nil {
		t.Fatal("no histogram: want nil")
	}
}
