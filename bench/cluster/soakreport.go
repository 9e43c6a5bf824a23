package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// SoakReport is everything one soak run found; -json writes it as is, and
// markdown renders it.
type SoakReport struct {
	Date           time.Time `json:"date"`
	GoVersion      string    `json:"goVersion"`
	CPUs           int       `json:"cpus"`
	Seed           uint64    `json:"seed"`
	Command        string    `json:"command"` // repeats the run
	Businesses     int       `json:"businesses"`
	Clients        int       `json:"clients"`
	Readers        int       `json:"readers"`
	Rate           float64   `json:"askedRate"`
	ContestShare   float64   `json:"contestShare"`
	ContestSize    int       `json:"contestSize"`
	FaultMin       float64   `json:"faultMinSeconds"`
	FaultMax       float64   `json:"faultMaxSeconds"`
	StopMin        float64   `json:"stopMinSeconds"`
	StopMax        float64   `json:"stopMaxSeconds"`
	GiveUpSeconds  float64   `json:"giveUpSeconds"`
	TimeoutSeconds float64   `json:"requestTimeoutSeconds"`
	PlannedSeconds float64   `json:"plannedSeconds"`
	LoadSeconds    float64   `json:"loadSeconds"`  // until the last retried booking was answered
	ReadySeconds   float64   `json:"readySeconds"` // the cluster's first start

	Faults       []*FaultRecord `json:"faults"`
	FaultsByKind map[string]int `json:"faultsByKind"`
	Broken       string         `json:"broken,omitempty"` // a node that did not come back after a fault

	Bookings BookingStats  `json:"bookings"`
	Reads    ReadStats     `json:"reads"`
	Gaps     []BizGap      `json:"worstStretchWithoutAck"`
	Before   EndCheck      `json:"before"`
	Restart  *WholeRestart `json:"wholeRestart"`
	After    EndCheck      `json:"after"`

	Passed   bool     `json:"passed"`
	Failures []string `json:"failures,omitempty"`
}

// BookingStats are the booking clients' figures.
type BookingStats struct {
	Requests           int64            `json:"requests"` // bookings begun, each with its own Idempotency-Key
	Attempts           int64            `json:"attempts"` // requests sent, retries included
	Acknowledged       int64            `json:"acknowledged"`
	Unreadable         int64            `json:"unreadable"` // 201s without an appointment id
	Refused            map[string]int64 `json:"refused"`    // by status and code
	RefusedUncontested map[string]int64 `json:"refusedUncontested"`
	GivenUp            int64            `json:"givenUp"`
	GivenUpSamples     []string         `json:"givenUpSamples,omitempty"`
	Retried            int64            `json:"retried"`      // bookings answered only after a retry
	RetryReasons       map[string]int64 `json:"retryReasons"` // answers that made the client retry
	Interrupted        int64            `json:"interrupted,omitempty"`
	// From the first attempt to the 201, over the acknowledged bookings.
	AckP50ms float64 `json:"ackP50ms"`
	AckP99ms float64 `json:"ackP99ms"`
	AckMaxMs float64 `json:"ackMaxMs"`
}

// BizGap is one business's worst stretch without an acknowledged
// booking during the load.
type BizGap struct {
	Business    int      `json:"business"`
	Acks        int      `json:"acks"`
	WorstMs     float64  `json:"worstMs"`
	FromSeconds float64  `json:"fromSeconds"` // since the load began
	ToSeconds   float64  `json:"toSeconds"`
	Overlapped  []string `json:"overlappedFaults,omitempty"`
}

// judge decides Passed from what a gate must not let through: stale
// reads, a node that did not come back, the end checks on either side
// of the whole-cluster restart, and the restart itself.
func (r *SoakReport) judge() {
	r.Failures = nil
	if n := r.Reads.StaleCount; n > 0 {
		r.Failures = append(r.Failures, fmt.Sprintf("%d stale reads by id", n))
	}
	if n := r.Reads.ListStaleCount; n > 0 {
		r.Failures = append(r.Failures, fmt.Sprintf("%d stale list reads", n))
	}
	if r.Broken != "" {
		r.Failures = append(r.Failures, "a node did not come back after a fault: "+r.Broken)
	}
	r.Failures = append(r.Failures, r.Before.Failed()...)
	switch {
	case r.Restart == nil:
		r.Failures = append(r.Failures, "no whole-cluster restart")
	case r.Restart.Error != "":
		r.Failures = append(r.Failures, "the whole-cluster restart failed: "+r.Restart.Error)
	default:
		r.Failures = append(r.Failures, r.After.Failed()...)
	}
	r.Passed = len(r.Failures) == 0
}

// markdown writes the report for a reader.
func (r *SoakReport) markdown(w io.Writer) {
	fmt.Fprintf(w, "## slotd soak: 3-node cluster under faults (%s, %d CPUs, %s)\n\n", r.Date.Format("2006-01-02 15:04 MST"), r.CPUs, r.GoVersion)
	verdict := "**PASSED**"
	if !r.Passed {
		verdict = "**FAILED**: " + strings.Join(r.Failures, "; ")
	}
	fmt.Fprintf(w, "%s\n\n", verdict)
	fmt.Fprintf(w, "Seed **%d**; repeat with `%s`. Load %.0f s (planned %.0f s; it ends when the last retried booking is answered): "+
		"%d businesses, %d booking clients through random nodes asking for about %.0f bookings/s, %.0f%% of them for contested slots "+
		"(%d requests at once, each with its own Idempotency-Key), a booking retried with its key on no answer within %.0f s, 5xx or "+
		"409 IDEMPOTENCY_IN_PROGRESS for up to %.0f s (in the background, its client going on with the next); %d stale-read readers. Faults every %.0f–%.0f s after every node is ready again, "+
		"SIGSTOP for %.0f–%.0f s. The cluster was first ready after %.1f s.\n\n",
		r.Seed, r.Command, r.LoadSeconds, r.PlannedSeconds, r.Businesses, r.Clients, r.Rate, 100*r.ContestShare, r.ContestSize,
		r.TimeoutSeconds, r.GiveUpSeconds, r.Readers, r.FaultMin, r.FaultMax, r.StopMin, r.StopMax, r.ReadySeconds)

	r.checksText(w)
	r.bookingsText(w)
	r.readsText(w)
	r.faultsText(w)
	r.gapsText(w)
}

func (r *SoakReport) checksText(w io.Writer) {
	after := &r.After
	restarted := r.Restart != nil && r.Restart.Error == ""
	col := func(f func(e *EndCheck) string) string {
		if !restarted {
			return "not checked"
		}
		return f(after)
	}
	fmt.Fprintln(w, "### End checks (every business listed through every node)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| check | before the whole-cluster restart | after it |")
	fmt.Fprintln(w, "|---|---|---|")
	rows := []struct {
		name string
		f    func(e *EndCheck) string
	}{
		{"appointments listed", func(e *EndCheck) string { return listedText(e.Listed) }},
		{"listings incomplete", func(e *EndCheck) string { return fmt.Sprint(len(e.ListErrors)) }},
		{"acknowledged bookings missing", func(e *EndCheck) string { return fmt.Sprintf("**%d** of %d", e.Missing, e.Acked) }},
		{"double bookings (overlapping active appointments of one staff member)", func(e *EndCheck) string { return fmt.Sprintf("**%d**", e.Double) }},
		{"contested slots not held exactly once", func(e *EndCheck) string {
			return fmt.Sprintf("**%d** (%d slots asked for by 2+ requests)", e.Violations, e.Contested)
		}},
		{"the three nodes list the same appointments", func(e *EndCheck) string { return yesNo(e.Agree) }},
	}
	for _, row := range rows {
		fmt.Fprintf(w, "| %s | %s | %s |\n", row.name, row.f(&r.Before), col(row.f))
	}
	if rs := r.Restart; rs != nil {
		if rs.Error != "" {
			fmt.Fprintf(w, "\nThe whole-cluster restart failed: %s\n", rs.Error)
		} else {
			fmt.Fprintf(w, "\nWhole-cluster restart: every node exited %.1f s after SIGTERM (unclean: %s); ready %.1f s after the start.\n",
				rs.StopSeconds, orNone(rs.Unclean), rs.ReadySeconds)
		}
	}
	for _, e := range []*EndCheck{&r.Before, after} {
		details(w, e.When+", incomplete listings", e.ListErrors)
		details(w, e.When+", missing (ids)", e.MissingIDs)
		details(w, e.When+", double bookings", e.Doubles)
		details(w, e.When+", contested slots not held exactly once", e.Violating)
		details(w, e.When+", disagreements", e.Disagree)
	}
	fmt.Fprintln(w)
}

func (r *SoakReport) bookingsText(w io.Writer) {
	b := &r.Bookings
	fmt.Fprintln(w, "### Bookings")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| figure | value |")
	fmt.Fprintln(w, "|---|---:|")
	fmt.Fprintf(w, "| bookings begun (each its own Idempotency-Key) | %d |\n", b.Requests)
	fmt.Fprintf(w, "| acknowledged (201) | %d |\n", b.Acknowledged)
	fmt.Fprintf(w, "| refused | %d %s |\n", sum(b.Refused), mapText(b.Refused))
	fmt.Fprintf(w, "| … of them for a slot no other request asked for | %d %s |\n", sum(b.RefusedUncontested), mapText(b.RefusedUncontested))
	fmt.Fprintf(w, "| given up (no definitive answer within %.0f s) | %d |\n", r.GiveUpSeconds, b.GivenUp)
	fmt.Fprintf(w, "| answered only after a retry | %d |\n", b.Retried)
	fmt.Fprintf(w, "| requests sent, retries included | %d |\n", b.Attempts)
	fmt.Fprintf(w, "| answers that made a client retry | %s |\n", mapText(b.RetryReasons))
	fmt.Fprintf(w, "| first attempt to 201: p50 / p99 / max | %.0f / %.0f / %.0f ms |\n", b.AckP50ms, b.AckP99ms, b.AckMaxMs)
	if b.Unreadable > 0 {
		fmt.Fprintf(w, "| 201s without an appointment id | %d |\n", b.Unreadable)
	}
	details(w, "Given up, e.g.", b.GivenUpSamples)
	fmt.Fprintln(w)
}

func (r *SoakReport) readsText(w io.Writer) {
	rd := &r.Reads
	fmt.Fprintln(w, "### Stale reads (0 expected)")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "GET /api/v1/appointments/{id} of one of the newest %d acknowledged bookings through a random node: %d reads "+
		"(%d of a booking acknowledged less than 1 s before), %d answered 200, %d unavailable (no answer within 3 s, 5xx), other %s; "+
		"**stale (404 after the 201): %d**.\n\n", recentAcks, rd.Reads, rd.Fresh, rd.OK, rd.Unavailable, mapText(rd.Other), rd.StaleCount)
	fmt.Fprintf(w, "GET /api/v1/appointments?updatedSince=(1 s before the booking was first sent): %d reads, %d listed it, "+
		"%d unavailable; **stale (a complete list without it): %d**.\n\n", rd.ListReads, rd.ListOK, rd.ListUnavailable, rd.ListStaleCount)
	all := append(append([]StaleRead(nil), rd.Stale...), rd.ListStale...)
	if len(all) == 0 {
		return
	}
	slices.SortFunc(all, func(a, b StaleRead) int { return cmpFloat(a.AtSeconds, b.AtSeconds) })
	fmt.Fprintln(w, "| load time | read | appointment (business) | sent to | X-Slotd-Node | ms since its 201 | relative to faults | re-read through the same node |")
	fmt.Fprintln(w, "|---:|---|---|---|---|---:|---|---|")
	for _, s := range all {
		still := "fine now"
		if s.StillStale {
			still = "**still stale**"
		}
		fmt.Fprintf(w, "| %.1f s | %s | %s (%d) | %s | %s | %.0f | %s | %s: %s |\n", s.AtSeconds, s.Kind, s.ID, s.Business,
			s.Via, orDash(s.Answered), s.SinceAckMs, s.SinceFault, still, strings.ReplaceAll(s.ReRead, "|", "/"))
	}
	if int64(len(all)) < rd.StaleCount+rd.ListStaleCount {
		fmt.Fprintf(w, "\n(%d stale reads in all; the first %d of each kind are listed.)\n", rd.StaleCount+rd.ListStaleCount, maxStale)
	}
	fmt.Fprintln(w)
}

func (r *SoakReport) faultsText(w io.Writer) {
	fmt.Fprintln(w, "### Faults")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%d faults: %s.", len(r.Faults), kindsText(r.FaultsByKind))
	if r.Broken != "" {
		fmt.Fprintf(w, " **A node did not come back**, so no fault followed: %s.", r.Broken)
	}
	fmt.Fprint(w, " Recovery: for each business that lived on the faulted node, the time from the signal (SIGSTOP: and from the SIGCONT) "+
		"to its first 201 of a request sent after it (— none before the load ended).\n\n")
	if len(r.Faults) == 0 {
		return
	}
	fmt.Fprintln(w, "| # | clock | load time | fault | node | held | every node ready after | businesses on it: first 201 after |")
	fmt.Fprintln(w, "|---:|---|---:|---|---|---:|---:|---|")
	for _, f := range r.Faults {
		held := ""
		switch {
		case f.HoldSeconds > 0:
			held = fmt.Sprintf("%.1f s", f.HoldSeconds)
		case f.CleanExit != nil:
			held = fmt.Sprintf("exit %.1f s", f.ExitSeconds)
			if !*f.CleanExit {
				held += " (unclean)"
			}
		}
		ready := fmt.Sprintf("%.1f s", f.ReadySeconds)
		if f.NotReady != "" {
			ready = "**never**: " + f.NotReady
		}
		var rec []string
		for _, b := range f.Recovery {
			s := fmt.Sprintf("b%d %s", b.Business, msText(b.AfterFaultMs))
			if b.Node != "" {
				s += " on " + b.Node
			}
			if f.Kind == faultStop.String() {
				s += fmt.Sprintf(" (SIGCONT+%s)", msText(b.AfterResumeMs))
			}
			rec = append(rec, s)
		}
		fmt.Fprintf(w, "| %d | %s | %.1f s | %s | %s | %s | %s | %s |\n", f.N, f.Clock, f.AtSeconds, f.Kind, f.Node, held, ready,
			orDash(strings.Join(rec, ", ")))
	}
	fmt.Fprintln(w)
}

func (r *SoakReport) gapsText(w io.Writer) {
	fmt.Fprintln(w, "### Worst stretch without an acknowledged booking, per business")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| business | 201s | worst stretch | from – to (load time) | faults it overlapped |")
	fmt.Fprintln(w, "|---:|---:|---:|---|---|")
	for _, g := range r.Gaps {
		fmt.Fprintf(w, "| %d | %d | %.1f s | %.1f – %.1f s | %s |\n", g.Business, g.Acks, g.WorstMs/1000, g.FromSeconds, g.ToSeconds,
			orDash(strings.Join(g.Overlapped, ", ")))
	}
	fmt.Fprintln(w)
}

func details(w io.Writer, title string, list []string) {
	if len(list) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n\n", title)
	for _, s := range list {
		fmt.Fprintf(w, "- %s\n", s)
	}
}

func listedText(m map[string]int) string {
	var parts []string
	for _, n := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", n, m[n]))
	}
	return strings.Join(parts, ", ")
}

func kindsText(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%d × %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func msText(v float64) string {
	if v < 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f s", v/1000)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
