package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"
)

// The soak's pure parts: the fault schedule drawn from the seed, how an
// answer to a booking or a read is classed, the worst stretch without an
// acknowledged booking, and the end checks on listed appointments. They
// take no process, clock or network, so soak_test.go tests them on
// synthetic data.

// faultKind is what a fault does to its node.
type faultKind int

const (
	faultKill faultKind = iota // SIGKILL, then a restart with the same flags and data directory
	faultStop                  // SIGSTOP for a while, then SIGCONT
	faultTerm                  // SIGTERM, wait for the exit, then a restart
	faultKinds
)

func (k faultKind) String() string {
	switch k {
	case faultKill:
		return "SIGKILL"
	case faultStop:
		return "SIGSTOP"
	case faultTerm:
		return "SIGTERM"
	}
	return fmt.Sprintf("fault(%d)", int(k))
}

// faultStream is the PCG stream of the fault schedule (the clients and
// readers draw from other streams of the same seed).
const faultStream = 0xfa17

// faultBounds are the limits the schedule is drawn within.
type faultBounds struct {
	gapMin, gapMax   time.Duration // from every node ready again to the next fault
	holdMin, holdMax time.Duration // how long a SIGSTOP lasts
	nodes            int
}

// plannedFault is one fault of the schedule.
type plannedFault struct {
	Gap  time.Duration // wait after every node is ready again (or the load started)
	Node int           // index into the cluster's nodes
	Kind faultKind
	Hold time.Duration // SIGSTOP to SIGCONT; zero for the other kinds
}

// faultDraw is the schedule: the same seed and bounds give the same
// faults in the same order, whatever the run's timing, because each
// fault takes the same four draws.
type faultDraw struct {
	rng *rand.Rand
	b   faultBounds
}

func newFaultDraw(seed uint64, b faultBounds) *faultDraw {
	return &faultDraw{rng: rand.New(rand.NewPCG(seed, faultStream)), b: b}
}

func (d *faultDraw) next() plannedFault {
	f := plannedFault{Gap: between(d.rng, d.b.gapMin, d.b.gapMax), Node: d.rng.IntN(d.b.nodes),
		Kind: faultKind(d.rng.IntN(int(faultKinds)))}
	hold := between(d.rng, d.b.holdMin, d.b.holdMax) // drawn for every kind: one fault, four draws
	if f.Kind == faultStop {
		f.Hold = hold
	}
	return f
}

// between is a duration in [lo, hi], to the millisecond; it draws once
// whatever the bounds (lo for hi at or below lo).
func between(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	span := max(int64((hi-lo)/time.Millisecond), 0)
	return lo + time.Duration(rng.Int64N(span+1))*time.Millisecond
}

// outcome is how the load treats one answer to a booking.
type outcome int

const (
	outAck    outcome = iota // 201: acknowledged
	outRefuse                // a definitive refusal (409 SLOT_TAKEN, 422, any other 4xx)
	outRetry                 // no definitive answer: the same request again, same Idempotency-Key
)

// bookingOutcome classes one answer to POST /api/v1/appointments and
// says why a retry is needed ("timeout", "error", "503", ...) or which
// refusal it was ("409 SLOT_TAKEN").
func bookingOutcome(status int, body []byte, err error, timedOut bool) (outcome, string) {
	switch {
	case err != nil && timedOut:
		return outRetry, "timeout"
	case err != nil:
		return outRetry, "transport error"
	case status == 201:
		return outAck, "201"
	case status >= 500 || status == 429:
		return outRetry, fmt.Sprint(status)
	}
	code := errorCode(body)
	if status == 409 && code == "IDEMPOTENCY_IN_PROGRESS" {
		return outRetry, "409 IDEMPOTENCY_IN_PROGRESS"
	}
	if code == "" {
		return outRefuse, fmt.Sprint(status)
	}
	return outRefuse, fmt.Sprintf("%d %s", status, code)
}

// errorCode is the code of an error body, or "".
func errorCode(body []byte) string {
	var e struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Code
}

// retryPause is the pause before retry number attempt (0 is the first):
// 50 ms doubling to at most 1 s.
func retryPause(attempt int) time.Duration {
	d := 50 * time.Millisecond
	for range min(attempt, 5) {
		d *= 2
	}
	return min(d, time.Second)
}

// readClass is how the stale-read reader classes one read of an
// acknowledged appointment.
type readClass int

const (
	readOK          readClass = iota // 200: it is there
	readStale                        // 404 although its 201 arrived before the read was sent
	readUnavailable                  // no answer, 5xx, 429: says nothing about staleness
	readOther                        // anything else (a 404 sent before the 201 arrived, a 4xx): odd, kept as a sample
)

func classifyRead(status int, err error, ackAt, sentAt time.Time) readClass {
	switch {
	case err != nil || status >= 500 || status == 429:
		return readUnavailable
	case status == 200:
		return readOK
	case status == 404 && ackAt.Before(sentAt):
		return readStale
	}
	return readOther
}

// pickRecent is the index, among n recent acknowledgements ordered oldest
// first, that a uniform u in [0, 1) picks: biased to the newest (the
// newest tenth gets about 46 % of the picks).
func pickRecent(n int, u float64) int {
	if n <= 0 {
		return -1
	}
	back := int(float64(n) * u * u * u)
	return n - 1 - min(back, n-1)
}

// gap is a stretch of time.
type gap struct{ from, to time.Time }

func (g gap) length() time.Duration { return g.to.Sub(g.from) }

// worstGap is the longest stretch in [from, to] without one of the times
// at (which need not be sorted): between two consecutive times, or from
// the start to the first, or from the last to the end.
func worstGap(at []time.Time, from, to time.Time) gap {
	ts := slices.Clone(at)
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	worst, prev := gap{from, from}, from
	for _, t := range append(ts, to) {
		if t.Before(from) || t.After(to) {
			continue
		}
		if g := (gap{prev, t}); g.length() > worst.length() {
			worst = g
		}
		prev = t
	}
	return worst
}

// faultSpan is a fault from its signal until every node was ready again
// (to zero: never).
type faultSpan struct {
	label    string
	from, to time.Time
}

// overlapping are the labels of the spans that share time with g.
func overlapping(spans []faultSpan, g gap) []string {
	var out []string
	for _, s := range spans {
		if s.from.Before(g.to) && (s.to.IsZero() || s.to.After(g.from)) {
			out = append(out, s.label)
		}
	}
	return out
}

// faultEvent is one thing the fault loop did (a signal, a restart, every
// node ready again), for telling when something happened relative to it.
type faultEvent struct {
	at   time.Time
	what string // "SIGCONT of n2"
}

// sinceEvent says when t was relative to the last event at or before it:
// "1.1 s after SIGCONT of n2", or "before the first fault".
func sinceEvent(events []faultEvent, t time.Time) string {
	var last *faultEvent
	for i := range events {
		if !events[i].at.After(t) && (last == nil || !events[i].at.Before(last.at)) {
			last = &events[i]
		}
	}
	if last == nil {
		return "before the first fault"
	}
	return fmt.Sprintf("%.1f s after %s", t.Sub(last.at).Seconds(), last.what)
}

// listedAppt is one appointment of a node's listing.
type listedAppt struct {
	Biz        int
	ID, Staff  string
	Status     string
	Start, End time.Time
}

func (a listedAppt) active() bool { return a.Status != "cancelled" && a.Status != "no_show" }

// nodeListing is every business's appointments as one node lists them;
// Err says why the listing is incomplete.
type nodeListing struct {
	Node  string
	Appts []listedAppt
	Err   string
}

// ackedRef is what the end checks need of an acknowledged booking.
type ackedRef struct {
	Biz int
	ID  string
}

// contestSlot is one slot several clients asked for at once, and what
// their requests were answered.
type contestSlot struct {
	Biz     int
	Staff   string
	Start   time.Time
	Members int // requests sent for it, each with its own Idempotency-Key
	Acks    int // 201s
	Taken   int // 409 SLOT_TAKEN
	Other   int // other refusals
	GivenUp int
}

// decided: some answer says the slot is held (a 201, or a refusal
// because it is taken), so exactly one appointment must hold it.
func (c contestSlot) decided() bool { return c.Acks > 0 || c.Taken > 0 }

// EndCheck is what the end checks found through every node.
type EndCheck struct {
	When       string         `json:"when"`
	Listed     map[string]int `json:"listedPerNode"`
	ListErrors []string       `json:"listErrors,omitempty"`
	Acked      int            `json:"acknowledged"`
	Missing    int            `json:"missing"`              // acknowledged ids absent from some node's listing
	MissingIDs []string       `json:"missingIds,omitempty"` // with the nodes that lack them
	Double     int            `json:"double"`               // overlapping pairs of active appointments of one staff member, on some node
	Doubles    []string       `json:"doubles,omitempty"`
	Contested  int            `json:"contestedSlots"` // slots asked for by two requests or more
	Violations int            `json:"contestViolations"`
	Violating  []string       `json:"violating,omitempty"`
	Agree      bool           `json:"nodesAgree"`
	Disagree   []string       `json:"disagreements,omitempty"`
}

// Failed says what failed, or nothing.
func (e *EndCheck) Failed() []string {
	var out []string
	if len(e.ListErrors) > 0 {
		out = append(out, fmt.Sprintf("%s: %d node listings incomplete", e.When, len(e.ListErrors)))
	}
	if e.Missing > 0 {
		out = append(out, fmt.Sprintf("%s: %d acknowledged bookings missing", e.When, e.Missing))
	}
	if e.Double > 0 {
		out = append(out, fmt.Sprintf("%s: %d double bookings", e.When, e.Double))
	}
	if e.Violations > 0 {
		out = append(out, fmt.Sprintf("%s: %d contested slots not held exactly once", e.When, e.Violations))
	}
	if !e.Agree {
		out = append(out, fmt.Sprintf("%s: the nodes list different appointments", e.When))
	}
	return out
}

// maxDetails bounds each list of examples in a check.
const maxDetails = 20

// endCheck checks the listings of every node against the acknowledged
// bookings and the contested slots: every acknowledged booking listed by
// every node, no staff member with two overlapping active appointments,
// every decided contested slot held by exactly one active appointment
// (and acknowledged at most once; an undecided one by at most one), and
// every node listing the same appointments with the same status.
func endCheck(when string, acked []ackedRef, contests []contestSlot, lists []nodeListing) EndCheck {
	e := EndCheck{When: when, Listed: map[string]int{}, Acked: len(acked), Agree: true}
	add := func(list *[]string, s string) {
		if len(*list) < maxDetails {
			*list = append(*list, s)
		}
	}
	type slotKey struct {
		biz   int
		staff string
		start int64
	}
	for _, l := range lists {
		e.Listed[l.Node] = len(l.Appts)
		if l.Err != "" {
			add(&e.ListErrors, l.Node+": "+l.Err)
		}
	}
	// Missing: per acknowledged id, the nodes whose listing lacks it.
	ids := make([]map[string]bool, len(lists))
	for i, l := range lists {
		ids[i] = map[string]bool{}
		for _, a := range l.Appts {
			ids[i][a.ID] = true
		}
	}
	for _, a := range acked {
		var lacking []string
		for i, l := range lists {
			if !ids[i][a.ID] {
				lacking = append(lacking, l.Node)
			}
		}
		if len(lacking) > 0 {
			e.Missing++
			add(&e.MissingIDs, fmt.Sprintf("%s (business %d; not on %s)", a.ID, a.Biz, strings.Join(lacking, ", ")))
		}
	}
	// Doubles, per node: the same pair seen on several nodes counts once.
	doubles := map[string]bool{}
	for _, l := range lists {
		for _, d := range overlaps(l.Appts) {
			if !doubles[d] {
				doubles[d] = true
				e.Double++
				add(&e.Doubles, d+" (on "+l.Node+")")
			}
		}
	}
	// Contested slots, per node.
	held := make([]map[slotKey]int, len(lists))
	for i, l := range lists {
		held[i] = map[slotKey]int{}
		for _, a := range l.Appts {
			if a.active() {
				held[i][slotKey{a.Biz, a.Staff, a.Start.UnixMilli()}]++
			}
		}
	}
	for _, c := range contests {
		if c.Members >= 2 {
			e.Contested++
		}
		var bad []string
		if c.Acks > 1 {
			bad = append(bad, fmt.Sprintf("acknowledged %d times", c.Acks))
		}
		for i, l := range lists {
			n := held[i][slotKey{c.Biz, c.Staff, c.Start.UnixMilli()}]
			if (c.decided() && n != 1) || n > 1 {
				bad = append(bad, fmt.Sprintf("held %d times on %s", n, l.Node))
			}
		}
		if len(bad) > 0 {
			e.Violations++
			add(&e.Violating, fmt.Sprintf("business %d staff %s %s (%d requests: %d 201, %d SLOT_TAKEN, %d other refusals, %d given up): %s",
				c.Biz, c.Staff, c.Start.Format(time.RFC3339), c.Members, c.Acks, c.Taken, c.Other, c.GivenUp, strings.Join(bad, ", ")))
		}
	}
	// Agreement: every node lists the same ids with the same status.
	if len(lists) > 1 {
		status := make([]map[string]string, len(lists))
		all := map[string]bool{}
		for i, l := range lists {
			status[i] = map[string]string{}
			for _, a := range l.Appts {
				status[i][a.ID] = a.Status
				all[a.ID] = true
			}
		}
		sorted := make([]string, 0, len(all))
		for id := range all {
			sorted = append(sorted, id)
		}
		sort.Strings(sorted)
		for _, id := range sorted {
			var parts []string
			same, first := true, ""
			for i, l := range lists {
				s, ok := status[i][id]
				if !ok {
					s = "absent"
				}
				if i == 0 {
					first = s
				} else if s != first {
					same = false
				}
				parts = append(parts, l.Node+" "+s)
			}
			if !same {
				e.Agree = false
				add(&e.Disagree, id+": "+strings.Join(parts, ", "))
			}
		}
	}
	return e
}

// overlaps names every pair of active appointments of one staff member
// of one business whose times overlap.
func overlaps(appts []listedAppt) []string {
	type staffKey struct {
		biz   int
		staff string
	}
	by := map[staffKey][]listedAppt{}
	for _, a := range appts {
		if a.active() {
			k := staffKey{a.Biz, a.Staff}
			by[k] = append(by[k], a)
		}
	}
	var out []string
	for _, list := range by {
		slices.SortFunc(list, func(a, b listedAppt) int {
			if c := a.Start.Compare(b.Start); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		for i, a := range list {
			for _, b := range list[i+1:] {
				if !b.Start.Before(a.End) {
					break
				}
				out = append(out, fmt.Sprintf("business %d staff %s: %s %s–%s and %s %s–%s", a.Biz, a.Staff,
					a.ID, a.Start.Format(time.RFC3339), a.End.Format("15:04"), b.ID, b.Start.Format(time.RFC3339), b.End.Format("15:04")))
			}
		}
	}
	sort.Strings(out)
	return out
}
