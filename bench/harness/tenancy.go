package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/bench/loadgen"
	"github.com/slotd/slotd/bench/proc"
)

// The tenancy phase: many small businesses (-tenancy-businesses, each
// with -tenancy-appointments, two staff members and ten customers) in one
// data directory, of which a few are busy at a time. The harness writes
// the directory once, through slotd (--world on a fresh directory, then
// SIGTERM), and restarts slotd on it without --world and with
// --max-resident -tenancy-max-resident (issue 43: at most 2,000
// businesses in memory): a business's state is loaded when a request
// first needs it, so slotd's memory after /readyz and before any request
// is what it keeps for every business it is not serving (target
// ≤ 200 MiB at 100,000). Then one 1-day availability request to each of
// -tenancy-touch random businesses, from a few connections: each is that
// business's first answer, which loads its state (target ≤ 50 ms each),
// and the RSS after them all is what the bound holds slotd to (target
// ≤ 300 MiB), with slotd_businesses_resident from the admin listener's
// /metrics beside it (sampled during the touches, read at their end and
// until it is back at the bound). RSS also holds garbage not yet
// collected and memory the Go runtime has not returned; the live heap
// after a forced GC, before and after, is reported next to it.
//
// Then the idle step (-tenancy-idle-touch businesses, 0: none): slotd
// restarted with --idle-after 30s and no bound, its RSS read (the
// baseline), a burst of first answers of that many random businesses,
// RSS read again (the peak), and then every 5 s for up to 2m30s, with
// slotd's residency and heap figures from /metrics beside it, until RSS
// is within 50 MiB of the baseline (target: within 2 minutes of the
// burst's end). Between the burst and that, slotd must let the businesses
// go (30 s after their last request, looked for every 7.5 s), the Go
// runtime must collect their state (an idle process has no GC until the
// runtime's forced one, two minutes after the last) and return the
// memory to the OS (its scavenger does so lazily): the samples (resident
// businesses, heap in use, the Go runtime's share of the OS's memory, GC
// cycles) tell which step RSS waited for.

// tenancyConnections are the "few connections" the businesses are
// touched from: enough to keep slotd busy, few enough that a first answer
// does not wait behind many others.
const tenancyConnections = 4

// The idle step's settings (issue 43): slotd's --idle-after, how far
// above its start RSS may stay, within how long it must get there, and
// how long and how often the harness looks.
const (
	tenancyIdleAfter  = 30 * time.Second
	tenancyIdleSlack  = 50 << 20
	tenancyIdleWithin = 2 * time.Minute
	tenancyIdleWatch  = 2*time.Minute + 30*time.Second
	tenancyIdlePoll   = 5 * time.Second
	// After the touches, how long the resident businesses may take to
	// come back to --max-resident (slotd looks every second when no
	// --idle-after is in play, once a minute at most otherwise).
	tenancySettleWait = 75 * time.Second
)

func (h *harness) tenancy(ctx context.Context) error {
	if !h.opt.Tenancy {
		h.progress("tenancy phase skipped (-tenancy=false)")
		return nil
	}
	l, err := newLayout(h.opt.tenancyWorld())
	if err != nil {
		return err
	}
	tn := &Tenancy{Businesses: l.Businesses, Staff: l.Staff, Customers: l.Customers, Appointments: l.Appointments, Touch: h.opt.TenancyTouch,
		MaxResident: h.opt.TenancyMaxResident}
	h.rep.Tenancy = tn
	data := filepath.Join(h.tmp, "data-tenancy")
	if err := h.tenancyWrite(ctx, tn, l, data); err != nil {
		return err
	}
	var extra []string
	if tn.MaxResident > 0 {
		extra = []string{"--max-resident", strconv.Itoa(tn.MaxResident)}
	}
	s, ready, err := h.startReady(ctx, "slotd-tenancy", data, "", extra...)
	if err != nil {
		return err
	}
	before, err := proc.Read(s.p.PID())
	if err != nil {
		return err
	}
	tn.ReadySeconds, tn.RSSBefore = ready.Seconds(), before.RSS
	tn.HeapBefore = s.liveHeap(ctx)
	h.saveHeap(ctx, s, "tenancy-heap-before.pprof")
	h.progress("tenancy: restarted without --world%s, ready in %.2fs, RSS %s before any request (live heap %s)",
		flagsText(extra), tn.ReadySeconds, bytesText(tn.RSSBefore), bytesText(tn.HeapBefore))
	if err := h.tenancyTouch(ctx, tn, s, l); err != nil {
		return err
	}
	if err := h.stopSlotd(s, "tenancy"); err != nil {
		return err
	}
	if h.opt.TenancyIdleTouch == 0 {
		h.progress("tenancy: idle step skipped (-tenancy-idle-touch 0)")
		return nil
	}
	return h.tenancyIdle(ctx, tn, l, data)
}

func flagsText(flags []string) string {
	if len(flags) == 0 {
		return ""
	}
	return " and with " + strings.Join(flags, " ")
}

// tenancyWrite fills a fresh data directory with the tenancy world, as an
// operator would: slotd loads it with --world and is stopped.
func (h *harness) tenancyWrite(ctx context.Context, tn *Tenancy, l *layout, data string) error {
	path := filepath.Join(h.tmp, "world-tenancy.json")
	h.progress("tenancy: writing a world of %d businesses × %d appointments", l.Businesses, l.Appointments)
	t := time.Now()
	var err error
	if tn.FileBytes, err = writeWorldFile(path, l); err != nil {
		return err
	}
	tn.WriteSeconds = time.Since(t).Seconds()
	s, ready, err := h.startReady(ctx, "slotd-tenancy-load", data, path)
	if err != nil {
		return err
	}
	tn.LoadSeconds = ready.Seconds()
	h.progress("tenancy: world %s written in %.1fs, loaded in %.1fs", bytesText(tn.FileBytes), tn.WriteSeconds, tn.LoadSeconds)
	if !h.opt.Keep {
		_ = os.Remove(path)
	}
	return h.stopSlotd(s, "tenancy load")
}

// touchConfig asks each business of order once for its availability on
// day 0, from tenancyConnections connections.
func (h *harness) touchConfig(s *slotd, l *layout, order []int) loadgen.Config {
	return loadgen.Config{
		URL: s.base + "/", Method: "GET", Connections: tenancyConnections, Duration: h.opt.ReadyTimeout,
		MaxRequests: int64(len(order)), Expect: 200, Timeout: h.opt.Timeout,
		Prepare: func(seq uint64, req *fasthttp.Request) {
			b := order[seq]
			req.SetRequestURI(s.base + slotsPath(l, b, 0, -1, l.base, 24*time.Hour))
			req.Header.Set("Authorization", l.bearer[b])
		},
	}
}

// tenancyTouch asks each of -tenancy-touch random businesses once for its
// availability on day 0 and measures the RSS it cost and the businesses
// slotd kept.
func (h *harness) tenancyTouch(ctx context.Context, tn *Tenancy, s *slotd, l *layout) error {
	order := rand.New(rand.NewPCG(h.opt.Seed, 23)).Perm(l.Businesses)[:tn.Touch]
	title := fmt.Sprintf("first answers of %d random businesses of %d (1-day availability), %d connections", tn.Touch, tn.Businesses, tenancyConnections)
	if tn.MaxResident > 0 {
		title += fmt.Sprintf(", --max-resident %d", tn.MaxResident)
	}
	h.progress("tenancy: %s", title)
	// The resident businesses, sampled while the touches run.
	sampling, sampled := s.sampleResident(ctx, 500*time.Millisecond)
	p, err := h.measure(ctx, phaseSpec{name: "tenancy", title: title, cfg: h.touchConfig(s, l, order), slotd: s})
	maxSeen := sampling()
	if err != nil {
		return err
	}
	after, err := proc.Read(s.p.PID())
	if err != nil {
		return err
	}
	tn.Touched = p.Statuses["200"]
	tn.RSSAfter, tn.HWMAfter = after.RSS, after.HWM
	if m, err := s.metrics(ctx); err == nil {
		res := &TenancyResidency{AtEnd: metricInt(m, metricResident), MaxSeen: max(maxSeen, metricInt(m, metricResident)), SettledSeconds: -1}
		if !sampled() {
			res.MaxSeen = -1
		}
		tn.Residency = res
		h.tenancySettle(ctx, tn, s)
	} else {
		h.progress("tenancy: no residency figures from %s/metrics: %v", s.admin, err)
	}
	if tn.HeapBefore > 0 {
		tn.HeapAfter = s.liveHeap(ctx)
		h.saveHeap(ctx, s, "tenancy-heap-after.pprof")
	}
	if tn.Touched > 0 {
		tn.GrowthPerBiz = float64(tn.RSSAfter-tn.RSSBefore) / float64(tn.Touched)
		if tn.HeapAfter > 0 {
			tn.HeapPerBiz = float64(tn.HeapAfter-tn.HeapBefore) / float64(tn.Touched)
		}
	}
	h.progress("tenancy: %d of %d businesses answered, max %s; RSS %s (peak %s), %.0f B per business touched (live heap %s after a GC, %.0f B per business)%s",
		tn.Touched, tn.Touch, msText(p.Latency.Max), bytesText(tn.RSSAfter), bytesText(tn.HWMAfter), tn.GrowthPerBiz, bytesText(tn.HeapAfter), tn.HeapPerBiz,
		residencyProgress(tn))
	return nil
}

// tenancySettle reads the resident businesses after the touches until
// they are back at the bound, or tenancySettleWait passed.
func (h *harness) tenancySettle(ctx context.Context, tn *Tenancy, s *slotd) {
	res := tn.Residency
	start := time.Now()
	for {
		m, err := s.metrics(ctx)
		if err != nil {
			return
		}
		res.Settled, res.LetGo = metricInt(m, metricResident), metricInt(m, metricLetGo)
		if st, err := proc.Read(s.p.PID()); err == nil {
			res.RSSSettled = st.RSS
		}
		if tn.MaxResident == 0 || res.Settled <= int64(tn.MaxResident) {
			if tn.MaxResident > 0 {
				res.SettledSeconds = time.Since(start).Seconds()
			}
			return
		}
		if time.Since(start) >= tenancySettleWait || sleepCtx(ctx, 250*time.Millisecond) != nil {
			return
		}
	}
}

func residencyProgress(tn *Tenancy) string {
	res := tn.Residency
	if res == nil {
		return ""
	}
	return fmt.Sprintf("; resident businesses: %d at the end (at most %d seen during the touches), %d after %s (RSS %s then); %d let go",
		res.AtEnd, res.MaxSeen, res.Settled, settledText(res.SettledSeconds), bytesText(res.RSSSettled), res.LetGo)
}

func settledText(seconds float64) string {
	if seconds < 0 {
		return "waiting"
	}
	return fmt.Sprintf("%.1f s", seconds)
}

// tenancyIdle is the idle step: slotd on the tenancy directory with
// --idle-after 30s, a burst of first answers, and RSS watched until it is
// back within tenancyIdleSlack of where it started.
func (h *harness) tenancyIdle(ctx context.Context, tn *Tenancy, l *layout, data string) error {
	id := &TenancyIdle{IdleAfterSeconds: tenancyIdleAfter.Seconds(), Touch: h.opt.TenancyIdleTouch, SlackBytes: tenancyIdleSlack,
		WithinTargetSeconds: tenancyIdleWithin.Seconds(), WatchSeconds: tenancyIdleWatch.Seconds(), WithinSeconds: -1}
	tn.Idle = id
	s, ready, err := h.startReady(ctx, "slotd-tenancy-idle", data, "", "--idle-after", tenancyIdleAfter.String())
	if err != nil {
		return err
	}
	id.ReadySeconds = ready.Seconds()
	start := time.Now()
	id.Baseline = s.idleSample(ctx, start)
	h.progress("tenancy idle: restarted with --idle-after %s, ready in %.2fs, RSS %s", tenancyIdleAfter, id.ReadySeconds, bytesText(id.Baseline.RSS))
	order := rand.New(rand.NewPCG(h.opt.Seed, 29)).Perm(l.Businesses)[:id.Touch]
	title := fmt.Sprintf("a burst of first answers of %d random businesses of %d (1-day availability), %d connections, --idle-after %s",
		id.Touch, tn.Businesses, tenancyConnections, tenancyIdleAfter)
	h.progress("tenancy idle: %s", title)
	p, err := h.measure(ctx, phaseSpec{name: "tenancy-idle", title: title, cfg: h.touchConfig(s, l, order), slotd: s})
	if err != nil {
		return err
	}
	id.Touched = p.Statuses["200"]
	end := time.Now()
	id.BurstSeconds = end.Sub(start).Seconds()
	// Every 5 s from the burst's end: the first sample is the peak.
	for {
		sm := s.idleSample(ctx, end)
		id.Samples = append(id.Samples, sm)
		if sm.RSS > 0 && sm.RSS <= id.Baseline.RSS+id.SlackBytes {
			id.WithinSeconds = sm.Seconds
			break
		}
		h.progress("tenancy idle: %.0fs after the burst: RSS %s (%s above the start), %d resident, %d let go; heap in use %s, the Go runtime holding %s of the OS's memory (%s returned); %d GC cycles",
			sm.Seconds, bytesText(sm.RSS), bytesText(sm.RSS-id.Baseline.RSS), sm.Resident, sm.LetGo, bytesText(sm.HeapInuse), bytesText(sm.goHeld()), bytesText(sm.HeapReleased), sm.GCCycles)
		next := end.Add(time.Duration(len(id.Samples)) * tenancyIdlePoll)
		if next.Sub(end) > tenancyIdleWatch {
			break
		}
		if err := sleepCtx(ctx, time.Until(next)); err != nil {
			return err
		}
	}
	id.Peak = id.Samples[0]
	if st, err := proc.Read(s.p.PID()); err == nil {
		id.HWM = st.HWM
	}
	last := id.Samples[len(id.Samples)-1]
	if id.WithinSeconds >= 0 {
		h.progress("tenancy idle: RSS %s → %s after the burst → %s, within %s of the start %.0fs after the burst (%d let go)",
			bytesText(id.Baseline.RSS), bytesText(id.Peak.RSS), bytesText(last.RSS), bytesText(id.SlackBytes), id.WithinSeconds, last.LetGo)
	} else {
		h.progress("tenancy idle: RSS %s → %s after the burst → %s %s later: not within %s of the start",
			bytesText(id.Baseline.RSS), bytesText(id.Peak.RSS), bytesText(last.RSS), tenancyIdleWatch, bytesText(id.SlackBytes))
	}
	return h.stopSlotd(s, "tenancy idle")
}

// idleSample reads slotd's RSS and, from /metrics, its residency and
// heap figures (-1 each when unread), at its time since since.
func (s *slotd) idleSample(ctx context.Context, since time.Time) IdleSample {
	sm := IdleSample{RSS: -1, Resident: -1, LetGo: -1, HeapInuse: -1, HeapReleased: -1, GoSys: -1, GCCycles: -1}
	if st, err := proc.Read(s.p.PID()); err == nil {
		sm.RSS = st.RSS
	}
	sm.Seconds = time.Since(since).Seconds()
	if m, err := s.metrics(ctx); err == nil {
		sm.Resident, sm.LetGo = metricInt(m, metricResident), metricInt(m, metricLetGo)
		sm.HeapInuse, sm.HeapReleased = metricInt(m, "go_memstats_heap_inuse_bytes"), metricInt(m, "go_memstats_heap_released_bytes")
		sm.GoSys, sm.GCCycles = metricInt(m, "go_memstats_sys_bytes"), metricInt(m, "go_gc_duration_seconds_count")
	}
	return sm
}

// The residency metrics of slotd's admin listener (decisions §1).
const (
	metricResident = "slotd_businesses_resident"
	metricLetGo    = "slotd_businesses_let_go_total"
)

// sampleResident reads the resident businesses every interval until the
// returned stop is called, which returns the most seen; sampled tells,
// after stop, whether any reading succeeded.
func (s *slotd) sampleResident(ctx context.Context, interval time.Duration) (stop func() int64, sampled func() bool) {
	ctx, cancel := context.WithCancel(ctx)
	var most atomic.Int64
	var ok atomic.Bool
	most.Store(-1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			if m, err := s.metrics(ctx); err == nil {
				if v, found := m[metricResident]; found {
					ok.Store(true)
					if n := int64(v); n > most.Load() {
						most.Store(n)
					}
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 { cancel(); <-done; return most.Load() }, ok.Load
}

// metrics reads the admin listener's /metrics: each sample without
// labels, by name.
func (s *slotd) metrics(ctx context.Context) (map[string]float64, error) {
	status, body, err := get(ctx, s.admin+"/metrics", "")
	if err != nil {
		return nil, err
	}
	if status != 200 {
		return nil, fmt.Errorf("/metrics: status %d: %.200s", status, body)
	}
	return parseMetrics(string(body)), nil
}

// parseMetrics reads the Prometheus text format's samples without
// labels: "name value" lines; comments and labelled samples are skipped.
func parseMetrics(text string) map[string]float64 {
	out := map[string]float64{}
	for line := range strings.SplitSeq(text, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 || strings.ContainsRune(f[0], '{') {
			continue
		}
		if v, err := strconv.ParseFloat(f[1], 64); err == nil {
			out[f[0]] = v
		}
	}
	return out
}

// metricInt is a sample as a whole number, -1 when absent.
func metricInt(m map[string]float64, name string) int64 {
	v, ok := m[name]
	if !ok {
		return -1
	}
	return int64(v)
}

// sleepCtx sleeps for d, or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// liveHeap is slotd's live Go heap after a forced GC, from the admin
// listener's heap profile (net/http/pprof: gc=1 collects first, debug=1
// ends the text with runtime.MemStats); 0 when it cannot tell. It asks
// the admin listener only: no business's state is touched.
func (s *slotd) liveHeap(ctx context.Context) int64 {
	status, body, err := get(ctx, s.admin+"/debug/pprof/heap?gc=1&debug=1", "")
	if err != nil || status != 200 {
		return 0
	}
	n, _ := memStat(string(body), "HeapAlloc")
	return n
}

// saveHeap keeps slotd's heap profile (after a forced GC) in the run's
// directory, with -profile: `go tool pprof -sample_index=inuse_space -base
// tenancy-heap-before.pprof SLOTD tenancy-heap-after.pprof` shows what the
// touched businesses hold. A failure only leaves the file out.
func (h *harness) saveHeap(ctx context.Context, s *slotd, name string) {
	if !h.opt.Profile {
		return
	}
	status, body, err := get(ctx, s.admin+"/debug/pprof/heap?gc=1", "")
	if err != nil || status != 200 {
		return
	}
	_ = os.WriteFile(filepath.Join(h.tmp, name), body, 0o644)
}

// memStat finds "# NAME = VALUE" in a debug=1 heap profile.
func memStat(profile, name string) (int64, bool) {
	_, rest, ok := strings.Cut(profile, "\n# "+name+" = ")
	if !ok {
		return 0, false
	}
	v, _, _ := strings.Cut(rest, "\n")
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	return n, err == nil
}
