package stream_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/stream"
	"github.com/slotd/slotd/storage/stream/streamtest"
)

// TestRegistry: what one node writes into the registry, every other node
// routes by; the cluster-wide secret is one.
func TestRegistry(t *testing.T) {
	ss := streamtest.Cluster(t, 3)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := stream.OpenRegistry(ctx(t), connect(t, ss[0]), "", log)
	require.NoError(t, err)
	b, err := stream.OpenRegistry(ctx(t), connect(t, ss[1]), "", log)
	require.NoError(t, err)

	biz := uuid.New()
	k1, k2 := model.HashKey("sk_one"), model.HashKey("sk_two")
	a.PublishHashes(biz, "Salon", []model.KeyHash{k1})
	require.Eventually(t, func() bool { id, ok := b.Owner(k1); return ok && id == biz }, 10*time.Second, 5*time.Millisecond)
	require.True(t, b.Has(biz))
	a.Changed(biz, "Salon Renamed", []model.KeyHash{k2}, []model.KeyHash{k1})
	require.Eventually(t, func() bool {
		_, one := b.Owner(k1)
		id, two := b.Owner(k2)
		return !one && two && id == biz
	}, 10*time.Second, 5*time.Millisecond)
	var names []string
	require.NoError(t, b.Businesses(func(_ uuid.UUID, name string) error { names = append(names, name); return nil }))
	require.Equal(t, []string{"Salon Renamed"}, names)

	require.NoError(t, a.PublishNode(ctx(t), "n1", "127.0.0.1:7101", "127.0.0.1:7301"))
	require.Eventually(t, func() bool { h, ok := b.HandOverAddr("127.0.0.1:7101"); return ok && h == "127.0.0.1:7301" },
		10*time.Second, 5*time.Millisecond)

	s1, err := a.Secret(ctx(t), "cursor", func() []byte { return []byte("from a") })
	require.NoError(t, err)
	s2, err := b.Secret(ctx(t), "cursor", func() []byte { return []byte("from b") })
	require.NoError(t, err)
	require.Equal(t, "from a", string(s1))
	require.Equal(t, s1, s2, "one secret for the cluster")
}

// TestRegistryRidesOutLostQuorum: a node starting while the journal's
// replicas have no quorum (peers still starting, or a bucket just created
// and without a leader yet) waits for one instead of failing its start
// (CI saw a node exit on "no responders" from the cursor secret).
func TestRegistryRidesOutLostQuorum(t *testing.T) {
	rs := streamtest.Start(t, 3)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg, err := stream.OpenRegistry(ctx(t), connect(t, rs.Servers[0]), "", log)
	require.NoError(t, err)
	rs.Stop(1)
	rs.Stop(2)
	// Without a quorum the bucket answers nothing.
	short, cancel := context.WithTimeout(context.Background(), time.Second)
	_, err = reg.Secret(short, "cursor", func() []byte { return []byte("s") })
	cancel()
	require.Error(t, err)
	t.Logf("without quorum: %v", err)

	type result struct {
		secret []byte
		err    error
	}
	done := make(chan result, 1)
	go func() {
		long, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, err := reg.Secret(long, "cursor", func() []byte { return []byte("s") })
		if err == nil {
			err = reg.PublishNode(long, "n1", "127.0.0.1:7101", "127.0.0.1:7301")
		}
		done <- result{s, err}
	}()
	rs.Restart(1)
	rs.Restart(2)
	r := <-done
	require.NoError(t, r.err)
	require.Equal(t, "s", string(r.secret))
}

// TestReadsGoToTheLeader: every stream and bucket of the journal answers
// reads from its leader only (leader.go) — also one an older version
// created with direct gets on — so a paused replica never holds a read.
// And each node knows, from its watch, which node holds a business's
// owner record, for a node that cannot place businesses itself.
func TestReadsGoToTheLeader(t *testing.T) {
	ss := streamtest.Cluster(t, 3)
	nc, err := nats.Connect(ss[0].ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	// The registry bucket as an older slotd left it: direct gets on.
	require.Eventually(t, func() bool {
		_, err := js.CreateOrUpdateKeyValue(ctx(t), jetstream.KeyValueConfig{Bucket: "slotd-businesses", Replicas: 3,
			Storage: jetstream.FileStorage, History: 1})
		return err == nil
	}, 30*time.Second, 100*time.Millisecond)

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := stream.OpenRegistry(ctx(t), connect(t, ss[0]), "", log)
	require.NoError(t, err)
	b, err := stream.OpenRegistry(ctx(t), connect(t, ss[1]), "", log)
	require.NoError(t, err)
	for _, name := range []string{"SLOTD_JOURNAL", "SLOTD_CHECKPOINTS", "KV_slotd-checkpoints", "KV_slotd-businesses"} {
		s, err := js.Stream(ctx(t), name)
		require.NoError(t, err)
		require.False(t, s.CachedInfo().Config.AllowDirect, "%s allows direct gets", name)
	}

	require.NoError(t, a.PublishNode(ctx(t), "a", "127.0.0.1:7101", "127.0.0.1:7301"))
	lease, err := a.Lease(ctx(t), "a", nil, nil)
	require.NoError(t, err)
	t.Cleanup(lease.Stop)
	biz := uuid.New()
	_, rev, err := a.Claims(lease).Claim(ctx(t), biz)
	require.NoError(t, err)
	require.Eventually(t, func() bool { h, ok := b.HolderAddr(biz, "b"); return ok && h == "127.0.0.1:7301" },
		10*time.Second, 5*time.Millisecond, "b sees a holding it")
	_, ok := a.HolderAddr(biz, "a")
	require.False(t, ok, "not handed to itself")
	a.Claims(lease).Release(biz, lease.Holder(), rev)
	require.Eventually(t, func() bool { _, ok := b.HolderAddr(biz, "b"); return !ok }, 10*time.Second, 5*time.Millisecond,
		"released: held by nobody")
}
