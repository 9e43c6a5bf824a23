package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Report is everything one run measured; -json writes it as is, and
// markdown renders it.
type Report struct {
	Date       time.Time `json:"date"`
	GoVersion  string    `json:"goVersion"`
	CPUs       int       `json:"cpus"`
	Businesses int       `json:"businesses"`
	Clients    int       `json:"clients"`
	Seconds    float64   `json:"secondsPerPhase"`
	Sequential int       `json:"sequentialRequests"`

	Single     Deployment  `json:"single"`
	Cluster    Deployment  `json:"cluster"`
	Forwarding *Forwarding `json:"forwarding"`
	Failover   *Failover   `json:"failover"`

	// LoadMetrics are each node's counters over the cluster's throughput
	// phases; ForwardedShare is their forwarded requests over the
	// requests those phases sent.
	LoadMetrics     []NodeMetrics `json:"loadMetrics"`
	ForwardedShare  float64       `json:"forwardedShare"`
	MetricsAfterAll []NodeMetrics `json:"metricsAfterFailover"`
}

// row is one line of the comparison table.
type row struct {
	figure        string
	single, three float64
	unit          string
	format        string // of the figures
	ratio         bool   // show three/single
}

func (r *Report) rows() []row {
	s, c := &r.Single, &r.Cluster
	rows := []row{
		{figure: "GET /api/v1/me sequential p50 (3 nodes: sent to the business's node)", single: s.Me.P50us, three: c.Me.P50us, unit: "µs", format: "%.0f", ratio: true},
		{figure: "GET /api/v1/me sequential p99", single: s.Me.P99us, three: c.Me.P99us, unit: "µs", format: "%.0f", ratio: true},
	}
	rows = append(rows, phaseRows("bookings", s.Book, c.Book)...)
	rows = append(rows, phaseRows("GET /api/v1/me", s.ReadMe, c.ReadMe)...)
	rows = append(rows, phaseRows("GET /api/v1/services", s.ReadServices, c.ReadServices)...)
	rows = append(rows, row{figure: "slotd CPU at rest (all nodes, % of one core)", single: s.IdleCPU,
		three: c.IdleCPU, unit: "%", format: "%.1f"})
	rows = append(rows, row{figure: "time to ready (start to /readyz 200, all nodes)", single: s.ReadySeconds,
		three: c.ReadySeconds, unit: "s", format: "%.1f"})
	return rows
}

// phaseRows are a closed-loop phase's rows: the rate (total and per
// node) and the latencies.
func phaseRows(name string, s, c *Phase) []row {
	if s == nil || c == nil {
		return nil
	}
	rows := []row{
		{figure: name + "/s, " + fmt.Sprint(s.Clients) + " clients, total", single: s.PerSecond, three: c.PerSecond, unit: "/s", format: "%.0f", ratio: true},
		{figure: name + "/s per node", single: s.PerSecond, three: c.PerSecond / 3, unit: "/s", format: "%.0f", ratio: true},
		{figure: name + " p50", single: s.P50ms, three: c.P50ms, unit: "ms", format: "%.2f", ratio: true},
		{figure: name + " p99", single: s.P99ms, three: c.P99ms, unit: "ms", format: "%.2f", ratio: true},
	}
	if s.CPU != nil && c.CPU != nil && s.CPU.PerOKus > 0 {
		rows = append(rows, row{figure: name + ": slotd CPU per request (all nodes)", single: s.CPU.PerOKus,
			three: c.CPU.PerOKus, unit: "µs", format: "%.0f", ratio: true})
	}
	return rows
}

// othersShare is the share of the machine's CPU that processes other than
// slotd and the tool took during d's throughput phases.
func othersShare(d *Deployment, cpus int) float64 {
	var others, wall float64
	for _, p := range []*Phase{d.Book, d.ReadMe, d.ReadServices} {
		if p != nil && p.CPU != nil {
			others += p.CPU.Others
			wall += p.CPU.Wall
		}
	}
	if wall == 0 || cpus == 0 {
		return 0
	}
	return 100 * others / (wall * float64(cpus))
}

// markdown writes the report for a reader.
func (r *Report) markdown(w io.Writer) {
	fmt.Fprintf(w, "## slotd: 3-node cluster vs single node (%s, %d CPUs, %s)\n\n", r.Date.Format("2006-01-02 15:04 MST"), r.CPUs, r.GoVersion)
	fmt.Fprintf(w, "%d businesses; closed-loop phases of %.0f s with %d clients, each request to a random node "+
		"(3 nodes: about 2/3 are handed over); sequential samples of %d requests.\n\n", r.Businesses, r.Seconds, r.Clients, r.Sequential)
	fmt.Fprintln(w, "| figure | single node | 3 nodes | ratio |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for _, x := range r.rows() {
		ratio := ""
		if x.ratio && x.single > 0 {
			ratio = fmt.Sprintf("%.2f×", x.three/x.single)
		}
		fmt.Fprintf(w, "| %s | %s %s | %s %s | %s |\n", x.figure,
			fmt.Sprintf(x.format, x.single), x.unit, fmt.Sprintf(x.format, x.three), x.unit, ratio)
	}
	fmt.Fprintf(w, "| answers not as expected / transport errors | %s | %s | |\n", oddText(&r.Single), oddText(&r.Cluster))
	fmt.Fprintf(w, "| machine CPU taken by other processes during the phases | %.0f %% | %.0f %% | |\n\n",
		othersShare(&r.Single, r.CPUs), othersShare(&r.Cluster, r.CPUs))
	r.forwardingText(w)
	r.failoverText(w)
	r.metricsText(w)
	fmt.Fprintf(w, "All three nodes, their journal replicas and the load generator share this machine's %d cores, "+
		"so the 3-node throughput cannot exceed the single node's in absolute terms; what matters is the cost "+
		"per node (the per-node rows, and slotd's CPU per request, which depends far less on how the cores are shared) "+
		"and the latency that forwarding and the replicated journal add. The CPU of other processes is what else "+
		"ran on the machine meanwhile: where it is high, the throughput figures are low by about that much.\n", r.CPUs)
}

// oddText sums a deployment's unexpected answers and transport errors
// over its closed-loop phases.
func oddText(d *Deployment) string {
	var other, errs int64
	for _, p := range []*Phase{d.Book, d.ReadMe, d.ReadServices} {
		if p == nil {
			continue
		}
		for _, n := range p.Other {
			other += n
		}
		errs += p.Errors
	}
	return fmt.Sprintf("%d / %d", other, errs)
}

func (r *Report) forwardingText(w io.Writer) {
	f := r.Forwarding
	if f == nil {
		return
	}
	fmt.Fprintf(w, "**Forwarding overhead**: business %d lives on %s. GET /api/v1/me sent to %s: p50 %.0f µs, p99 %.0f µs; "+
		"sent to %s, which hands it over: p50 %.0f µs, p99 %.0f µs. Forwarding adds **%.0f µs** at p50 (%.0f µs at p99)",
		f.Business, f.Owner, f.Owner, f.ToOwner.P50us, f.ToOwner.P99us, f.NonOwner, f.ToNonOwner.P50us, f.ToNonOwner.P99us,
		f.OverheadP50us, f.OverheadP99us)
	if bad := f.ToOwner.Failed + f.ToNonOwner.Failed + f.ToOwner.WrongNode + f.ToNonOwner.WrongNode; bad > 0 {
		fmt.Fprintf(w, "; %d failed and %d answered by another node than %s", f.ToOwner.Failed+f.ToNonOwner.Failed,
			f.ToOwner.WrongNode+f.ToNonOwner.WrongNode, f.Owner)
	}
	fmt.Fprint(w, ".\n\n")
}

func (r *Report) failoverText(w io.Writer) {
	f := r.Failover
	if f == nil {
		return
	}
	fmt.Fprintf(w, "**Failover**: kill -9 of %s (the node of business %d) during a light booking load (%d clients "+
		"paced to about %.0f bookings/s, through the two other nodes; %.0f/s acknowledged): ",
		f.Killed, f.Business, f.Load.Clients, f.Rate, f.Load.PerSecond)
	if f.Recovered {
		fmt.Fprintf(w, "the business answered 200 through %s **%.0f ms** after the kill, now served by %s", f.PolledVia, f.RecoveryMs, f.NewOwner)
	} else {
		fmt.Fprintf(w, "the business did **not** answer 200 through %s within %s", f.PolledVia, recoveryLimit)
	}
	fmt.Fprintf(w, " (polls answered before it: %s; polls still held then are not counted). Bookings acknowledged (201): %d; found afterwards: %d; "+
		"**missing: %d**; unverified: %d; 201s without an id: %d. The load's longest acknowledged booking took %.0f ms; "+
		"its other answers: %s (p50 %.0f ms, longest %.0f ms), transport errors: %d.\n\n",
		mapText(f.PollAnswers), f.Acknowledged, f.Found, f.Missing, f.Unverified, f.Unreadable, f.Load.MaxMs,
		mapText(f.Load.Other), f.Load.OtherP50, f.Load.OtherMax, f.Load.Errors)
	if len(f.MissingIDs) > 0 {
		fmt.Fprintf(w, "Missing bookings, e.g.: %s\n\n", strings.Join(f.MissingIDs, ", "))
	}
	if len(f.Load.Samples) > 0 {
		fmt.Fprintf(w, "Examples of the load's other answers: %q\n\n", f.Load.Samples)
	}
}

func (r *Report) metricsText(w io.Writer) {
	fmt.Fprintf(w, "**Per-node metrics** over the cluster's throughput phases (forwarded: handed to another node; "+
		"served: handed over by another node; %.0f%% of the load's requests were forwarded):\n\n", 100*r.ForwardedShare)
	metricsTable(w, r.LoadMetrics)
	fmt.Fprintln(w, "\nAfter the failover (totals since start):")
	fmt.Fprintln(w)
	metricsTable(w, r.MetricsAfterAll)
	fmt.Fprintln(w)
}

func metricsTable(w io.Writer, ms []NodeMetrics) {
	fmt.Fprintln(w, "| node | owned businesses | forwarded | served | journal appends | fencing refusals |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, m := range ms {
		if m.Error != "" {
			fmt.Fprintf(w, "| %s | metrics unreadable: %s | | | | |\n", m.Node, m.Error)
			continue
		}
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.0f | %.0f | %.0f |\n", m.Node, m.Owned, m.Forwarded, m.Served, m.Appends, m.Fenced)
	}
}

func mapText(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// writeJSON writes the report to path.
func (r *Report) writeJSON(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
