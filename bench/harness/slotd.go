package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/slotd/slotd/bench/proc"
)

// slotd is one slotd child process, driven only through its operator
// interface (decisions §1): flags, its HTTP listeners and the files it
// writes under --data.
type slotd struct {
	p       *proc.Proc
	data    string
	base    string // http://127.0.0.1:PORT, the public API
	admin   string // http://127.0.0.1:PORT, the admin listener
	started time.Time
	log     string // its stdout and stderr
	gc      *gcTrace
	// nextSlot is the first storm slot (layout.stormSlot) no workload has
	// asked this slotd for yet; only the harness's sequence of phases
	// touches it, one phase at a time.
	nextSlot int
}

// startReady starts slotd serve on data (loading world when it is not
// empty) on loopback ports, with the access log off (the harness measures
// the engine, and the access log costs a tenth of a cheap read), e-mail
// written to DATA/outbox unless extra (more flags) says --smtp, and waits
// until /readyz answers; ready is the time from the process's start.
// GODEBUG=gctrace=1 makes the Go runtime report each GC cycle's CPU time
// on stderr, which is how the harness measures GC's share of slotd's CPU
// from outside. Ports are picked free just before the start; if another
// process takes one in between (other tests run beside the harness's in
// CI), slotd exits saying it cannot listen and is started again on fresh
// ports.
func (h *harness) startReady(ctx context.Context, name, data, world string, extra ...string) (*slotd, time.Duration, error) {
	var lastErr error
	for range 3 {
		s, err := h.startSlotdOnce(name, data, world, extra)
		if err != nil {
			return nil, 0, err
		}
		ready, err := s.waitReady(ctx, h.opt.ReadyTimeout)
		if err == nil {
			return s, ready, nil
		}
		lastErr = err
		if !errors.Is(err, errCannotListen) {
			return nil, 0, err
		}
		h.progress("%s: %v; starting again on other ports", name, err)
	}
	return nil, 0, lastErr
}

var errCannotListen = errors.New("slotd could not listen")

func (h *harness) startSlotdOnce(name, data, world string, extra []string) (*slotd, error) {
	pub, err := freePort()
	if err != nil {
		return nil, err
	}
	adm, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--data", data, "--listen", pub, "--admin-listen", adm, "--access-log", "off"}
	if world != "" {
		args = append(args, "--world", world)
	}
	args = append(args, extra...)
	logPath := filepath.Join(h.tmp, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	s := &slotd{data: data, base: "http://" + pub, admin: "http://" + adm, log: logPath, gc: &gcTrace{}}
	cmd := exec.Command(h.bin.slotd, args...)
	cmd.Env = append(proc.Environ("SLOTD_", "GODEBUG="), "GODEBUG=gctrace=1")
	cmd.Stdout = logFile
	cmd.Stderr = &lineWriter{out: logFile, line: s.gc.observe}
	s.started = time.Now()
	if s.p, err = h.procs.Start(name, cmd, syscall.SIGTERM); err != nil {
		logFile.Close()
		return nil, err
	}
	// The file takes stderr's lines until the process and its copying
	// goroutine are done.
	go func() { <-s.p.Done(); logFile.Close() }()
	h.progress("%s: started slotd (pid %d) on %s, admin %s, data %s", name, s.p.PID(), s.base, s.admin, data)
	return s, nil
}

// waitReady polls /readyz until it answers 200, and returns the time from
// the start of the process. A world load keeps the listeners' backlog
// waiting, so each poll has its own short timeout and is repeated.
func (s *slotd) waitReady(ctx context.Context, deadline time.Duration) (time.Duration, error) {
	return s.poll(ctx, deadline, s.admin+"/readyz", "")
}

// waitAnswer polls an API URL until it answers 200, for the time to the
// first answer after a restart.
func (s *slotd) waitAnswer(ctx context.Context, deadline time.Duration, url, bearer string) (time.Duration, error) {
	return s.poll(ctx, deadline, url, bearer)
}

func (s *slotd) poll(ctx context.Context, deadline time.Duration, url, bearer string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
		if err != nil {
			return 0, err
		}
		if bearer != "" {
			req.Header.Set("Authorization", bearer)
		}
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(s.started), nil
			}
		}
		if s.p.Exited() {
			return 0, s.exitError()
		}
		select {
		case <-ctx.Done():
			if s.p.Exited() {
				return 0, s.exitError()
			}
			return 0, fmt.Errorf("slotd (pid %d) gave no 200 on %s within %s; its log: %s", s.p.PID(), url, deadline, s.log)
		case <-tick.C:
		case <-s.p.Done():
		}
	}
}

// exitError explains an early exit with the end of slotd's log.
func (s *slotd) exitError() error {
	tail := proc.LogTail(s.log, 2000)
	if strings.Contains(tail, "cannot listen") {
		return fmt.Errorf("%w: %s", errCannotListen, tail)
	}
	return fmt.Errorf("slotd (pid %d) exited: %v; the end of its log (%s):\n%s", s.p.PID(), s.p.Err(), s.log, tail)
}

// freePort returns a loopback address with a port nobody listens on now.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// lineWriter copies a child's output to a file and hands each complete
// line to line. exec's copying goroutine is its only caller.
type lineWriter struct {
	out     io.Writer
	line    func([]byte)
	partial []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	_, err := w.out.Write(p)
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.line(w.partial[:i])
		w.partial = w.partial[i+1:]
	}
	if len(w.partial) == 0 {
		w.partial = nil // let a long run's buffer go
	}
	return len(p), err
}

// gcTrace sums the CPU time of the GC cycles the Go runtime reports with
// GODEBUG=gctrace=1, lines like
//
//	gc 7 @2.031s 4%: 0.019+2.1+0.004 ms clock, 0.038+0.52/1.9/0.31+0.008 ms cpu, 40->41->20 MB, ...
//
// where the cpu figures are the stop-the-world sweep termination, the
// assist, background and idle mark work, and the stop-the-world mark
// termination. Sweeping, which allocation pays for as it goes, is not in
// them, so the share is a lower bound.
type gcTrace struct {
	cpuNanos atomic.Int64
	cycles   atomic.Int64
}

func (g *gcTrace) observe(line []byte) {
	if d, ok := parseGCLine(string(line)); ok {
		g.cpuNanos.Add(int64(d))
		g.cycles.Add(1)
	}
}

// snapshot is the GC CPU so far.
func (g *gcTrace) snapshot() (time.Duration, int64) {
	return time.Duration(g.cpuNanos.Load()), g.cycles.Load()
}

func parseGCLine(line string) (time.Duration, bool) {
	if !strings.HasPrefix(line, "gc ") {
		return 0, false
	}
	_, rest, ok := strings.Cut(line, " ms clock, ")
	if !ok {
		return 0, false
	}
	cpu, _, ok := strings.Cut(rest, " ms cpu")
	if !ok {
		return 0, false
	}
	var ms float64
	for f := range strings.FieldsFuncSeq(cpu, func(r rune) bool { return r == '+' || r == '/' }) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return 0, false
		}
		ms += v
	}
	return time.Duration(ms * float64(time.Millisecond)), true
}

// usage is slotd's CPU and GC CPU at one moment; two of them bracket a
// phase.
type usage struct {
	cpu, gc time.Duration
	cycles  int64
	ok      bool
}

func (s *slotd) usage() usage {
	cpu, err := proc.CPU(s.p.PID())
	gc, cycles := s.gc.snapshot()
	return usage{cpu: cpu, gc: gc, cycles: cycles, ok: err == nil}
}

// httpClient is for the harness's own calls (samples, the walk): a few
// keep-alive connections, never the load generator's.
var httpClient = &http.Client{
	Timeout:   30 * time.Second,
	Transport: &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true},
}

// get fetches url with an API key (none when bearer is "") and returns
// status and body.
func get(ctx context.Context, url, bearer string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return 0, nil, err
	}
	if bearer != "" {
		req.Header.Set("Authorization", bearer)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}
