package storage

import (
	"math"
	"sort"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The journal's metrics. Commits are counted and timed where they happen
// (Batch.Commit, Pending.Wait); WAL syncs and their latency are Pebble's
// own WAL fsync histogram, read when scraped. Together they show group
// commit at work: commits per WAL sync above 1 means concurrent writers
// (one busy business's pipelined writes, or several businesses) share
// fsyncs.

// commitBuckets are the bounds of the commit latency histogram, in
// seconds: a synced commit takes from tens of microseconds (a fast disk
// answering from its cache) to seconds (a stalled disk).
var commitBuckets = []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

func newCommitLatency() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "slotd_journal_commit_duration_seconds",
		Help:    "Time from handing a journal batch to Pebble (Commit or CommitNoWait) until it is durable, for batches that became durable.",
		Buckets: commitBuckets,
	})
}

// fsyncBuckets are the bounds, in seconds, at which Pebble's fsync
// histogram is exported. Pebble keeps 100 buckets (nanoseconds: every
// 100 µs up to 5 ms, then 50 exponential ones to 10 s); /metrics shows, for
// each bound here, Pebble's largest bucket bound at or below it, so every
// exported count is exact for its le.
var fsyncBuckets = []float64{.0001, .0002, .0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

var (
	descCommits = prometheus.NewDesc("slotd_journal_commits_total",
		"Non-empty journal batches made durable (each synced to the WAL).", nil, nil)
	descCommitSeconds = prometheus.NewDesc("slotd_journal_commit_seconds_total",
		"Time spent waiting for journal commits to be durable, summed over all committers (with group commit it can exceed elapsed time).", nil, nil)
	descWALSyncs = prometheus.NewDesc("slotd_journal_wal_syncs_total",
		"WAL fsyncs Pebble performed; below slotd_journal_commits_total by what group commit saved.", nil, nil)
	descWALFsync = prometheus.NewDesc("slotd_journal_wal_fsync_duration_seconds",
		"Latency of Pebble's WAL fsyncs.", nil, nil)
	descWritable = prometheus.NewDesc("slotd_journal_writable",
		"1 while writes can be made durable; 0 while they are refused (disk nearly full, or the journal failed: see /readyz's reason).", nil, nil)
	descDiskFree = prometheus.NewDesc("slotd_disk_free_bytes",
		"Free bytes of the data directory's volume at the last measurement (0 when it cannot tell).", nil, nil)
	descDiskReserve = prometheus.NewDesc("slotd_disk_reserve_bytes",
		"Free bytes kept on the data directory's volume: below it writes are refused (--disk-reserve).", nil, nil)
	descCommitsPerSync = prometheus.NewDesc("slotd_journal_commits_per_wal_sync",
		"Journal commits per WAL fsync since start (0 before the first sync); rate(slotd_journal_commits_total) / rate(slotd_journal_wal_syncs_total) is the current figure.", nil, nil)
)

// Collector returns the collector of the journal's metrics; register it
// once. It is safe to scrape at any time, also after Close.
func (s *Store) Collector() prometheus.Collector { return storeCollector{s} }

type storeCollector struct{ s *Store }

func (c storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descCommits
	ch <- descCommitSeconds
	ch <- descWALSyncs
	ch <- descWALFsync
	ch <- descCommitsPerSync
	ch <- descWritable
	ch <- descDiskFree
	ch <- descDiskReserve
	c.s.commitLatency.Describe(ch)
}

func (c storeCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.Stats()
	ch <- prometheus.MustNewConstMetric(descCommits, prometheus.CounterValue, float64(st.Commits))
	ch <- prometheus.MustNewConstMetric(descCommitSeconds, prometheus.CounterValue, float64(st.CommitNanos)/1e9)
	ch <- prometheus.MustNewConstMetric(descWALSyncs, prometheus.CounterValue, float64(st.WALSyncs))
	ratio := 0.0
	if st.WALSyncs > 0 {
		ratio = float64(st.Commits) / float64(st.WALSyncs)
	}
	ch <- prometheus.MustNewConstMetric(descCommitsPerSync, prometheus.GaugeValue, ratio)
	ch <- c.s.fsyncHistogram()
	ch <- c.s.commitLatency
	h := c.s.Health()
	writable := 0.0
	if h.Writable {
		writable = 1
	}
	ch <- prometheus.MustNewConstMetric(descWritable, prometheus.GaugeValue, writable)
	ch <- prometheus.MustNewConstMetric(descDiskFree, prometheus.GaugeValue, float64(h.AvailBytes))
	ch <- prometheus.MustNewConstMetric(descDiskReserve, prometheus.GaugeValue, float64(h.ReserveBytes))
}

// fsyncHistogram is Pebble's WAL fsync histogram in seconds, on the
// bounds of fsyncBuckets (see there).
func (s *Store) fsyncHistogram() prometheus.Metric {
	var m dto.Metric
	var h *dto.Histogram
	if s.fsyncLatency != nil && s.fsyncLatency.Write(&m) == nil {
		h = m.Histogram
	}
	return rebucket(descWALFsync, h, fsyncBuckets, float64(time.Second))
}

// rebucket turns h, whose bounds are in units of unit (one second is unit),
// into a histogram with at most one bucket per bound of want (seconds):
// the largest bound of h at or below each. A nil h is an empty histogram.
func rebucket(desc *prometheus.Desc, h *dto.Histogram, want []float64, unit float64) prometheus.Metric {
	buckets := map[float64]uint64{}
	if h == nil {
		for _, b := range want {
			buckets[b] = 0
		}
		return prometheus.MustNewConstHistogram(desc, 0, 0, buckets)
	}
	src := h.GetBucket() // ascending upper bounds, cumulative counts
	bounds := make([]float64, len(src))
	for i, b := range src {
		bounds[i] = b.GetUpperBound() / unit
	}
	for _, w := range want {
		// the last source bound <= w (within rounding of the unit change)
		i := sort.Search(len(bounds), func(i int) bool { return bounds[i] > w*(1+1e-9) }) - 1
		if i < 0 || math.IsInf(bounds[i], 1) {
			continue
		}
		buckets[bounds[i]] = src[i].GetCumulativeCount()
	}
	return prometheus.MustNewConstHistogram(desc, h.GetSampleCount(), h.GetSampleSum()/unit, buckets)
}
