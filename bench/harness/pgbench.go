package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/bench/loadgen"
)

// pgbench runs the insert script from clients clients for -pg-d and
// records it as a phase, with latencies from pgbench's per-transaction
// log.
func (h *harness) pgbench(ctx context.Context, c *pgCluster, name string, clients int) (*Phase, error) {
	h.progress("%s: pgbench, %d clients, %s", name, clients, h.opt.PostgresDur)
	prefix := filepath.Join(c.dir, name)
	secs := max(1, int(h.opt.PostgresDur.Round(time.Second)/time.Second))
	out, err := c.command(ctx, "pgbench", "-n", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(clients, 2)),
		"-T", strconv.Itoa(secs), "-f", filepath.Join(c.dir, "insert.sql"), "-l", "--log-prefix="+prefix,
		"-h", "127.0.0.1", "-p", c.port, "-U", "bench", "bench").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("pgbench: %w\n%s", err, out)
	}
	r, err := parsePgbench(string(out))
	if err != nil {
		return nil, err
	}
	lat, err := pgbenchLatencies(prefix)
	if err != nil {
		return nil, err
	}
	sum := loadgen.Summary{Connections: clients, Elapsed: time.Duration(secs) * time.Second, Expected: 0,
		Requests: r.processed + r.failed, Errors: r.failed, Latency: loadgen.LatencyOf(lat)}
	p := phaseOf(name, fmt.Sprintf("PostgreSQL exclusion-constraint inserts, pgbench %d clients", clients), "postgres", sum)
	p.RPS = r.tps // pgbench's own figure, without connection set-up
	p.Statuses = nil
	h.rep.Phases = append(h.rep.Phases, p)
	h.progress("%s: %.0f inserts/s, p50 %s p99 %s p99.9 %s max %s, failed %d", name, p.RPS,
		msText(p.Latency.P50), msText(p.Latency.P99), msText(p.Latency.P999), msText(p.Latency.Max), r.failed)
	return &h.rep.Phases[len(h.rep.Phases)-1], nil
}

type pgbenchResult struct {
	tps               float64
	processed, failed int64
}

// parsePgbench reads pgbench's report.
func parsePgbench(out string) (pgbenchResult, error) {
	var r pgbenchResult
	var haveTPS, haveN bool
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "tps = "):
			f := strings.Fields(line)
			if v, err := strconv.ParseFloat(f[2], 64); err == nil {
				r.tps, haveTPS = v, true
			}
		case strings.HasPrefix(line, "number of transactions actually processed:"):
			f := strings.Fields(strings.TrimPrefix(line, "number of transactions actually processed:"))
			if len(f) > 0 {
				v, err := strconv.ParseInt(strings.Split(f[0], "/")[0], 10, 64)
				r.processed, haveN = v, err == nil
			}
		case strings.HasPrefix(line, "number of failed transactions:"):
			f := strings.Fields(strings.TrimPrefix(line, "number of failed transactions:"))
			if len(f) > 0 {
				r.failed, _ = strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	if !haveTPS || !haveN {
		return r, fmt.Errorf("pgbench: no tps or transaction count in its report:\n%s", out)
	}
	return r, nil
}

// pgbenchLatencies reads pgbench's per-transaction logs (one file per
// thread, PREFIX.PID[.N]): the third field of a line is the transaction's
// latency in microseconds, or a word for one that failed.
func pgbenchLatencies(prefix string) ([]time.Duration, error) {
	files, err := filepath.Glob(prefix + ".*")
	if err != nil {
		return nil, err
	}
	var out []time.Duration
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 3 {
				continue
			}
			if us, err := strconv.ParseInt(fields[2], 10, 64); err == nil {
				out = append(out, time.Duration(us)*time.Microsecond)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
