package storage

import (
	"bytes"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// benchRec is a typical ~200-byte journal record.
var benchRec = bytes.Repeat([]byte("r"), 200)

func openBench(b *testing.B) *Store {
	b.Helper()
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

func reportCommits(b *testing.B, s *Store, before Stats, elapsed time.Duration) {
	st := s.Stats()
	commits := st.Commits - before.Commits
	b.ReportMetric(float64(commits)/elapsed.Seconds(), "commits/s")
	if syncs := st.WALSyncs - before.WALSyncs; syncs > 0 {
		b.ReportMetric(float64(commits)/float64(syncs), "commits/fsync")
	}
}

// BenchmarkAppend: one tenant, one record per synced commit. Every op pays
// a full fsync, so this measures the disk's sync latency more than Pebble.
func BenchmarkAppend(b *testing.B) {
	s := openBench(b)
	biz := bizID(1)
	before := s.Stats()
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRec)))
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		bt := s.NewBatch()
		bt.Append(biz, uint64(i+1), benchRec)
		if err := bt.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	reportCommits(b, s, before, elapsed)
}

// BenchmarkAppendParallel: ~64 tenants, each committing synced single-record
// batches from its own goroutine. Group commit lets them share fsyncs.
func BenchmarkAppendParallel(b *testing.B) {
	s := openBench(b)
	var next atomic.Uint32
	before := s.Stats()
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRec)))
	// RunParallel starts parallelism*GOMAXPROCS goroutines.
	b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		biz := bizID(int(next.Add(1)))
		var seq uint64
		for pb.Next() {
			seq++
			bt := s.NewBatch()
			bt.Append(biz, seq, benchRec)
			if err := bt.Commit(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(next.Load()), "writers")
	reportCommits(b, s, before, elapsed)
}

// BenchmarkReplay: replaying a 10k-record journal, as an actor does when it
// starts. The journal is flushed to an sstable first, which is the common
// case for a business that hasn't been touched since the last restart.
func BenchmarkReplay(b *testing.B) {
	const records = 10_000
	s := openBench(b)
	biz := bizID(1)
	bt := s.NewBatch()
	for seq := uint64(1); seq <= records; seq++ {
		bt.Append(biz, seq, benchRec)
	}
	if err := bt.Commit(); err != nil {
		b.Fatal(err)
	}
	if err := s.db.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(records * int64(len(benchRec)))
	b.ResetTimer()
	for range b.N {
		n := 0
		if err := s.Replay(biz, 0, func(seq uint64, rec []byte) error {
			n++
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if n != records {
			b.Fatalf("replayed %d records, want %d", n, records)
		}
	}
	b.ReportMetric(float64(b.N)*records/b.Elapsed().Seconds(), "records/s")
}
