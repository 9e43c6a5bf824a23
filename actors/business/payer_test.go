package business

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/webhook/channel"
	"github.com/slotd/slotd/webhook/payment"
)

// flaky is a provider whose refunds fail while fail is set; a refund can
// be held in flight until release is closed.
type flaky struct {
	mu      sync.Mutex
	fail    bool
	hold    chan struct{}
	refunds []int64 // amounts asked for, in call order
}

func (f *flaky) Create(context.Context, payment.Config, payment.Checkout) (payment.Created, error) {
	return payment.Created{}, nil
}
func (f *flaky) Cancel(context.Context, payment.Config, string) error { return nil }
func (f *flaky) Get(context.Context, payment.Config, string) (payment.State, error) {
	return payment.State{}, nil
}
func (f *flaky) Refund(_ context.Context, _ payment.Config, _ string, amount int64, _ string) error {
	f.mu.Lock()
	f.refunds = append(f.refunds, amount)
	hold, fail := f.hold, f.fail
	f.mu.Unlock()
	if hold != nil {
		<-hold
	}
	if fail {
		return &payment.RefusedError{Status: 503}
	}
	return nil
}

func (f *flaky) calls() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.refunds...)
}

// payerRig runs a payer under a parent that records what it reports.
type payerRig struct {
	env   *Env
	clock *clock.Fake
	pays  *flaky
	root  *actor.RootContext
	payer *actor.PID
	biz   uuid.UUID
	mu    sync.Mutex
	done  []*payDone
	obm   *channel.Metrics
}

func newPayerRig(t *testing.T) *payerRig {
	st, err := storage.Open(t.TempDir(), storage.Options{})
	require.NoError(t, err)
	fc := clock.NewFake(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	r := &payerRig{clock: fc, pays: &flaky{}, biz: uuid.MustParse("11111111-1111-4111-8111-111111111111"), obm: channel.NewMetrics(fc)}
	r.env = &Env{Store: st, Clock: fc, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Payments: r.pays,
		PaymentOutbox: r.obm.Channel(channel.Payment)}
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return r.env.Log }))
	r.root = sys.Root
	spawned := make(chan *actor.PID, 1)
	parent := r.root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started:
			spawned <- ctx.Spawn(payerProps(r.env, r.biz))
		case *payDone:
			r.mu.Lock()
			r.done = append(r.done, m)
			r.mu.Unlock()
		}
	}))
	r.payer = <-spawned
	t.Cleanup(func() {
		r.root.Stop(parent)
		synctest.Wait()
		r.env.Wait()
		require.NoError(t, st.Close())
	})
	return r
}

func (r *payerRig) reported() []*payDone {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*payDone(nil), r.done...)
}

func (r *payerRig) kept(id uuid.UUID) (record.Attempt, bool) {
	v, ok, err := r.env.Store.OutboxRow(r.biz, storage.OutboxPaymentRetry, retryID(id, opRefund))
	if err != nil || !ok {
		return record.Attempt{}, false
	}
	return record.DecodeAttempt(v)
}

func refundCall(id uuid.UUID, amount int64) *payCall {
	return &payCall{id: id, op: opRefund, pid: "pi_1", amount: amount, currency: "EUR", since: time.Unix(1, 0)}
}

// An owed refund is tried until the provider takes it, waiting
// retry.Payment between failures (5 s, then 10 s), with its failures kept
// beside it; only the settled call is reported, and its state goes.
func TestPayerRetriesAnOwedRefundUntilItIsTaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newPayerRig(t)
		id := uuid.New()
		r.pays.fail = true
		r.root.Send(r.payer, refundCall(id, 500))
		synctest.Wait()
		require.Equal(t, []int64{500}, r.pays.calls())
		a, ok := r.kept(id)
		require.True(t, ok)
		require.Equal(t, 1, a.Failures)
		require.Equal(t, r.clock.Now().Add(5*time.Second), a.Next)

		// The parent asks again meanwhile (the refund owed grew): the row
		// is brought up to date, not tried twice.
		r.root.Send(r.payer, refundCall(id, 700))
		synctest.Wait()
		require.Len(t, r.pays.calls(), 1)

		r.clock.Advance(5 * time.Second)
		synctest.Wait()
		require.Equal(t, []int64{500, 700}, r.pays.calls(), "the retry asks for what is owed now")
		a, _ = r.kept(id)
		require.Equal(t, 2, a.Failures)

		r.pays.mu.Lock()
		r.pays.fail = false
		r.pays.mu.Unlock()
		r.clock.Advance(9 * time.Second)
		synctest.Wait()
		require.Len(t, r.pays.calls(), 2, "not before 10 s")
		r.clock.Advance(time.Second)
		synctest.Wait()
		require.Len(t, r.pays.calls(), 3)
		done := r.reported()
		require.Len(t, done, 1, "only the settled call is reported")
		require.Equal(t, opRefund, done[0].op)
		require.NoError(t, done[0].err)
		_, ok = r.kept(id)
		require.False(t, ok, "the retry state went with the settled call")
		rows, _ := r.env.PaymentOutbox.Held()
		require.Zero(t, rows)
	})
}

// A read asked for while a call about the same payment is in flight is
// refused as busy; a forgotten row is not tried again and leaves nothing.
func TestPayerBusyReadAndForget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newPayerRig(t)
		id := uuid.New()
		r.pays.hold, r.pays.fail = make(chan struct{}), true
		r.root.Send(r.payer, refundCall(id, 500))
		synctest.Wait()

		reply := make(chan *Reply[Done], 1)
		asker := r.root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
			if m, ok := ctx.Message().(*Reply[Done]); ok {
				reply <- m
			}
		}))
		r.root.Send(r.payer, &payCall{id: id, op: opRead, pid: "pi_1", reply: asker})
		synctest.Wait()
		got := <-reply
		require.True(t, errors.Is(got.Err, errPayBusy), "%v", got.Err)

		close(r.pays.hold)
		synctest.Wait()
		_, ok := r.kept(id)
		require.True(t, ok, "the failed refund waits for its retry")
		r.root.Send(r.payer, &payForget{id: id})
		synctest.Wait()
		_, ok = r.kept(id)
		require.False(t, ok, "a forgotten row's state is deleted")
		r.clock.Advance(time.Hour)
		synctest.Wait()
		require.Len(t, r.pays.calls(), 1, "and it is not tried again")
		require.Empty(t, r.reported())
	})
}
