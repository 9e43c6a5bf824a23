package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The storm's tail and the disk (issue 43). Every booking waits for the
// WAL's fsync that covers it, so an fsync that takes 100 ms holds every
// booking in flight for 100 ms: with 64 connections, one such fsync puts 64
// answers into the top 0.1 % of a 40,000-booking storm. Two figures say
// whether the disk did that: the disk's own fsync, probed in a loop
// before the storms with nothing else running (DiskProbe), and slotd's
// WAL fsyncs during each storm, from its histogram
// (slotd_journal_wal_fsync_duration_seconds).

// DiskProbe is a plain write-and-fdatasync loop on the volume of slotd's
// data directory.
type DiskProbe struct {
	Seconds float64 `json:"seconds"`
	Syncs   int     `json:"syncs"`
	P50MS   float64 `json:"p50_ms"`
	P999MS  float64 `json:"p99_9_ms"`
	MaxMS   float64 `json:"max_ms"`
	// Stalls are the syncs that took at least stallMS.
	Stalls int `json:"stalls"`
}

// WALSyncs are slotd's WAL fsyncs during one phase.
type WALSyncs struct {
	Syncs int64 `json:"syncs"`
	// Slow are those above the histogram's bucket boundary nearest
	// below stallMS (SlowOverMS), SlowestMS the upper bound of the
	// highest bucket any reached.
	Slow       int64   `json:"slow"`
	SlowOverMS float64 `json:"slow_over_ms"`
	SlowestMS  float64 `json:"slowest_bucket_ms"`
}

// stallMS is what counts as a stall: the storm's p99.9 target.
const stallMS = targetStormP999MS

// probeDisk writes 4 KiB and fdatasyncs it, again and again, for d, in
// dir; what a WAL commit of one booking asks of the disk.
func probeDisk(ctx context.Context, dir string, d time.Duration) (*DiskProbe, error) {
	f, err := os.CreateTemp(dir, "fsync-probe-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 4096)
	var took []time.Duration
	start := time.Now()
	for time.Since(start) < d && ctx.Err() == nil {
		if _, err := f.Write(buf); err != nil {
			return nil, err
		}
		t := time.Now()
		if err := fdatasync(f); err != nil {
			return nil, err
		}
		took = append(took, time.Since(t))
	}
	if len(took) == 0 {
		return nil, ctx.Err()
	}
	slices.Sort(took)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	p := &DiskProbe{Seconds: time.Since(start).Seconds(), Syncs: len(took),
		P50MS: ms(took[len(took)/2]), P999MS: ms(took[len(took)*999/1000]), MaxMS: ms(took[len(took)-1])}
	for _, t := range took {
		if ms(t) >= stallMS {
			p.Stalls++
		}
	}
	return p, nil
}

// diskProbe runs probeDisk beside the main slotd's data directory.
func (h *harness) diskProbe(ctx context.Context) error {
	const d = 10 * time.Second
	h.progress("disk: a 4 KiB write and fdatasync in a loop, %s, in %s", d, h.tmp)
	p, err := probeDisk(ctx, h.tmp, d)
	if err != nil {
		h.progress("disk: probe failed: %v", err)
		return nil // a missing figure, not a failed run
	}
	h.rep.Disk = p
	h.progress("disk: %d syncs, p50 %.2f ms, p99.9 %.2f ms, max %.1f ms; %d took %.0f ms or more", p.Syncs, p.P50MS, p.P999MS, p.MaxMS, p.Stalls, stallMS)
	return nil
}

// fsyncHistogram reads slotd_journal_wal_fsync_duration_seconds from
// /metrics: each bucket's upper bound (seconds) and cumulative count.
func (s *slotd) fsyncHistogram(ctx context.Context) (map[float64]int64, error) {
	status, body, err := get(ctx, s.admin+"/metrics", "")
	if err != nil {
		return nil, err
	}
	if status != 200 {
		return nil, fmt.Errorf("/metrics: status %d", status)
	}
	return parseBuckets(string(body), "slotd_journal_wal_fsync_duration_seconds_bucket"), nil
}

// parseBuckets reads the buckets of histogram name from the Prometheus
// text format: le (+Inf as math.Inf) to cumulative count.
func parseBuckets(text, name string) map[float64]int64 {
	out := map[float64]int64{}
	for line := range strings.SplitSeq(text, "\n") {
		rest, ok := strings.CutPrefix(line, name+`{le="`)
		if !ok {
			continue
		}
		le, val, ok := strings.Cut(rest, `"} `)
		if !ok {
			continue
		}
		bound, err := strconv.ParseFloat(le, 64) // "+Inf" parses as +Inf
		n, err2 := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err == nil && err2 == nil {
			out[bound] = int64(n)
		}
	}
	return out
}

// walSyncs is what happened between two readings of the histogram.
func walSyncs(before, after map[float64]int64) *WALSyncs {
	if len(after) == 0 {
		return nil
	}
	bounds := make([]float64, 0, len(after))
	for b := range after {
		bounds = append(bounds, b)
	}
	slices.Sort(bounds)
	delta := func(b float64) int64 { return after[b] - before[b] }
	w := &WALSyncs{Syncs: delta(math.Inf(1))}
	below := 0.0 // the largest bound at most stallMS
	for _, b := range bounds {
		if b*1000 <= stallMS {
			below = b
		}
	}
	w.SlowOverMS = below * 1000
	w.Slow = w.Syncs - delta(below)
	prev := int64(0)
	for _, b := range bounds { // the highest bucket that gained a sync
		if d := delta(b); d > prev {
			w.SlowestMS = b * 1000
			prev = d
		}
	}
	return w
}

// walSyncsText says what the WAL's fsyncs did during a storm.
func walSyncsText(w *WALSyncs) string {
	if w == nil {
		return ""
	}
	slowest := "+Inf"
	if !math.IsInf(w.SlowestMS, 1) {
		slowest = fmt.Sprintf("%.0f ms", w.SlowestMS)
	}
	return fmt.Sprintf("; slotd's WAL fsyncs during it: %d, %d of them over %.0f ms (the slowest ≤ %s)", w.Syncs, w.Slow, w.SlowOverMS, slowest)
}

// diskText is the disk probe's figures for a row.
func diskText(p *DiskProbe) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("the disk's own fsync before the storms (4 KiB written and fdatasynced in a loop, %.0f s): p99.9 %.1f ms, max %.0f ms, %d of %d syncs ≥ %.0f ms",
		p.Seconds, p.P999MS, p.MaxMS, p.Stalls, p.Syncs, stallMS)
}
