package directory

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage"
)

// openResident opens a directory with residency res on a fake clock.
func openResident(t *testing.T, res Residency) (*Directory, *clock.Fake) {
	t.Helper()
	st, err := storage.Open(t.TempDir(), storage.Options{})
	require.NoError(t, err)
	clk := clock.NewFake(t0)
	d, err := Open(Config{Store: st, Clock: clk, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Residency: res})
	require.NoError(t, err)
	t.Cleanup(func() { d.Close(); st.Close() })
	return d, clk
}

// TestResidencyLetsIdleBusinessesGo: a business with no request for
// --idle-after is let go, and its next request loads it again as it
// was; one asked about keeps its place.
func TestResidencyLetsIdleBusinessesGo(t *testing.T) {
	d, clk := openResident(t, Residency{IdleAfter: time.Minute})
	ctx := context.Background()
	a, b := uuid.New(), uuid.New()
	_, err := d.Put(ctx, []model.Spec{spec(a, "sk_a"), spec(b, "sk_b")})
	require.NoError(t, err)
	for _, id := range []uuid.UUID{a, b} {
		_, err = d.Business(ctx, id)
		require.NoError(t, err)
	}
	cs := d.Collectors()
	resident, gone := cs[1], cs[2]
	require.Equal(t, 2.0, testutil.ToFloat64(resident))

	// 45 s on, b is asked about; 30 s later a has been idle for 75 s.
	clk.Advance(45 * time.Second)
	require.Eventually(t, func() bool { return d.res.now.load() == clk.Now().UnixNano() }, 5*time.Second, time.Millisecond)
	v, ok, err := d.View(b)
	require.NoError(t, err)
	require.True(t, ok)
	clk.Advance(30 * time.Second)
	require.Eventually(t, func() bool { return testutil.ToFloat64(gone) == 1 }, 5*time.Second, time.Millisecond)
	require.Equal(t, 1.0, testutil.ToFloat64(resident))
	_, stillA := d.handles.Load(a)
	require.False(t, stillA, "a was let go")

	// a's next request loads it again, as it was.
	va, ok, err := d.View(a)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "B "+a.String()[:4], va.Business().Name)
	require.Equal(t, 2.0, testutil.ToFloat64(resident))
	require.Equal(t, v.Business().Name, "B "+b.String()[:4])
}

// TestResidencyMaxResident: past --max-resident the least recently used
// businesses are let go first, however recently used.
func TestResidencyMaxResident(t *testing.T) {
	d, clk := openResident(t, Residency{MaxResident: 2})
	ctx := context.Background()
	ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New(), uuid.New()}
	var specs []model.Spec
	for i, id := range ids {
		specs = append(specs, spec(id, "sk_"+string(rune('a'+i))))
	}
	_, err := d.Put(ctx, specs)
	require.NoError(t, err)
	resident := d.Collectors()[1]
	look := func() {
		clk.Advance(time.Second)
		require.Eventually(t, func() bool { return d.res.now.load() == clk.Now().UnixNano() && testutil.ToFloat64(resident) <= 2 },
			5*time.Second, time.Millisecond)
	}
	look() // the four the put started: two let go
	for _, id := range ids {
		// Each one used a look (a second) after the one before: requests
		// are dated by the last look's clock.
		_, err = d.Business(ctx, id)
		require.NoError(t, err)
		look()
	}
	for i, id := range ids {
		_, here := d.handles.Load(id)
		require.Equal(t, i >= 2, here, "business %d", i)
	}
}

// TestResidencyRequestKeepsItsActor: a business whose handle has a
// request on its way is not let go (Retire fails), and a request that
// finds its handle let go reaches the business's new actor.
func TestResidencyRequestKeepsItsActor(t *testing.T) {
	d, clk := openResident(t, Residency{IdleAfter: time.Minute})
	ctx := context.Background()
	a := uuid.New()
	_, err := d.Put(ctx, []model.Spec{spec(a, "sk_a")})
	require.NoError(t, err)
	h, err := d.Business(ctx, a)
	require.NoError(t, err)
	require.True(t, h.Enter())
	clk.Advance(2 * time.Minute)
	gone := d.Collectors()[2]
	// The look ran (its next one is armed) and let nothing go.
	require.Eventually(t, func() bool { return d.res.now.load() == clk.Now().UnixNano() }, 5*time.Second, time.Millisecond)
	require.Never(t, func() bool { return testutil.ToFloat64(gone) > 0 }, 100*time.Millisecond, 10*time.Millisecond)
	h.Exit()
	clk.Advance(time.Minute)
	require.Eventually(t, func() bool { return testutil.ToFloat64(gone) == 1 }, 5*time.Second, time.Millisecond)
	require.True(t, h.Retired())
	require.False(t, h.Enter(), "a handle let go takes no request")
	// Through the directory, the request reaches a new actor.
	_, err = d.Issue(ctx, a, model.Key{ID: uuid.New(), Hash: model.HashKey("sk_a2"), Scopes: []string{"services:read"}})
	require.NoError(t, err)
}

// TestSnapshotPrunesOffTheTurn: the answers past their 24 hours are
// dropped by the snapshot's goroutine, and the actor's state (published
// with its next write) loses them; the answers within it stay.
func TestSnapshotPrunesOffTheTurn(t *testing.T) {
	d, clk := openResident(t, Residency{})
	d.env.SnapshotEvery = 5
	ctx := context.Background()
	a := uuid.New()
	_, err := d.Put(ctx, []model.Spec{spec(a, "sk_a")})
	require.NoError(t, err)
	add := func(i int) {
		_, err := d.addCustomer(ctx, a, model.Customer{FirstName: "C", Email: fmt.Sprintf("c%d@example.com", i)},
			business.IdemKey{Key: fmt.Sprint("k-", i)})
		require.NoError(t, err)
	}
	for i := range 3 {
		add(i)
	}
	clk.Advance(25 * time.Hour)
	h, err := d.Business(ctx, a)
	require.NoError(t, err)
	require.NotNil(t, h.State().Idempotency("k-0"))
	i := 3
	require.Eventually(t, func() bool {
		add(i) // a snapshot comes every few records; the next write publishes the pruned state
		i++
		return h.State().Idempotency("k-0") == nil
	}, 10*time.Second, time.Millisecond)
	require.Nil(t, h.State().Idempotency("k-2"))
	require.NotNil(t, h.State().Idempotency("k-3"), "an answer within its 24 hours stays")
}

// TestResidencyBoundKeptAtOnce: a business loaded past --max-resident
// lets the least recently used go at once, without waiting for the next
// look (a burst of first requests stays near the bound).
func TestResidencyBoundKeptAtOnce(t *testing.T) {
	d, clk := openResident(t, Residency{MaxResident: 2})
	ctx := context.Background()
	ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	var specs []model.Spec
	for i, id := range ids {
		specs = append(specs, spec(id, fmt.Sprint("sk_", i)))
	}
	_, err := d.Put(ctx, specs)
	require.NoError(t, err)
	resident := d.Collectors()[1]
	clk.Advance(time.Second) // the put's actors: one let go
	require.Eventually(t, func() bool { return testutil.ToFloat64(resident) == 2 }, 5*time.Second, time.Millisecond)
	for _, id := range ids {
		_, err = d.Business(ctx, id)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return testutil.ToFloat64(resident) <= 2 }, 5*time.Second, time.Millisecond,
			"the clock did not move: the load itself kept the bound")
	}
}

// TestResidencyKicksWhileALookRunsAreOne: first answers past the bound
// while a look runs start one look more between them, not one each (each
// queued its own, and at 1,500 first answers a second the looks took the
// CPU).
func TestResidencyKicksWhileALookRunsAreOne(t *testing.T) {
	d, _ := openResident(t, Residency{MaxResident: 1})
	ctx := context.Background()
	var specs []model.Spec
	for i := range 3 {
		specs = append(specs, spec(uuid.New(), fmt.Sprint("sk_", i)))
	}
	_, err := d.Put(ctx, specs)
	require.NoError(t, err)
	r := d.res
	r.looking.Lock() // a look is running
	r.kicked.Store(false)
	before := r.kicks.Load()
	d.live.Add(100) // far past the bound
	for range 50 {
		d.kick()
		for range 10 {
			runtime.Gosched() // the kicked goroutine runs, up to where it waits for its turn
		}
	}
	require.Equal(t, before+1, r.kicks.Load(), "kicks while a look runs")
	d.live.Add(-100)
	r.looking.Unlock()
	require.Eventually(t, func() bool { return !r.kicked.Load() }, 5*time.Second, time.Millisecond, "the kicked look began")
}
