package business_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/webhook/payment"
)

// provider is a payment provider that answers a create once its gate is
// open (a nil gate: at once), or gives up when the call is cancelled, and
// records the creates it was asked for.
type provider struct {
	mu      sync.Mutex
	gate    chan struct{}
	creates []string // appointment ids, in call order
}

func (p *provider) Create(ctx context.Context, _ payment.Config, c payment.Checkout) (payment.Created, error) {
	p.mu.Lock()
	p.creates = append(p.creates, c.AppointmentID.String())
	gate := p.gate
	p.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return payment.Created{}, fmt.Errorf("%w: %v", payment.ErrUnreachable, ctx.Err())
		}
	}
	return payment.Created{ProviderPaymentID: "pi_" + c.AppointmentID.String()[:8], ClientSecret: "pi_secret_" + c.AppointmentID.String()[:8]}, nil
}

func (p *provider) Cancel(context.Context, payment.Config, string) error { return nil }
func (p *provider) Refund(context.Context, payment.Config, string, int64, string) error {
	return nil
}
func (p *provider) Get(context.Context, payment.Config, string) (payment.State, error) {
	return payment.State{}, payment.ErrNotFound
}

func (p *provider) calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.creates...)
}

// While a checkout is being created the business's other writes go on:
// the provider call is not made inside the actor.
func TestCheckoutDoesNotHoldTheBusinessBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pays := &provider{gate: make(chan struct{})}
		r := openRigWith(t, vfs.NewMem(), 0, pays)
		pending := r.bookAsync("k1", 0, "a@example.com")
		synctest.Wait()
		require.Len(t, pays.calls(), 1, "the checkout is being created")

		// Another write of the same business is answered meanwhile, and
		// the reserved time is taken for everyone else.
		other, err := directory.DoOnce(context.Background(), r.dir, r.biz, directory.AddCustomer{In: model.Customer{FirstName: "B", Email: "b@example.com"}}, idem("c1", "b"))
		require.NoError(t, err)
		require.Equal(t, record.AnswerCustomer, other.Kind)
		taken, err := r.book("k2", 0, "c@example.com")
		require.NoError(t, err)
		require.Equal(t, "SLOT_TAKEN", code(t, taken))
		_, err = r.book("k1", 0, "a@example.com")
		requireCode(t, err, "IDEMPOTENCY_IN_PROGRESS")
		select {
		case <-pending:
			t.Fatal("the booking was answered before its checkout existed")
		default:
		}
		require.Zero(t, appointments(r.h.State()), "a reservation is not an appointment")

		close(pays.gate)
		res := <-pending
		require.NoError(t, res.err)
		got := res.ans
		require.Equal(t, record.AnswerBooked, got.Kind)
		require.Equal(t, model.PendingPayment, got.Appointment.Status)
		require.NotNil(t, got.Payment)
		require.Equal(t, 3000, got.Payment.AmountCents)
		require.Equal(t, model.AmountFull, got.Payment.AmountKind)
		require.Equal(t, 1, appointments(r.h.State()))
	})
}

// A crash (here: a stop) between the reservation and the provider's
// answer leaves no orphan: the restarted actor asks again under the same
// provider Idempotency-Key and completes the booking, whose answer the
// client's retry then gets.
func TestCheckoutCompletedAfterARestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := vfs.NewMem()
		stuck := &provider{gate: make(chan struct{})}
		r := openRigWith(t, fs, 0, stuck)
		lost := r.bookAsync("k1", 0, "a@example.com")
		synctest.Wait()
		require.Len(t, stuck.calls(), 1)
		r.close()
		require.Error(t, (<-lost).err, "the first attempt got no answer")

		answers := &provider{}
		r = openRigWith(t, fs, 0, answers)
		synctest.Wait()
		require.Equal(t, stuck.calls(), answers.calls(), "asked again for the same appointment")
		require.Equal(t, 1, appointments(r.h.State()))
		again, err := r.book("k1", 0, "a@example.com")
		require.NoError(t, err)
		require.True(t, again.Replayed)
		got := again
		require.Equal(t, record.AnswerBooked, got.Kind)
		require.Equal(t, model.PendingPayment, got.Appointment.Status)
		require.Equal(t, "pi_"+stuck.calls()[0][:8], got.Payment.ProviderPaymentID)
	})
}
