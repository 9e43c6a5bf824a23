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
	require.Len(t, tenancy, 4, "no residency row without /metrics figures")
	assert.Equal(t, resultPass, tenancy[0].Result, "150 MiB ≤ 200 MiB")
	assert.Equal(t, resultPass, tenancy[1].Result, "max 22 ms ≤ 50 ms")
	assert.Equal(t, resultPass, tenancy[2].Result, "188 MiB ≤ 300 MiB (issue 43 replaced the 2 KiB per business)")
	assert.Equal(t, "≤ 300.0 MiB", tenancy[2].Target)
	assert.Equal(t, resultSkipped, tenancy[3].Result, "no idle step")

	rep.Tenancy.RSSAfter = 301 << 20
	rep.Phases[5].Latency.Max = 51
	rows = rowsOf(t, rep)
	tenancy = rows("Tenancy")
	assert.Equal(t, resultFail, tenancy[1].Result, "one first answer took 51 ms")
	assert.Equal(t, resultFail, tenancy[2].Result, "301 MiB > 300 MiB")
}

// Issue 43's new-customer storm: judged against the PostgreSQL baseline
// the storm's row uses, its tail, and slotd's CPU per booking, with the
// storm reusing customers beside each.
func TestTableStormNewRows(t *testing.T) {
	off, err := parseFlags([]string{"-storm-new=false"}, &bytes.Buffer{})
	require.NoError(t, err)
	skipped := rowsOf(t, Report{Options: off})
	rows := skipped("New-customer storm")
	require.Len(t, rows, 3)
	for _, r := range rows {
		assert.Equal(t, resultSkipped, r.Result, r.Workload)
		assert.Equal(t, "-storm-new=false", r.Slotd)
	}

	rep := Report{Options: defaults()}
	lat := func(p99, p999 float64) LatencyMS {
		return LatencyMS{P50: 3, P90: 8, P99: p99, P999: p999, Max: p999 + 10}
	}
	prof := func(gc float64) *Profile {
		return &Profile{Seconds: 18, Shares: map[string]float64{"GC background marking": gc, "GC assists": 1, "engine (actors/, model codecs included)": 40}}
	}
	rep.Phases = []Phase{
		{Name: "pg-after-64", Server: "postgres", Connections: 64, RPS: 8000},
		{Name: "storm", Server: "slotd", Connections: 64, Seconds: 20, RPS: 9000, Latency: lat(26, 45), ServerCPUPerReqUS: 180, Profile: prof(8)},
		{Name: "storm-new", Server: "slotd", Connections: 64, Seconds: 20, Requests: 340_000, RPS: 17_000, Latency: lat(24, 49),
			ServerCPUPerReqUS: 95, Statuses: map[string]int64{"201": 340_000}, Profile: prof(5)},
	}
	rep.Storm = &Storm{Acknowledged: 180_000, CPUPerBookingWithDrainUS: 190}
	rep.StormNew = &Storm{Acknowledged: 340_000, MailsExpected: 520_000, MailsFound: 520_000, DrainSeconds: 0.4, CPUPerBookingWithDrainUS: 99, GrowthPerBooking: 600}
	rep.Postgres = Postgres{Best: 8000, BestRun: "pg-after-64"}
	all := rowsOf(t, rep)
	rows = all("New-customer storm")
	require.Len(t, rows, 5)
	rate, tail, cpu, shares, mail := rows[0], rows[1], rows[2], rows[3], rows[4]
	assert.Equal(t, "2.12×", rate.Ratio, "17k against PostgreSQL's best 8k")
	assert.Equal(t, resultPass, rate.Result)
	assert.Contains(t, rate.Baseline, "8.0k inserts/s (after the storm, 64 clients); the storm reusing customers: 9.0k bookings/s")
	assert.Contains(t, rate.Workload, "64 connections, 20s")
	assert.Equal(t, "17.0k bookings/s, p50 3.00ms, p99 24.0ms, p99.9 49.0ms", rate.Slotd)
	assert.Equal(t, resultPass, tail.Result, "p99 24 ms, p99.9 49 ms")
	assert.Equal(t, "the storm reusing customers: p99 26.0ms, p99.9 45.0ms (max 55.0ms)", tail.Baseline)
	assert.Equal(t, resultPass, cpu.Result, "95 µs ≤ 100 µs")
	assert.Equal(t, "95 µs per booking, 99 µs with the outbox's drain after it; GC 6 %", cpu.Slotd)
	assert.Equal(t, "the storm reusing customers: 180 µs per booking, 190 µs with the outbox's drain after it; GC 9 %", cpu.Baseline)
	assert.Equal(t, "≤ 100 µs", cpu.Target)
	assert.Equal(t, resultInfo, shares.Result)
	assert.Contains(t, shares.Slotd, "engine (actors/, model codecs included) 40%")
	assert.Contains(t, shares.Baseline, "the storm reusing customers: 18.0s sampled")
	assert.Equal(t, resultInfo, mail.Result)
	assert.Contains(t, mail.Slotd, "0.4 s; 600 B per booking")
	h := &harness{rep: rep}
	h.evaluate()
	assert.Contains(t, h.rep.Summary, "new-customer storm 17.0k/s = 2.12× PostgreSQL, p99.9 49.0ms, 95 µs CPU per booking")

	// Slower than twice PostgreSQL, a stall in the tail, over 100 µs.
	rep.Phases[2].RPS, rep.Phases[2].Latency, rep.Phases[2].ServerCPUPerReqUS = 5000, lat(30, 140), 230
	rows = rowsOf(t, rep)("New-customer storm")
	assert.Equal(t, resultFail, rows[0].Result, "0.62×")
	assert.Equal(t, resultFail, rows[1].Result, "p99.9 140 ms")
	assert.Equal(t, resultFail, rows[2].Result, "230 µs")

	// Without PostgreSQL the ratio row is skipped and says against what
	// it would have been judged; the others are still judged.
	rep.Postgres = Postgres{Skipped: "-pg off"}
	rate = rowsOf(t, rep)("New-customer storm")[0]
	assert.Equal(t, resultSkipped, rate.Result)
	assert.Equal(t, "PostgreSQL skipped: -pg off; the storm reusing customers: 9.0k bookings/s (0.56×)", rate.Baseline)
}

// Issue 43's tenancy rows: RSS after the touches with --max-resident
// (≤ 300 MiB), the businesses resident (information), and with
// --idle-after RSS back within 50 MiB of its start within 2 minutes.
func TestTableTenancyRows(t *testing.T) {
	rep := Report{Options: defaults()}
	rep.Phases = []Phase{
		{Name: "tenancy", Server: "slotd", Connections: 4, Requests: 10_000, Latency: LatencyMS{P50: 0.7, P99: 7, Max: 31}, Statuses: map[string]int64{"200": 10_000}},
		{Name: "tenancy-idle", Server: "slotd", Connections: 4, Requests: 5000, Latency: LatencyMS{P50: 0.7, P99: 6, Max: 20}, Statuses: map[string]int64{"200": 5000}},
	}
	sample := func(s float64, rss int64, resident int64) IdleSample {
		return IdleSample{Seconds: s, RSS: rss, Resident: resident, LetGo: 5000 - resident, HeapInuse: 90 << 20, HeapReleased: 40 << 20, GoSys: 140 << 20, GCCycles: 12}
	}
	rep.Tenancy = &Tenancy{Businesses: 100_000, Staff: 2, Customers: 10, Appointments: 10, Touch: 10_000, Touched: 10_000, MaxResident: 2000,
		RSSBefore: 75 << 20, RSSAfter: 180 << 20, HWMAfter: 190 << 20, GrowthPerBiz: 11_000,
		Residency: &TenancyResidency{MaxSeen: 2900, AtEnd: 2600, Settled: 2000, SettledSeconds: 0.8, LetGo: 8000, RSSSettled: 170 << 20},
		Idle: &TenancyIdle{IdleAfterSeconds: 30, Touch: 5000, Touched: 5000, SlackBytes: 50 << 20, WithinTargetSeconds: 120, WatchSeconds: 150, WithinSeconds: 45,
			Baseline: sample(0, 75<<20, 0), Peak: sample(0, 170<<20, 5000),
			Samples: []IdleSample{sample(0, 170<<20, 5000), sample(5, 170<<20, 5000), sample(45, 120<<20, 0)}}}
	rows := rowsOf(t, rep)("Tenancy")
	require.Len(t, rows, 5)
	before, first, after, resident, idle := rows[0], rows[1], rows[2], rows[3], rows[4]
	assert.Contains(t, before.Workload, "--max-resident 2000")
	assert.Equal(t, resultPass, before.Result)
	assert.Equal(t, resultPass, first.Result)
	assert.Contains(t, first.Workload, "--max-resident 2000")
	assert.Equal(t, resultPass, after.Result, "180 MiB ≤ 300 MiB")
	assert.Contains(t, after.Slotd, "180.0 MiB (peak 190.0 MiB; 105.0 MiB more than before the first request")
	assert.Equal(t, resultInfo, resident.Result)
	assert.Equal(t, "≤ 2000 (+ 100)", resident.Target)
	assert.Equal(t, "2600 at the end of the first answers (at most 2900 seen during them, sampled every 0.5 s); 2000 0.8 s after them, once at the bound (RSS 170.0 MiB then); 8000 let go", resident.Slotd)
	assert.Equal(t, resultPass, idle.Result, "45 s ≤ 2 min")
	assert.Contains(t, idle.Workload, "--idle-after 30s")
	assert.Contains(t, idle.Workload, "burst of 5000 first answers")
	assert.Equal(t, "within 50 MiB in ≤ 2 min", idle.Target)
	assert.True(t, strings.HasPrefix(idle.Slotd, "RSS 75.0 MiB once ready, 170.0 MiB after the burst, 120.0 MiB 45 s after it (0 resident, 5000 let go;"), idle.Slotd)
	h := &harness{rep: rep}
	h.evaluate()
	assert.Contains(t, h.rep.Summary, "tenancy 100000 businesses: RSS 75.0 MiB, 180.0 MiB after 10000 first answers (max 31.0ms) with --max-resident 2000; --idle-after: RSS back within 50.0 MiB in 45 s")

	// Back, but later than 2 minutes; and not back at all.
	rep.Tenancy.Idle.WithinSeconds = 125
	assert.Equal(t, resultFail, rowsOf(t, rep)("Tenancy")[4].Result)
	rep.Tenancy.Idle.WithinSeconds = -1
	rep.Tenancy.Idle.Samples[2] = sample(150, 160<<20, 0)
	idle = rowsOf(t, rep)("Tenancy")[4]
	assert.Equal(t, resultFail, idle.Result)
	assert.Contains(t, idle.Slotd, "still 160.0 MiB 150 s after it: not back (0 resident, 5000 let go; heap in use 90.0 MiB, the Go runtime holding 100.0 MiB of the OS's memory, 40.0 MiB released to the OS; 12 GC cycles since the start)")

	// A burst that never took RSS 50 MiB up says nothing: information.
	rep.Tenancy.Idle.Peak.RSS, rep.Tenancy.Idle.WithinSeconds = 100<<20, 0
	assert.Equal(t, resultInfo, rowsOf(t, rep)("Tenancy")[4].Result)

	// Over 300 MiB; without a bound the resident row has no target.
	rep.Tenancy.RSSAfter, rep.Tenancy.MaxResident = 320<<20, 0
	rows = rowsOf(t, rep)("Tenancy")
	assert.Equal(t, resultFail, rows[2].Result)
	assert.Contains(t, rows[2].Workload, "without --max-resident")
	assert.Empty(t, rows[3].Target)

	// -tenancy-idle-touch 0 says so.
	rep.Options.TenancyIdleTouch, rep.Tenancy.Idle = 0, nil
	rep.Phases = rep.Phases[:1]
	idle = rowsOf(t, rep)("Tenancy")[4]
	assert.Equal(t, resultSkipped, idle.Result)
	assert.Equal(t, "-tenancy-idle-touch 0", idle.Slotd)
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
