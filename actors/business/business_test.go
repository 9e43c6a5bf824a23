package business_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
)

// The business actor seen from its typed boundary (package directory) and
// its published state (Handle.State), on a real Pebble store in memory.
// Tests run inside testing/synctest bubbles: synctest.Wait returns once the
// actors, the publisher and Pebble's goroutines are all blocked, so a test
// observes "the actor has handled it" without sleeping or polling.

var t0 = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

// rig is one business (a salon with one service and one staff member,
// open 09:00–17:00 every day) behind a directory on fs.
type rig struct {
	t      *testing.T
	fs     vfs.FS
	store  *storage.Store
	dir    *directory.Directory
	h      *business.Handle
	mails  *atomic.Int64 // MailQueued calls
	biz    uuid.UUID
	svc    uuid.UUID
	staff  uuid.UUID
	closed bool
}

var (
	rigBiz   = uuid.MustParse("6f1c2d3e-0000-4000-8000-000000000001")
	rigSvc   = uuid.MustParse("6f1c2d3e-0000-4000-8000-000000000002")
	rigStaff = uuid.MustParse("6f1c2d3e-0000-4000-8000-000000000003")
	rigCat   = uuid.MustParse("6f1c2d3e-0000-4000-8000-000000000004")
)

func rigSpec() model.Spec {
	hours := model.WeekHours{}
	for d := range hours {
		hours[d] = []model.Span{{From: 9 * 60, To: 17 * 60}}
	}
	return model.Spec{
		Business: model.Business{ID: rigBiz, Name: "Rig", Timezone: "UTC", Currency: "EUR", Plan: model.Pro,
			Modules: model.AllModules, Assignment: model.FirstAvailable, Rules: model.DefaultRules()},
		Categories: []model.Category{{ID: rigCat, Name: "C"}},
		Services:   []model.Service{{ID: rigSvc, Name: "Cut", DurationMinutes: 30, PriceCents: 3000, IsActive: true, CategoryID: rigCat}},
		Staff: []model.Staff{{ID: rigStaff, Name: "Anna", IsActive: true, IsBookable: true,
			AssignedServiceIDs: []uuid.UUID{rigSvc}, Hours: hours}},
	}
}

// openRig opens the store on fs and puts the business when it is new.
func openRig(t *testing.T, fs vfs.FS, snapshotEvery uint64) *rig {
	return openRigWith(t, fs, snapshotEvery, nil)
}

// openRigWith is openRig for a business that takes prepayment through
// pays (a client_secret provider) when pays is not nil.
func openRigWith(t *testing.T, fs vfs.FS, snapshotEvery uint64, pays business.Payments) *rig {
	t.Helper()
	st, err := storage.Open("data", storage.Options{FS: fs})
	require.NoError(t, err)
	r := &rig{t: t, fs: fs, store: st, mails: &atomic.Int64{}, biz: rigBiz, svc: rigSvc, staff: rigStaff}
	r.dir, err = directory.Open(directory.Config{Store: st, Clock: clock.NewFake(t0),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MailQueued: func(uuid.UUID, []business.MailRow) { r.mails.Add(1) }, SnapshotEvery: snapshotEvery,
		Payments: pays, PublicURL: "http://127.0.0.1:8080"})
	require.NoError(t, err)
	ctx := context.Background()
	if r.h, err = r.dir.Business(ctx, rigBiz); err == nil && r.h.State() == nil {
		spec := rigSpec()
		if pays != nil {
			spec.Business.Payments = model.Payments{Provider: "client_secret", RequiresPayment: true, HoldMinutes: 15,
				BaseURL: "http://provider.invalid", APIKey: "sk_test"}
		}
		_, err = r.dir.Put(ctx, []model.Spec{spec})
	}
	require.NoError(t, err)
	t.Cleanup(r.close)
	return r
}

func (r *rig) close() {
	if !r.closed {
		r.closed = true
		r.dir.Close()
		require.NoError(r.t, r.store.Close())
		// A reply to a request that gave up becomes a dead letter, and
		// protoactor's dead-letter throttle then waits out its interval on
		// a timer; let that (fake) time pass so the bubble ends empty.
		time.Sleep(time.Minute)
	}
}

// at is the n-th half hour of working time on the day after t0.
func at(n int) time.Time { return t0.Add(24*time.Hour + time.Hour + time.Duration(n)*30*time.Minute) }

func (r *rig) input(n int, email string) ledger.CreateInput {
	return ledger.CreateInput{ServiceID: r.svc, Start: at(n), StaffID: &r.staff, Enforce: true,
		Customer: model.Customer{FirstName: "C", Email: email}}
}

func idem(key string, body string) business.IdemKey {
	var h [32]byte
	copy(h[:], body)
	return business.IdemKey{Key: key, BodyHash: h}
}

// book books slot n for email under key; the body hash follows n and email.
func (r *rig) book(key string, n int, email string) (*business.Answer, error) {
	return directory.DoOnce(context.Background(), r.dir, r.biz, directory.Book{In: r.input(n, email)}, idem(key, fmt.Sprint(n, email)))
}

type result struct {
	ans *business.Answer
	err error
}

// bookAsync books in the background; the result arrives on the channel.
func (r *rig) bookAsync(key string, n int, email string) <-chan result {
	c := make(chan result, 1)
	go func() {
		ans, err := r.book(key, n, email)
		c <- result{ans, err}
	}()
	return c
}

// offered reports whether the published state's availability offers slot n.
func (r *rig) offered(n int) bool {
	st := r.h.State()
	q := calendar.Query{Business: &st.Business, Loc: st.Loc, Now: t0, Service: st.Service(r.svc),
		Staff: st.Staff, Index: st.Index(), From: at(n), To: at(n)}
	return len(calendar.Slots(&q, nil)) == 1
}

func appointments(st *ledger.State) int {
	n := 0
	st.Appointments(nil, func(*model.Appointment) bool { n++; return true })
	return n
}

func code(t *testing.T, ans *business.Answer) string {
	require.Equal(t, record.AnswerRefused, ans.Kind)
	return string(ans.Refused.Code)
}

// waitSeq waits until every goroutine is blocked and checks that the
// journal in the store (which shows writes applied but not yet synced)
// has reached seq: proof the actor went on deciding.
func (r *rig) waitSeq(seq uint64) {
	r.t.Helper()
	synctest.Wait()
	n, err := r.store.LastSeq(r.biz)
	require.NoError(r.t, err)
	require.GreaterOrEqual(r.t, n, seq, "the actor did not journal record %d", seq)
}

func pending(c <-chan result) bool {
	select {
	case <-c:
		return false
	default:
		return true
	}
}

// A write becomes visible only once its journal sync has completed, while
// the actor goes on deciding later writes against its own newer state.
func TestReadersSeeOnlyDurableWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := newGateFS(vfs.NewMem())
		r := openRig(t, gate, 0)
		t.Cleanup(gate.Release) // before the rig closes, should the test fail while syncs are held
		seq0 := r.h.State().Seq
		require.True(t, r.offered(0))

		gate.Shut()
		first := r.bookAsync("k1", 0, "a@example.com")
		waitHeld(t, gate)

		// The booking is applied in the actor and in Pebble, but its sync is
		// held: readers see the state before it.
		r.waitSeq(seq0 + 1)
		require.Equal(t, seq0, r.h.State().Seq)
		require.Zero(t, appointments(r.h.State()))
		require.True(t, r.offered(0), "availability still offers the slot")
		require.Zero(t, r.mails.Load(), "no e-mail is announced")

		// The actor pipelines: it decides the next writes against its own
		// state, which holds the first booking. The same slot is refused (a
		// stored refusal, journalled), another is booked; neither answer goes
		// out before the sync.
		taken := r.bookAsync("k2", 0, "b@example.com")
		r.waitSeq(seq0 + 2)
		other := r.bookAsync("k3", 1, "c@example.com")
		r.waitSeq(seq0 + 3)

		// A repeat of a key whose write is not durable is refused at once.
		_, err := r.book("k1", 0, "a@example.com")
		requireCode(t, err, problem.IdempotencyInProgress)

		require.True(t, pending(first) && pending(taken) && pending(other), "an answer left before its sync")
		require.Zero(t, appointments(r.h.State()))
		require.Equal(t, seq0, r.h.State().Seq)

		gate.Release()
		res := <-first
		require.NoError(t, res.err)
		require.Equal(t, record.AnswerBooked, res.ans.Kind)
		res = <-taken
		require.NoError(t, res.err)
		require.Equal(t, "SLOT_TAKEN", code(t, res.ans))
		res = <-other
		require.NoError(t, res.err)
		require.Equal(t, record.AnswerBooked, res.ans.Kind)

		st := r.h.State()
		require.Equal(t, seq0+3, st.Seq)
		require.Equal(t, 2, appointments(st))
		require.False(t, r.offered(0))
		require.Positive(t, r.mails.Load(), "the mailer is woken once the bookings are durable")
	})
}

// A refusal decided against state that holds a write still syncing waits
// for that sync: it would otherwise reveal a booking a crash could undo.
func TestRefusalWaitsForTheWriteItReveals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := newGateFS(vfs.NewMem())
		r := openRig(t, gate, 0)
		t.Cleanup(gate.Release)
		ans, err := r.book("k0", 2, "a@example.com")
		require.NoError(t, err)
		booked := ans
		move := ledger.PatchInput{Start: ptr(at(0)), Enforce: true}

		gate.Shut()
		first := r.bookAsync("k1", 0, "b@example.com")
		waitHeld(t, gate)

		// Moving the durable appointment onto the slot of the booking in
		// flight is refused (NO_STAFF_AVAILABLE) without writing anything, but that
		// answer must not leave before the booking is durable: the call gives
		// up first.
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err = directory.Do(ctx, r.dir, r.biz, directory.PatchAppointment{ID: booked.Appointment.ID, In: move})
		require.Error(t, err)
		var pe *problem.Error
		if errors.As(err, &pe) {
			require.Equal(t, problem.Unavailable, pe.Code, "answered %v while the write it reveals was syncing", err)
		}

		gate.Release()
		require.NoError(t, (<-first).err)
		_, err = directory.Do(context.Background(), r.dir, r.biz, directory.PatchAppointment{ID: booked.Appointment.ID, In: move})
		requireCode(t, err, problem.NoStaffAvailable) // unlocked: nobody else is free either
	})
}

func ptr[T any](v T) *T { return &v }

// waitHeld waits until the gate holds a sync.
func waitHeld(t *testing.T, g *gateFS) {
	t.Helper()
	select {
	case <-g.Held():
	case <-time.After(10 * time.Second):
		t.Fatal("no journal sync was held")
	}
}

func requireCode(t *testing.T, err error, c problem.Code) {
	t.Helper()
	var pe *problem.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, c, pe.Code, "%v", err)
}
