package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/stretchr/testify/require"
)

// crashClone models a machine crash at this instant: the clone holds all
// synced data plus, with unsyncedPct > 0, a random subset of unsynced
// writes (torn WAL tails and all).
func crashClone(fs *vfs.MemFS, unsyncedPct int, rng *rand.Rand) *vfs.MemFS {
	return fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: unsyncedPct, RNG: rng})
}

// Each batch i writes a journal row to two businesses, a registry row and
// a meta row. After a crash a batch must be wholly present or wholly absent,
// and everything acknowledged before the crash must be present.
func TestCrashRecoveryAtomicity(t *testing.T) {
	for _, pct := range []int{0, 50, 100} {
		t.Run(fmt.Sprintf("unsynced=%d%%", pct), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(pct), 42))
			fs := vfs.NewCrashableMem()
			s := openFS(t, fs)
			defer s.Close()
			a, b := bizID(1), bizID(2)

			const batches = 60
			var clones []*vfs.MemFS
			var acked []int // batches acknowledged when clones[i] was taken
			for i := 1; i <= batches; i++ {
				commit(t, s, func(bt *Batch) {
					bt.Append(a, uint64(i), recFor(a, uint64(i)))
					bt.Append(b, uint64(i), recFor(b, uint64(i)))
					bt.PutBusiness(bizID(1000+i), []byte("registry"))
					bt.PutMeta(fmt.Sprintf("batch-%03d", i), []byte("ok"))
					if i%20 == 0 {
						bt.PutSnapshot(a, uint64(i), []byte("snap"))
						bt.TruncateJournal(a, uint64(i))
					}
				})
				if i%7 == 0 || i == batches {
					clones = append(clones, crashClone(fs, pct, rng))
					acked = append(acked, i)
				}
			}

			for ci, cfs := range clones {
				r := openFS(t, cfs)
				n := acked[ci] // with pct 0 exactly n; with unsynced data maybe more (never partial)
				present := func(i int) bool {
					_, ok, err := r.Meta(fmt.Sprintf("batch-%03d", i))
					require.NoError(t, err)
					return ok
				}
				got := 0
				for i := 1; i <= batches; i++ {
					if present(i) {
						require.Equal(t, got+1, i, "clone %d: batch %d present after a gap", ci, i)
						got = i
					}
				}
				require.GreaterOrEqual(t, got, n, "clone %d lost acknowledged batches", ci)
				if pct == 0 {
					require.Equal(t, n, got)
				}

				// Every other row kind must agree with the meta rows exactly.
				regs := 0
				require.NoError(t, r.Businesses(func([16]byte, []byte) error { regs++; return nil }))
				require.Equal(t, got, regs, "clone %d: registry rows", ci)
				bRows := replayAll(t, r, b, 0)
				require.Len(t, bRows, got, "clone %d: journal rows of b", ci)
				for j, rw := range bRows {
					require.Equal(t, row{uint64(j + 1), string(recFor(b, uint64(j+1)))}, rw)
				}
				snapSeq, _, _, err := r.Snapshot(a)
				require.NoError(t, err)
				require.Equal(t, uint64(got/20*20), snapSeq, "clone %d: snapshot", ci)
				aRows := replayAll(t, r, a, 0)
				require.Len(t, aRows, got-int(snapSeq), "clone %d: journal rows of a", ci)
				for j, rw := range aRows {
					require.Equal(t, snapSeq+uint64(j)+1, rw.seq)
				}
				last, err := r.LastSeq(a)
				require.NoError(t, err)
				require.Equal(t, uint64(got), last)
				require.NoError(t, r.Close())
			}
		})
	}
}

// Many tenant goroutines commit concurrently to their own businesses while
// crash clones are taken mid-flight. Every clone must contain, per business,
// a gap-free prefix of its journal at least as long as what had been
// acknowledged when the clone was taken; after the run the store must hold
// everything.
func TestConcurrentCommitsCrash(t *testing.T) {
	const (
		workers = 32
		perW    = 40
	)
	fs := vfs.NewCrashableMem()
	s := openFS(t, fs)

	var ackd [workers]atomic.Uint64
	type snap struct {
		fs    *vfs.MemFS
		floor [workers]uint64
	}
	var snaps []snap
	done := make(chan struct{})
	var cloner sync.WaitGroup
	cloner.Add(1)
	go func() {
		defer cloner.Done()
		rng := rand.New(rand.NewPCG(1, 2))
		var lastTotal uint64
		for len(snaps) < 8 {
			select {
			case <-done:
				return
			default:
			}
			var sn snap
			var total uint64
			for w := range workers {
				sn.floor[w] = ackd[w].Load()
				total += sn.floor[w]
			}
			if total < lastTotal+workers*perW/10 {
				runtime.Gosched()
				continue
			}
			lastTotal = total
			sn.fs = crashClone(fs, rng.IntN(101), rng)
			snaps = append(snaps, sn)
		}
	}()

	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			biz := bizID(w)
			for seq := uint64(1); seq <= perW; seq++ {
				b := s.NewBatch()
				if seq == 1 {
					b.PutBusiness(biz, []byte("biz"))
				}
				b.Append(biz, seq, bigRec(biz, seq))
				// A second row in the same batch, checked against the
				// journal after each crash: atomicity.
				b.PutMeta(fmt.Sprintf("w%02d", w), binary.BigEndian.AppendUint64(nil, seq))
				if err := b.Commit(); err != nil {
					t.Error(err)
					return
				}
				ackd[w].Store(seq)
			}
		}()
	}
	wg.Wait()
	close(done)
	cloner.Wait()
	st := s.Stats()
	require.Equal(t, uint64(workers*perW+1), st.Commits) // +1: the format row written by Open
	t.Logf("commits=%d wal syncs=%d clones=%d", st.Commits, st.WALSyncs, len(snaps))
	snaps = append(snaps, snap{fs: crashClone(fs, 0, nil), floor: [workers]uint64{}})
	for w := range workers {
		snaps[len(snaps)-1].floor[w] = perW
	}
	require.NoError(t, s.Close())

	for ci, sn := range snaps {
		r := openFS(t, sn.fs)
		for w := range workers {
			biz := bizID(w)
			rows := replayAll(t, r, biz, 0)
			require.GreaterOrEqual(t, len(rows), int(sn.floor[w]), "clone %d biz %d lost acked records", ci, w)
			for j, rw := range rows {
				require.Equal(t, row{uint64(j + 1), string(bigRec(biz, uint64(j+1)))}, rw, "clone %d biz %d", ci, w)
			}
			mirror, ok, err := r.Meta(fmt.Sprintf("w%02d", w))
			require.NoError(t, err)
			if len(rows) == 0 {
				require.False(t, ok)
			} else {
				require.True(t, ok)
				require.Equal(t, uint64(len(rows)), binary.BigEndian.Uint64(mirror), "clone %d biz %d: batch torn", ci, w)
			}
			last, err := r.LastSeq(biz)
			require.NoError(t, err)
			require.Equal(t, uint64(len(rows)), last)
		}
		require.NoError(t, r.Close())
	}

	// The original directory, reopened after a clean Close, has everything.
	r := openFS(t, fs)
	defer r.Close()
	regs := 0
	require.NoError(t, r.Businesses(func([16]byte, []byte) error { regs++; return nil }))
	require.Equal(t, workers, regs)
	for w := range workers {
		require.Len(t, replayAll(t, r, bizID(w), 0), perW)
	}
}

// bigRec makes every fifth record 20 KiB so that batches regularly straddle
// Pebble's 32 KiB WAL blocks, giving crash clones taken mid-commit the chance
// to tear a batch in half.
func bigRec(biz [16]byte, seq uint64) []byte {
	r := recFor(biz, seq)
	if seq%5 == 0 {
		r = append(r, bytes.Repeat([]byte{byte(seq)}, 20<<10)...)
	}
	return r
}

// Close while commits are in flight: every commit either succeeds (and is
// then durable) or reports ErrClosed; nothing panics.
func TestCloseDuringCommits(t *testing.T) {
	fs := vfs.NewCrashableMem()
	s := openFS(t, fs)
	const workers = 8
	var okCount [workers]atomic.Uint64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for seq := uint64(1); ; seq++ {
				b := s.NewBatch()
				b.Append(bizID(w), seq, []byte("r"))
				if err := b.Commit(); err != nil {
					if !errors.Is(err, ErrClosed) {
						t.Errorf("commit: %v", err)
					}
					return
				}
				okCount[w].Store(seq)
			}
		}()
	}
	close(start)
	for okCount[0].Load() < 5 {
		runtime.Gosched()
	}
	require.NoError(t, s.Close())
	wg.Wait()

	r := openFS(t, crashClone(fs, 0, nil))
	defer r.Close()
	for w := range workers {
		last, err := r.LastSeq(bizID(w))
		require.NoError(t, err)
		require.Equal(t, okCount[w].Load(), last)
	}
}

func TestForeignPebbleRefused(t *testing.T) {
	fs := vfs.NewMem()
	db, err := pebble.Open("db", &pebble.Options{FS: fs, Logger: newPebbleLogger(nil, func(error) {})})
	require.NoError(t, err)
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], 1)
	require.NoError(t, db.Set(k[:], []byte("v"), pebble.Sync))
	require.NoError(t, db.Close())
	_, err = Open("db", Options{FS: fs})
	require.ErrorContains(t, err, "not a slotd store")
}
