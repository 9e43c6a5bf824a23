// Command harness is slotd's benchmark harness (issue 11): one command
// that builds slotd, writes a world, starts slotd as a child process and
// measures it from outside, through HTTP and the files it writes, against
// baselines measured in the same run on the same machine.
//
// # Usage
//
//	go run ./bench/harness [-json FILE] [-svg FILE] [flags]
//
// In one run it:
//
//   - builds ./cmd/slotd, ./bench/static and ./bench/smtpsink into a
//     temporary directory;
//   - streams out a world file (-businesses × -staff, -appointments booked
//     per business, keys whose limits no request reaches) and starts slotd
//     on a fresh data directory with --world, --access-log off and e-mail
//     to DATA/outbox, on loopback ports, and waits for /readyz;
//   - measures the denominators, bench/static answering "Hello, World!" and
//     bench/static answering the bytes of a typical 7-day availability
//     answer; then the rotating 7-day × all-staff availability workload
//     (-queries distinct queries, so the answer memo never hits) and a
//     1-day, one-staff workload over every distinct query;
//   - runs the mixed phase (-mixed-c connections for -mixed-d: nine reads
//     of both kinds, none asked before, to one booking), reads and
//     bookings measured apart;
//   - runs the PostgreSQL baseline (an exclusion-constraint bookings table,
//     pgbench with each of -pg-clients) when initdb and pgbench are on
//     PATH;
//   - runs the durable booking storm (-storm-c connections, every request a
//     free slot with its own Idempotency-Key), measures how long until
//     DATA/outbox holds every e-mail it caused; then the new-customer
//     storm (-storm-new: as long, as many connections, the next free
//     slots, every booking by a customer with an address of its own) and
//     its outbox the same way; runs the contention race (-race-clients on
//     each of -race-slots slots), and walks every touched staff member's
//     appointments through the API, counting overlapping pairs and
//     acknowledged bookings (the mixed phase's and both storms' too) that
//     are missing;
//   - runs the series phase (-series-n rounds on one connection: one
//     booking, then a series of 12 weekly occurrences, each by a new
//     customer): slotd's CPU per request and latency of each, and the
//     series' over the booking's;
//   - runs the PostgreSQL baseline again (fsync drifts: the best run
//     counts);
//   - runs the storm again for -smtp-storm-d against a second slotd on the
//     main world, sending its e-mail over SMTP to bench/smtpsink in a
//     process of its own: bookings/s, latency, and how long until the sink
//     holds every confirmation;
//   - loads a second, large world (-load-appointments over -load-businesses)
//     into a fresh slotd: time to ready and RSS; then kill -9 and a restart:
//     time to the first answer;
//   - writes a world of -tenancy-businesses small businesses into a data
//     directory through slotd, restarts slotd on it without --world and
//     with --max-resident -tenancy-max-resident: RSS before any request;
//     then one request each to -tenancy-touch random businesses: each
//     first answer's latency, RSS after them, and the businesses resident
//     (slotd_businesses_resident); then restarts it with --idle-after 30s,
//     touches -tenancy-idle-touch random businesses in a burst and reads
//     RSS every 5 s for up to 2m30s: how long until it is back within
//     50 MiB of where it started.
//
// During the storms and the 7-day availability phase it takes CPU
// profiles of slotd from its admin listener and reports their shares
// (-profile).
// Progress goes to stderr; the table (Markdown, one line per figure with
// its baseline, ratio, target and result) and the summary line to stdout. Every process it starts is stopped by its
// PID, also on Ctrl-C or failure; it talks to loopback only.
// docs/PERFORMANCE.md keeps the latest full-size table.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/slotd/slotd/bench/proc"
)

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}

// run is main without the process globals. Exit codes: 0 when the run
// completed (targets missed are results, not failures of the harness),
// 1 when it could not complete, 2 on bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opt, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return 2
	}
	var rep *Report
	if opt.From != "" {
		rep, err = readReport(opt.From)
	} else {
		rep, err = Run(ctx, opt, stderr)
	}
	if rep != nil {
		writeTable(stdout, rep)
		if werr := writeOutputs(opt, rep); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "harness:", err)
		return 1
	}
	return 0
}

// readReport reads a -json report, to draw its table and chart again.
func readReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	h := &harness{}
	if err := json.Unmarshal(b, &h.rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	h.evaluate() // with this build's rows and targets
	return &h.rep, nil
}

// writeOutputs writes -json and -svg.
func writeOutputs(opt Options, rep *Report) error {
	var errs []error
	if opt.JSON != "" && opt.From == "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = os.WriteFile(opt.JSON, append(b, '\n'), 0o644)
		}
		errs = append(errs, err)
	}
	if opt.SVG != "" {
		errs = append(errs, os.WriteFile(opt.SVG, chartSVG(rep), 0o644))
	}
	return errors.Join(errs...)
}

// harness is one run's state.
type harness struct {
	opt   Options
	out   io.Writer // progress
	start time.Time
	tmp   string
	procs proc.Group
	bin   struct{ slotd, static, sink string }
	rep   Report

	// What the mixed phase, the storm and the race acknowledged, for the
	// walk.
	mixedAcks, stormAcks, stormNewAcks, raceAcks *acks
	pg                                           *pgCluster // the PostgreSQL baseline's cluster, once made
	world                                        string     // the main world's file
}

// Run performs a whole run. It returns the report so far even when a
// phase fails, so that what was measured is still shown.
func Run(ctx context.Context, opt Options, progress io.Writer) (*Report, error) {
	h := &harness{opt: opt, out: progress, start: time.Now(), mixedAcks: &acks{}, stormAcks: &acks{}, stormNewAcks: &acks{}, raceAcks: &acks{}}
	h.rep = Report{Started: h.start, Options: opt, Machine: machine()}
	tmp, err := os.MkdirTemp(opt.TempDir, "slotd-harness-")
	if err != nil {
		return nil, err
	}
	h.tmp = tmp
	defer h.cleanup()
	err = h.run(ctx)
	if ctx.Err() != nil {
		err = errors.Join(err, fmt.Errorf("interrupted: %w", context.Cause(ctx)))
	}
	h.rep.Seconds = time.Since(h.start).Seconds()
	h.evaluate()
	return &h.rep, err
}

// cleanup stops every child by PID and removes the run's directory.
func (h *harness) cleanup() {
	h.procs.StopAll(30 * time.Second)
	if err := h.pgRemove(); err != nil {
		h.progress("removing the PostgreSQL cluster: %v", err)
	}
	if h.opt.Keep {
		h.progress("kept %s", h.tmp)
		return
	}
	h.progress("removing %s", h.tmp)
	if err := os.RemoveAll(h.tmp); err != nil {
		h.progress("removing %s: %v", h.tmp, err)
	}
}

func (h *harness) progress(format string, args ...any) {
	fmt.Fprintf(h.out, "[%7.1fs] %s\n", time.Since(h.start).Seconds(), fmt.Sprintf(format, args...))
}

// run is the sequence of phases. Each phase's figures land in h.rep as
// soon as they are known.
func (h *harness) run(ctx context.Context) error {
	h.progress("building slotd, bench/static and bench/smtpsink")
	if err := h.build(ctx); err != nil {
		return err
	}
	l, err := newLayout(h.opt.mainWorld())
	if err != nil {
		return err
	}
	s, err := h.startMain(ctx, l)
	if err != nil {
		return err
	}
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"read phases", func(ctx context.Context) error { return h.readPhases(ctx, s, l) }},
		{"mixed phase", func(ctx context.Context) error { return h.mixed(ctx, s, l) }},
		{"PostgreSQL before the storm", func(ctx context.Context) error { return h.postgres(ctx, l, "before") }},
		{"disk probe", h.diskProbe},
		{"booking storm", func(ctx context.Context) error { return h.storm(ctx, s, l) }},
		{"new-customer storm", func(ctx context.Context) error { return h.stormNew(ctx, s, l) }},
		{"contention race", func(ctx context.Context) error { return h.race(ctx, s, l) }},
		{"walk", func(ctx context.Context) error { return h.walk(ctx, s, l) }},
		{"series phase", func(ctx context.Context) error { return h.seriesPhase(ctx, s, l) }},
		{"PostgreSQL after the storm", func(ctx context.Context) error { return h.postgres(ctx, l, "after") }},
		{"stop slotd", func(context.Context) error { return h.stopSlotd(s, "main") }},
		{"SMTP storm", func(ctx context.Context) error { return h.smtpStorm(ctx, l) }},
		{"load phase", h.loadPhase},
		{"tenancy phase", h.tenancy},
	}
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.fn(ctx); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
	}
	return nil
}

// startMain writes the main world and starts slotd on it.
func (h *harness) startMain(ctx context.Context, l *layout) (*slotd, error) {
	w := &h.rep.World
	*w = WorldInfo{Businesses: l.Businesses, Staff: l.Staff, Appointments: l.occupied(), Customers: l.Customers,
		WindowDays: l.WindowDays, BaseDay: l.base.Format("2006-01-02")}
	path := filepath.Join(h.tmp, "world.json")
	h.world = path
	h.progress("writing the world: %d businesses × %d staff, %d appointments", l.Businesses, l.Staff, l.occupied())
	t := time.Now()
	size, err := writeWorldFile(path, l)
	if err != nil {
		return nil, err
	}
	w.FileBytes, w.WriteSeconds = size, time.Since(t).Seconds()
	h.progress("world: %s in %.1fs", bytesText(size), w.WriteSeconds)
	s, ready, err := h.startReady(ctx, "slotd-main", filepath.Join(h.tmp, "data-main"), path)
	if err != nil {
		return nil, err
	}
	w.ReadySeconds = ready.Seconds()
	st, err := proc.Read(s.p.PID())
	if err != nil {
		return nil, err
	}
	w.RSSAfterLoad, w.HWMAfterLoad = st.RSS, st.HWM
	h.progress("slotd ready in %.1fs: RSS %s (peak %s)", w.ReadySeconds, bytesText(st.RSS), bytesText(st.HWM))
	return s, nil
}

// stopSlotd stops slotd as an operator would (SIGTERM; it drains and
// exits 0), allowing the 30 s the README asks for.
func (h *harness) stopSlotd(s *slotd, name string) error {
	took, clean := s.p.Terminate(30 * time.Second)
	if !clean {
		return fmt.Errorf("slotd (%s, pid %d) did not stop cleanly within 30 s after SIGTERM (%v); its log: %s", name, s.p.PID(), s.p.Err(), s.log)
	}
	h.progress("%s: slotd stopped cleanly in %.2fs", name, took.Seconds())
	return nil
}

func machine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			m.MemTotal = kb << 10
		}
	}
	return m
}

// bytesText renders a size in binary units.
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}
