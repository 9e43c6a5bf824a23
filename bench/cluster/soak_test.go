package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The soak's pure parts, on synthetic data: no process, no network.

var testBounds = faultBounds{gapMin: 20 * time.Second, gapMax: 60 * time.Second,
	holdMin: 5 * time.Second, holdMax: 20 * time.Second, nodes: 3}

func drawN(seed uint64, n int) []plannedFault {
	d := newFaultDraw(seed, testBounds)
	out := make([]plannedFault, n)
	for i := range out {
		out[i] = d.next()
	}
	return out
}

// TestFaultDrawDeterministic: one seed, one schedule, within the bounds,
// every kind and node drawn; another seed, another schedule.
func TestFaultDrawDeterministic(t *testing.T) {
	a, b := drawN(42, 300), drawN(42, 300)
	require.Equal(t, a, b, "the same seed must draw the same faults")
	require.NotEqual(t, a, drawN(43, 300), "another seed draws another schedule")
	kinds, nodes := map[faultKind]int{}, map[int]int{}
	for i, f := range a {
		assert.GreaterOrEqual(t, f.Gap, testBounds.gapMin, "fault %d", i)
		assert.LessOrEqual(t, f.Gap, testBounds.gapMax, "fault %d", i)
		assert.Zero(t, f.Gap%time.Millisecond, "fault %d: whole milliseconds", i)
		assert.True(t, f.Node >= 0 && f.Node < 3, "fault %d node %d", i, f.Node)
		if f.Kind == faultStop {
			assert.GreaterOrEqual(t, f.Hold, testBounds.holdMin, "fault %d", i)
			assert.LessOrEqual(t, f.Hold, testBounds.holdMax, "fault %d", i)
		} else {
			assert.Zero(t, f.Hold, "fault %d: only a SIGSTOP is held", i)
		}
		kinds[f.Kind]++
		nodes[f.Node]++
	}
	assert.Len(t, kinds, int(faultKinds))
	assert.Len(t, nodes, 3)

	// Degenerate bounds: a fixed gap and hold.
	fixed := faultBounds{gapMin: time.Second, gapMax: time.Second, holdMin: 2 * time.Second, holdMax: 2 * time.Second, nodes: 1}
	d := newFaultDraw(7, fixed)
	for range 20 {
		f := d.next()
		assert.Equal(t, time.Second, f.Gap)
		assert.Equal(t, 0, f.Node)
	}
	// Every fault draws four times whatever the bounds, so (bar a rare
	// rejection inside Int64N) its kind and node follow the seed alone.
	wide := drawN(7, 50)
	d = newFaultDraw(7, faultBounds{gapMin: time.Second, gapMax: time.Second, holdMin: time.Second, holdMax: time.Second, nodes: 3})
	for i := range wide {
		f := d.next()
		assert.Equal(t, wide[i].Kind, f.Kind, "fault %d", i)
		assert.Equal(t, wide[i].Node, f.Node, "fault %d", i)
	}
}

func TestBookingOutcome(t *testing.T) {
	boom := errors.New("connection refused")
	for _, c := range []struct {
		status   int
		body     string
		err      error
		timedOut bool
		want     outcome
		why      string
	}{
		{201, `{"appointment":{"id":"x"}}`, nil, false, outAck, "201"},
		{409, `{"code":"SLOT_TAKEN"}`, nil, false, outRefuse, "409 SLOT_TAKEN"},
		{409, `{"code":"NO_STAFF_AVAILABLE"}`, nil, false, outRefuse, "409 NO_STAFF_AVAILABLE"},
		{409, `{"code":"IDEMPOTENCY_IN_PROGRESS"}`, nil, false, outRetry, "409 IDEMPOTENCY_IN_PROGRESS"},
		{422, `{"code":"SLOT_NOT_OFFERED"}`, nil, false, outRefuse, "422 SLOT_NOT_OFFERED"},
		{400, `not json`, nil, false, outRefuse, "400"},
		{503, `{"code":"SERVICE_UNAVAILABLE"}`, nil, false, outRetry, "503"},
		{500, ``, nil, false, outRetry, "500"},
		{429, ``, nil, false, outRetry, "429"},
		{0, ``, boom, false, outRetry, "transport error"},
		{0, ``, context.DeadlineExceeded, true, outRetry, "timeout"},
	} {
		got, why := bookingOutcome(c.status, []byte(c.body), c.err, c.timedOut)
		assert.Equal(t, c.want, got, "%d %s", c.status, c.body)
		assert.Equal(t, c.why, why, "%d %s", c.status, c.body)
	}
	assert.True(t, isTimeout(context.DeadlineExceeded))
	assert.False(t, isTimeout(io.EOF))
	assert.False(t, isTimeout(nil))
}

func TestRetryPause(t *testing.T) {
	assert.Equal(t, 50*time.Millisecond, retryPause(0))
	assert.Equal(t, 100*time.Millisecond, retryPause(1))
	assert.Equal(t, 800*time.Millisecond, retryPause(4))
	assert.Equal(t, time.Second, retryPause(5))
	assert.Equal(t, time.Second, retryPause(1000))
}

// TestClassifyRead: a 404 is stale only when the 201 arrived before the
// read was sent; no answer says nothing.
func TestClassifyRead(t *testing.T) {
	ack := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	after, before := ack.Add(time.Millisecond), ack.Add(-time.Millisecond)
	assert.Equal(t, readOK, classifyRead(200, nil, ack, after))
	assert.Equal(t, readStale, classifyRead(404, nil, ack, after))
	assert.Equal(t, readOther, classifyRead(404, nil, ack, before), "sent before the 201 arrived")
	assert.Equal(t, readOther, classifyRead(404, nil, ack, ack), "sent at the very instant")
	assert.Equal(t, readUnavailable, classifyRead(503, nil, ack, after))
	assert.Equal(t, readUnavailable, classifyRead(500, nil, ack, after))
	assert.Equal(t, readUnavailable, classifyRead(0, context.DeadlineExceeded, ack, after))
	assert.Equal(t, readOther, classifyRead(401, nil, ack, after))
}

// TestPickRecent: always in range, the newest for u = 0, and biased to
// the newest.
func TestPickRecent(t *testing.T) {
	assert.Equal(t, -1, pickRecent(0, 0.5))
	assert.Equal(t, 0, pickRecent(1, 0.99))
	assert.Equal(t, 199, pickRecent(200, 0))
	newest := 0
	for i := range 1000 {
		u := float64(i) / 1000
		k := pickRecent(200, u)
		require.True(t, k >= 0 && k < 200, "u %v: %d", u, k)
		if k >= 180 {
			newest++
		}
	}
	assert.Greater(t, newest, 400, "the newest tenth should get over 40%% of the picks")
	assert.Equal(t, 0, pickRecent(200, 0.999999))
}

func TestWorstGap(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s ...float64) []time.Time {
		var out []time.Time
		for _, x := range s {
			out = append(out, t0.Add(time.Duration(x*float64(time.Second))))
		}
		return out
	}
	end := t0.Add(100 * time.Second)
	// Unsorted, the worst stretch in the middle.
	g := worstGap(at(50, 10, 20, 80, 90), t0, end)
	assert.Equal(t, 30*time.Second, g.length())
	assert.Equal(t, t0.Add(20*time.Second), g.from)
	assert.Equal(t, t0.Add(50*time.Second), g.to)
	// From the start to the first ack.
	g = worstGap(at(40, 50, 60, 70, 80, 90), t0, end)
	assert.Equal(t, gap{t0, t0.Add(40 * time.Second)}, g)
	// From the last ack to the end.
	g = worstGap(at(1, 2, 3), t0, end)
	assert.Equal(t, gap{t0.Add(3 * time.Second), end}, g)
	// None: the whole load.
	assert.Equal(t, gap{t0, end}, worstGap(nil, t0, end))
	// Acks outside the load are ignored.
	g = worstGap(at(-5, 10, 60, 150), t0, end)
	assert.Equal(t, gap{t0.Add(10 * time.Second), t0.Add(60 * time.Second)}, g)
}

func TestOverlapping(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sec := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	spans := []faultSpan{
		{label: "f1", from: sec(10), to: sec(20)},
		{label: "f2", from: sec(40), to: sec(45)},
		{label: "f3", from: sec(80)}, // never ready again
	}
	assert.Equal(t, []string{"f1"}, overlapping(spans, gap{sec(15), sec(30)}))
	assert.Equal(t, []string{"f1", "f2"}, overlapping(spans, gap{sec(5), sec(41)}))
	assert.Empty(t, overlapping(spans, gap{sec(21), sec(39)}))
	assert.Empty(t, overlapping(spans, gap{sec(20), sec(40)}), "touching ends do not overlap")
	assert.Equal(t, []string{"f3"}, overlapping(spans, gap{sec(90), sec(100)}))
}

func TestSinceEvent(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	events := []faultEvent{
		{at: t0.Add(10 * time.Second), what: "SIGSTOP of n2"},
		{at: t0.Add(25 * time.Second), what: "SIGCONT of n2"},
		{at: t0.Add(40 * time.Second), what: "every node ready after fault 1"},
	}
	assert.Equal(t, "before the first fault", sinceEvent(events, t0.Add(5*time.Second)))
	assert.Equal(t, "1.1 s after SIGCONT of n2", sinceEvent(events, t0.Add(26100*time.Millisecond)))
	assert.Equal(t, "0.0 s after SIGSTOP of n2", sinceEvent(events, t0.Add(10*time.Second)))
	assert.Equal(t, "60.0 s after every node ready after fault 1", sinceEvent(events, t0.Add(100*time.Second)))
	assert.Equal(t, "before the first fault", sinceEvent(nil, t0))
}

// synthetic is a consistent world: three nodes listing the same
// appointments, one contested slot held once.
func synthetic() ([]ackedRef, []contestSlot, []nodeListing) {
	day := time.Date(2027, 3, 1, 8, 0, 0, 0, time.UTC)
	slot := func(i int) (time.Time, time.Time) {
		s := day.Add(time.Duration(i) * 30 * time.Minute)
		return s, s.Add(30 * time.Minute)
	}
	var appts []listedAppt
	var acked []ackedRef
	for i := range 6 {
		s, e := slot(i)
		id := "a" + string(rune('0'+i))
		appts = append(appts, listedAppt{Biz: i % 2, ID: id, Staff: "s1", Status: "confirmed", Start: s, End: e})
		acked = append(acked, ackedRef{Biz: i % 2, ID: id})
	}
	// A cancelled appointment under an active one does not count.
	s, e := slot(0)
	appts = append(appts, listedAppt{Biz: 0, ID: "c0", Staff: "s1", Status: "cancelled", Start: s, End: e})
	contests := []contestSlot{{Biz: 0, Staff: "s1", Start: s, Members: 3, Acks: 1, Taken: 2}}
	var lists []nodeListing
	for _, n := range []string{"n1", "n2", "n3"} {
		lists = append(lists, nodeListing{Node: n, Appts: append([]listedAppt(nil), appts...)})
	}
	return acked, contests, lists
}

func TestEndCheckClean(t *testing.T) {
	acked, contests, lists := synthetic()
	e := endCheck("before", acked, contests, lists)
	assert.Empty(t, e.Failed(), "%+v", e)
	assert.Equal(t, map[string]int{"n1": 7, "n2": 7, "n3": 7}, e.Listed)
	assert.Equal(t, 6, e.Acked)
	assert.Equal(t, 1, e.Contested)
	assert.True(t, e.Agree)
}

func TestEndCheckMissing(t *testing.T) {
	acked, contests, lists := synthetic()
	lists[1].Appts = lists[1].Appts[1:] // n2 lacks a0
	e := endCheck("before", acked, contests, lists)
	assert.Equal(t, 1, e.Missing)
	require.Len(t, e.MissingIDs, 1)
	assert.Contains(t, e.MissingIDs[0], "a0")
	assert.Contains(t, e.MissingIDs[0], "not on n2")
	assert.False(t, e.Agree, "n2 lists less than the others")
	assert.Equal(t, 1, e.Violations, "the contested slot is held by nothing on n2")
	assert.Len(t, e.Failed(), 3)

	// An acknowledged booking no node lists.
	acked, contests, lists = synthetic()
	acked = append(acked, ackedRef{Biz: 1, ID: "ghost"})
	e = endCheck("after", acked, contests, lists)
	assert.Equal(t, 1, e.Missing)
	assert.Contains(t, e.MissingIDs[0], "not on n1, n2, n3")
	assert.True(t, e.Agree)
}

func TestEndCheckDouble(t *testing.T) {
	acked, contests, lists := synthetic()
	a := lists[0].Appts[2] // business 0, s1
	// One staff member booked twice, overlapping by 15 minutes, on every
	// node: one double, not three.
	for i := range lists {
		lists[i].Appts = append(lists[i].Appts, listedAppt{Biz: a.Biz, ID: "dup", Staff: "s1", Status: "confirmed",
			Start: a.Start.Add(15 * time.Minute), End: a.End.Add(15 * time.Minute)})
	}
	e := endCheck("before", acked, contests, lists)
	assert.Equal(t, 1, e.Double, "%v", e.Doubles)
	assert.Contains(t, e.Doubles[0], "dup")
	assert.True(t, e.Agree)

	// Back to back is no double; another staff member or business at the
	// same time is none either; a no_show does not count.
	acked, contests, lists = synthetic()
	for i := range lists {
		lists[i].Appts = append(lists[i].Appts,
			listedAppt{Biz: a.Biz, ID: "next", Staff: "s1", Status: "confirmed", Start: a.End, End: a.End.Add(30 * time.Minute)},
			listedAppt{Biz: a.Biz, ID: "s2", Staff: "s2", Status: "confirmed", Start: a.Start, End: a.End},
			listedAppt{Biz: 5, ID: "other", Staff: "s1", Status: "confirmed", Start: a.Start, End: a.End},
			listedAppt{Biz: a.Biz, ID: "ns", Staff: "s1", Status: "no_show", Start: a.Start, End: a.End})
	}
	e = endCheck("before", acked, contests, lists)
	assert.Zero(t, e.Double, "%v", e.Doubles)
}

func TestEndCheckContested(t *testing.T) {
	acked, contests, lists := synthetic()
	c := contests[0]
	for _, tc := range []struct {
		name      string
		slot      contestSlot
		extra     int // further active holders on every node
		violation bool
	}{
		{"held once", c, 0, false},
		{"held twice", c, 1, true},
		{"acknowledged twice", contestSlot{Biz: c.Biz, Staff: c.Staff, Start: c.Start, Members: 3, Acks: 2, Taken: 1}, 0, true},
		{"decided by SLOT_TAKEN alone, held once", contestSlot{Biz: c.Biz, Staff: c.Staff, Start: c.Start, Members: 3, Taken: 2, GivenUp: 1}, 0, false},
		{"undecided, held once", contestSlot{Biz: c.Biz, Staff: c.Staff, Start: c.Start, Members: 2, GivenUp: 2}, 0, false},
		{"undecided, held twice", contestSlot{Biz: c.Biz, Staff: c.Staff, Start: c.Start, Members: 2, GivenUp: 2}, 1, true},
	} {
		ls := make([]nodeListing, len(lists))
		for i, l := range lists {
			ls[i] = nodeListing{Node: l.Node, Appts: append([]listedAppt(nil), l.Appts...)}
			for j := range tc.extra {
				ls[i].Appts = append(ls[i].Appts, listedAppt{Biz: c.Biz, ID: "x" + string(rune('0'+j)), Staff: c.Staff,
					Status: "confirmed", Start: c.Start, End: c.Start.Add(30 * time.Minute)})
			}
		}
		e := endCheck("before", acked, []contestSlot{tc.slot}, ls)
		assert.Equal(t, tc.violation, e.Violations == 1, "%s: %v", tc.name, e.Violating)
	}
	// A decided slot held by nothing.
	free := contestSlot{Biz: 1, Staff: "s9", Start: c.Start, Members: 3, Acks: 1, Taken: 2}
	e := endCheck("before", acked, []contestSlot{free}, lists)
	assert.Equal(t, 1, e.Violations)
	assert.Contains(t, e.Violating[0], "held 0 times on n1")
	// A slot one request asked for alone is checked but not counted as contested.
	alone := contestSlot{Biz: c.Biz, Staff: c.Staff, Start: c.Start, Members: 1, Acks: 1}
	e = endCheck("before", acked, []contestSlot{alone}, lists)
	assert.Zero(t, e.Contested)
	assert.Zero(t, e.Violations)
}

func TestEndCheckDisagreeAndErrors(t *testing.T) {
	acked, contests, lists := synthetic()
	lists[2].Appts[3].Status = "cancelled"
	e := endCheck("after", acked, contests, lists)
	assert.False(t, e.Agree)
	require.Len(t, e.Disagree, 1)
	assert.Equal(t, "a3: n1 confirmed, n2 confirmed, n3 cancelled", e.Disagree[0])

	acked, contests, lists = synthetic()
	lists[0].Err = "business 1: a page not answered 200: 503"
	e = endCheck("after", acked, contests, lists)
	assert.Equal(t, []string{"n1: business 1: a page not answered 200: 503"}, e.ListErrors)
	assert.Len(t, e.Failed(), 1)
	assert.Contains(t, e.Failed()[0], "after: 1 node listings incomplete")
}

// TestJudge: a gate fails on stale reads, a node that did not come back,
// a failed check on either side of the restart, a failed restart; given-up
// bookings alone do not fail it.
func TestJudge(t *testing.T) {
	acked, contests, lists := synthetic()
	clean := func() *SoakReport {
		return &SoakReport{Before: endCheck("before", acked, contests, lists), Restart: &WholeRestart{},
			After: endCheck("after", acked, contests, lists), Bookings: BookingStats{GivenUp: 3}}
	}
	r := clean()
	r.judge()
	assert.True(t, r.Passed, "%v", r.Failures)

	for name, spoil := range map[string]func(r *SoakReport){
		"stale read":      func(r *SoakReport) { r.Reads.StaleCount = 1 },
		"stale list read": func(r *SoakReport) { r.Reads.ListStaleCount = 2 },
		"broken node":     func(r *SoakReport) { r.Broken = "n2 not ready" },
		"missing before":  func(r *SoakReport) { r.Before.Missing = 1 },
		"double after":    func(r *SoakReport) { r.After.Double = 1 },
		"disagree after":  func(r *SoakReport) { r.After.Agree = false },
		"restart failed":  func(r *SoakReport) { r.Restart.Error = "n1 exited" },
		"no restart":      func(r *SoakReport) { r.Restart = nil },
		"contest before":  func(r *SoakReport) { r.Before.Violations = 1 },
	} {
		r := clean()
		spoil(r)
		r.judge()
		assert.False(t, r.Passed, name)
		assert.NotEmpty(t, r.Failures, name)
	}
}

// TestSoakMarkdown renders a synthetic report with a stale read and a
// fault: the rows a reader looks for are there.
func TestSoakMarkdown(t *testing.T) {
	acked, contests, lists := synthetic()
	clean := true
	r := &SoakReport{Seed: 42, Command: "go run ./bench/cluster -soak 90s -seed 42", Businesses: 2,
		Before: endCheck("before the whole-cluster restart", acked, contests, lists), Restart: &WholeRestart{ReadySeconds: 12},
		After: endCheck("after the whole-cluster restart", acked, contests, lists),
		Reads: ReadStats{Reads: 10, StaleCount: 1, Stale: []StaleRead{{Kind: "by id", ID: "a1", Via: "n2", Answered: "n2",
			SinceAckMs: 120, SinceFault: "1.1 s after SIGCONT of n2", StillStale: true, ReRead: "404 {}"}}},
		Faults: []*FaultRecord{
			{N: 1, Kind: "SIGSTOP", Node: "n2", HoldSeconds: 7, ReadySeconds: 9, Owned: []int{1},
				Recovery: []BizRecovery{{Business: 1, AfterFaultMs: 5200, AfterResumeMs: -1}}},
			{N: 2, Kind: "SIGTERM", Node: "n1", ExitSeconds: 4, CleanExit: &clean, ReadySeconds: 20},
		},
		FaultsByKind: map[string]int{"SIGSTOP": 1, "SIGTERM": 1},
		Gaps:         []BizGap{{Business: 1, Acks: 10, WorstMs: 5200, FromSeconds: 20, ToSeconds: 25.2, Overlapped: []string{"fault 1 (SIGSTOP of n2 at 20s)"}}},
	}
	r.judge()
	var out bytes.Buffer
	r.markdown(&out)
	md := out.String()
	for _, want := range []string{
		"**FAILED**: 1 stale reads by id",
		"Seed **42**; repeat with `go run ./bench/cluster -soak 90s -seed 42`",
		"| acknowledged bookings missing | **0** of 6 | **0** of 6 |",
		"| the three nodes list the same appointments | yes | yes |",
		"**stale (404 after the 201): 1**",
		"| 1.1 s after SIGCONT of n2 | **still stale**",
		"2 faults: 1 × SIGSTOP, 1 × SIGTERM.",
		"| 1 |  | 0.0 s | SIGSTOP | n2 | 7.0 s | 9.0 s | b1 5.2 s (SIGCONT+—) |",
		"| exit 4.0 s |",
		"| 1 | 10 | 5.2 s | 20.0 – 25.2 s | fault 1 (SIGSTOP of n2 at 20s) |",
	} {
		assert.Contains(t, md, want)
	}
}

func TestParseFlagsSoak(t *testing.T) {
	o, err := parseFlags([]string{"-soak", "90s"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 90*time.Second, o.soak)
	assert.Equal(t, 6, o.businesses, "the soak's own default")
	assert.Equal(t, 16, o.clients, "the soak's own default")
	assert.Equal(t, 3*time.Second, o.timeout, "the soak's own default")
	assert.Zero(t, o.seed)

	o, err = parseFlags([]string{"-soak", "20m", "-businesses", "3", "-c", "8", "-seed", "42", "-timeout", "10s"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 3, o.businesses)
	assert.Equal(t, 8, o.clients)
	assert.Equal(t, 10*time.Second, o.timeout)
	assert.Equal(t, uint64(42), o.seed)

	o, err = parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 12, o.businesses, "the comparison's defaults are unchanged")
	assert.Equal(t, 32, o.clients)
	assert.Equal(t, 10*time.Second, o.timeout)

	for _, bad := range [][]string{
		{"-soak", "1m", "-contest", "1.5"},
		{"-soak", "1m", "-contest-size", "1"},
		{"-soak", "1m", "-fault-min", "30s", "-fault-max", "10s"},
		{"-soak", "1m", "-stop-min", "0s"},
		{"-soak", "1m", "-rate", "0"},
		{"-soak", "1m", "-give-up", "0s"},
		{"-soak", "-1m"},
	} {
		_, err := parseFlags(bad, io.Discard)
		assert.Error(t, err, "%v", bad)
	}
}

func TestSoakCommand(t *testing.T) {
	assert.Equal(t, "go run ./bench/cluster -soak 20m -seed 7", soakCommand([]string{"-soak", "20m"}, 7))
	assert.Equal(t, "go run ./bench/cluster -soak 20m -c 8 -seed 42",
		soakCommand([]string{"-soak", "20m", "-seed", "0", "-c", "8"}, 42))
	assert.Equal(t, "go run ./bench/cluster -soak=1m -seed 9", soakCommand([]string{"-soak=1m", "--seed=0"}, 9))
}

// TestContestHub: a contest is released once full, the next join opens
// another on the walk's next slot, and a contest not filled is released
// after contestWait.
func TestContestHub(t *testing.T) {
	w := newWorld(2, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	k := 0
	h := &contestHub{size: 3, w: w, next: func() int { k++; return k - 1 }}
	a, m1 := h.join()
	b, m2 := h.join()
	c, m3 := h.join()
	require.Same(t, a, b)
	require.Same(t, a, c)
	assert.Equal(t, []int{1, 2, 3}, []int{m1, m2, m3})
	select {
	case <-a.release:
	default:
		t.Fatal("a full contest is released at once")
	}
	d, _ := h.join()
	require.NotSame(t, a, d)
	assert.Equal(t, 1, d.k)
	select {
	case <-d.release:
	case <-time.After(10 * contestWait):
		t.Fatal("a contest not filled is released after contestWait")
	}
	h.note(a, outAck, "201", false)
	h.note(a, outRefuse, "409 SLOT_TAKEN", false)
	h.note(a, outRetry, "503", true)
	slots := h.slots()
	require.Len(t, slots, 2)
	assert.Equal(t, contestSlot{Biz: 0, Staff: w.staffID(0, 0).String(), Start: slots[0].Start, Members: 3, Acks: 1, Taken: 1, GivenUp: 1}, slots[0])
	assert.True(t, slots[0].decided())
	assert.Equal(t, 1, slots[1].Members)
	assert.False(t, slots[1].decided())
	_, _, start := w.slot(0)
	assert.Equal(t, start, slots[0].Start)
	assert.True(t, strings.HasSuffix(slots[0].Start.Format(time.RFC3339), "T08:00:00Z"))
}

// TestFirstAckAfter: only a 201 of an attempt sent at or after the
// reference counts, the earliest to arrive wins, and none is -1.
func TestFirstAckAfter(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	acks := []ackRec{
		{Biz: 1, LastSent: sec(9), At: sec(10.5), Node: "n2"}, // sent before the fault
		{Biz: 1, LastSent: sec(12), At: sec(16), Node: "n3"},
		{Biz: 1, LastSent: sec(13), At: sec(15), Node: "n1"},
		{Biz: 2, LastSent: sec(11), At: sec(11.2), Node: "n1"},
	}
	d, node := firstAckAfter(acks, 1, sec(10))
	assert.InDelta(t, 5000, d, 0.001)
	assert.Equal(t, "n1", node)
	d, node = firstAckAfter(acks, 3, sec(10))
	assert.Equal(t, -1.0, d)
	assert.Empty(t, node)
	d, _ = firstAckAfter(acks, 1, sec(20))
	assert.Equal(t, -1.0, d)
}
