package storage

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/problem"
)

// walFault injects err into the operations of kind on the WAL files
// (*.log) while it is on.
type walFault struct {
	on   atomic.Bool
	err  error
	kind errorfs.OpKind
	hits atomic.Int64
}

func (f *walFault) String() string { return "walFault" }

func (f *walFault) MaybeError(op errorfs.Op) error {
	if !f.on.Load() || op.Kind != f.kind || !strings.HasSuffix(op.Path, ".log") {
		return nil
	}
	f.hits.Add(1)
	return f.err
}

// unavailable asserts err is a SERVICE_UNAVAILABLE.
func unavailable(t *testing.T, err error) *problem.Error {
	t.Helper()
	var pe *problem.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, problem.Unavailable, pe.Code, "%v", err)
	require.Positive(t, pe.RetryAfter)
	return pe
}

// A WAL that fails to be written or synced fails the store for good: the
// write is refused with 503, no reader sees it (the memtable holding it is
// never read again), nothing more reaches Pebble (no panic, no hang), and
// a restart from what was synced has every acknowledged write and not the
// failed one.
func TestJournalFailureFailsTheStore(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind errorfs.OpKind
		err  error
	}{
		{"ENOSPC on write", errorfs.OpFileWrite, syscall.ENOSPC},
		{"EIO on write", errorfs.OpFileWrite, syscall.EIO},
		{"EIO on fdatasync", errorfs.OpFileSyncData, syscall.EIO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := vfs.NewCrashableMem()
			fault := &walFault{err: tc.err, kind: tc.kind}
			s := openFS(t, errorfs.Wrap(mem, fault))
			biz := bizID(1)
			for seq := uint64(1); seq <= 3; seq++ {
				commit(t, s, func(b *Batch) { b.Append(biz, seq, []byte(fmt.Sprint("acked ", seq))) })
			}

			fault.on.Store(true)
			b := s.NewBatch()
			b.Append(biz, 4, []byte("failed"))
			p, err := b.CommitNoWait()
			if err == nil {
				err = p.Wait()
			}
			unavailable(t, err)
			require.ErrorIs(t, err, ErrJournalFailed)
			require.Positive(t, fault.hits.Load(), "the fault was hit")
			select {
			case <-s.Failed():
			default:
				t.Fatal("Failed is not closed")
			}
			require.ErrorContains(t, s.Err(), tc.err.Error())
			require.False(t, s.Health().Writable)
			require.Contains(t, s.Health().Reason, "journal failed")

			// No reader sees the failed write: reads are refused.
			_, err = s.LastSeq(biz)
			require.ErrorIs(t, err, ErrJournalFailed)
			err = s.Replay(biz, 0, func(uint64, []byte) error { return nil })
			require.ErrorIs(t, err, ErrJournalFailed)
			// Later writes are refused before Pebble: no panic, no hang,
			// even once the disk is well again.
			fault.on.Store(false)
			for range 3 {
				b := s.NewBatch()
				b.Append(biz, 5, []byte("later"))
				require.ErrorIs(t, b.Commit(), ErrJournalFailed)
			}
			require.ErrorIs(t, s.SyncWAL(), ErrJournalFailed)
			require.Error(t, s.Close(), "closing a failed store says so, and returns")

			r := openFS(t, mem.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0}))
			defer r.Close()
			var got []string
			require.NoError(t, r.Replay(biz, 0, func(_ uint64, rec []byte) error {
				got = append(got, string(rec))
				return nil
			}))
			require.Equal(t, []string{"acked 1", "acked 2", "acked 3"}, got)
		})
	}
}

// A panic in Pebble's commit path (it panics on a WAL write error while
// holding its commit lock) fails the store instead of reaching the actor.
func TestPanicInCommitPathFailsTheStore(t *testing.T) {
	s := openFS(t, vfs.NewMem())
	err := s.guarded(func() error { panic("pebble: WAL writer failed") })
	unavailable(t, err)
	require.ErrorIs(t, err, ErrJournalFailed)
	require.ErrorContains(t, s.Err(), "WAL writer failed")
	commitErr := s.NewBatch()
	commitErr.PutMeta("x", []byte("y"))
	require.ErrorIs(t, commitErr.Commit(), ErrJournalFailed)
}

// Pebble's fatal errors fail the store rather than exiting the process at
// once: clients in flight are answered 503 while the server drains.
func TestFatalfFailsTheStore(t *testing.T) {
	s := openFS(t, vfs.NewMem())
	l := newPebbleLogger(nil, s.fail)
	go l.Fatalf("MANIFEST sync failed: %v", syscall.EIO) // parks for ever
	<-s.Failed()
	require.ErrorContains(t, s.Err(), "MANIFEST sync failed")
}

// A nearly full disk refuses writes that change state before they reach
// Pebble (nothing applied), lets bookkeeping use half the reserve, and
// accepts writes again once space is back.
func TestDiskFullRefusesAndRecovers(t *testing.T) {
	mem := vfs.NewMem()
	const total, reserve = 1 << 30, 1 << 20
	setFree := func(n uint64) {
		mem.TestingSetDiskUsage(vfs.DiskUsage{AvailBytes: n, TotalBytes: total, UsedBytes: total - n})
	}
	setFree(total / 2)
	s, err := Open("db", Options{FS: mem, Reserve: reserve})
	require.NoError(t, err)
	defer s.Close()
	biz := bizID(1)
	commit(t, s, func(b *Batch) { b.Append(biz, 1, []byte("before")) })
	require.True(t, s.Health().Writable)

	setFree(reserve - 1)
	h := s.Health() // a probe measures again
	require.False(t, h.Writable)
	require.Equal(t, uint64(reserve-1), h.AvailBytes)
	require.Contains(t, h.Reason, "disk full")

	b := s.NewBatch()
	b.Append(biz, 2, []byte("refused"))
	err = b.Commit()
	pe := unavailable(t, err)
	require.Same(t, ErrDiskFull, pe)
	b = s.NewBatch()
	b.PutSnapshot(biz, 1, []byte("snap"))
	_, err = b.CommitNoWait()
	require.ErrorIs(t, err, ErrDiskFull)
	last, err := s.LastSeq(biz)
	require.NoError(t, err)
	require.Equal(t, uint64(1), last, "the refused write was not applied")

	// Bookkeeping may go on above half the reserve, not below.
	commit(t, s, func(b *Batch) { b.PutMeta("mail-sent", []byte("1")) })
	setFree(reserve/2 - 1)
	b = s.NewBatch()
	b.PutMeta("mail-sent", []byte("2"))
	require.ErrorIs(t, b.Commit(), ErrDiskFull)

	setFree(total / 2)
	commit(t, s, func(b *Batch) { b.Append(biz, 2, []byte("after")) })
	require.True(t, s.Health().Writable)
	require.NoError(t, s.Err(), "a full disk does not fail the journal")
}

// The guard measures the filesystem again before the headroom it measured
// last can be spent, so writes stop short of the reserve even without a
// probe.
func TestDiskFullNoticedByWrites(t *testing.T) {
	mem := vfs.NewMem()
	const total, reserve = 1 << 30, 1 << 20
	free := uint64(reserve + 64<<10)
	mem.TestingSetDiskUsage(vfs.DiskUsage{AvailBytes: free, TotalBytes: total})
	s, err := Open("db", Options{FS: mem, Reserve: reserve})
	require.NoError(t, err)
	defer s.Close()
	biz := bizID(1)
	rec := make([]byte, 4<<10)
	var refused error
	for seq := uint64(1); seq < 100 && refused == nil; seq++ {
		// Every write uses its size on the disk.
		free -= uint64(len(rec))
		mem.TestingSetDiskUsage(vfs.DiskUsage{AvailBytes: free, TotalBytes: total})
		b := s.NewBatch()
		b.Append(biz, seq, rec)
		refused = b.Commit()
	}
	require.ErrorIs(t, refused, ErrDiskFull)
	require.GreaterOrEqual(t, free, uint64(reserve), "refused before the reserve was touched")
}

func TestDefaultReserve(t *testing.T) {
	require.Equal(t, uint64(64<<20)/10, DefaultReserve(64<<20), "a tenth of a small volume")
	require.Equal(t, uint64(256<<20), DefaultReserve(1<<40), "at most 256 MiB")
	require.False(t, errors.Is(ErrDiskFull, ErrJournalFailed))
}

// Another process filling the volume is noticed within 100 ms of the
// store's clock, however much headroom the last measurement left.
func TestDiskFilledByOthersNoticedInTime(t *testing.T) {
	mem := vfs.NewMem()
	const total, reserve = 1 << 30, 1 << 20
	mem.TestingSetDiskUsage(vfs.DiskUsage{AvailBytes: total / 2, TotalBytes: total})
	clk := clock.NewFake(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	s, err := Open("db", Options{FS: mem, Reserve: reserve, Clock: clk})
	require.NoError(t, err)
	defer s.Close()
	biz := bizID(1)
	commit(t, s, func(b *Batch) { b.Append(biz, 1, []byte("first")) })

	mem.TestingSetDiskUsage(vfs.DiskUsage{AvailBytes: reserve / 4, TotalBytes: total}) // a log file grew
	clk.Advance(100 * time.Millisecond)
	b := s.NewBatch()
	b.Append(biz, 2, []byte("second"))
	require.ErrorIs(t, b.Commit(), ErrDiskFull)
}

// Pebble's background errors (flushes and compactions failing on a full
// volume, retried every few tens of milliseconds) are written at most
// once per backgroundEvery, saying how many were left out.
func TestBackgroundErrorsAreSpaced(t *testing.T) {
	var buf bytes.Buffer
	clk := clock.NewFake(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	el := eventListener(slog.New(slog.NewTextHandler(&buf, nil)), clk)
	for i := range 50 {
		el.BackgroundError(fmt.Errorf("write %06d.sst: %w", i, syscall.ENOSPC))
		clk.Advance(20 * time.Millisecond) // one second in all
	}
	require.Equal(t, 1, strings.Count(buf.String(), "background error"))
	clk.Advance(backgroundEvery)
	el.BackgroundError(syscall.ENOSPC)
	require.Equal(t, 2, strings.Count(buf.String(), "background error"))
	require.Contains(t, buf.String(), "left_out_since_last=49")
}
