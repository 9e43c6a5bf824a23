package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var withPostgres = flag.Bool("harness.pg", false, "run the PostgreSQL baseline in the end-to-end test too (needs initdb and pgbench)")

// TestHarnessEndToEnd runs the whole harness as `go run ./bench/harness`
// would, at toy sizes: it builds slotd, writes both worlds, runs every
// phase against the real binary and checks the report has every phase,
// no double booking and no lost acknowledged booking, and that the table,
// the JSON and the chart come out.
func TestHarnessEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds slotd and runs it: not in -short")
	}
	dir := t.TempDir()
	pg := "off"
	if *withPostgres {
		pg = "on"
	}
	args := []string{
		"-businesses", "3", "-staff", "4", "-appointments", "60", "-customers", "5", "-queries", "90",
		"-d", "500ms", "-storm-d", "1s", "-c", "4", "-storm-c", "8", "-race-clients", "6", "-race-slots", "4",
		"-load-businesses", "10", "-load-staff", "3", "-load-appointments", "300",
		"-mixed-d", "1s", "-mixed-c", "4", "-smtp-storm-d", "1s", "-series-n", "20", "-tenancy-businesses", "200", "-tenancy-touch", "50",
		"-tenancy-max-resident", "0", "-tenancy-idle-touch", "40", // a bound holds only from slotd's next look: up to a minute with --idle-after on
		"-pg", pg, "-pg-d", "2s", "-pg-clients", "2,4", "-drain-timeout", "2m", "-ready-timeout", "1m",
		"-json", filepath.Join(dir, "report.json"), "-svg", filepath.Join(dir, "chart.svg"), "-tmp", dir,
	}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(context.Background(), args, &stdout, &stderr)
	t.Logf("harness took %s; progress:\n%s", time.Since(start).Round(time.Millisecond), stderr.String())
	require.Equal(t, 0, code, "stdout:\n%s", stdout.String())

	raw, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	var rep Report
	require.NoError(t, json.Unmarshal(raw, &rep))

	want := []string{"static-hello", "static-week", "static-day", "availability-week", "availability-day", "mixed", "mixed-read", "mixed-booking",
		"storm", "storm-new", "race", "series-single", "series-12", "smtp-storm", "tenancy", "tenancy-idle"}
	if *withPostgres {
		want = append(want, "pg-before-2", "pg-before-4", "pg-after-2", "pg-after-4")
	}
	for _, name := range want {
		p := rep.phase(name)
		if !assert.NotNil(t, p, "phase %s", name) {
			continue
		}
		assert.Positive(t, p.Requests, name)
		assert.Positive(t, p.RPS, name)
		assert.Positive(t, p.Latency.Max, name)
		if name != "race" {
			assert.Zero(t, p.Errors, "%s: %+v", name, p)
		}
		if strings.HasPrefix(name, "static") || strings.HasPrefix(name, "availability") || slices.Contains([]string{"mixed", "storm", "storm-new", "smtp-storm", "tenancy", "tenancy-idle", "series-single", "series-12"}, name) {
			assert.Positive(t, p.ServerCPUSeconds, "%s: the server's CPU is measured", name)
			assert.GreaterOrEqual(t, p.OtherCPUCores, 0.0, "%s: the rest of the machine is measured", name)
		}
	}
	assert.Len(t, rep.Phases, len(want))
	assert.Positive(t, rep.phase("storm").ServerCPUPerReqUS, "slotd's CPU is measured")
	assert.GreaterOrEqual(t, rep.phase("storm").GCSharePercent, 0.0)

	require.NotNil(t, rep.Storm)
	assert.Positive(t, rep.Storm.Acknowledged)
	assert.Empty(t, rep.Storm.UnexpectedAnswers, "every storm request is a free slot")
	assert.GreaterOrEqual(t, rep.Storm.DrainSeconds, 0.0, "the outbox drained")
	assert.Equal(t, rep.Storm.MailsExpected, rep.Storm.MailsFound)
	assert.Positive(t, rep.Storm.RSSAfter)

	require.NotNil(t, rep.StormNew, "the new-customer storm")
	assert.Positive(t, rep.StormNew.Acknowledged)
	assert.Empty(t, rep.StormNew.UnexpectedAnswers, "every new-customer booking is a free slot and a new customer")
	assert.GreaterOrEqual(t, rep.StormNew.DrainSeconds, 0.0, "the outbox drained")
	assert.Equal(t, rep.Storm.MailsFound+int(rep.StormNew.Acknowledged), rep.StormNew.MailsExpected, "one e-mail each, after the storm's")
	assert.Positive(t, rep.phase("storm-new").ServerCPUPerReqUS)
	assert.Positive(t, rep.StormNew.CPUPerBookingWithDrainUS)

	require.NotNil(t, rep.Mixed)
	assert.Positive(t, rep.Mixed.Acknowledged)
	assert.Empty(t, rep.Mixed.UnexpectedAnswers, "every mixed booking is a free slot, every read a valid query")
	assert.True(t, rep.Mixed.UncachedGuaranteed)
	assert.Positive(t, rep.Mixed.WeekReads)
	assert.Positive(t, rep.Mixed.DayReads)
	assert.GreaterOrEqual(t, rep.Mixed.MailsSeconds, 0.0, "the mixed phase's e-mails were in the outbox before the storm")
	reads, books := rep.phase("mixed-read"), rep.phase("mixed-booking")
	assert.Equal(t, rep.phase("mixed").Requests, reads.Requests+books.Requests)
	assert.Equal(t, rep.Mixed.WeekReads+rep.Mixed.DayReads, reads.Requests)
	assert.Equal(t, rep.Mixed.Acknowledged, books.Requests)
	assert.InDelta(t, 9, float64(reads.Requests)/float64(books.Requests), 0.5, "nine reads to a booking")

	require.NotNil(t, rep.SMTPStorm)
	assert.Positive(t, rep.SMTPStorm.Acknowledged)
	assert.Empty(t, rep.SMTPStorm.UnexpectedAnswers)
	assert.GreaterOrEqual(t, rep.SMTPStorm.DrainSeconds, 0.0, "the sink received every confirmation")
	assert.Equal(t, rep.SMTPStorm.Acknowledged, rep.SMTPStorm.MailsExpected)
	assert.Equal(t, rep.SMTPStorm.MailsExpected, rep.SMTPStorm.MailsReceived)
	assert.Positive(t, rep.SMTPStorm.SinkConnections)

	require.NotNil(t, rep.Tenancy)
	assert.Equal(t, 200, rep.Tenancy.Businesses)
	assert.Equal(t, int64(50), rep.Tenancy.Touched)
	assert.Equal(t, int64(50), rep.phase("tenancy").Requests, "each business asked once")
	assert.Positive(t, rep.Tenancy.LoadSeconds)
	assert.Positive(t, rep.Tenancy.RSSBefore)
	assert.Positive(t, rep.Tenancy.RSSAfter)
	assert.Positive(t, rep.Tenancy.HeapBefore, "the live heap is read from the admin listener")
	assert.Positive(t, rep.Tenancy.HeapAfter)
	assert.Zero(t, rep.Tenancy.MaxResident)
	if res := rep.Tenancy.Residency; assert.NotNil(t, res, "residency from /metrics") {
		assert.Equal(t, int64(50), res.AtEnd, "no bound: every business touched is resident")
		assert.Equal(t, int64(50), res.MaxSeen)
		assert.Equal(t, int64(50), res.Settled)
		assert.Equal(t, -1.0, res.SettledSeconds, "no bound to come back to")
		assert.Zero(t, res.LetGo)
	}
	if id := rep.Tenancy.Idle; assert.NotNil(t, id, "the idle step") {
		assert.Equal(t, int64(40), id.Touched)
		assert.Equal(t, int64(40), rep.phase("tenancy-idle").Requests)
		assert.Positive(t, id.Baseline.RSS)
		assert.Equal(t, int64(0), id.Baseline.Resident, "nothing asked yet")
		assert.Positive(t, id.Peak.RSS)
		assert.Equal(t, int64(40), id.Peak.Resident, "no bound: every business of the burst resident")
		assert.NotEmpty(t, id.Samples)
		assert.GreaterOrEqual(t, id.WithinSeconds, 0.0, "40 small businesses never take RSS 50 MiB up")
	}

	require.NotNil(t, rep.Series)
	for _, k := range []SeriesKind{rep.Series.Single, rep.Series.Series} {
		assert.Equal(t, int64(20), k.Requests)
		assert.Zero(t, k.Non201, "%v", rep.Series.UnexpectedAnswers)
		assert.Zero(t, k.Malformed, "%v", rep.Series.UnexpectedAnswers)
		assert.Positive(t, k.CPUPerRequestUS)
		assert.Positive(t, k.Latency.P50)
	}
	assert.Positive(t, rep.Series.CPURatio)
	assert.Positive(t, rep.Series.LatencyRatio)

	require.NotNil(t, rep.Race)
	assert.Equal(t, 4, rep.Race.OneWinner, "%+v", rep.Race)

	require.NotNil(t, rep.Walk)
	assert.Zero(t, rep.Walk.Overlaps, "%v", rep.Walk.OverlapExamples)
	assert.Zero(t, rep.Walk.Missing, "%v", rep.Walk.MissingExamples)
	assert.Equal(t, int(rep.Mixed.Acknowledged+rep.Storm.Acknowledged+rep.StormNew.Acknowledged)+4, rep.Walk.Acknowledged,
		"the walk checks the mixed phase's and the new-customer storm's bookings too")
	assert.GreaterOrEqual(t, rep.Walk.Appointments, rep.Walk.Acknowledged)

	assert.Positive(t, rep.World.ReadySeconds)
	assert.Positive(t, rep.World.WeekAnswerBytes)
	assert.Positive(t, rep.World.DayAnswerBytes)
	require.NotNil(t, rep.Load)
	assert.Equal(t, 300, rep.Load.Appointments)
	assert.Positive(t, rep.Load.ReadySeconds)
	assert.Positive(t, rep.Load.HWM)
	assert.Positive(t, rep.Load.RestartFirstAnswer)

	if *withPostgres {
		assert.Positive(t, rep.Postgres.Best)
		assert.Contains(t, want, rep.Postgres.BestRun)
	} else {
		assert.Equal(t, "-pg off", rep.Postgres.Skipped)
		assert.Contains(t, stderr.String(), "PostgreSQL baseline skipped: -pg off")
	}

	// The table and the summary line; every target row judged or skipped.
	out := stdout.String()
	assert.Contains(t, out, "| Workload | slotd | Baseline (same run) | Ratio | Target | Result |")
	assert.True(t, strings.HasSuffix(out, rep.Summary+"\n"), "the summary line ends the output")
	assert.Contains(t, rep.Summary, "0 overlaps, 0 missing")
	assert.Positive(t, rep.Passed+rep.Failed)
	for _, row := range rep.Rows {
		assert.Contains(t, []string{resultPass, resultFail, resultInfo, resultSkipped}, row.Result, row.Workload)
	}

	svg, err := os.ReadFile(filepath.Join(dir, "chart.svg"))
	require.NoError(t, err)
	assertWellFormedXML(t, svg)
	for _, name := range want {
		if name != "mixed" { // drawn as its reads and its bookings
			assert.Contains(t, string(svg), ">"+name+"<", "the chart has a line for %s", name)
		}
	}
	// Every row of issue 23's phases is judged.
	// The new-customer storm's rows, but for its ratio to PostgreSQL.
	for _, prefix := range []string{"Mixed", "E-mail over SMTP", "Tenancy", "Series", "New-customer storm,"} {
		n := 0
		for _, row := range rep.Rows {
			if strings.HasPrefix(row.Workload, prefix) {
				n++
				assert.NotEqual(t, resultSkipped, row.Result, row.Workload)
			}
		}
		assert.Positive(t, n, "rows of %s", prefix)
	}

	// -from draws the same table and chart again from the report.
	var again bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"-from", filepath.Join(dir, "report.json"), "-svg", filepath.Join(dir, "again.svg")}, &again, &stderr))
	assert.Equal(t, out, again.String())
	svg2, err := os.ReadFile(filepath.Join(dir, "again.svg"))
	require.NoError(t, err)
	assert.Equal(t, svg, svg2)

	// Nothing is left behind: no process started from or working on the
	// run's directory, and the directory itself is gone.
	assert.Empty(t, processesMentioning(t, dir))
	left, err := filepath.Glob(filepath.Join(dir, "slotd-harness-*"))
	require.NoError(t, err)
	assert.Empty(t, left)
}

// processesMentioning lists the running processes whose command line
// names dir.
func processesMentioning(t *testing.T, dir string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	require.NoError(t, err)
	var out []string
	for _, path := range cmdlines {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // ended meanwhile
		}
		if cmd := strings.ReplaceAll(string(b), "\x00", " "); strings.Contains(cmd, dir) {
			out = append(out, path+": "+cmd)
		}
	}
	return out
}

func assertWellFormedXML(t *testing.T, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		require.NoError(t, err)
	}
}
