package stream_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/storage/stream"
	"github.com/slotd/slotd/storage/stream/streamtest"
)

// connect connects to the servers (any of them, reconnecting to another
// when one goes) and opens the journal, waiting for the cluster to elect
// its leaders.
func connect(t testing.TB, ss ...*server.Server) *stream.Journal {
	t.Helper()
	var urls []string
	for _, s := range ss {
		urls = append(urls, s.ClientURL())
	}
	nc, err := nats.Connect(strings.Join(urls, ","), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		j, err := stream.Open(ctx, nc, stream.Config{})
		cancel()
		if err == nil {
			return j
		}
		require.True(t, time.Now().Before(deadline), "journal never opened: %v", err)
		time.Sleep(50 * time.Millisecond)
	}
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestAppendReplay(t *testing.T) {
	ss := streamtest.Cluster(t, 3)
	j := connect(t, ss...)
	biz, other := uuid.New(), uuid.New()
	var at, pos [6]stream.Position
	var err error
	for i := 1; i <= 5; i++ {
		at[i], err = j.Append(ctx(t), biz, at[i-1], fmt.Appendf(nil, "r%d", i))
		require.NoError(t, err)
		require.Equal(t, uint64(i), at[i].Seq)
		pos[i], err = j.Append(ctx(t), other, pos[i-1], []byte("x"))
		require.NoError(t, err)
	}
	var got []string
	end, err := j.Replay(ctx(t), biz, stream.Position{}, func(seq uint64, rec []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", seq, rec))
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"1:r1", "2:r2", "3:r3", "4:r4", "5:r5"}, got, "only biz's records, numbered")
	require.Equal(t, at[5], end)

	got = nil
	_, err = j.Replay(ctx(t), biz, at[3], func(seq uint64, rec []byte) error {
		got = append(got, string(rec))
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"r4", "r5"}, got, "a tail after a position")

}

// TestFencing: two nodes that both believe they own a business cannot both
// append after the same record; the loser learns it and may write again
// only after re-reading the journal.
func TestFencing(t *testing.T) {
	ss := streamtest.Cluster(t, 3)
	a, b := connect(t, ss[0]), connect(t, ss[2])
	biz := uuid.New()
	base, err := a.Append(ctx(t), biz, stream.Position{}, []byte("r1"))
	require.NoError(t, err)

	_, err = a.Append(ctx(t), biz, base, []byte("a's r2"))
	require.NoError(t, err)
	_, err = b.Append(ctx(t), biz, base, []byte("b's r2"))
	require.ErrorIs(t, err, stream.ErrFenced)
	_, err = b.Append(ctx(t), biz, stream.Position{}, []byte("b's r1"))
	require.ErrorIs(t, err, stream.ErrFenced, "nor from the start")

	now, err := b.Replay(ctx(t), biz, base, func(uint64, []byte) error { return nil })
	require.NoError(t, err)
	won, err := b.Append(ctx(t), biz, now, []byte("b's r3"))
	require.NoError(t, err, "having caught up, b may write")
	require.Equal(t, uint64(3), won.Seq)
	_, err = a.Append(ctx(t), biz, now, []byte("a's r3"))
	require.ErrorIs(t, err, stream.ErrFenced, "and now a is the stale one")

	var got []string
	_, err = a.Replay(ctx(t), biz, stream.Position{}, func(_ uint64, rec []byte) error {
		got = append(got, string(rec))
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"r1", "a's r2", "b's r3"}, got)
}

// TestNodeLossKeepsAcknowledged: writers append to their businesses while
// one of the three replicas is shut down mid-storm; every append that was
// acknowledged is in the journal afterwards, in order, numbered without
// gaps.
func TestNodeLossKeepsAcknowledged(t *testing.T) {
	ss := streamtest.Cluster(t, 3)
	j := connect(t, ss...)
	const writers = 8
	acked := make([]map[uint64]string, writers)
	bizs := make([]uuid.UUID, writers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		bizs[w], acked[w] = uuid.New(), map[uint64]string{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var at stream.Position
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				rec := fmt.Sprintf("w%d-%d", w, n)
				next, err := j.Append(c, bizs[w], at, []byte(rec))
				if errors.Is(err, stream.ErrFenced) || err != nil {
					// Unknown outcome or moved on: re-read where it stands.
					if p, rerr := j.Replay(c, bizs[w], at, func(uint64, []byte) error { return nil }); rerr == nil {
						at = p
					}
					cancel()
					time.Sleep(10 * time.Millisecond)
					continue
				}
				cancel()
				acked[w][next.Seq] = rec
				at = next
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	ss[1].Shutdown()
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	wg.Wait()

	fresh := connect(t, ss[0], ss[2])
	total := 0
	for w := range writers {
		stored := map[uint64]string{}
		prev := uint64(0)
		_, err := fresh.Replay(ctx(t), bizs[w], stream.Position{}, func(seq uint64, rec []byte) error {
			require.Equal(t, prev+1, seq, "numbered without gaps")
			prev, stored[seq] = seq, string(rec)
			return nil
		})
		require.NoError(t, err)
		for seq, rec := range acked[w] {
			require.Equal(t, rec, stored[seq], "acknowledged record %d of writer %d", seq, w)
		}
		total += len(acked[w])
	}
	require.Greater(t, total, writers*10, "the storm wrote")
	t.Logf("%d acknowledged appends, all present after losing a replica", total)
}

func BenchmarkAppend(b *testing.B) {
	ss := streamtest.Cluster(b, 3)
	j := connect(b, ss...)
	biz, rec := uuid.New(), make([]byte, 500)
	var at stream.Position
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var err error
		if at, err = j.Append(context.Background(), biz, at, rec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendParallel(b *testing.B) {
	ss := streamtest.Cluster(b, 3)
	j := connect(b, ss...)
	rec := make([]byte, 500)
	b.SetParallelism(32) // 64 writers on 2 cores, as storage's BenchmarkAppendParallel
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		biz := uuid.New()
		var at stream.Position
		for pb.Next() {
			var err error
			if at, err = j.Append(context.Background(), biz, at, rec); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// TestReplayGap: a replay whose starting position's successors were
// purged (a newer checkpoint) reports ErrGap, so the take-over starts
// again from the newer checkpoint instead of rebuilding a hole.
func TestReplayGap(t *testing.T) {
	j := connect(t, streamtest.Cluster(t, 3)...)
	biz := uuid.New()
	var at [5]stream.Position
	var err error
	for i := 1; i < len(at); i++ {
		at[i], err = j.Append(ctx(t), biz, at[i-1], fmt.Appendf(nil, "r%d", i))
		require.NoError(t, err)
	}
	require.NoError(t, stream.PurgeBefore(j, ctx(t), biz, at[3].Stream))
	_, err = j.Replay(ctx(t), biz, at[1], func(uint64, []byte) error { return nil })
	require.ErrorIs(t, err, stream.ErrGap)
	var got []string
	_, err = j.Replay(ctx(t), biz, at[2], func(_ uint64, rec []byte) error { got = append(got, string(rec)); return nil })
	require.NoError(t, err, "from the newer checkpoint's position the records are whole")
	require.Equal(t, []string{"r3", "r4"}, got)
}
