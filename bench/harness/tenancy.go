package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/bench/loadgen"
	"github.com/slotd/slotd/bench/proc"
)

// The tenancy phase: many small businesses (-tenancy-businesses, each
// with -tenancy-appointments, two staff members and ten customers) in one
// data directory, of which a few are busy at a time. The harness writes
// the directory once, through slotd (--world on a fresh directory, then
// SIGTERM), and restarts slotd on it without --world: a business's state
// is loaded when a request first needs it, so slotd's memory after
// /readyz and before any request is what it keeps for every business it
// is not serving (target ≤ 200 MiB at 100,000). Then one 1-day
// availability request to each of -tenancy-touch random businesses, from
// a few connections: each is that business's first answer, which loads
// its state (target ≤ 50 ms each), and the RSS that has grown meanwhile,
// per business touched, is what a served business costs (target: 2 KiB
// plus its appointments, each at the 200 B of live heap an appointment
// may take). RSS also holds garbage not yet collected and memory the Go
// runtime has not returned, so the growth is an upper bound; the live
// heap after a forced GC, before and after, is reported next to it.

// tenancyConnections are the "few connections" the businesses are
// touched from: enough to keep slotd busy, few enough that a first answer
// does not wait behind many others.
const tenancyConnections = 4

func (h *harness) tenancy(ctx context.Context) error {
	if !h.opt.Tenancy {
		h.progress("tenancy phase skipped (-tenancy=false)")
		return nil
	}
	l, err := newLayout(h.opt.tenancyWorld())
	if err != nil {
		return err
	}
	tn := &Tenancy{Businesses: l.Businesses, Staff: l.Staff, Customers: l.Customers, Appointments: l.Appointments, Touch: h.opt.TenancyTouch}
	h.rep.Tenancy = tn
	data := filepath.Join(h.tmp, "data-tenancy")
	if err := h.tenancyWrite(ctx, tn, l, data); err != nil {
		return err
	}
	s, ready, err := h.startReady(ctx, "slotd-tenancy", data, "")
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
	h.progress("tenancy: restarted without --world, ready in %.2fs, RSS %s before any request (live heap %s)",
		tn.ReadySeconds, bytesText(tn.RSSBefore), bytesText(tn.HeapBefore))
	if err := h.tenancyTouch(ctx, tn, s, l); err != nil {
		return err
	}
	return h.stopSlotd(s, "tenancy")
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

// tenancyTouch asks each of -tenancy-touch random businesses once for its
// availability on day 0 and measures the RSS it cost.
func (h *harness) tenancyTouch(ctx context.Context, tn *Tenancy, s *slotd, l *layout) error {
	order := rand.New(rand.NewPCG(h.opt.Seed, 23)).Perm(l.Businesses)[:tn.Touch]
	cfg := loadgen.Config{
		URL: s.base + "/", Method: "GET", Connections: tenancyConnections, Duration: h.opt.ReadyTimeout,
		MaxRequests: int64(len(order)), Expect: 200, Timeout: h.opt.Timeout,
		Prepare: func(seq uint64, req *fasthttp.Request) {
			b := order[seq]
			req.SetRequestURI(s.base + slotsPath(l, b, 0, -1, l.base, 24*time.Hour))
			req.Header.Set("Authorization", l.bearer[b])
		},
	}
	title := fmt.Sprintf("first answers of %d random businesses of %d (1-day availability), %d connections", tn.Touch, tn.Businesses, tenancyConnections)
	h.progress("tenancy: %s", title)
	p, err := h.measure(ctx, phaseSpec{name: "tenancy", title: title, cfg: cfg, slotd: s})
	if err != nil {
		return err
	}
	after, err := proc.Read(s.p.PID())
	if err != nil {
		return err
	}
	tn.Touched = p.Statuses["200"]
	tn.RSSAfter, tn.HWMAfter = after.RSS, after.HWM
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
	h.progress("tenancy: %d of %d businesses answered, max %s; RSS %s (peak %s), %.0f B per business touched (live heap %.0f B)",
		tn.Touched, tn.Touch, msText(p.Latency.Max), bytesText(tn.RSSAfter), bytesText(tn.HWMAfter), tn.GrowthPerBiz, tn.HeapPerBiz)
	return nil
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
