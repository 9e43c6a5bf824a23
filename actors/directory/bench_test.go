package directory

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
)

// benchBusiness puts a business in Amsterdam with the default rules, one
// 30-minute service and staff staff members working the hours hours every
// day of the week (none: nil).
func benchBusiness(b *testing.B, d *Directory, staff int, hours []model.Span) (uuid.UUID, uuid.UUID, []uuid.UUID) {
	id, cat, svc := uuid.New(), uuid.New(), uuid.New()
	spec := model.Spec{
		Business:   model.Business{ID: id, Name: "Bench", Timezone: "Europe/Amsterdam", Currency: "EUR", Plan: model.Pro, Modules: model.AllModules, Assignment: model.FirstAvailable, Rules: model.DefaultRules()},
		Categories: []model.Category{{ID: cat, Name: "C"}},
		Services:   []model.Service{{ID: svc, Name: "Cut", DurationMinutes: 30, PriceCents: 3500, IsActive: true, CategoryID: cat}},
	}
	var ids []uuid.UUID
	for i := 0; i < staff; i++ {
		s := model.Staff{ID: uuid.New(), Name: fmt.Sprint("S", i), IsActive: true, IsBookable: true, AssignedServiceIDs: []uuid.UUID{svc}}
		for d := range s.Hours {
			s.Hours[d] = hours
		}
		spec.Staff = append(spec.Staff, s)
		ids = append(ids, s.ID)
	}
	if _, err := d.Put(context.Background(), []model.Spec{spec}); err != nil {
		b.Fatal(err)
	}
	return id, svc, ids
}

func benchDir(b *testing.B) *Directory {
	st, err := storage.Open(b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	d, err := Open(Config{Store: st, Clock: clock.Real{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close(); st.Close() })
	return d
}

var benchSeq atomic.Int64

// book makes one durable booking: rules off (any hour), its own slot, a new
// customer, an idempotency key, events and an outbox mail, synced.
func book(b *testing.B, d *Directory, biz, svc, staff uuid.UUID) {
	n := benchSeq.Add(1)
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * 30 * time.Minute)
	ans, err := d.book(context.Background(), biz, ledger.CreateInput{ServiceID: svc, Start: start, StaffID: &staff,
		Customer: model.Customer{FirstName: "B", Email: fmt.Sprintf("b%d@example.com", n)}},
		business.IdemKey{Key: fmt.Sprint("k", n)})
	if err != nil || ans.Kind == record.AnswerRefused {
		b.Fatalf("booking: %v %+v", err, ans)
	}
}

func BenchmarkDurableBooking(b *testing.B) {
	d := benchDir(b)
	biz, svc, staff := benchBusiness(b, d, 1, nil)
	b.ReportAllocs()
	for b.Loop() {
		book(b, d, biz, svc, staff[0])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bookings/s")
}

// BenchmarkDurableBookingOneBusiness64 has 64 callers booking into one
// business: the actor pipelines, so its writes share fsyncs.
func BenchmarkDurableBookingOneBusiness64(b *testing.B) {
	d := benchDir(b)
	biz, svc, staff := benchBusiness(b, d, 1, nil)
	b.SetParallelism(32)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			book(b, d, biz, svc, staff[0])
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bookings/s")
}

// BenchmarkDurableBooking16Businesses64 spreads 64 callers over 16 businesses.
func BenchmarkDurableBooking16Businesses64(b *testing.B) {
	d := benchDir(b)
	type target struct{ biz, svc, staff uuid.UUID }
	var ts []target
	for i := 0; i < 16; i++ {
		biz, svc, staff := benchBusiness(b, d, 1, nil)
		ts = append(ts, target{biz, svc, staff[0]})
	}
	var next atomic.Int64
	b.SetParallelism(32)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		t := ts[int(next.Add(1))%len(ts)]
		for pb.Next() {
			book(b, d, t.biz, t.svc, t.staff)
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bookings/s")
}
