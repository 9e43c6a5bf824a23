package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The soak mode (-soak DURATION): three cluster nodes under a paced
// booking load with retries, contested slots and stale-read readers for
// the whole duration, while faults drawn from -seed hit random nodes
// (SIGKILL and restart, SIGSTOP then SIGCONT, SIGTERM and restart), one
// at a time, each only once every node is ready again. Then every
// node's listing of every business is checked (every acknowledged
// booking there, no double booking, every contested slot held once, the
// nodes agreeing), the whole cluster is restarted, and the same checks
// run again. See the package comment for the flags.

// soak is one soak run.
type soak struct {
	*bench
	seed       uint64
	ports      []nodePorts
	nodes      []*node // the same *node across restarts; its p is replaced
	stopped    []atomic.Bool
	readClient *httpClient // the readers' (a short timeout: a stopped node says nothing about staleness)
	listClient *httpClient // the end checks'
	led        *ledger
	hub        *contestHub
	retriers   chan struct{}  // a token per booking being retried in the background
	retryWG    sync.WaitGroup // those bookings
	reads      readLog
	walk       atomic.Int64
	loadStart  time.Time
	loadEnd    time.Time

	evMu   sync.Mutex
	events []faultEvent

	faults []*FaultRecord // the fault loop's, read once it is over
	broken string         // a node that did not come back: no further faults
}

// stopGrace is how long a SIGTERMed node may take to exit before it is
// killed: slotd drains for up to 25 s.
const stopGrace = 40 * time.Second

// runSoak is run for -soak: 0 when every check passed, 1 when one failed
// or the run could not complete.
func runSoak(ctx context.Context, opt options, args []string, stdout, stderr io.Writer) int {
	if opt.seed == 0 {
		opt.seed = rand.Uint64N(999_999_999) + 1
	}
	command := soakCommand(args, opt.seed)
	fmt.Fprintf(stderr, "cluster: soak seed %d; to repeat this run: %s\n", opt.seed, command)
	tmp, err := os.MkdirTemp("", "slotd-bench-soak-")
	if err != nil {
		fmt.Fprintln(stderr, "cluster:", err)
		return 1
	}
	b := &bench{opt: opt, tmp: tmp, w: newWorld(opt.businesses, time.Now()), load: newClient(opt.clients, opt.timeout),
		log: stderr, began: time.Now(), worldFile: filepath.Join(tmp, "world.json")}
	s := &soak{bench: b, seed: opt.seed, stopped: make([]atomic.Bool, clusterSize),
		readClient: newClient(opt.readers*2+2, 3*time.Second), listClient: newClient(4, 15*time.Second)}
	rep, err := s.run(ctx)
	s.resumeAll()
	b.procs.StopAll(stopGrace)
	if rep != nil {
		rep.Command = command
		if opt.jsonPath != "" {
			if err := writeJSON(opt.jsonPath, rep); err != nil {
				fmt.Fprintln(stderr, "cluster:", err)
			}
		}
		rep.markdown(stdout)
	}
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "cluster:", err)
	case !rep.Passed:
		fmt.Fprintf(stderr, "cluster: the soak FAILED: %s\n", strings.Join(rep.Failures, "; "))
	default:
		if opt.keep {
			fmt.Fprintln(stderr, "cluster: the run's directory is kept:", tmp)
		} else if err := os.RemoveAll(tmp); err != nil {
			fmt.Fprintln(stderr, "cluster:", err)
		}
		return 0
	}
	fmt.Fprintln(stderr, "cluster: the run's directory (node logs, data) is kept:", tmp)
	return 1
}

// soakCommand is the command line that repeats a run: its arguments
// with the seed it used.
func soakCommand(args []string, seed uint64) string {
	out := []string{"go", "run", "./bench/cluster"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(a, "-")
		if name == "seed" && i+1 < len(args) {
			i++
			continue
		}
		if strings.HasPrefix(name, "seed=") {
			continue
		}
		out = append(out, a)
	}
	return strings.Join(append(out, "-seed", strconv.FormatUint(seed, 10)), " ")
}

// run is the whole soak; the report is returned whenever the load ran.
func (s *soak) run(ctx context.Context) (*SoakReport, error) {
	if s.bin = s.opt.slotd; s.bin == "" {
		s.progress("building ./cmd/slotd")
		if err := s.buildSlotd(ctx); err != nil {
			return nil, err
		}
	}
	if err := s.w.write(s.worldFile); err != nil {
		return nil, err
	}
	rep := &SoakReport{Date: time.Now(), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), Seed: s.seed,
		Businesses: s.opt.businesses, Clients: s.opt.clients, Readers: s.opt.readers, Rate: s.opt.rate,
		ContestShare: s.opt.contest, ContestSize: s.opt.contestSize, PlannedSeconds: s.opt.soak.Seconds(),
		FaultMin: s.opt.faultMin.Seconds(), FaultMax: s.opt.faultMax.Seconds(),
		StopMin: s.opt.holdMin.Seconds(), StopMax: s.opt.holdMax.Seconds(), GiveUpSeconds: s.opt.giveUp.Seconds(),
		TimeoutSeconds: s.opt.timeout.Seconds()}
	start := time.Now()
	s.progress("soak: starting %d cluster nodes", clusterSize)
	if err := s.startCluster(ctx); err != nil {
		return nil, err
	}
	rep.ReadySeconds = time.Since(start).Seconds()
	owners, err := s.settle(ctx, &deployment{name: "soak", nodes: s.nodes})
	if err != nil {
		return nil, err
	}
	s.progress("soak: every node ready after %.1fs; businesses per node %v", rep.ReadySeconds, countOwners(owners))
	s.led = newLedger(owners)
	s.hub = &contestHub{size: s.opt.contestSize, next: s.nextSlot, w: s.w}
	s.retriers = make(chan struct{}, retriersPerClient*s.opt.clients)

	s.loadStart = time.Now()
	deadline := s.loadStart.Add(s.opt.soak)
	s.progress("soak: load for %s: %d booking clients (about %.0f bookings/s, %.0f%% contested), %d stale-read readers; faults every %s–%s",
		s.opt.soak, s.opt.clients, s.opt.rate, 100*s.opt.contest, s.opt.readers, s.opt.faultMin, s.opt.faultMax)
	stop := make(chan struct{})
	var load sync.WaitGroup
	for c := range s.opt.clients {
		load.Go(func() { s.client(ctx, c, stop) })
	}
	for r := range s.opt.readers {
		load.Go(func() { s.reader(ctx, r, stop) })
	}
	ticker := make(chan struct{})
	go s.tick(ctx, ticker)
	s.faultLoop(ctx, deadline)
	sleepUntil(ctx, deadline) // a broken cluster still gets the load's whole duration
	close(stop)
	close(ticker)
	s.progress("soak: load stopped; waiting for the bookings still being retried (at most %s)", s.opt.giveUp)
	load.Wait()
	s.retryWG.Wait()
	s.loadEnd = time.Now()
	if ctx.Err() != nil {
		return nil, errors.New("interrupted")
	}
	acked, refused, givenUp := s.led.counts()
	s.progress("soak: load over after %.0fs: %d acknowledged, %d refused, %d given up", s.loadEnd.Sub(s.loadStart).Seconds(),
		acked, refused, givenUp)

	// A request a client gave up on may still be served for a few seconds
	// (a hand-over waits up to 5 s): let it land before the nodes are
	// compared.
	sleep(ctx, 6*time.Second)
	rep.Before = s.endChecks(ctx, "before the whole-cluster restart")
	rep.Restart = s.restartAll(ctx)
	if rep.Restart.Error == "" {
		rep.After = s.endChecks(ctx, "after the whole-cluster restart")
	}
	if ctx.Err() != nil {
		return nil, errors.New("interrupted")
	}
	s.fill(rep)
	return rep, nil
}

// tick prints the load's figures every 15 s until done closes.
func (s *soak) tick(ctx context.Context, done <-chan struct{}) {
	t := time.NewTicker(15 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		acked, refused, givenUp := s.led.counts()
		s.reads.mu.Lock()
		reads, stale, lists, listStale := s.reads.Reads, s.reads.StaleCount, s.reads.ListReads, s.reads.ListStaleCount
		s.reads.mu.Unlock()
		s.progress("soak: %4.0fs: %d acknowledged, %d refused, %d given up, %d being retried; reads %d (stale %d), list reads %d (stale %d)",
			time.Since(s.loadStart).Seconds(), acked, refused, givenUp, s.led.retrying.Load(), reads, stale, lists, listStale)
	}
}

// startCluster picks every node's ports, starts the three nodes and
// waits until each is ready.
func (s *soak) startCluster(ctx context.Context) error {
	s.ports = make([]nodePorts, clusterSize)
	for i := range s.ports {
		var err error
		if s.ports[i], err = pickPorts(true); err != nil {
			return err
		}
	}
	s.nodes = make([]*node, clusterSize)
	for i := range s.nodes {
		n, err := s.startNode(nodeName(i), s.ports[i], clusterArgs(i, s.ports)...)
		if err != nil {
			return err
		}
		s.nodes[i] = n
	}
	return s.waitAllReady(ctx)
}

// restart starts node i again with the same flags and data directory.
func (s *soak) restart(i int) error {
	n := s.nodes[i]
	if f, err := os.OpenFile(n.log, os.O_WRONLY|os.O_APPEND, 0); err == nil {
		fmt.Fprintf(f, "\n==== bench/cluster soak: %s restarted at %s ====\n\n", n.name, time.Now().Format(time.RFC3339Nano))
		f.Close()
	}
	again, err := s.startNode(n.name, s.ports[i], clusterArgs(i, s.ports)...)
	if err != nil {
		return err
	}
	n.p = again.p
	return nil
}

// waitAllReady waits, for each node at once, until its /readyz answers
// 200 (at most -ready-timeout).
func (s *soak) waitAllReady(ctx context.Context) error {
	errs := make([]error, len(s.nodes))
	var wg sync.WaitGroup
	for i, n := range s.nodes {
		wg.Go(func() { errs[i] = n.waitReady(ctx, s.opt.readyTimeout) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// resumeAll sends SIGCONT to every node still stopped, so that it can
// drain when it is stopped (a stopped process acts on no signal but
// SIGKILL).
func (s *soak) resumeAll() {
	for i, n := range s.nodes {
		if s.stopped[i].Load() {
			_ = syscall.Kill(n.p.PID(), syscall.SIGCONT)
			s.stopped[i].Store(false)
		}
	}
}

func (s *soak) event(at time.Time, what string) {
	s.evMu.Lock()
	s.events = append(s.events, faultEvent{at: at, what: what})
	s.evMu.Unlock()
}

func (s *soak) sinceEvent(t time.Time) string {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	return sinceEvent(s.events, t)
}

// FaultRecord is one fault as it happened.
type FaultRecord struct {
	N           int     `json:"n"`
	Kind        string  `json:"kind"`
	Node        string  `json:"node"`
	Clock       string  `json:"clock"`     // wall-clock time of the signal
	AtSeconds   float64 `json:"atSeconds"` // since the load began
	HoldSeconds float64 `json:"holdSeconds,omitempty"`
	// ExitSeconds is how long a SIGTERMed node took to exit; CleanExit
	// whether it did so by itself with status 0.
	ExitSeconds float64 `json:"exitSeconds,omitempty"`
	CleanExit   *bool   `json:"cleanExit,omitempty"`
	// ResumedSeconds is when, since the load began, the node was
	// continued (SIGSTOP) or started again.
	ResumedSeconds float64 `json:"resumedSeconds"`
	// ReadySeconds is from the signal until every node answered /readyz
	// 200 again; NotReady says which did not, within -ready-timeout.
	ReadySeconds float64       `json:"readySeconds"`
	NotReady     string        `json:"notReady,omitempty"`
	Owned        []int         `json:"businessesOnNode"` // as the latest answers named their node
	Recovery     []BizRecovery `json:"recovery"`
	at, resumed  time.Time
	ready        time.Time // zero: never
}

// BizRecovery is, for one business that lived on a faulted node, the
// time to its first 201 (of an attempt sent after the reference); -1:
// none before the load ended.
type BizRecovery struct {
	Business      int     `json:"business"`
	AfterFaultMs  float64 `json:"afterFaultMs"`
	Node          string  `json:"node,omitempty"` // X-Slotd-Node of that 201
	AfterResumeMs float64 `json:"afterResumeMs"`  // SIGSTOP: from the SIGCONT
}

// faultLoop runs faults until the deadline: each after its drawn gap
// from the moment every node was ready again, none started after the
// deadline, none once a node did not come back.
func (s *soak) faultLoop(ctx context.Context, deadline time.Time) {
	draw := newFaultDraw(s.seed, faultBounds{gapMin: s.opt.faultMin, gapMax: s.opt.faultMax,
		holdMin: s.opt.holdMin, holdMax: s.opt.holdMax, nodes: clusterSize})
	readyAt := s.loadStart
	for n := 1; ctx.Err() == nil; n++ {
		f := draw.next()
		at := readyAt.Add(f.Gap)
		if !at.Before(deadline) {
			return
		}
		sleepUntil(ctx, at)
		if ctx.Err() != nil {
			return
		}
		rec := s.inject(ctx, n, f)
		s.faults = append(s.faults, rec)
		if rec.NotReady != "" {
			s.broken = rec.NotReady
			s.progress("soak: no further faults: %s", rec.NotReady)
			return
		}
		readyAt = rec.ready
	}
}

// inject runs one fault and waits until every node is ready again.
func (s *soak) inject(ctx context.Context, n int, f plannedFault) *FaultRecord {
	nd := s.nodes[f.Node]
	rec := &FaultRecord{N: n, Kind: f.Kind.String(), Node: nd.name, Owned: s.led.ownedBy(nd.name)}
	pid := nd.p.PID()
	rec.at = time.Now()
	rec.Clock = rec.at.Format("15:04:05.000")
	rec.AtSeconds = rec.at.Sub(s.loadStart).Seconds()
	s.event(rec.at, f.Kind.String()+" of "+nd.name)
	what := fmt.Sprintf("fault %d at %s (load %.1fs): %s of %s (pid %d), which served businesses %v",
		n, rec.Clock, rec.AtSeconds, f.Kind, nd.name, pid, rec.Owned)
	var restartErr error
	switch f.Kind {
	case faultKill:
		s.progress("%s", what)
		nd.p.Kill()
		restartErr = s.restart(f.Node)
		rec.resumed = time.Now()
		s.event(rec.resumed, "restart of "+nd.name)
	case faultTerm:
		s.progress("%s", what)
		took, clean := nd.p.Terminate(stopGrace)
		rec.ExitSeconds, rec.CleanExit = took.Seconds(), &clean
		s.progress("fault %d: %s exited after %.1fs (clean: %v); starting it again", n, nd.name, took.Seconds(), clean)
		restartErr = s.restart(f.Node)
		rec.resumed = time.Now()
		s.event(rec.resumed, "restart of "+nd.name)
	case faultStop:
		s.progress("%s, for %s", what, f.Hold)
		rec.HoldSeconds = f.Hold.Seconds()
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			s.progress("fault %d: SIGSTOP of %s: %v", n, nd.name, err)
		}
		s.stopped[f.Node].Store(true)
		sleep(ctx, f.Hold) // ended early by Ctrl-C: the SIGCONT follows at once
		_ = syscall.Kill(pid, syscall.SIGCONT)
		s.stopped[f.Node].Store(false)
		rec.resumed = time.Now()
		s.event(rec.resumed, "SIGCONT of "+nd.name)
		s.progress("fault %d at %s: SIGCONT of %s", n, rec.resumed.Format("15:04:05.000"), nd.name)
	}
	rec.ResumedSeconds = rec.resumed.Sub(s.loadStart).Seconds()
	err := restartErr
	if err == nil {
		err = s.waitAllReady(ctx)
	}
	if err != nil && ctx.Err() != nil {
		return rec // interrupted: not a node that did not come back
	}
	if err != nil {
		rec.NotReady = firstLine(err.Error())
		s.progress("fault %d: a node is not ready again: %v", n, err)
		return rec
	}
	rec.ready = time.Now()
	rec.ReadySeconds = rec.ready.Sub(rec.at).Seconds()
	s.event(rec.ready, "every node ready after fault "+strconv.Itoa(n))
	s.progress("fault %d: every node ready again %.1fs after the %s", n, rec.ReadySeconds, f.Kind)
	return rec
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// sleepUntil waits until t or until ctx ends.
func sleepUntil(ctx context.Context, t time.Time) {
	if d := time.Until(t); d > 0 {
		sleep(ctx, d)
	}
}

// WholeRestart is the whole-cluster restart between the two end checks.
type WholeRestart struct {
	StopSeconds  float64  `json:"stopSeconds"` // SIGTERM of every node until the last exited
	Unclean      []string `json:"unclean,omitempty"`
	ReadySeconds float64  `json:"readySeconds"` // start of every node until every one was ready
	Error        string   `json:"error,omitempty"`
}

// restartAll stops every node with SIGTERM at once, waits for them to
// exit, starts them again with the same flags and waits until each is
// ready.
func (s *soak) restartAll(ctx context.Context) *WholeRestart {
	r := &WholeRestart{}
	s.resumeAll()
	s.progress("soak: whole-cluster restart: SIGTERM of every node")
	t0 := time.Now()
	clean := make([]bool, len(s.nodes))
	var wg sync.WaitGroup
	for i, n := range s.nodes {
		wg.Go(func() { _, clean[i] = n.p.Terminate(stopGrace) })
	}
	wg.Wait()
	r.StopSeconds = time.Since(t0).Seconds()
	for i, ok := range clean {
		if !ok {
			r.Unclean = append(r.Unclean, fmt.Sprintf("%s: %v", s.nodes[i].name, s.nodes[i].p.Err()))
		}
	}
	s.progress("soak: every node exited after %.1fs (unclean: %v); starting them again", r.StopSeconds, r.Unclean)
	t1 := time.Now()
	for i := range s.nodes {
		if err := s.restart(i); err != nil {
			r.Error = err.Error()
			return r
		}
	}
	if err := s.waitAllReady(ctx); err != nil {
		r.Error = firstLine(err.Error())
		s.progress("soak: after the whole-cluster restart: %v", err)
		return r
	}
	r.ReadySeconds = time.Since(t1).Seconds()
	s.progress("soak: every node ready %.1fs after the restart", r.ReadySeconds)
	return r
}

// endChecks lists every business's appointments through every node and
// checks them.
func (s *soak) endChecks(ctx context.Context, when string) EndCheck {
	lists := make([]nodeListing, len(s.nodes))
	for i, n := range s.nodes {
		lists[i].Node = n.name
		for biz := range s.w.n {
			appts, err := s.listBusiness(ctx, n, biz)
			lists[i].Appts = append(lists[i].Appts, appts...)
			if err != nil && lists[i].Err == "" {
				lists[i].Err = fmt.Sprintf("business %d: %v", biz, err)
			}
		}
	}
	var acked []ackedRef
	for _, a := range s.led.snapshot() {
		acked = append(acked, ackedRef{Biz: a.Biz, ID: a.ID})
	}
	e := endCheck(when, acked, s.hub.slots(), lists)
	s.progress("soak: %s: listed %v; missing %d, double %d, contested slots %d (violations %d), nodes agree %v %s",
		when, e.Listed, e.Missing, e.Double, e.Contested, e.Violations, e.Agree, strings.Join(e.ListErrors, "; "))
	return e
}

// listBusiness pages through business biz's appointments through n; a
// page not answered 200 is asked again for up to about 30 s.
func (s *soak) listBusiness(ctx context.Context, n *node, biz int) ([]listedAppt, error) {
	var out []listedAppt
	q := url.Values{"limit": {"100"}}
	for range 100_000 {
		var p listPage
		var last string
		ok := false
		for try := 0; try < 60 && ctx.Err() == nil; try++ {
			status, _, body, err := s.listClient.get(ctx, n.pub+"/api/v1/appointments?"+q.Encode(), s.w.bearer(biz))
			if err == nil && status == 200 {
				if err := json.Unmarshal(body, &p); err != nil {
					return out, fmt.Errorf("unreadable page: %v", err)
				}
				ok = true
				break
			}
			last = describe(status, body, err)
			sleep(ctx, 500*time.Millisecond)
		}
		if !ok {
			return out, fmt.Errorf("a page not answered 200: %s", last)
		}
		for _, d := range p.Data {
			a := listedAppt{Biz: biz, ID: d.ID, Status: d.Status, Start: d.StartTime, End: d.EndTime}
			if d.StaffMember != nil {
				a.Staff = d.StaffMember.ID
			}
			out = append(out, a)
		}
		if !p.HasMore || p.NextCursor == nil {
			return out, nil
		}
		q.Set("cursor", *p.NextCursor)
	}
	return out, errors.New("the list does not end")
}

// fill sums the run up into rep: bookings, reads, faults with each
// business's recovery, the worst stretch without an acknowledgement,
// and whether the soak passed.
func (s *soak) fill(rep *SoakReport) {
	rep.LoadSeconds = s.loadEnd.Sub(s.loadStart).Seconds()
	acks := s.led.snapshot()
	l := s.led
	l.mu.Lock()
	var latency []time.Duration
	for _, a := range acks {
		latency = append(latency, a.At.Sub(a.FirstSent))
	}
	slices.Sort(latency)
	rep.Bookings = BookingStats{Requests: l.requests, Attempts: l.attempts, Acknowledged: int64(len(acks)) + l.unreadable,
		Unreadable: l.unreadable, Refused: l.refused, RefusedUncontested: l.refusedFree, GivenUp: l.givenUp,
		GivenUpSamples: l.upSamples, Retried: l.retried, RetryReasons: l.retries, Interrupted: l.interrupted,
		AckP50ms: ms(percentile(latency, 50)), AckP99ms: ms(percentile(latency, 99)), AckMaxMs: ms(percentile(latency, 100))}
	l.mu.Unlock()
	s.reads.mu.Lock()
	rep.Reads = s.reads.ReadStats
	s.reads.mu.Unlock()

	rep.FaultsByKind = map[string]int{}
	var spans []faultSpan
	for _, f := range s.faults {
		rep.FaultsByKind[f.Kind]++
		spans = append(spans, faultSpan{label: fmt.Sprintf("fault %d (%s of %s at %.0fs)", f.N, f.Kind, f.Node, f.AtSeconds),
			from: f.at, to: f.ready})
		for _, biz := range f.Owned {
			r := BizRecovery{Business: biz, AfterResumeMs: -1}
			r.AfterFaultMs, r.Node = firstAckAfter(acks, biz, f.at)
			if f.Kind == faultStop.String() {
				r.AfterResumeMs, _ = firstAckAfter(acks, biz, f.resumed)
			}
			f.Recovery = append(f.Recovery, r)
		}
	}
	rep.Faults = s.faults
	rep.Broken = s.broken

	times := make([][]time.Time, s.w.n)
	for _, a := range acks {
		times[a.Biz] = append(times[a.Biz], a.At)
	}
	for biz := range s.w.n {
		g := worstGap(times[biz], s.loadStart, s.loadEnd)
		rep.Gaps = append(rep.Gaps, BizGap{Business: biz, Acks: len(times[biz]), WorstMs: ms(g.length()),
			FromSeconds: g.from.Sub(s.loadStart).Seconds(), ToSeconds: g.to.Sub(s.loadStart).Seconds(),
			Overlapped: overlapping(spans, g)})
	}
	rep.judge()
}

// firstAckAfter is the time from ref to the first 201 of business biz
// whose attempt was sent at or after ref, in ms, and the node that
// answered it; -1 when there was none.
func firstAckAfter(acks []ackRec, biz int, ref time.Time) (float64, string) {
	best, node := time.Duration(-1), ""
	for _, a := range acks {
		if a.Biz == biz && !a.LastSent.Before(ref) {
			if d := a.At.Sub(ref); best < 0 || d < best {
				best, node = d, a.Node
			}
		}
	}
	if best < 0 {
		return -1, ""
	}
	return ms(best), node
}

// writeJSON writes v to path, indented.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
