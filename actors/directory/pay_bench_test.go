package directory

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/webhook/payment"
)

// instant is a payment provider that answers at once: what remains is
// slotd's own cost of a booking that needs prepayment (the reservation
// and its completion, two journal writes, and the hop off the actor).
type instant struct{}

func (instant) Create(_ context.Context, _ payment.Config, c payment.Checkout) (payment.Created, error) {
	return payment.Created{ProviderPaymentID: "pi_" + c.AppointmentID.String(), ClientSecret: "secret"}, nil
}
func (instant) Cancel(context.Context, payment.Config, string) error { return nil }
func (instant) Refund(context.Context, payment.Config, string, int64, string) error {
	return nil
}
func (instant) Get(context.Context, payment.Config, string) (payment.State, error) {
	return payment.State{}, payment.ErrNotFound
}

// payBench returns a directory whose one business takes prepayment
// through an instant provider.
func payBench(b *testing.B) (*Directory, uuid.UUID, uuid.UUID, uuid.UUID) {
	st, err := storage.Open(b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	d, err := Open(Config{Store: st, Clock: clock.Real{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Payments: instant{}, PublicURL: "http://127.0.0.1:8080"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close(); st.Close() })
	biz, svc, staff := benchBusiness(b, d, 1, nil)
	spec := d.handle(biz).State()
	put := model.Spec{Business: spec.Business, Categories: spec.Categories, Services: spec.Services, Staff: spec.Staff}
	put.Business.Payments = model.Payments{Provider: model.ProviderClientSecret, RequiresPayment: true, HoldMinutes: 15,
		BaseURL: "http://provider.invalid", APIKey: "sk"}
	if _, err := d.Put(context.Background(), []model.Spec{put}); err != nil {
		b.Fatal(err)
	}
	return d, biz, svc, staff[0]
}

// BenchmarkDurableBookingWithCheckout is BenchmarkDurableBooking for a
// business that takes prepayment.
func BenchmarkDurableBookingWithCheckout(b *testing.B) {
	d, biz, svc, staff := payBench(b)
	b.ReportAllocs()
	for b.Loop() {
		book(b, d, biz, svc, staff)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bookings/s")
}

// BenchmarkDurableBookingWithCheckout64 has 64 callers: checkouts of one
// business are created concurrently, off its actor.
func BenchmarkDurableBookingWithCheckout64(b *testing.B) {
	d, biz, svc, staff := payBench(b)
	b.SetParallelism(32)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			book(b, d, biz, svc, staff)
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bookings/s")
}
