package stream_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/storage/stream"
	"github.com/slotd/slotd/storage/stream/streamtest"
)

// TestClaimsOneHolder: a business's owner record moves only from a holder
// that let go or whose lease is over — never from one that keeps its lease
// alive — and the holder whose lease another node ended finds it lapsed
// before it could serve again.
func TestClaimsOneHolder(t *testing.T) {
	ss := streamtest.Cluster(t, 3)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg, err := stream.OpenRegistry(ctx(t), connect(t, ss...), "", log)
	require.NoError(t, err)

	var aMay atomic.Bool
	aMay.Store(true)
	var aLapsed atomic.Int32
	a, err := reg.Lease(ctx(t), "a", func() { aLapsed.Add(1) }, aMay.Load)
	require.NoError(t, err)
	defer a.Stop()
	b, err := reg.Lease(ctx(t), "b", nil, nil)
	require.NoError(t, err)
	defer b.Stop()
	ca, cb := reg.Claims(a), reg.Claims(b)

	biz := uuid.New()
	holder, rev, err := ca.Claim(ctx(t), biz)
	require.NoError(t, err)
	require.Equal(t, a.Holder(), holder)

	// a is alive: b gives up within about a second, a keeps it.
	began := time.Now()
	_, _, err = cb.Claim(ctx(t), biz)
	require.ErrorIs(t, err, stream.ErrHolderAlive)
	require.Less(t, time.Since(began), 3*time.Second)
	// a claims it again (its own record) at once.
	_, rev, err = ca.Claim(ctx(t), biz)
	require.NoError(t, err)

	// a lets go: b takes it at once.
	ca.Release(biz, holder, rev)
	began = time.Now()
	bHolder, bRev, err := cb.Claim(ctx(t), biz)
	require.NoError(t, err)
	require.Less(t, time.Since(began), 2*time.Second)
	// a's late release of an old claim does not free b's.
	ca.Release(biz, holder, rev)
	_, _, err = ca.Claim(ctx(t), biz)
	require.ErrorIs(t, err, stream.ErrHolderAlive)

	// b is cut off (it stops renewing): a ends b's lease and takes over.
	other := uuid.New()
	_, _, err = cb.Claim(ctx(t), other)
	require.NoError(t, err)
	b.Stop()
	require.Eventually(t, func() bool { return !b.Valid() }, 5*time.Second, 10*time.Millisecond)
	_, _, err = ca.Claim(ctx(t), other)
	require.NoError(t, err, "b's lease ran out: its business is a's")
	cb.Release(biz, bHolder, bRev) // a release after the end changes nothing

	// a loses sight of the majority (may false): it stops renewing, and a
	// third node ends its lease to take its business over.
	c, err := reg.Lease(ctx(t), "c", nil, nil)
	require.NoError(t, err)
	defer c.Stop()
	before := a.Holder()
	aMay.Store(false)
	require.False(t, a.Valid(), "a lease without the majority is not valid")
	_, _, err = reg.Claims(c).Claim(ctx(t), other)
	require.NoError(t, err)
	// Back in sight of the majority: a finds its lease fenced, lets go
	// (lapsed) and renews as a new incarnation.
	aMay.Store(true)
	require.Eventually(t, func() bool { return aLapsed.Load() == 1 && a.Valid() }, 10*time.Second, 10*time.Millisecond)
	require.NotEqual(t, before, a.Holder())
	_, _, err = reg.Claims(c).Claim(ctx(t), other)
	require.NoError(t, err, "c still holds it")
}

// TestClaimAfterRestart: a node that comes back (a new lease under the same
// name) ends its previous incarnation: another node takes that
// incarnation's businesses without waiting.
func TestClaimAfterRestart(t *testing.T) {
	ss := streamtest.Cluster(t, 3)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg, err := stream.OpenRegistry(ctx(t), connect(t, ss...), "", log)
	require.NoError(t, err)
	a, err := reg.Lease(ctx(t), "a", nil, nil)
	require.NoError(t, err)
	biz := uuid.New()
	_, _, err = reg.Claims(a).Claim(ctx(t), biz)
	require.NoError(t, err)
	a.Stop() // killed

	again, err := reg.Lease(ctx(t), "a", nil, nil)
	require.NoError(t, err)
	defer again.Stop()
	b, err := reg.Lease(ctx(t), "b", nil, nil)
	require.NoError(t, err)
	defer b.Stop()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, _, err = reg.Claims(b).Claim(c, biz)
	require.NoError(t, err, "the old incarnation is over once the node renewed as a new one")
}

// TestLeaseOutlivesJournalOutage: a lease that ran out only because the
// journal could not take its renewals (no quorum) is not over — nobody
// could fence it — so the node goes on as the same incarnation, keeping
// what it holds, once the journal is back; it neither lets go nor rejoins.
func TestLeaseOutlivesJournalOutage(t *testing.T) {
	rs := streamtest.Start(t, 3)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg, err := stream.OpenRegistry(ctx(t), connect(t, rs.Servers[0]), "", log)
	require.NoError(t, err)
	var lapsed atomic.Int32
	a, err := reg.Lease(ctx(t), "a", func() { lapsed.Add(1) }, nil)
	require.NoError(t, err)
	defer a.Stop()
	holder := a.Holder()
	biz := uuid.New()
	_, rev, err := reg.Claims(a).Claim(ctx(t), biz)
	require.NoError(t, err)

	rs.Stop(1)
	rs.Stop(2)
	require.Eventually(t, func() bool { return !a.Valid() }, 10*time.Second, 10*time.Millisecond, "a lease renewed without a quorum")
	rs.Restart(1)
	rs.Restart(2)
	require.Eventually(t, a.Valid, time.Minute, 10*time.Millisecond)
	require.Zero(t, lapsed.Load(), "the node let go although nobody could have taken anything")
	require.Equal(t, holder, a.Holder(), "the same incarnation goes on")
	_, again, err := reg.Claims(a).Claim(ctx(t), biz)
	require.NoError(t, err)
	require.Greater(t, again, rev, "its owner record is still its own")
}

// TestFenceRace: two nodes take a silent node's businesses over at once
// and race to fence its lease; the loser's claim stands as well as the
// winner's (it was told "alive" before, and waited for its next try).
func TestFenceRace(t *testing.T) {
	ss := streamtest.Cluster(t, 3)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg, err := stream.OpenRegistry(ctx(t), connect(t, ss...), "", log)
	require.NoError(t, err)
	a, err := reg.Lease(ctx(t), "a", nil, nil)
	require.NoError(t, err)
	one, two := uuid.New(), uuid.New()
	for _, biz := range []uuid.UUID{one, two} {
		_, _, err = reg.Claims(a).Claim(ctx(t), biz)
		require.NoError(t, err)
	}
	inc := strings.TrimPrefix(a.Holder(), "a/")
	a.Stop() // paused: it renews no more
	b, err := reg.Lease(ctx(t), "b", nil, nil)
	require.NoError(t, err)
	defer b.Stop()
	c, err := reg.Lease(ctx(t), "c", nil, nil)
	require.NoError(t, err)
	defer c.Stop()
	cb, cc := reg.Claims(b), reg.Claims(c)
	require.False(t, stream.EndedMeanwhile(cb, ctx(t), "a", inc), "a's lease is not fenced yet")

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, claim := range []func() error{
		func() error { _, _, err := cb.Claim(ctx(t), one); return err },
		func() error { _, _, err := cc.Claim(ctx(t), two); return err },
	} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = claim() }()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	require.Equal(t, uint64(1), cb.Stats().Fenced+cc.Stats().Fenced, "fenced once")
	require.True(t, stream.EndedMeanwhile(cb, ctx(t), "a", inc), "a's lease is fenced now")
}
