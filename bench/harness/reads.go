package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/bench/loadgen"
	"github.com/slotd/slotd/bench/proc"
)

// The read phases: two static denominators and the two availability
// workloads, all closed loops of -c connections for -d each.

func (h *harness) readPhases(ctx context.Context, s *slotd, l *layout) error {
	if err := h.warm(ctx, s, l); err != nil {
		return err
	}
	week, err := h.sampleAnswer(ctx, s, l, "week-answer.json", func(k int) (string, int) {
		b, svc, from := l.sampleWeek(k)
		return slotsPath(l, b, svc, -1, from, 7*24*time.Hour), b
	})
	if err != nil {
		return err
	}
	h.rep.World.WeekAnswerBytes = len(week.body)
	day, err := h.sampleAnswer(ctx, s, l, "day-answer.json", func(k int) (string, int) {
		b, st, svc, from := l.sampleDay(k)
		return slotsPath(l, b, svc, st, from, 24*time.Hour-time.Minute), b
	})
	if err != nil {
		return err
	}
	h.rep.World.DayAnswerBytes = len(day.body)
	if err := h.staticPhase(ctx, "static-hello", "static hello world (bench/static)", ""); err != nil {
		return err
	}
	if err := h.staticPhase(ctx, "static-week", fmt.Sprintf("static, same bytes as a 7-day answer (%s)", bytesText(int64(len(week.body)))), week.file); err != nil {
		return err
	}
	if err := h.staticPhase(ctx, "static-day", fmt.Sprintf("static, same bytes as a 1-day answer (%s)", bytesText(int64(len(day.body)))), day.file); err != nil {
		return err
	}
	weekQ := func(seq uint64) (string, int) {
		b, svc, from := l.weekQuery(int(seq % uint64(h.opt.Queries)))
		return slotsPath(l, b, svc, -1, from, 7*24*time.Hour), b
	}
	title := fmt.Sprintf("availability 7 d × %d staff, rotating over %d queries", l.Staff, h.opt.Queries)
	if err := h.slotdReadPhase(ctx, s, l, "availability-week", title, weekQ, h.opt.Queries); err != nil {
		return err
	}
	dayQ := func(seq uint64) (string, int) {
		b, st, svc, from := l.dayQuery(int(seq % uint64(l.dayQueries())))
		return slotsPath(l, b, svc, st, from, 24*time.Hour), b
	}
	return h.slotdReadPhase(ctx, s, l, "availability-day", "availability 1 d, one staff member, uncached", dayQ, l.dayQueries())
}

// warm asks every business one small question outside the rotation before
// the read phases. A world load leaves no business in memory (each loads
// on its first request, as after a restart); without this the first read
// phase would measure 200 lazy loads as a stall of a second or more (p99.9
// 1.1 s, max 2.9 s in a run of 2026-11-27). First answers after a restart
// have a phase of their own (tenancy); the read phases measure a warm
// server.
func (h *harness) warm(ctx context.Context, s *slotd, l *layout) error {
	start := time.Now()
	sem := make(chan struct{}, 8)
	errs := make(chan error, l.Businesses)
	var wg sync.WaitGroup
	for b := range l.Businesses {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			// 03:00–04:00 of the sampled week's first day: closed, so an
			// empty answer, and a window no phase asks.
			_, _, from := l.sampleWeek(b)
			status, body, err := get(ctx, s.base+slotsPath(l, b, 0, -1, from.Add(3*time.Hour), time.Hour), l.bearer[b])
			if err == nil && status != 200 {
				err = fmt.Errorf("status %d: %.300s", status, body)
			}
			if err != nil {
				errs <- fmt.Errorf("warming business %d: %w", b, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	h.progress("warm: one question to each of %d businesses in %s (each loads on its first request)", l.Businesses, time.Since(start).Round(time.Millisecond))
	return nil
}

// slotsPath is the availability query of business b's service svc for
// [from, from+span) (the end is inclusive on start times, so one second
// less), for staff member staff or, when negative, everyone.
func slotsPath(l *layout, b, svc, staff int, from time.Time, span time.Duration) string {
	var sb strings.Builder
	sb.Grow(200)
	sb.WriteString("/api/v1/availability/slots?serviceId=")
	sb.WriteString(l.serviceID(b, svc).String())
	sb.WriteString("&from=")
	sb.WriteString(from.Format(time.RFC3339))
	sb.WriteString("&to=")
	sb.WriteString(from.Add(span - time.Second).Format(time.RFC3339))
	if staff >= 0 {
		sb.WriteString("&staffMemberId=")
		sb.WriteString(l.staffID(b, staff).String())
	}
	return sb.String()
}

// sampledAnswer is the median-sized answer of a few sample queries, and
// the file holding it for the static baseline.
type sampledAnswer struct {
	body []byte
	file string
}

// sampleAnswer fetches the answers of nine sample queries from outside the
// rotation (sample(k) gives the k-th path and its business) and keeps the
// median-sized one, written to name: the static baseline sends its bytes.
func (h *harness) sampleAnswer(ctx context.Context, s *slotd, l *layout, name string, sample func(k int) (string, int)) (sampledAnswer, error) {
	var bodies [][]byte
	for k := range 9 {
		path, b := sample(k)
		status, body, err := get(ctx, s.base+path, l.bearer[b])
		if err != nil {
			return sampledAnswer{}, err
		}
		if status != 200 {
			return sampledAnswer{}, fmt.Errorf("sample availability answer: status %d: %.300s", status, body)
		}
		bodies = append(bodies, body)
	}
	slices.SortFunc(bodies, func(a, b []byte) int { return len(a) - len(b) })
	a := sampledAnswer{body: bodies[len(bodies)/2], file: filepath.Join(h.tmp, name)}
	return a, os.WriteFile(a.file, a.body, 0o644)
}

// slotdReadPhase runs a GET workload against slotd whose n-th request asks
// what query(n) returns: a path and query, with the key of the business
// it names. distinct is how many different
// queries path makes: when the phase asks fewer, no answer is asked twice.
func (h *harness) slotdReadPhase(ctx context.Context, s *slotd, l *layout, name, title string, query func(uint64) (string, int), distinct int) error {
	h.progress("%s: %s, %d connections, %s", name, title, h.opt.Connections, h.opt.Duration)
	cfg := loadgen.Config{
		URL: s.base + "/", Method: "GET", Connections: h.opt.Connections, Duration: h.opt.Duration,
		Expect: 200, Timeout: h.opt.Timeout,
		Prepare: func(seq uint64, req *fasthttp.Request) {
			path, b := query(seq)
			req.SetRequestURI(s.base + path)
			req.Header.Set("Authorization", l.bearer[b])
		},
	}
	p, err := h.measure(ctx, phaseSpec{name: name, title: title, cfg: cfg, slotd: s, profile: strings.HasPrefix(name, "availability")})
	if err != nil {
		return err
	}
	p.UncachedGuaranteed = p.Requests <= int64(distinct)
	return nil
}

// staticPhase starts bench/static (hello world, or the bytes of
// bodyFile) on a free loopback port, loads it like slotd and stops it.
func (h *harness) staticPhase(ctx context.Context, name, title, bodyFile string) error {
	args := []string{"-listen", "127.0.0.1:0"}
	if bodyFile != "" {
		args = append(args, "-body-file", bodyFile)
	}
	// static prints "static: serving N bytes on http://ADDR/" once it listens.
	p, line, err := h.startAnnounced(ctx, name, h.bin.static, args, func(line string) bool { return strings.Contains(line, " on http://") })
	if err != nil {
		return err
	}
	defer p.Terminate(5 * time.Second)
	_, addr, _ := strings.Cut(line, " on http://")
	base := "http://" + strings.TrimSuffix(addr, "/")
	h.progress("%s: %s, %d connections, %s", name, title, h.opt.Connections, h.opt.Duration)
	_, err = h.measure(ctx, phaseSpec{name: name, title: title, server: p, cfg: loadgen.Config{
		URL: base + "/", Method: "GET", Connections: h.opt.Connections, Duration: h.opt.Duration,
		Expect: 200, Timeout: h.opt.Timeout,
	}})
	return err
}

// startAnnounced starts one of the bench programs that say on a line of
// their stdout where they listen, once they do, and returns it with that
// line (the first for which announces is true). Its output goes to
// TMP/NAME.log.
func (h *harness) startAnnounced(ctx context.Context, name, bin string, args []string, announces func(string) bool) (*proc.Proc, string, error) {
	logFile, err := os.Create(filepath.Join(h.tmp, name+".log"))
	if err != nil {
		return nil, "", err
	}
	lines := make(chan string, 1)
	var once sync.Once
	cmd := exec.Command(bin, args...)
	cmd.Stderr = logFile
	cmd.Stdout = &lineWriter{out: logFile, line: func(line []byte) {
		if announces(string(line)) {
			once.Do(func() { lines <- string(line) })
		}
	}}
	p, err := h.procs.Start(name, cmd, syscall.SIGTERM)
	if err != nil {
		logFile.Close()
		return nil, "", err
	}
	// The file takes the output until the process and its copying
	// goroutines are done.
	go func() { <-p.Done(); logFile.Close() }()
	select {
	case line := <-lines:
		return p, line, nil
	case <-p.Done():
		return nil, "", fmt.Errorf("%s exited: %v: %s", name, p.Err(), proc.LogTail(logFile.Name(), 500))
	case <-time.After(30 * time.Second):
		p.Terminate(5 * time.Second)
		return nil, "", fmt.Errorf("%s did not listen within 30 s", name)
	case <-ctx.Done():
		p.Terminate(5 * time.Second)
		return nil, "", ctx.Err()
	}
}
