package stream_test

import (
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/stream"
	"github.com/slotd/slotd/storage/stream/streamtest"
)

// node is one slotd node's working store over the shared journal.
type node struct {
	store *storage.Store
	rep   *stream.Replicator
}

func newNode(t *testing.T, j *stream.Journal) node {
	t.Helper()
	s, err := storage.Open(t.TempDir(), storage.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	r := stream.NewReplicator(j, s, slog.New(slog.NewTextHandler(io.Discard, nil)))
	r.CheckpointEvery = 3
	s.SetReplicator(r)
	return node{store: s, rep: r}
}

// write commits journal record seq of biz with an outbox row beside it.
func (n node) write(biz uuid.UUID, seq uint64) error {
	b := n.store.NewBatch()
	b.Append(biz, seq, fmt.Appendf(nil, "record %d", seq))
	b.PutOutbox(biz, storage.OutboxMail, fmt.Sprintf("m%03d", seq), []byte("mail"))
	return b.Commit()
}

func (n node) records(t *testing.T, biz uuid.UUID) []string {
	var out []string
	require.NoError(t, n.store.Replay(biz, 0, func(seq uint64, rec []byte) error {
		out = append(out, string(rec))
		return nil
	}))
	return out
}

// TestReplicatorTakeOverAndFence: a node takes a business over with its
// rows as the replicas hold them (checkpoint plus the records after it),
// the node it took it from can no longer write it, and a batch of a
// business a node does not own is refused.
func TestReplicatorTakeOverAndFence(t *testing.T) {
	ss := streamtest.Cluster(t, 3)
	a, b := newNode(t, connect(t, ss[0])), newNode(t, connect(t, ss[1]))
	biz := uuid.New()

	require.ErrorIs(t, a.write(biz, 1), stream.ErrNotOwned)
	releaseA, err := a.rep.Own(biz)
	require.NoError(t, err)
	for seq := uint64(1); seq <= 10; seq++ {
		require.NoError(t, a.write(biz, seq))
	}
	require.Len(t, a.records(t, biz), 10)
	// Checkpoints are stored in the background; the take-over below reads
	// the latest and replays only the records after it.
	require.Eventually(t, func() bool { return a.rep.Stats().Checkpoints >= 1 }, 10*time.Second, 10*time.Millisecond)

	_, err = b.rep.Own(biz)
	require.NoError(t, err)
	require.Equal(t, a.records(t, biz), b.records(t, biz), "the new owner's rows are the old owner's")
	mails := 0
	require.NoError(t, b.store.Outbox(storage.OutboxMail, func([16]byte, string, []byte) error { mails++; return nil }))
	require.Equal(t, 10, mails)

	require.NoError(t, b.write(biz, 11))
	require.ErrorIs(t, a.write(biz, 11), stream.ErrFenced, "the old owner cannot append after the same record")
	require.ErrorIs(t, a.write(biz, 12), stream.ErrFenced, "and stays fenced")
	require.Equal(t, uint64(1), a.rep.Stats().Fenced)
	require.Len(t, a.records(t, biz), 10, "a fenced batch is not applied")

	// The old owner lets go: its rows are dropped; taking over again finds
	// the new owner's write.
	releaseA()
	require.Empty(t, a.records(t, biz))
	_, err = a.rep.Own(biz)
	require.NoError(t, err)
	require.Len(t, a.records(t, biz), 11)
	require.Equal(t, fmt.Sprintf("record %d", 11), a.records(t, biz)[10])
}

// TestReplicatorLargeBusiness: a snapshot far over NATS's 1 MiB default
// (Batch.Derived) is applied in order and not appended, so it can neither
// fail nor take the writes grouped with it down; a single write of 8 MiB
// (a large business's world entry) is appended whole; the next owner
// gets both through a checkpoint.
func TestReplicatorLargeBusiness(t *testing.T) {
	ss := streamtest.Cluster(t, 3)
	j := connect(t, ss[0])
	a, b := newNode(t, j), newNode(t, connect(t, ss[1]))
	biz := uuid.New()
	_, err := a.rep.Own(biz)
	require.NoError(t, err)

	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	bt := a.store.NewBatch()
	bt.Append(biz, 1, big)
	require.NoError(t, bt.Commit(), "a write of 8 MiB")
	require.NoError(t, a.write(biz, 2))
	// The 8 MiB record outweighs the last checkpoint: one is taken.
	require.Eventually(t, func() bool { return a.rep.Stats().Checkpoints >= 1 }, 20*time.Second, 10*time.Millisecond)
	appends := a.rep.Stats().Appends

	// A snapshot of 8 MiB with a write queued behind it.
	snap := a.store.NewBatch()
	snap.Derived()
	snap.PutSnapshot(biz, 2, big)
	snap.TruncateJournal(biz, 1)
	p, err := snap.CommitNoWait()
	require.NoError(t, err)
	require.NoError(t, a.write(biz, 3), "the write after the snapshot")
	require.NoError(t, p.Wait())
	require.Equal(t, appends+1, a.rep.Stats().Appends, "the snapshot was not appended")
	seq, raw, ok, err := a.store.Snapshot(biz)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, uint64(2), seq)
	require.Len(t, raw, len(big))
	require.Equal(t, []string{"record 2", "record 3"}, a.records(t, biz), "record 1 truncated under the snapshot")

	// Enough writes for a checkpoint after the snapshot, which carries
	// it over.
	next := uint64(4)
	require.Eventually(t, func() bool {
		require.NoError(t, a.write(biz, next))
		next++
		return a.rep.Stats().Checkpoints >= 2
	}, 20*time.Second, 10*time.Millisecond)
	_, err = b.rep.Own(biz)
	require.NoError(t, err)
	bseq, braw, ok, err := b.store.Snapshot(biz)
	require.NoError(t, err)
	require.True(t, ok, "the next owner has the snapshot")
	require.Equal(t, seq, bseq)
	require.Equal(t, raw, braw)
	require.Equal(t, a.records(t, biz), b.records(t, biz))
}
