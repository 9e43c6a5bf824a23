package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/bench/loadgen"
	"github.com/slotd/slotd/bench/proc"
)

// The series phase (issue 42): "booking a 12-occurrence series costs at
// most 4× one booking's actor time". On the main slotd after the walk,
// one connection, requests one at a time: -series-n rounds of one
// booking (POST /api/v1/appointments) and then one series of 12 weekly
// occurrences (POST /api/v1/appointment-series), each by a new customer
// (an e-mail address of its own) with its own Idempotency-Key, the staff
// member pinned and enforceBookingRules false, at times nothing else
// books (layout.seriesRound), so every answer must be 201.
//
// slotd's CPU is read around each request, not around a batch of each
// kind: /proc/PID/stat counts in 10 ms ticks, more than a booking costs,
// so the harness reads the same total (user + system time of every
// thread) from the process's CPU-time clock (clock_getcpuclockid(3)) in
// nanoseconds, and falls back to /proc/PID/stat where that clock cannot
// be read. A request's CPU runs from just before it is sent until slotd
// is quiet again after the answer (its CPU clock advancing at most
// settleQuiet in a settleWindow), so that what the answer set going
// (the e-mail, written to DATA/outbox after the 201) counts for it and
// not for the next request, of the other kind. Alternating keeps both
// kinds under the same conditions (heap, journal, Pebble's compactions)
// as they drift over the phase. A garbage collection is forced first, so
// that the phase's allocation hardly reaches the next one (the cycles
// that still happen are counted per kind), and slotd is waited for until
// it is idle, so that no work of an earlier phase counts for a request.

const (
	seriesRule   = "FREQ=WEEKLY;COUNT=12"
	settleWindow = 2 * time.Millisecond
	settleQuiet  = 50 * time.Microsecond
	settleCap    = 200 * time.Millisecond
	// Before the phase, slotd is waited for until it uses at most
	// quietPercent of a core over half a second, for at most quietWait.
	quietPercent = 1.0
	quietWait    = time.Minute
)

// seriesKinds are the two requests of a round, in the order they are
// sent, and the names of their phases.
var seriesKinds = [2]struct{ name, phase, title string }{
	{"single", "series-single", "one booking"},
	{"series", "series-12", "a series of 12 weekly occurrences"},
}

// cpuReader reads slotd's CPU so far: user and system time of the whole
// process.
type cpuReader struct {
	name string
	read func() (time.Duration, error)
}

func slotdCPUReader(pid int) cpuReader {
	if read, ok := processCPUClock(pid); ok {
		return cpuReader{name: "the process's CPU-time clock (clock_getcpuclockid), ns", read: read}
	}
	return cpuReader{name: "/proc/PID/stat utime + stime, 10 ms ticks", read: func() (time.Duration, error) { return proc.CPU(pid) }}
}

// settle waits until slotd is quiet: until its CPU advanced at most
// settleQuiet over settleWindow, or settleCap passed. It returns the CPU
// then and whether slotd went quiet.
func settle(cpu cpuReader) (time.Duration, bool, error) {
	start := time.Now()
	prev, err := cpu.read()
	if err != nil {
		return 0, false, err
	}
	for {
		time.Sleep(settleWindow)
		cur, err := cpu.read()
		if err != nil {
			return 0, false, err
		}
		if cur-prev <= settleQuiet {
			return cur, true, nil
		}
		if time.Since(start) >= settleCap {
			return cur, false, nil
		}
		prev = cur
	}
}

// seriesOutcome is one kind's requests, as they add up.
type seriesOutcome struct {
	latencies []time.Duration
	cpus      []time.Duration // each request's
	toAnswer  time.Duration   // the CPU until the answers, summed
	statuses  map[int]int64
	failures  map[string]int64
	cpu, gc   time.Duration
	cycles    int64
	unsettled int
	malformed int64
	firstErr  string
}

func (h *harness) seriesPhase(ctx context.Context, s *slotd, l *layout) error {
	if !h.opt.Series {
		h.progress("series phase skipped (-series=false)")
		return nil
	}
	n := h.opt.SeriesN
	sp := &SeriesPhase{Rounds: n, Rule: seriesRule, Occurrences: seriesWeeks, WholeCPUSeconds: -1}
	h.rep.Series = sp
	u, err := url.Parse(s.base)
	if err != nil {
		return err
	}
	client := &fasthttp.HostClient{Addr: u.Host, MaxConns: 1, MaxIdemponentCallAttempts: 1, Name: "slotd-harness"}
	defer client.CloseIdleConnections()
	cpu := slotdCPUReader(s.p.PID())
	sp.CPUClock = cpu.name

	// A forced GC, then slotd's CPU while nothing is asked of it.
	if status, body, err := get(ctx, s.admin+"/debug/pprof/heap?gc=1", ""); err != nil || status != 200 {
		h.progress("series: no forced GC before the phase (status %d, %v): %.200s", status, err, body)
	}
	// What the phases before set going (Pebble's compactions, say) would
	// count for whichever request it overlapped.
	waited := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		idle, err := idleCPU(cpu, 500*time.Millisecond)
		if err != nil {
			return err
		}
		sp.IdleCPUPercent = idle
		if idle <= quietPercent || time.Since(waited) >= quietWait {
			break
		}
	}
	sp.QuietWaitSeconds = time.Since(waited).Seconds()
	h.progress("series: %d rounds of one booking and one series of %d (%s), one connection; slotd's CPU from %s; slotd idle at %.2f %% of a core after %.1fs",
		n, seriesWeeks, seriesRule, cpu.name, sp.IdleCPUPercent, sp.QuietWaitSeconds)

	var out [2]seriesOutcome
	for i := range out {
		out[i] = seriesOutcome{statuses: map[int]int64{}, failures: map[string]int64{}}
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	wholeCPU, wholeErr := proc.CPU(s.p.PID())
	self := proc.SelfCPU()
	machine0, machineErr := proc.MachineCPU()
	start := time.Now()
	for k := range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, sm, day := l.seriesRound(k)
		for kind := range seriesKinds {
			prepareSeriesRequest(req, s.base, l, h.opt.Seed, k, kind, b, sm, day)
			o := &out[kind]
			gc0, cycles0 := s.gc.snapshot()
			c0, err := cpu.read()
			if err != nil {
				return err
			}
			t := time.Now()
			err = client.DoTimeout(req, resp, h.opt.Timeout)
			took := time.Since(t)
			cAnswer, cerr := cpu.read()
			if cerr != nil {
				return cerr
			}
			c1, quiet, cerr := settle(cpu)
			if cerr != nil {
				return cerr
			}
			gc1, cycles1 := s.gc.snapshot()
			o.cpu += c1 - c0
			o.toAnswer += cAnswer - c0
			o.cpus = append(o.cpus, c1-c0)
			o.gc += gc1 - gc0
			o.cycles += cycles1 - cycles0
			if !quiet {
				o.unsettled++
			}
			if err != nil {
				reason := "error"
				if errors.Is(err, fasthttp.ErrTimeout) {
					reason = "timeout"
				}
				o.failures[reason]++
				if o.firstErr == "" {
					o.firstErr = err.Error()
				}
				continue
			}
			o.latencies = append(o.latencies, took)
			o.statuses[resp.StatusCode()]++
			if resp.StatusCode() != 201 {
				if len(sp.UnexpectedAnswers) < 5 {
					sp.UnexpectedAnswers = append(sp.UnexpectedAnswers, fmt.Sprintf("%s, round %d: %d %.300s", seriesKinds[kind].name, k, resp.StatusCode(), resp.Body()))
				}
			} else if want := []int{1, seriesWeeks}[kind]; !answerBooks(resp.Body(), kind, want) {
				o.malformed++
				if len(sp.UnexpectedAnswers) < 5 {
					sp.UnexpectedAnswers = append(sp.UnexpectedAnswers, fmt.Sprintf("%s, round %d: 201 without %d appointments: %.300s", seriesKinds[kind].name, k, want, resp.Body()))
				}
			}
		}
	}
	elapsed := time.Since(start)
	sp.Seconds = elapsed.Seconds()
	if after, err := proc.CPU(s.p.PID()); err == nil && wholeErr == nil {
		sp.WholeCPUSeconds = (after - wholeCPU).Seconds()
	}
	other, steal := -1.0, -1.0
	if machine1, err := proc.MachineCPU(); err == nil && machineErr == nil && sp.WholeCPUSeconds >= 0 {
		busy := (machine1.Busy - machine0.Busy).Seconds() - sp.WholeCPUSeconds - (proc.SelfCPU() - self).Seconds()
		other, steal = max(0, busy)/elapsed.Seconds(), (machine1.Steal-machine0.Steal).Seconds()/elapsed.Seconds()
	}
	for kind, o := range out {
		sum := loadgen.Summary{Connections: 1, Elapsed: elapsed, Expected: 201, Statuses: o.statuses,
			Latency: loadgen.LatencyOf(o.latencies), FirstErr: o.firstErr, Failures: o.failures}
		for code, c := range o.statuses {
			sum.Requests += c
			if code != 201 {
				sum.Errors += c
			}
		}
		for _, c := range o.failures {
			sum.Requests += c
			sum.Errors += c
		}
		p := phaseOf(seriesKinds[kind].phase, "series phase: "+seriesKinds[kind].title+", one connection, alternating", "slotd", sum)
		p.ServerCPUSeconds = o.cpu.Seconds()
		if p.Requests > 0 {
			p.ServerCPUPerReqUS = p.ServerCPUSeconds * 1e6 / float64(p.Requests)
		}
		if o.cpu > 0 {
			p.GCSharePercent = 100 * float64(o.gc) / float64(o.cpu)
		}
		p.GCCycles = o.cycles
		p.OtherCPUCores, p.StealCores = other, steal
		h.rep.Phases = append(h.rep.Phases, p)
		k := SeriesKind{Requests: p.Requests, Non201: p.Errors, Malformed: o.malformed, Latency: p.Latency,
			CPUSeconds: p.ServerCPUSeconds, CPUPerRequestUS: p.ServerCPUPerReqUS, GCCycles: o.cycles, GCCPUSeconds: o.gc.Seconds(),
			Unsettled: o.unsettled, MedianCPUUS: float64(loadgen.LatencyOf(o.cpus).P50) / 1e3}
		if p.Requests > 0 {
			k.CPUToAnswerUS = float64(o.toAnswer) / 1e3 / float64(p.Requests)
		}
		if kind == 0 {
			sp.Single = k
		} else {
			sp.Series = k
		}
	}
	sp.ratios()
	h.progress("series: one booking p50 %s p99 %s, %.0f µs CPU (median %.0f, %.0f until the answer); a series of %d p50 %s p99 %s, %.0f µs CPU (median %.0f, %.0f until the answer): %.2f× the CPU (medians %.2f×, until the answer %.2f×), %.2f× the median latency; %d + %d answers other than 201%s",
		msText(sp.Single.Latency.P50), msText(sp.Single.Latency.P99), sp.Single.CPUPerRequestUS, sp.Single.MedianCPUUS, sp.Single.CPUToAnswerUS, seriesWeeks,
		msText(sp.Series.Latency.P50), msText(sp.Series.Latency.P99), sp.Series.CPUPerRequestUS, sp.Series.MedianCPUUS, sp.Series.CPUToAnswerUS,
		sp.CPURatio, sp.MedianCPURatio, sp.ToAnswerCPURatio, sp.LatencyRatio, sp.Single.Non201, sp.Series.Non201, seriesNotes(sp))
	if len(sp.UnexpectedAnswers) > 0 {
		h.progress("series: unexpected answers, e.g. %s", sp.UnexpectedAnswers[0])
	}
	return nil
}

// seriesNotes is what may disturb the phase's CPU figures, for the
// progress line.
func seriesNotes(sp *SeriesPhase) string {
	s := fmt.Sprintf("; GC cycles %d + %d (gctrace: %.0f + %.0f ms)", sp.Single.GCCycles, sp.Series.GCCycles, 1e3*sp.Single.GCCPUSeconds, 1e3*sp.Series.GCCPUSeconds)
	if u := sp.Single.Unsettled + sp.Series.Unsettled; u > 0 {
		s += fmt.Sprintf("; %d requests after which slotd did not go quiet within %s", u, settleCap)
	}
	return s
}

// idleCPU is slotd's CPU over d while nothing is asked of it, in percent
// of a core.
func idleCPU(cpu cpuReader, d time.Duration) (float64, error) {
	c0, err := cpu.read()
	if err != nil {
		return 0, err
	}
	t := time.Now()
	time.Sleep(d)
	c1, err := cpu.read()
	if err != nil {
		return 0, err
	}
	return 100 * float64(c1-c0) / float64(time.Since(t)), nil
}

// prepareSeriesRequest makes req round k's booking (kind 0) or series
// (kind 1), each by a customer of its own with a key of its own.
func prepareSeriesRequest(req *fasthttp.Request, base string, l *layout, seed uint64, k, kind, b, sm int, day time.Time) {
	req.Reset()
	req.Header.SetMethod("POST")
	req.Header.SetContentType("application/json")
	req.Header.Set("Authorization", l.bearer[b])
	name := seriesKinds[kind].name
	req.Header.Set("Idempotency-Key", fmt.Sprintf("series-%d-%d-%s", seed, k, name))
	start := day.Add(seriesHour * time.Hour)
	path := "/api/v1/appointments"
	if kind == 1 {
		start = start.Add(30 * time.Minute)
		path = "/api/v1/appointment-series"
	}
	req.SetRequestURI(base + path)
	req.SetBody(seriesBody(nil, l, b, sm, start, kind == 1, fmt.Sprintf("%s%d.k%d.b%d@bench.example", name, seed, k, b)))
}

// seriesBody is the body of a booking of the Cut service at start,
// pinned to staff member sm, by a new customer, or with series of a
// series of 12 weekly occurrences from start.
func seriesBody(dst []byte, l *layout, b, sm int, start time.Time, series bool, email string) []byte {
	dst = append(dst, `{"serviceId":"`...)
	dst = appendUUID(dst, l.serviceID(b, 0))
	dst = append(dst, `","staffMemberId":"`...)
	dst = appendUUID(dst, l.staffID(b, sm))
	dst = append(dst, `","startTime":"`...)
	dst = start.UTC().AppendFormat(dst, time.RFC3339)
	dst = append(dst, '"')
	if series {
		dst = append(dst, `,"rule":"`+seriesRule+`"`...)
	}
	dst = append(dst, `,"enforceBookingRules":false,"customer":{"firstName":"Series","email":`...)
	dst = strconv.AppendQuote(dst, email)
	return append(dst, `}}`...)
}

// answerBooks checks a 201's body: a booking's names its appointment,
// a series' holds want occurrences.
func answerBooks(body []byte, kind, want int) bool {
	if kind == 0 {
		_, ok := appointmentID(body)
		return ok
	}
	var a struct {
		Occurrences []struct {
			ID string `json:"id"`
		} `json:"occurrences"`
	}
	return json.Unmarshal(body, &a) == nil && len(a.Occurrences) == want
}
