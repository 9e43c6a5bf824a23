package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/bench/loadgen"
)

// The mixed phase: -mixed-c connections for -mixed-d against the main
// slotd after the read phases, nine requests in ten an availability read
// and the tenth a booking, so that reads meet the writes they wait behind
// in a business's actor and bookings meet the reads. The reads alternate
// between the two read workloads' kinds, 1 day for one staff member and
// 7 days for everyone, and none is asked twice nor asked by an earlier
// phase: each is one of those workloads' queries with its window moved
// by whole minutes within the night, which changes the query (and so the
// answer memo's key, the raw query string) but not the slots it finds,
// as nothing opens before 09:00. The bookings are the storm's (a free
// half hour each, its own Idempotency-Key), from the slots before the
// storm's, and the walk checks them with the storm's.

const (
	mixedEvery = 10 // one request in mixedEvery is a booking
	// maxShift bounds the minutes a window moves: it starts before 09:00.
	maxShift = openHour*60 - 1
)

// mixedRequest says what request seq of the mixed phase is: a booking
// and its index among the bookings, or a read, whether it is a 7-day one,
// and its index among the reads of its kind.
func mixedRequest(seq uint64) (booking, week bool, n uint64) {
	round, k := seq/mixedEvery, seq%mixedEvery
	if k == mixedEvery-1 {
		return true, false, round
	}
	i := round*(mixedEvery-1) + k
	return false, i%2 == 1, i / 2
}

// shiftedQuery is the n-th of distinct queries made from base queries:
// base query n mod distinct, its window shifted by 1 + n / distinct
// minutes (wrapping after maxShift, when queries repeat).
func shiftedQuery(n uint64, distinct int) (q int, shift time.Duration) {
	return int(n % uint64(distinct)), time.Duration(1+(n/uint64(distinct))%maxShift) * time.Minute
}

// mixedWeek and mixedDay are the n-th 7-day and 1-day reads: a path and
// query, and the business it asks.
func (h *harness) mixedWeek(l *layout, n uint64) (string, int) {
	q, shift := shiftedQuery(n, h.opt.Queries)
	b, svc, from := l.weekQuery(q)
	return slotsPath(l, b, svc, -1, from.Add(shift), 7*24*time.Hour), b
}

func mixedDay(l *layout, n uint64) (string, int) {
	q, shift := shiftedQuery(n, l.dayQueries())
	b, st, svc, from := l.dayQuery(q)
	return slotsPath(l, b, svc, st, from.Add(shift), 24*time.Hour), b
}

// asGet makes a request that may have been a booking a bare GET of path.
// A fasthttp request keeps its Content-Length when its body is reset.
func asGet(req *fasthttp.Request, uri, bearer string) {
	req.Header.SetMethod("GET")
	req.ResetBody()
	req.Header.Del("Content-Length")
	req.Header.Del("Content-Type")
	req.Header.Del("Idempotency-Key")
	req.SetRequestURI(uri)
	req.Header.Set("Authorization", bearer)
}

func (h *harness) mixed(ctx context.Context, s *slotd, l *layout) error {
	if !h.opt.Mixed {
		h.progress("mixed phase skipped (-mixed=false)")
		return nil
	}
	if err := h.checkShift(ctx, s, l); err != nil {
		return err
	}
	m := &Mixed{MailsSeconds: -1}
	h.rep.Mixed = m
	outbox := newMailCounter(filepath.Join(s.data, "outbox"))
	mailsBefore, err := outbox.count()
	if err != nil {
		return err
	}
	slots := newSlotRange(s)
	defer slots.done(s)
	got := h.mixedAcks
	title := fmt.Sprintf("90 %% availability (1 d one staff, 7 d × %d staff, uncached), 10 %% bookings, %d connections", l.Staff, h.opt.MixedConnections)
	h.progress("mixed: %s, %s", title, h.opt.MixedDuration)
	cfg := h.mixedConfig(s, l, slots, got)
	p, err := h.measure(ctx, phaseSpec{name: "mixed", title: title, cfg: cfg, slotd: s, split: true})
	if err != nil {
		return err
	}
	end := time.Now()
	mixedCounts(m, p, l, h.opt.Queries)
	m.Acknowledged = int64(len(got.list))
	m.UnexpectedAnswers = got.odd
	h.progress("mixed: reads %s; bookings %s; %d bookings acknowledged", kindText(h.rep.phase("mixed-read")),
		kindText(h.rep.phase("mixed-booking")), m.Acknowledged)
	if len(got.odd) > 0 {
		h.progress("mixed: unexpected answers, e.g. %s", got.odd[0])
	}
	// The storm counts its e-mails from what the outbox holds when it
	// starts: this phase's must be there by then.
	var found int
	found, m.MailsSeconds, err = h.drain(ctx, outbox, mailsBefore+len(got.list), end)
	h.progress("mixed: outbox holds %d of the phase's %d e-mails %.1fs after it", found-mailsBefore, len(got.list), m.MailsSeconds)
	return err
}

// checkShift makes sure a window moved within the night finds what the
// window itself finds, byte for byte, for a query of each kind: else the
// phase's reads would not be the read workloads' reads.
func (h *harness) checkShift(ctx context.Context, s *slotd, l *layout) error {
	b, st, svc, day := l.dayQuery(0)
	wb, wsvc, week := l.weekQuery(0)
	for _, q := range []struct {
		b, svc, staff int
		from          time.Time
		span          time.Duration
	}{{b, svc, st, day, 24 * time.Hour}, {wb, wsvc, -1, week, 7 * 24 * time.Hour}} {
		var bodies [2][]byte
		for i, shift := range []time.Duration{0, maxShift * time.Minute} {
			path := slotsPath(l, q.b, q.svc, q.staff, q.from.Add(shift), q.span)
			status, body, err := get(ctx, s.base+path, l.bearer[q.b])
			if err != nil {
				return err
			}
			if status != 200 {
				return fmt.Errorf("%s: status %d: %.300s", path, status, body)
			}
			bodies[i] = body
		}
		if !bytes.Equal(bodies[0], bodies[1]) {
			return fmt.Errorf("a window moved by %d minutes finds other slots than the window itself: %.200s… and %.200s…", maxShift, bodies[0], bodies[1])
		}
	}
	return nil
}

// mixedConfig is the mixed phase's load: reads and bookings are kinds of
// request, summarized apart.
func (h *harness) mixedConfig(s *slotd, l *layout, slots *slotRange, got *acks) loadgen.Config {
	keys := "mixed-" + strconv.FormatUint(h.opt.Seed, 10) + "-"
	return loadgen.Config{
		URL: s.base + "/", Method: "GET", Connections: h.opt.MixedConnections, Duration: h.opt.MixedDuration,
		Timeout: h.opt.Timeout,
		Kinds:   []loadgen.Kind{{Name: "read", Expect: 200}, {Name: "booking", Expect: 201}},
		Kind: func(seq uint64) int {
			if booking, _, _ := mixedRequest(seq); booking {
				return 1
			}
			return 0
		},
		Prepare: func(seq uint64, req *fasthttp.Request) {
			booking, week, n := mixedRequest(seq)
			if booking {
				req.Header.SetMethod("POST")
				req.SetRequestURI(s.base + "/api/v1/appointments")
				req.Header.SetContentType("application/json")
				prepareBooking(req, l, slots.take(n), keys+strconv.FormatUint(n, 10))
				return
			}
			path, b := mixedDay(l, n)
			if week {
				path, b = h.mixedWeek(l, n)
			}
			asGet(req, s.base+path, l.bearer[b])
		},
		Observe: func(seq uint64, resp *fasthttp.Response) {
			booking, _, n := mixedRequest(seq)
			switch {
			case booking:
				observeBooking(got, l, slots.slot(n), resp)
			case resp.StatusCode() != 200:
				got.unexpected(resp.StatusCode(), resp.Body())
			}
		},
	}
}

// mixedCounts counts the reads of each kind the phase made (requests
// 0..N-1, N = every request of the phase) and whether any was asked twice.
func mixedCounts(m *Mixed, p *Phase, l *layout, queries int) {
	n := uint64(p.Requests)
	rounds, rest := n/mixedEvery, n%mixedEvery
	reads := rounds*(mixedEvery-1) + min(rest, mixedEvery-1)
	m.WeekReads, m.DayReads = int64(reads/2), int64(reads-reads/2)
	m.UncachedGuaranteed = m.WeekReads <= int64(queries)*maxShift && m.DayReads <= int64(l.dayQueries())*maxShift
}

// kindText is one kind of a split phase on a progress line.
func kindText(p *Phase) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("%.0f/s, p50 %s p99 %s p99.9 %s max %s, errors %d", p.RPS, msText(p.Latency.P50),
		msText(p.Latency.P99), msText(p.Latency.P999), msText(p.Latency.Max), p.Errors)
}
