package storage

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/stretchr/testify/require"
)

// otherKind is an outbox kind other than mail, to show kinds are kept apart.
const otherKind byte = 'x'

func bizID(n int) (id [16]byte) {
	copy(id[:], fmt.Sprintf("biz-%012d", n))
	return id
}

func recFor(biz [16]byte, seq uint64) []byte {
	return fmt.Appendf(nil, "rec %x #%d", biz[:4], seq)
}

func openFS(t testing.TB, fs vfs.FS) *Store {
	t.Helper()
	s, err := Open("db", Options{FS: fs})
	require.NoError(t, err)
	return s
}

func commit(t testing.TB, s *Store, fill func(b *Batch)) {
	t.Helper()
	b := s.NewBatch()
	fill(b)
	require.NoError(t, b.Commit())
}

type row struct {
	seq uint64
	rec string
}

func replayAll(t testing.TB, s *Store, biz [16]byte, after uint64) []row {
	t.Helper()
	var out []row
	require.NoError(t, s.Replay(biz, after, func(seq uint64, rec []byte) error {
		out = append(out, row{seq, string(rec)})
		return nil
	}))
	return out
}

func TestRoundTrips(t *testing.T) {
	s := openFS(t, vfs.NewMem())
	defer s.Close()

	a, b := bizID(1), bizID(2)
	k1, k2 := sha256.Sum256([]byte("key-1")), sha256.Sum256([]byte("key-2"))
	commit(t, s, func(bt *Batch) {
		require.True(t, bt.Empty())
		bt.PutBusiness(a, []byte("business a"))
		bt.PutBusiness(b, []byte("business b"))
		bt.PutKey(k1, []byte("a"))
		bt.PutKey(k2, []byte("b"))
		bt.PutMeta("demo", []byte("seeded"))
		for seq := uint64(1); seq <= 5; seq++ {
			bt.Append(a, seq, recFor(a, seq))
			bt.Append(b, seq, recFor(b, seq))
		}
		require.False(t, bt.Empty())
	})

	biz := map[[16]byte]string{}
	require.NoError(t, s.Businesses(func(id [16]byte, val []byte) error {
		biz[id] = string(val)
		return nil
	}))
	require.Equal(t, map[[16]byte]string{a: "business a", b: "business b"}, biz)

	keys := map[[32]byte]string{}
	require.NoError(t, s.Keys(func(h [32]byte, val []byte) error {
		keys[h] = string(val)
		return nil
	}))
	require.Equal(t, map[[32]byte]string{k1: "a", k2: "b"}, keys)

	commit(t, s, func(bt *Batch) { bt.DeleteKey(k1) })
	keys = map[[32]byte]string{}
	require.NoError(t, s.Keys(func(h [32]byte, val []byte) error {
		keys[h] = string(val)
		return nil
	}))
	require.Equal(t, map[[32]byte]string{k2: "b"}, keys)

	v, ok, err := s.Meta("demo")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "seeded", string(v))
	_, ok, err = s.Meta("nope")
	require.NoError(t, err)
	require.False(t, ok)
	v, ok, err = s.Meta("format")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "1", string(v))

	_, _, ok, err = s.Snapshot(a)
	require.NoError(t, err)
	require.False(t, ok)
	commit(t, s, func(bt *Batch) { bt.PutSnapshot(a, 3, []byte("state@3")) })
	seq, val, ok, err := s.Snapshot(a)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, uint64(3), seq)
	require.Equal(t, "state@3", string(val))
	commit(t, s, func(bt *Batch) { bt.PutSnapshot(a, 4, nil) })
	seq, val, ok, err = s.Snapshot(a)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, uint64(4), seq)
	require.Empty(t, val)

	// Journals of different businesses never mix.
	for _, id := range [][16]byte{a, b} {
		var want []row
		for seq := uint64(1); seq <= 5; seq++ {
			want = append(want, row{seq, string(recFor(id, seq))})
		}
		require.Equal(t, want, replayAll(t, s, id, 0))
	}
}

func TestReplayAfterAndOrder(t *testing.T) {
	s := openFS(t, vfs.NewMem())
	defer s.Close()
	a := bizID(7)
	// Neighbouring ids on both sides, to catch sloppy bounds.
	lo, hi := a, a
	lo[15]--
	hi[15]++
	// Commit out of key order across batches; seqs past 255 and 65535 check
	// that ordering is numeric, not lexicographic on decimal or little-endian.
	seqs := []uint64{1, 2, 3, 255, 256, 257, 65535, 65536, 1 << 40}
	for i := len(seqs) - 1; i >= 0; i-- {
		commit(t, s, func(b *Batch) {
			b.Append(a, seqs[i], recFor(a, seqs[i]))
			b.Append(lo, seqs[i], []byte("lo"))
			b.Append(hi, seqs[i], []byte("hi"))
		})
	}
	var want []row
	for _, q := range seqs {
		want = append(want, row{q, string(recFor(a, q))})
	}
	require.Equal(t, want, replayAll(t, s, a, 0))
	require.Equal(t, want[4:], replayAll(t, s, a, 255))
	require.Equal(t, want[4:], replayAll(t, s, a, 254+1))
	require.Equal(t, want[3:], replayAll(t, s, a, 254))
	require.Empty(t, replayAll(t, s, a, 1<<40))
	require.Empty(t, replayAll(t, s, a, math.MaxUint64))
	require.Empty(t, replayAll(t, s, bizID(99), 0))

	// fn's error stops the replay and comes back unchanged.
	stop := errors.New("stop")
	n := 0
	err := s.Replay(a, 0, func(uint64, []byte) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	require.Same(t, stop, err)
	require.Equal(t, 3, n)
}

func TestAllOnesBusiness(t *testing.T) {
	// An id of all 0xff has no 17-byte prefix successor; its upper bound
	// must roll over into the next table without losing rows.
	s := openFS(t, vfs.NewMem())
	defer s.Close()
	var ff [16]byte
	for i := range ff {
		ff[i] = 0xff
	}
	k := sha256.Sum256(nil)
	commit(t, s, func(b *Batch) {
		b.Append(ff, 1, []byte("x"))
		b.Append(ff, math.MaxUint64, []byte("y"))
		b.PutKey(k, []byte("key"))
	})
	require.Equal(t, []row{{1, "x"}, {math.MaxUint64, "y"}}, replayAll(t, s, ff, 0))
	last, err := s.LastSeq(ff)
	require.NoError(t, err)
	require.Equal(t, uint64(math.MaxUint64), last)
	commit(t, s, func(b *Batch) { b.TruncateJournal(ff, math.MaxUint64) })
	require.Empty(t, replayAll(t, s, ff, 0))
	n := 0
	require.NoError(t, s.Keys(func([32]byte, []byte) error { n++; return nil }))
	require.Equal(t, 1, n)
}

func TestLastSeqAndSnapshotTruncate(t *testing.T) {
	s := openFS(t, vfs.NewMem())
	defer s.Close()
	a, other := bizID(1), bizID(2)

	last, err := s.LastSeq(a)
	require.NoError(t, err)
	require.Zero(t, last)

	for seq := uint64(1); seq <= 10; seq++ {
		commit(t, s, func(b *Batch) {
			b.Append(a, seq, recFor(a, seq))
			b.Append(other, seq, recFor(other, seq))
		})
	}
	last, err = s.LastSeq(a)
	require.NoError(t, err)
	require.Equal(t, uint64(10), last)

	// Snapshot at 7 and truncate in the same batch.
	commit(t, s, func(b *Batch) {
		b.PutSnapshot(a, 7, []byte("state@7"))
		b.TruncateJournal(a, 7)
	})
	seq, val, ok, err := s.Snapshot(a)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, uint64(7), seq)
	require.Equal(t, "state@7", string(val))
	// Replay from 0 sees only what the snapshot doesn't cover.
	got := replayAll(t, s, a, 0)
	require.Equal(t, []row{{8, string(recFor(a, 8))}, {9, string(recFor(a, 9))}, {10, string(recFor(a, 10))}}, got)
	require.Equal(t, got, replayAll(t, s, a, seq))
	last, err = s.LastSeq(a)
	require.NoError(t, err)
	require.Equal(t, uint64(10), last)
	// The neighbour is untouched.
	require.Len(t, replayAll(t, s, other, 0), 10)

	// Snapshot covering the whole journal: LastSeq falls back to the
	// snapshot's seq.
	commit(t, s, func(b *Batch) {
		b.PutSnapshot(a, 10, []byte("state@10"))
		b.TruncateJournal(a, 10)
	})
	require.Empty(t, replayAll(t, s, a, 0))
	last, err = s.LastSeq(a)
	require.NoError(t, err)
	require.Equal(t, uint64(10), last)

	// Appending continues after the snapshot.
	commit(t, s, func(b *Batch) { b.Append(a, 11, recFor(a, 11)) })
	require.Equal(t, []row{{11, string(recFor(a, 11))}}, replayAll(t, s, a, 10))
	last, err = s.LastSeq(a)
	require.NoError(t, err)
	require.Equal(t, uint64(11), last)
}

func TestIsEmpty(t *testing.T) {
	fs := vfs.NewMem()
	s := openFS(t, fs)
	empty, err := s.IsEmpty()
	require.NoError(t, err)
	require.True(t, empty, "fresh store (format meta row only)")

	commit(t, s, func(b *Batch) {
		b.PutMeta("x", []byte("y"))
		b.PutKey(sha256.Sum256([]byte("k")), []byte("v"))
	})
	empty, err = s.IsEmpty()
	require.NoError(t, err)
	require.True(t, empty, "meta and key rows don't count")

	commit(t, s, func(b *Batch) { b.PutBusiness(bizID(1), []byte("b")) })
	empty, err = s.IsEmpty()
	require.NoError(t, err)
	require.False(t, empty, "business row")
	require.NoError(t, s.Close())

	s = openFS(t, vfs.NewMem())
	commit(t, s, func(b *Batch) { b.Append(bizID(1), 1, []byte("r")) })
	empty, err = s.IsEmpty()
	require.NoError(t, err)
	require.False(t, empty, "journal row")
	commit(t, s, func(b *Batch) { b.TruncateJournal(bizID(1), 1) })
	empty, err = s.IsEmpty()
	require.NoError(t, err)
	require.True(t, empty, "journal truncated away")
	require.NoError(t, s.Close())

	// Survives reopen.
	s = openFS(t, fs)
	empty, err = s.IsEmpty()
	require.NoError(t, err)
	require.False(t, empty)
	require.NoError(t, s.Close())
}

func TestReopen(t *testing.T) {
	fs := vfs.NewMem()
	s := openFS(t, fs)
	a := bizID(3)
	h := sha256.Sum256([]byte("secret"))
	commit(t, s, func(b *Batch) {
		b.PutBusiness(a, []byte("biz"))
		b.PutKey(h, []byte("a"))
		b.PutMeta("m", []byte("v"))
		b.PutSnapshot(a, 2, []byte("snap"))
		for seq := uint64(1); seq <= 4; seq++ {
			b.Append(a, seq, recFor(a, seq))
		}
		b.TruncateJournal(a, 2)
	})
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.Close(), ErrClosed)

	for range 2 {
		s = openFS(t, fs)
		require.Equal(t, []row{{3, string(recFor(a, 3))}, {4, string(recFor(a, 4))}}, replayAll(t, s, a, 0))
		seq, val, ok, err := s.Snapshot(a)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, uint64(2), seq)
		require.Equal(t, "snap", string(val))
		v, ok, err := s.Meta("m")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "v", string(v))
		n := 0
		require.NoError(t, s.Keys(func(got [32]byte, val []byte) error {
			require.Equal(t, h, got)
			n++
			return nil
		}))
		require.Equal(t, 1, n)
		n = 0
		require.NoError(t, s.Businesses(func(id [16]byte, val []byte) error {
			require.Equal(t, a, id)
			n++
			return nil
		}))
		require.Equal(t, 1, n)
		last, err := s.LastSeq(a)
		require.NoError(t, err)
		require.Equal(t, uint64(4), last)
		require.NoError(t, s.Close())
	}
}

func TestFormatVersion(t *testing.T) {
	fs := vfs.NewMem()
	s := openFS(t, fs)
	commit(t, s, func(b *Batch) { b.PutMeta("format", []byte("2")) })
	require.NoError(t, s.Close())
	_, err := Open("db", Options{FS: fs})
	require.Error(t, err)
	require.Contains(t, err.Error(), "format version 2")
	require.Contains(t, err.Error(), "only understands up to 1")

	fs = vfs.NewMem()
	s = openFS(t, fs)
	commit(t, s, func(b *Batch) { b.PutMeta("format", []byte("garbage")) })
	require.NoError(t, s.Close())
	_, err = Open("db", Options{FS: fs})
	require.ErrorContains(t, err, "unreadable format version")
}

func TestClosed(t *testing.T) {
	s := openFS(t, vfs.NewMem())
	b := s.NewBatch()
	b.Append(bizID(1), 1, []byte("x"))
	require.NoError(t, s.Close())

	require.ErrorIs(t, b.Commit(), ErrClosed)
	b2 := s.NewBatch()
	b2.Append(bizID(1), 1, []byte("x"))
	require.ErrorIs(t, b2.Commit(), ErrClosed)
	b3 := s.NewBatch()
	b3.Close()
	b3.Close()

	_, err := s.IsEmpty()
	require.ErrorIs(t, err, ErrClosed)
	_, err = s.LastSeq(bizID(1))
	require.ErrorIs(t, err, ErrClosed)
	_, _, _, err = s.Snapshot(bizID(1))
	require.ErrorIs(t, err, ErrClosed)
	_, _, err = s.Meta("format")
	require.ErrorIs(t, err, ErrClosed)
	require.ErrorIs(t, s.Replay(bizID(1), 0, nil), ErrClosed)
	require.ErrorIs(t, s.Keys(nil), ErrClosed)
	require.ErrorIs(t, s.Businesses(nil), ErrClosed)
	_ = s.Stats()
}

func TestBatchLifecycle(t *testing.T) {
	s := openFS(t, vfs.NewMem())
	defer s.Close()

	// A closed batch commits nothing.
	b := s.NewBatch()
	b.Append(bizID(1), 1, []byte("x"))
	b.Close()
	require.Panics(t, func() { b.Append(bizID(1), 2, nil) })
	require.Empty(t, replayAll(t, s, bizID(1), 0))

	// Empty commit is fine and not counted.
	before := s.Stats().Commits
	require.NoError(t, s.NewBatch().Commit())
	require.Equal(t, before, s.Stats().Commits)

	// Buffers passed in may be reused immediately.
	buf := []byte("first")
	b = s.NewBatch()
	b.Append(bizID(1), 1, buf)
	copy(buf, "XXXXX")
	require.NoError(t, b.Commit())
	b.Close() // no-op after Commit
	require.Panics(t, func() { _ = b.Commit() })
	require.Equal(t, []row{{1, "first"}}, replayAll(t, s, bizID(1), 0))

	require.Panics(t, func() { s.NewBatch().Append(bizID(1), 0, nil) })

	st := s.Stats()
	require.Equal(t, before+1, st.Commits)
	require.NotZero(t, st.CommitNanos)
	require.NotZero(t, st.WALSyncs)
}

func TestRecValidOnlyDuringCall(t *testing.T) {
	// Documented contract: callers must copy. Check that copying works and
	// the values are what was written, across many rows.
	s := openFS(t, vfs.NewMem())
	defer s.Close()
	a := bizID(1)
	commit(t, s, func(b *Batch) {
		for seq := uint64(1); seq <= 1000; seq++ {
			b.Append(a, seq, bytes.Repeat([]byte{byte(seq)}, 100))
		}
	})
	var kept [][]byte
	require.NoError(t, s.Replay(a, 0, func(seq uint64, rec []byte) error {
		kept = append(kept, bytes.Clone(rec))
		return nil
	}))
	require.Len(t, kept, 1000)
	for i, r := range kept {
		require.Equal(t, bytes.Repeat([]byte{byte(i + 1)}, 100), r)
	}
}

func TestSlogLogger(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := Open("db", Options{FS: vfs.NewMem(), Logger: l})
	require.NoError(t, err)
	commit(t, s, func(b *Batch) { b.Append(bizID(1), 1, []byte("x")) })
	require.NoError(t, s.Close())
	// Whatever Pebble chose to say went through slog, tagged.
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line != "" {
			require.Contains(t, line, "component=pebble")
		}
	}
}

func TestCommitNoWaitIsDurableAfterWait(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	var biz [16]byte
	biz[0] = 7
	var pend []*Pending
	for seq := uint64(1); seq <= 50; seq++ {
		b := s.NewBatch()
		b.Append(biz, seq, []byte{byte(seq)})
		p, err := b.CommitNoWait()
		require.NoError(t, err)
		pend = append(pend, p)
	}
	empty, err := s.NewBatch().CommitNoWait()
	require.NoError(t, err)
	require.NoError(t, empty.Wait())
	for _, p := range pend {
		require.NoError(t, p.Wait())
	}
	require.NoError(t, s.Close())
	s, err = Open(dir, Options{})
	require.NoError(t, err)
	defer s.Close()
	last, err := s.LastSeq(biz)
	require.NoError(t, err)
	require.Equal(t, uint64(50), last)
}

func TestOutboxRowsLiveUntilDeleted(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	require.NoError(t, err)
	defer s.Close()
	a, b := [16]byte{1}, [16]byte{2}
	batch := s.NewBatch()
	batch.PutOutbox(b, otherKind, "evt_02", []byte("b2"))
	batch.PutOutbox(a, otherKind, "evt_01", []byte("a1"))
	batch.PutOutbox(a, OutboxMail, "m_01", []byte("mail"))
	batch.Append(a, 1, []byte("r"))
	batch.TruncateJournal(a, 1)
	require.NoError(t, batch.Commit())
	var got []string
	require.NoError(t, s.Outbox(otherKind, func(biz [16]byte, id string, v []byte) error {
		got = append(got, id+"="+string(v))
		return nil
	}))
	require.Equal(t, []string{"evt_01=a1", "evt_02=b2"}, got, "journal truncation leaves the outbox alone")
	batch = s.NewBatch()
	batch.DeleteOutbox(a, otherKind, "evt_01")
	require.NoError(t, batch.Commit())
	got = nil
	require.NoError(t, s.Outbox(OutboxMail, func(_ [16]byte, id string, _ []byte) error { got = append(got, id); return nil }))
	require.Equal(t, []string{"m_01"}, got)

	// One row, and one business's rows of one kind.
	v, ok, err := s.OutboxRow(a, OutboxMail, "m_01")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "mail", string(v))
	_, ok, err = s.OutboxRow(a, otherKind, "evt_01")
	require.NoError(t, err)
	require.False(t, ok, "deleted")
	batch = s.NewBatch()
	batch.PutOutbox(a, OutboxMail, "m_02", []byte("mail 2"))
	batch.PutOutbox(b, OutboxMail, "m_00", []byte("other business"))
	require.NoError(t, batch.Commit())
	got = nil
	require.NoError(t, s.OutboxOf(a, OutboxMail, func(id string, v []byte) error { got = append(got, id+"="+string(v)); return nil }))
	require.Equal(t, []string{"m_01=mail", "m_02=mail 2"}, got)
}

// TestWALMinSyncInterval: with syncs spaced out, concurrent commits still
// each return once durable: they share syncs, none is left waiting, and a
// reopened store holds them all.
func TestWALMinSyncInterval(t *testing.T) {
	fs := vfs.NewCrashableMem()
	s, err := Open("db", Options{FS: fs, WALMinSyncInterval: WALMinSyncInterval})
	require.NoError(t, err)
	const writers, each = 8, 25
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			biz := bizID(w)
			for q := uint64(1); q <= each; q++ {
				b := s.NewBatch()
				b.Append(biz, q, recFor(biz, q))
				if err := b.Commit(); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		require.NoError(t, <-errs)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{}) // only what was synced survives
	require.NoError(t, s.Close())
	r, err := Open("db", Options{FS: crashed})
	require.NoError(t, err)
	defer r.Close()
	for w := range writers {
		require.Len(t, replayAll(t, r, bizID(w), 0), each, "writer %d", w)
	}
}
