package storage

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
)

// TestCollector: the journal's metrics count what the store did, through
// both commit paths, and register and scrape cleanly.
func TestCollector(t *testing.T) {
	s := openFS(t, vfs.NewMem())
	defer s.Close()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(s.Collector()))
	before := s.Stats().Commits

	commit(t, s, func(b *Batch) { b.Append(bizID(1), 1, []byte("a")) })
	b := s.NewBatch()
	b.Append(bizID(1), 2, []byte("b"))
	p, err := b.CommitNoWait()
	require.NoError(t, err)
	require.NoError(t, p.Wait())

	mfs, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		got[mf.GetName()] = mf
	}
	require.Equal(t, float64(before+2), got["slotd_journal_commits_total"].Metric[0].GetCounter().GetValue())
	require.Positive(t, got["slotd_journal_commit_seconds_total"].Metric[0].GetCounter().GetValue())
	syncs := got["slotd_journal_wal_syncs_total"].Metric[0].GetCounter().GetValue()
	require.Positive(t, syncs)
	require.Equal(t, float64(before+2)/syncs, got["slotd_journal_commits_per_wal_sync"].Metric[0].GetGauge().GetValue())
	lat := got["slotd_journal_commit_duration_seconds"].Metric[0].GetHistogram()
	require.Equal(t, before+2, lat.GetSampleCount(), "every durable commit is timed, the format row's at Open too")
	fs := got["slotd_journal_wal_fsync_duration_seconds"].Metric[0].GetHistogram()
	require.Equal(t, uint64(syncs), fs.GetSampleCount())
	require.NotEmpty(t, fs.GetBucket())

	// Scraping after Close still works.
	require.NoError(t, s.Close())
	_, err = reg.Gather()
	require.NoError(t, err)
	problems, err := testutil.CollectAndLint(s.Collector())
	require.NoError(t, err)
	require.Empty(t, problems)
}

// TestRebucket: every exported bucket is one of the source's, with its
// exact cumulative count, at or below the bound asked for.
func TestRebucket(t *testing.T) {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "x", Buckets: []float64{100e3, 200e3, 300e3, 5e6, 11e6}}) // ns
	for _, ns := range []float64{50e3, 150e3, 250e3, 4e6, 10e6, 20e6} {
		h.Observe(ns)
	}
	var m dto.Metric
	require.NoError(t, h.Write(&m))
	desc := prometheus.NewDesc("y", "y", nil, nil)
	out := rebucket(desc, m.Histogram, []float64{.0001, .00025, .005, .01, 1}, 1e9)
	var got dto.Metric
	require.NoError(t, out.Write(&got))
	gh := got.GetHistogram()
	require.EqualValues(t, 6, gh.GetSampleCount())
	require.InDelta(t, 0.03445, gh.GetSampleSum(), 1e-9)
	bounds := map[float64]uint64{}
	for _, b := range gh.GetBucket() {
		bounds[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	// .0001 -> 100 µs (1); .00025 -> 200 µs (2); .005 -> 5 ms (4);
	// .01 -> 5 ms again; 1 -> 11 ms (5).
	require.Equal(t, map[float64]uint64{.0001: 1, .0002: 2, .005: 4, .011: 5}, bounds)

	out = rebucket(desc, nil, []float64{.1, 1}, 1e9)
	require.NoError(t, out.Write(&got))
	require.Zero(t, got.GetHistogram().GetSampleCount())
}
