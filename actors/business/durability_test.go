package business_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
)

// An idempotent answer — a success or a stored refusal — is journalled
// with its write, so a repeat after a restart gets the same bytes, and a
// different request under the same key is still a conflict.
func TestIdempotentAnswersSurviveARestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := vfs.NewMem()
		r := openRig(t, fs, 0)
		booked, err := r.book("k1", 0, "a@example.com")
		require.NoError(t, err)
		refused, err := r.book("k2", 0, "b@example.com")
		require.NoError(t, err)
		require.Equal(t, "SLOT_TAKEN", code(t, refused))
		r.close()

		r = openRig(t, fs, 0)
		again, err := r.book("k1", 0, "a@example.com")
		require.NoError(t, err)
		require.True(t, again.Replayed)
		require.Equal(t, booked.Status, again.Status)
		require.Equal(t, booked.Body, again.Body, "the same bytes")
		again, err = r.book("k2", 0, "b@example.com")
		require.NoError(t, err)
		require.True(t, again.Replayed)
		require.Equal(t, refused.Body, again.Body)

		_, err = r.book("k1", 3, "a@example.com")
		requireCode(t, err, problem.IdempotencyKeyReused)
		require.Equal(t, 1, appointments(r.h.State()), "nothing was booked twice")
	})
}

// A write, its idempotent answer and its e-mail go into one batch: after a
// crash at any moment, with any part of the unsynced tail surviving, every
// booking is whole (journal record and outbox row together, or neither),
// and every booking acknowledged before the crash is there.
func TestCrashLeavesEveryWriteWholeWithItsOutbox(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := vfs.NewCrashableMem()
		r := openRig(t, fs, 0)
		rng := rand.New(rand.NewPCG(1, 2))

		var mu sync.Mutex
		acked := map[string]bool{}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 6 {
					key := fmt.Sprintf("w%d-%d", w, i)
					_, err := r.book(key, w*6+i, key+"@example.com")
					require.NoError(t, err)
					mu.Lock()
					acked[key] = true
					mu.Unlock()
				}
			})
		}
		type crash struct {
			fs    *vfs.MemFS
			acked map[string]bool
		}
		var crashes []crash
		for range 12 {
			mu.Lock()
			before := make(map[string]bool, len(acked))
			for k := range acked {
				before[k] = true
			}
			mu.Unlock()
			pct := []int{0, 50, 100}[rng.IntN(3)]
			crashes = append(crashes, crash{fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: pct, RNG: rng}), before})
			synctest.Wait() // let the bookings move on
		}
		wg.Wait()
		for i, c := range crashes {
			checkWhole(t, i, c.fs, c.acked)
		}
	})
}

// checkWhole opens a crashed copy of the store and checks it.
func checkWhole(t *testing.T, n int, fs vfs.FS, acked map[string]bool) {
	st, err := storage.Open("data", storage.Options{FS: fs})
	require.NoError(t, err)
	defer st.Close()
	journalled, keys := map[string]bool{}, map[string]bool{}
	require.NoError(t, st.Replay(rigBiz, 0, func(_ uint64, b []byte) error {
		rec, err := record.Decode(b)
		if err == nil && rec.Change != nil {
			for _, m := range rec.Change.Mails {
				journalled[m.ID] = true
			}
			if rec.Change.Idempotency != nil {
				keys[rec.Change.Idempotency.Key] = true
			}
		}
		return err
	}))
	queued := map[string]bool{}
	require.NoError(t, st.Outbox(storage.OutboxMail, func(_ [16]byte, id string, _ []byte) error {
		queued[id] = true
		return nil
	}))
	require.Equal(t, journalled, queued, "crash %d: e-mails and their writes disagree", n)
	for k := range acked {
		require.True(t, keys[k], "crash %d lost the acknowledged booking %s", n, k)
	}
}

// A business rebuilt from its latest snapshot plus the journal after it is
// the business that was live.
func TestSnapshotAndReplayEqualTheLiveState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := vfs.NewMem()
		r := openRig(t, fs, 5)
		for i := range 15 {
			_, err := r.book(fmt.Sprint("k", i), i, fmt.Sprintf("c%d@example.com", i))
			require.NoError(t, err)
		}
		booked, err := r.book("k0", 0, "c0@example.com")
		require.NoError(t, err)
		_, err = directory.Do(context.Background(), r.dir, r.biz, directory.SetStatus{ID: booked.Appointment.ID, Status: model.Cancelled})
		require.NoError(t, err)
		synctest.Wait()
		// A tail after the latest snapshot. A snapshot captures the state
		// when its writer gets to it, which may already hold the record
		// that triggered it and the next: then one more write makes the
		// tail (it triggers no snapshot of its own, 5 records apart).
		var seq uint64
		for i := 0; ; i++ {
			_, err = r.book(fmt.Sprint("last", i), 0, fmt.Sprintf("last%d@example.com", i))
			require.NoError(t, err)
			synctest.Wait() // the snapshot writers are done
			s, _, ok, err := r.store.Snapshot(r.biz)
			require.NoError(t, err)
			require.True(t, ok)
			if seq = s; seq < r.h.State().Seq || i == 2 {
				break
			}
		}
		live := r.h.State()
		require.Less(t, seq, live.Seq, "records after the snapshot are replayed")
		r.close()

		r = openRig(t, fs, 5)
		got := r.h.State()
		require.Equal(t, live.Seq, got.Seq)
		require.Equal(t, ledger.Snapshot(live), ledger.Snapshot(got))
	})
}

// An idempotent answer is journalled as facts and rendered again on a
// replay from the record that made it; snapshots that cover that record
// leave it in the journal while the answer may be replayed.
func TestReplayRendersFromARecordASnapshotCovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := vfs.NewMem()
		r := openRig(t, fs, 3)
		first, err := r.book("k-first", 0, "first@example.com")
		require.NoError(t, err)
		for i := 1; i < 12; i++ {
			_, err := r.book(fmt.Sprint("k", i), i, fmt.Sprintf("c%d@example.com", i))
			require.NoError(t, err)
		}
		synctest.Wait()
		snap, _, ok, err := r.store.Snapshot(r.biz)
		require.NoError(t, err)
		require.True(t, ok)
		require.Greater(t, snap, uint64(2), "a snapshot covers the first booking's record")
		r.close()

		r = openRig(t, fs, 3)
		again, err := r.book("k-first", 0, "first@example.com")
		require.NoError(t, err)
		require.True(t, again.Replayed)
		require.Equal(t, first.Body, again.Body)
	})
}
