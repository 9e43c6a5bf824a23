package directory

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func open(t *testing.T, dir string) (*Directory, *storage.Store) {
	t.Helper()
	st, err := storage.Open(dir, storage.Options{})
	require.NoError(t, err)
	d, err := Open(Config{Store: st, Clock: clock.NewFake(t0), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	return d, st
}

func spec(id uuid.UUID, keys ...string) model.Spec {
	s := model.Spec{
		Business: model.Business{ID: id, Name: "B " + id.String()[:4], Timezone: "Europe/Amsterdam", Currency: "EUR", Plan: model.Pro},
	}
	for _, k := range keys {
		s.Keys = append(s.Keys, model.Key{ID: uuid.New(), Hash: model.HashKey(k), Scopes: []string{"services:read"}})
	}
	return s
}

func TestPanicRestartsTheActorFromItsJournal(t *testing.T) {
	d, st := open(t, t.TempDir())
	defer st.Close()
	defer d.Close()
	ctx := context.Background()
	id := uuid.New()
	_, err := d.Put(ctx, []model.Spec{spec(id, "sk_a")})
	require.NoError(t, err)
	h, err := d.Business(ctx, id)
	require.NoError(t, err)

	// A Put without a spec panics inside the actor.
	_, err = Ask[business.PutResult](ctx, d, id, &business.Put{})
	var pe *problem.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, problem.Internal, pe.Code)
	require.ErrorContains(t, pe.Cause, "panicked", "the cause is kept for the log")

	// The restarted actor has the journalled state and keeps working.
	k, err := d.Issue(ctx, id, model.Key{ID: uuid.New(), Hash: model.HashKey("sk_b")})
	require.NoError(t, err)
	require.Equal(t, t0, k.CreatedAt)
	require.NotNil(t, h.State().Key(model.HashKey("sk_a")))
	require.NotNil(t, h.State().Key(model.HashKey("sk_b")))
}

func TestConcurrentTenantsSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	d, st := open(t, dir)
	ctx := context.Background()
	const tenants, keysEach = 8, 10
	ids := make([]uuid.UUID, tenants)
	for i := range ids {
		ids[i] = uuid.New()
		_, err := d.Put(ctx, []model.Spec{spec(ids[i], fmt.Sprintf("sk_root_%d", i))})
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	for i := range ids {
		for j := 0; j < keysEach; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := d.Issue(ctx, ids[i], model.Key{ID: uuid.New(), Hash: model.HashKey(fmt.Sprintf("sk_%d_%d", i, j))})
				require.NoError(t, err)
			}()
		}
	}
	wg.Wait()
	d.Close()
	require.NoError(t, st.Close())

	d, st = open(t, dir)
	defer st.Close()
	defer d.Close()
	for i := range ids {
		for j := 0; j < keysEach; j++ {
			owner, ok := d.KeyOwner(model.HashKey(fmt.Sprintf("sk_%d_%d", i, j)))
			require.True(t, ok)
			require.Equal(t, ids[i], owner)
		}
		h, err := d.Business(ctx, ids[i])
		require.NoError(t, err)
		require.Len(t, h.State().Keys, keysEach+1)
	}
}

func TestKeysBelongToOneBusiness(t *testing.T) {
	d, st := open(t, t.TempDir())
	defer st.Close()
	defer d.Close()
	ctx := context.Background()
	a, b := uuid.New(), uuid.New()
	_, err := d.Put(ctx, []model.Spec{spec(a, "sk_shared")})
	require.NoError(t, err)
	_, err = d.Put(ctx, []model.Spec{spec(b, "sk_shared")})
	require.Error(t, err)
	_, err = d.Issue(ctx, b, model.Key{ID: uuid.New(), Hash: model.HashKey("sk_shared")})
	require.Error(t, err, "b does not exist")
	_, err = d.Put(ctx, []model.Spec{spec(b, "sk_b")})
	require.NoError(t, err)
	_, err = d.Issue(ctx, b, model.Key{ID: uuid.New(), Hash: model.HashKey("sk_shared")})
	require.Error(t, err)
	owner, _ := d.KeyOwner(model.HashKey("sk_shared"))
	require.Equal(t, a, owner)
}

// TestKeyRaceHasOneWinner: businesses put at once, each claiming the same
// key among keys of their own, and others with keys of their own only:
// exactly one of the claimants gets the shared key, every other put of a
// claimant is refused whole, and the others all succeed (writes with
// different keys do not wait for each other, and lose nothing).
func TestKeyRaceHasOneWinner(t *testing.T) {
	d, st := open(t, t.TempDir())
	defer st.Close()
	defer d.Close()
	ctx := context.Background()
	const claimants, others = 16, 48
	ids := make([]uuid.UUID, claimants+others)
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i := range ids {
		ids[i] = uuid.New()
		keys := []string{fmt.Sprintf("sk_own_%d", i)}
		if i < claimants {
			keys = append(keys, "sk_contested")
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = d.Put(ctx, []model.Spec{spec(ids[i], keys...)})
		}()
	}
	wg.Wait()
	winner, ok := d.KeyOwner(model.HashKey("sk_contested"))
	require.True(t, ok)
	won := 0
	for i, err := range errs {
		own, owned := d.KeyOwner(model.HashKey(fmt.Sprintf("sk_own_%d", i)))
		switch {
		case i >= claimants:
			require.NoError(t, err)
			require.True(t, owned)
			require.Equal(t, ids[i], own)
		case err == nil:
			won++
			require.Equal(t, ids[i], winner)
			require.Equal(t, ids[i], own)
		default:
			require.False(t, owned, "a refused put claims none of its keys")
		}
	}
	require.Equal(t, 1, won)
}

func TestSnapshotsBoundReplay(t *testing.T) {
	dir := t.TempDir()
	d, st := open(t, dir)
	d.env.SnapshotEvery = 5
	ctx := context.Background()
	id := uuid.New()
	_, err := d.Put(ctx, []model.Spec{spec(id, "sk_root")})
	require.NoError(t, err)
	for j := 0; j < 12; j++ {
		_, err := d.Issue(ctx, id, model.Key{ID: uuid.New(), Hash: model.HashKey(fmt.Sprintf("sk_%d", j))})
		require.NoError(t, err)
	}
	d.Close()
	n := 0
	require.NoError(t, st.Replay(id, 0, func(uint64, []byte) error { n++; return nil }))
	// The snapshot at record 5 is always taken; one at record 10 or later
	// only if the first is no longer in flight by then (at most one per
	// actor), which a loaded machine can delay past the last write. Close
	// waits for both: at most 13-5 records are left.
	require.LessOrEqual(t, n, 8, "records covered by a snapshot are truncated")
	require.NoError(t, st.Close())

	d, st = open(t, dir)
	defer st.Close()
	defer d.Close()
	h, err := d.Business(ctx, id)
	require.NoError(t, err)
	require.Len(t, h.State().Keys, 13)
	require.Equal(t, uint64(13), h.State().Seq)
}

func TestBookingFillsTheOutbox(t *testing.T) {
	dir := t.TempDir()
	d, st := open(t, dir)
	ctx := context.Background()
	id, cat, svc, staff := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	sp := spec(id, "sk_o")
	sp.Business.Modules, sp.Business.Rules = model.AllModules, model.DefaultRules()
	sp.Categories = []model.Category{{ID: cat, Name: "C"}}
	sp.Services = []model.Service{{ID: svc, Name: "Cut", DurationMinutes: 30, IsActive: true, CategoryID: cat}}
	sp.Staff = []model.Staff{{ID: staff, Name: "A", IsActive: true, IsBookable: true, AssignedServiceIDs: []uuid.UUID{svc}}}
	_, err := d.Put(ctx, []model.Spec{sp})
	require.NoError(t, err)
	var eps [2]uuid.UUID
	for i, types := range [][]string{{"appointment.created", "customer.created"}, {"appointment.cancelled"}} {
		e, err := Do(ctx, d, id, ledger.RegisterEndpoint{In: ledger.EndpointInput{URL: fmt.Sprintf("https://h%d.example/", i), EventTypes: types}, Secret: "whsec_x"})
		require.NoError(t, err)
		eps[i] = e.ID
	}
	ans, err := d.book(ctx, id, ledger.CreateInput{ServiceID: svc, Start: t0.Add(48 * time.Hour), StaffID: &staff,
		Customer: model.Customer{FirstName: "N", Email: "n@example.com"}},
		business.IdemKey{Key: "k1"})
	require.NoError(t, err)
	require.Equal(t, record.AnswerBooked, ans.Kind, "%v", ans.Refused)
	d.Close()
	require.NoError(t, st.Close())

	// After a restart the delivery log holds the work, as pending first
	// attempts (no courier runs here): two events, the new customer and then
	// the booking, for the subscribed endpoint only.
	st, err = storage.Open(dir, storage.Options{})
	require.NoError(t, err)
	defer st.Close()
	var types []string
	require.NoError(t, st.Deliveries(id, eps[0], nil, func(did [16]byte, v []byte) (bool, error) {
		dl, err := record.DecodeDelivery(v)
		require.NoError(t, err)
		require.Equal(t, uuid.UUID(did), dl.ID)
		require.Equal(t, model.DeliveryPending, dl.Status)
		require.Equal(t, 1, dl.Attempt)
		var env struct {
			ID, Type, APIVersion string
			Data                 map[string]any
		}
		require.NoError(t, json.Unmarshal(dl.Payload, &env))
		require.Equal(t, dl.EventID, env.ID)
		require.Equal(t, dl.EventType, env.Type)
		require.Regexp(t, `^evt_[0-9A-Z]{26}$`, env.ID)
		require.Equal(t, "v1", env.APIVersion)
		types = append(types, env.Type)
		return true, nil
	}))
	require.Equal(t, []string{"customer.created", "appointment.created"}, types)
	open := 0
	require.NoError(t, st.OpenDeliveries(id, eps[0], func([16]byte) error { open++; return nil }))
	require.Equal(t, 2, open)
	require.NoError(t, st.Deliveries(id, eps[1], nil, func([16]byte, []byte) (bool, error) {
		t.Fatal("an endpoint not subscribed got a delivery")
		return false, nil
	}))
	// 'e' is the outbox kind events had before the delivery log.
	require.NoError(t, st.Outbox('e', func([16]byte, string, []byte) error {
		t.Fatal("events are not kept outside the delivery log")
		return nil
	}))
	mails := 0
	require.NoError(t, st.Outbox(storage.OutboxMail, func(_ [16]byte, _ string, v []byte) error {
		mails++
		m, err := record.DecodeMailRow(v)
		require.NoError(t, err)
		require.Equal(t, "n@example.com", m.To)
		return nil
	}))
	require.Equal(t, 1, mails)
}

// TestSnapshotIntervalGrowsWithTheBusiness: a business holding many
// records snapshots after a quarter of its size in new records, not after
// the fixed minimum.
func TestSnapshotIntervalGrowsWithTheBusiness(t *testing.T) {
	d, st := open(t, t.TempDir())
	defer st.Close()
	defer d.Close()
	d.env.SnapshotEvery = 5
	ctx := context.Background()
	id := uuid.New()
	sp := spec(id, "sk_root")
	for j := 0; j < 99; j++ {
		sp.Keys = append(sp.Keys, model.Key{ID: uuid.New(), Hash: model.HashKey(fmt.Sprintf("sk_pre_%d", j)), Scopes: []string{"services:read"}})
	}
	_, err := d.Put(ctx, []model.Spec{sp}) // 100 keys: snapshots every 25 records
	require.NoError(t, err)
	journal := func() int {
		d.env.Wait() // background snapshots
		n := 0
		require.NoError(t, st.Replay(id, 0, func(uint64, []byte) error { n++; return nil }))
		return n
	}
	issue := func(n int) {
		for j := 0; j < n; j++ {
			_, err := d.Issue(ctx, id, model.Key{ID: uuid.New(), Hash: model.HashKey(uuid.NewString())})
			require.NoError(t, err)
		}
	}
	issue(20)
	require.Equal(t, 21, journal(), "21 records < a quarter of 120: no snapshot yet (the fixed minimum is 5)")
	issue(20) // a quarter of ~135 is passed at the 34th record
	require.Less(t, journal(), 10, "a snapshot covered the journal")
}

// TestLiveActorsGauge: slotd_business_actors counts each business actor
// once, however often it is asked for, and drops to 0 at Close.
func TestLiveActorsGauge(t *testing.T) {
	d, st := open(t, t.TempDir())
	defer st.Close()
	ctx := context.Background()
	g := d.Collectors()[0]
	require.Zero(t, testutil.ToFloat64(g))
	a, b := uuid.New(), uuid.New()
	_, err := d.Put(ctx, []model.Spec{spec(a, "sk_a"), spec(b, "sk_b")})
	require.NoError(t, err)
	for range 3 {
		_, err = d.Business(ctx, a)
		require.NoError(t, err)
	}
	require.Equal(t, 2.0, testutil.ToFloat64(g))
	d.Close()
	require.Zero(t, testutil.ToFloat64(g))
}
