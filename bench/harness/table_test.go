package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run below the full sizes says above its table, and in its summary
// line, that its performance verdicts mean nothing; a full-size run does
// not.
func TestTableToySizes(t *testing.T) {
	table := func(args ...string) (string, Report) {
		t.Helper()
		o, err := parseFlags(args, &bytes.Buffer{})
		require.NoError(t, err)
		h := &harness{}
		h.rep.Options = o
		h.evaluate()
		var out bytes.Buffer
		writeTable(&out, &h.rep)
		return out.String(), h.rep
	}

	out, rep := table()
	assert.True(t, strings.HasPrefix(out, "| Workload |"), "full size: the table comes first:\n%s", out)
	assert.NotContains(t, out, "oy sizes")
	assert.NotContains(t, rep.Summary, "toy sizes")

	// Larger than the defaults is full size too; the sizes of a phase that
	// does not run do not count.
	out, _ = table("-businesses", "400", "-storm-d", "1m", "-load=false", "-load-appointments", "10", "-pg", "off", "-pg-d", "1s")
	assert.NotContains(t, out, "oy sizes")

	out, rep = table("-businesses", "3", "-staff", "4", "-appointments", "60", "-queries", "90", "-d", "500ms",
		"-load-businesses", "10", "-load-staff", "3", "-load-appointments", "300")
	note, rest, ok := strings.Cut(out, "\n\n")
	require.True(t, ok, out)
	assert.True(t, strings.HasPrefix(note, "**Toy sizes: the performance verdicts mean nothing.** "), note)
	assert.Contains(t, note, "-businesses 3, -staff 4, -appointments 60, -queries 90, -d 500ms, -load-businesses 10, -load-staff 3, -load-appointments 300:")
	assert.NotContains(t, note, "-customers", "at its default")
	assert.True(t, strings.HasPrefix(rest, "| Workload |"), rest)
	assert.Contains(t, rep.Summary, "targets met (toy sizes: performance verdicts not meaningful)")
	assert.True(t, strings.HasSuffix(out, rep.Summary+"\n"), "the summary line still ends the output")
}

// rowsOf evaluates a report and returns its rows by the start of their
// workload text.
func rowsOf(t *testing.T, rep Report) func(prefix string) []Row {
	t.Helper()
	h := &harness{rep: rep}
	h.evaluate()
	return func(prefix string) []Row {
		var out []Row
		for _, r := range h.rep.Rows {
			if strings.HasPrefix(r.Workload, prefix) {
				out = append(out, r)
			}
		}
		return out
	}
}

// Issue 23's rows are skipped, saying why, when their phase did not run,
// and judged against their targets when it did.
func TestTableIssue23Rows(t *testing.T) {
	off, err := parseFlags([]string{"-mixed=false", "-smtp-storm=false", "-tenancy=false"}, &bytes.Buffer{})
	require.NoError(t, err)
	rows := rowsOf(t, Report{Options: off})
	for _, prefix := range []string{"Mixed", "Booking storm, e-mail over SMTP", "Tenancy"} {
		require.NotEmpty(t, rows(prefix), prefix)
		for _, r := range rows(prefix) {
			assert.Equal(t, resultSkipped, r.Result, r.Workload)
			assert.True(t, strings.HasPrefix(r.Slotd, "-") && strings.HasSuffix(r.Slotd, "=false"), "says which flag: %q", r.Slotd)
		}
	}

	rep := Report{Options: defaults(), World: WorldInfo{Staff: 20}}
	lat := func(p99 float64) LatencyMS { return LatencyMS{P50: 1, P90: 2, P99: p99, P999: p99 + 1, Max: p99 + 2} }
	rep.Phases = []Phase{
		{Name: "mixed", Server: "slotd", Requests: 1000, Latency: lat(9), RPS: 100},
		{Name: "mixed-read", Server: "slotd", Connections: 64, Requests: 900, Latency: lat(9.9), RPS: 90, Statuses: map[string]int64{"200": 900}},
		{Name: "mixed-booking", Server: "slotd", Requests: 100, Errors: 1, Latency: lat(26), RPS: 10,
			Statuses: map[string]int64{"201": 99}, Failures: map[string]int64{"timeout": 1}},
		{Name: "storm", Server: "slotd", RPS: 9000},
		{Name: "smtp-storm", Server: "slotd", Connections: 64, Seconds: 10, RPS: 4500, Latency: lat(20)},
		{Name: "tenancy", Server: "slotd", Connections: 4, Requests: 10_000, Latency: lat(20), Statuses: map[string]int64{"200": 10_000}},
		{Name: "pg-before-16", Server: "postgres", Connections: 16, RPS: 8000},
		{Name: "pg-after-64", Server: "postgres", Connections: 64, RPS: 9000},
	}
	rep.Mixed = &Mixed{Acknowledged: 99, UncachedGuaranteed: true}
	rep.Storm = &Storm{Acknowledged: 1}
	rep.Postgres = Postgres{Best: 9000, BestRun: "pg-after-64"}
	rep.SMTPStorm = &SMTPStorm{MailsExpected: 45_000, MailsReceived: 45_000, Messages: 45_000, SinkConnections: 1, DrainSeconds: 2.5}
	rep.Tenancy = &Tenancy{Businesses: 100_000, Staff: 2, Customers: 10, Appointments: 10, Touch: 10_000, Touched: 10_000,
		RSSBefore: 150 << 20, RSSAfter: 150<<20 + 10_000*4000, GrowthPerBiz: 4000}
	rows = rowsOf(t, rep)

	mixed := rows("Mixed")
	require.Len(t, mixed, 3)
	assert.Equal(t, resultPass, mixed[0].Result, "reads p99 9.9 ms ≤ 10 ms")
	assert.Equal(t, resultFail, mixed[1].Result, "bookings p99 26 ms > 25 ms")
	assert.Contains(t, mixed[1].Slotd, "99 acknowledged")
	assert.Equal(t, resultFail, mixed[2].Result, "one booking had no answer")
	assert.Equal(t, "0 of 900 reads, 1 of 100 bookings (timeout: 1)", mixed[2].Slotd)

	storm := rows("Durable booking storm")
	require.Len(t, storm, 1)
	assert.Contains(t, storm[0].Baseline, "9.0k inserts/s in its best run (after the storm, 64 clients)")
	assert.Contains(t, storm[0].Baseline, "before the storm, 16 clients 8.0k; after the storm, 64 clients 9.0k")

	smtp := rows("Booking storm, e-mail over SMTP")
	require.Len(t, smtp, 1)
	assert.Equal(t, resultInfo, smtp[0].Result)
	assert.Equal(t, "0.50×", smtp[0].Ratio, "against the storm with the mailbox outbox")
	drain := rows("E-mail over SMTP")
	require.Len(t, drain, 1)
	assert.Equal(t, resultFail, drain[0].Result, "2.5 s > 2 s")
	assert.Contains(t, drain[0].Slotd, "over 1 connection)")

	tenancy := rows("Tenancy")
	require.Len(t, tenancy, 3)
	assert.Equal(t, resultPass, tenancy[0].Result, "150 MiB ≤ 200 MiB")
	assert.Equal(t, resultPass, tenancy[1].Result, "max 22 ms ≤ 50 ms")
	assert.Equal(t, resultPass, tenancy[2].Result, "4000 B ≤ 2 KiB + 10 × 200 B = 4048 B")
	assert.Contains(t, tenancy[2].Target, "4.0 KiB")

	rep.Tenancy.GrowthPerBiz = 4100
	rep.Phases[5].Latency.Max = 51
	rows = rowsOf(t, rep)
	tenancy = rows("Tenancy")
	assert.Equal(t, resultFail, tenancy[1].Result, "one first answer took 51 ms")
	assert.Equal(t, resultFail, tenancy[2].Result)
}

// A report written before -pg-clients took a list has runs pg-before
// and pg-after and no best run: -from still names the best one.
func TestTableOldPostgresRuns(t *testing.T) {
	rep := Report{Options: defaults()}
	rep.Options.PostgresClients = clientCounts{16}
	rep.Phases = []Phase{
		{Name: "pg-before", Server: "postgres", Connections: 16, RPS: 8100},
		{Name: "storm", Server: "slotd", RPS: 9000},
		{Name: "pg-after", Server: "postgres", Connections: 16, RPS: 8900},
	}
	rep.Storm = &Storm{}
	rep.Postgres = Postgres{Best: 8900}
	storm := rowsOf(t, rep)("Durable booking storm")
	require.Len(t, storm, 1)
	assert.Contains(t, storm[0].Baseline, "8.9k inserts/s in its best run (after the storm, 16 clients); runs: before the storm, 16 clients 8.1k; after the storm, 16 clients 8.9k")
}

// Issue 42's series rows: the CPU per request of a series of 12 against
// one booking's, judged against 4×; the latencies beside it; any answer
// other than 201 fails the phase's check.
func TestTableSeriesRows(t *testing.T) {
	off, err := parseFlags([]string{"-series=false"}, &bytes.Buffer{})
	require.NoError(t, err)
	rows := rowsOf(t, Report{Options: off})("Series")
	require.Len(t, rows, 2)
	for _, r := range rows {
		assert.Equal(t, resultSkipped, r.Result, r.Workload)
		assert.Equal(t, "-series=false", r.Slotd)
	}

	rep := Report{Options: defaults()}
	rep.Phases = []Phase{
		{Name: "series-single", Server: "slotd", Requests: 300, Statuses: map[string]int64{"201": 300}},
		{Name: "series-12", Server: "slotd", Requests: 300, Errors: 2, Statuses: map[string]int64{"201": 298, "409": 1},
			Failures: map[string]int64{"timeout": 1}},
	}
	rep.Series = &SeriesPhase{Rounds: 300, Rule: seriesRule, Occurrences: 12,
		Single: SeriesKind{Requests: 300, Latency: LatencyMS{P50: 1.2, P99: 3}, CPUPerRequestUS: 250, MedianCPUUS: 240, CPUToAnswerUS: 200},
		Series: SeriesKind{Requests: 300, Non201: 2, Latency: LatencyMS{P50: 2.4, P99: 7.5}, CPUPerRequestUS: 975, MedianCPUUS: 720, CPUToAnswerUS: 1100,
			GCCycles: 1, GCCPUSeconds: 0.1}}
	rows = rowsOf(t, rep)("Series")
	require.Len(t, rows, 3)
	cpu, lat, odd := rows[0], rows[1], rows[2]
	assert.Contains(t, cpu.Workload, "Series of 12 weekly occurrences (POST /api/v1/appointment-series, FREQ=WEEKLY;COUNT=12) against one booking, 300 of each")
	assert.Equal(t, "series: 975 µs CPU per request (median 720 µs; 1.10 ms until the answer; 1 GC cycle included, 100 ms by gctrace)", cpu.Slotd)
	assert.Equal(t, "one booking: 250 µs CPU per request (median 240 µs; 200 µs until the answer; no GC cycle)", cpu.Baseline)
	assert.Equal(t, "3.90× (medians 3.00×, until the answer 5.50×)", cpu.Ratio, "judged on the first")
	assert.Equal(t, "≤ 4×", cpu.Target)
	assert.Equal(t, resultPass, cpu.Result)
	assert.Equal(t, "series: p50 2.40ms, p99 7.50ms", lat.Slotd)
	assert.Equal(t, "one booking: p50 1.20ms, p99 3.00ms", lat.Baseline)
	assert.Equal(t, "2.00× (p50)", lat.Ratio)
	assert.Equal(t, resultInfo, lat.Result)
	assert.Equal(t, "0 of 300 bookings, 2 of 300 series (409: 1, timeout: 1)", odd.Slotd)
	assert.Equal(t, resultFail, odd.Result)

	// Over 4×, and every answer a 201.
	rep.Series.Series.CPUPerRequestUS, rep.Series.Series.Non201 = 1250, 0
	rep.Phases[1].Statuses, rep.Phases[1].Failures, rep.Phases[1].Errors = map[string]int64{"201": 300}, nil, 0
	rows = rowsOf(t, rep)("Series")
	assert.True(t, strings.HasPrefix(rows[0].Ratio, "5.00× "), rows[0].Ratio)
	assert.Equal(t, resultFail, rows[0].Result)
	assert.Equal(t, "0 of 300 bookings, 0 of 300 series", rows[2].Slotd)
	assert.Equal(t, resultPass, rows[2].Result)
	h := &harness{rep: rep}
	h.evaluate()
	assert.Contains(t, h.rep.Summary, "series of 12 5.00× one booking's CPU (p50 2.00×)")

	// A 201 that does not hold its appointments fails the check too.
	rep.Series.Single.Malformed = 1
	rows = rowsOf(t, rep)("Series")
	assert.Equal(t, "1 of 300 bookings, 0 of 300 series", rows[2].Slotd)
	assert.Equal(t, resultFail, rows[2].Result)
}
