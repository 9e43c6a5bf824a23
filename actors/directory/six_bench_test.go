package directory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// The cost of the additions of decisions §6 next to a booking's: a hold
// is a durable write through the actor like BenchmarkDurableBooking (run
// both in one invocation for the baseline: -bench 'DurableBooking$|DurableHold|Check$'),
// and a check is a read of the published state, as the transport makes it.

// BenchmarkDurableHold places one durable hold per op (POST /holds): the
// booking decision with the rules enforced, an idempotency key, synced.
// Each op takes its own free start: 8 staff members working round the
// clock, the starts 30 minutes apart over the next 360 days (138,240 of
// them), each hold kept the longest a hold may live so none expires, and
// none released, while the benchmark runs.
func BenchmarkDurableHold(b *testing.B) {
	d := benchDir(b)
	const staff = 8
	biz, svc, ids := benchBusiness(b, d, staff, []model.Span{{From: 0, To: 24 * 60}})
	first := time.Now().UTC().Truncate(24 * time.Hour).Add(48 * time.Hour)
	last := first.Add(360 * 24 * time.Hour)
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		start := first.Add(time.Duration(n/staff) * 30 * time.Minute)
		if !start.Before(last) {
			b.Fatalf("out of free starts after %d holds", n)
		}
		st := ids[n%staff]
		n++
		ans, err := d.createHold(context.Background(), biz,
			ledger.HoldInput{ServiceID: svc, Start: start, StaffID: &st, TTL: model.HoldMaxLife},
			business.IdemKey{Key: fmt.Sprint("h", n)})
		if err != nil || ans.Kind == record.AnswerRefused {
			b.Fatalf("hold %d at %s: %v %+v", n, start, err, ans)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "holds/s")
}

// BenchmarkDurableHoldLive is BenchmarkDurableHold with the number of
// live holds held constant: each hold placed is released again outside
// the timing, over live=N holds placed (concurrently) before the timing
// starts. Writes that touch holds re-arm the expiry timer from every live
// hold (State.NextHoldExpiry), so live=2000 against live=0 gives the cost
// of each live hold to every such write.
func BenchmarkDurableHoldLive(b *testing.B) {
	for _, live := range []int{0, 2000} {
		b.Run(fmt.Sprint("live=", live), func(b *testing.B) {
			d := benchDir(b)
			const staff = 8
			biz, svc, ids := benchBusiness(b, d, staff, []model.Span{{From: 0, To: 24 * 60}})
			first := time.Now().UTC().Truncate(24 * time.Hour).Add(48 * time.Hour)
			hold := func(n int) uuid.UUID {
				st := ids[n%staff]
				start := first.Add(time.Duration(n/staff) * 30 * time.Minute)
				ans, err := d.createHold(context.Background(), biz,
					ledger.HoldInput{ServiceID: svc, Start: start, StaffID: &st, TTL: model.HoldMaxLife},
					business.IdemKey{Key: fmt.Sprint("h", n)})
				if err != nil || ans.Kind == record.AnswerRefused {
					b.Fatalf("hold %d at %s: %v %+v", n, start, err, ans)
				}
				return ans.Hold.ID
			}
			var wg sync.WaitGroup
			next := make(chan int)
			for range 32 {
				wg.Go(func() {
					for n := range next {
						hold(n)
					}
				})
			}
			for n := range live {
				next <- n
			}
			close(next)
			wg.Wait()
			n := live
			b.ReportAllocs()
			for b.Loop() {
				id := hold(n)
				n++
				b.StopTimer()
				if _, err := Do(context.Background(), d, biz, ledger.ReleaseHold{ID: id}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "holds/s")
		})
	}
}

// checkCalendar puts a business with a realistic calendar: six staff
// members working Monday to Saturday 09:00-17:30 with half an hour for
// lunch, four services (one with a processing gap), the rules a salon
// would set (15-minute grid, an hour's notice, 60 days ahead, no gaps
// under 30 minutes), and about two weeks booked a little over half full
// through the directory (rules off, so every booking lands). It returns
// the business, the 30-minute service, and 100 grid starts of working
// days from the day after tomorrow, 08:00 to 18:00 (some outside working
// time, many taken, some leaving gaps, the rest bookable).
func checkCalendar(b *testing.B, d *Directory) (uuid.UUID, uuid.UUID, []time.Time) {
	id, cat := uuid.New(), uuid.New()
	rules := model.DefaultRules()
	rules.MinNoticeMinutes, rules.MaxAdvanceDays, rules.SlotIntervalMinutes = 60, 60, 15
	rules.PreventGaps, rules.MinGapMinutes = true, 30
	spec := model.Spec{
		Business:   model.Business{ID: id, Name: "Salon", Timezone: "Europe/Amsterdam", Currency: "EUR", Plan: model.Pro, Modules: model.AllModules, Assignment: model.LeastBusy, Rules: rules},
		Categories: []model.Category{{ID: cat, Name: "Hair"}},
		Services: []model.Service{
			{ID: uuid.New(), Name: "Cut", DurationMinutes: 30, PriceCents: 3500, IsActive: true, CategoryID: cat},
			{ID: uuid.New(), Name: "Cut and wash", DurationMinutes: 45, PriceCents: 4500, IsActive: true, CategoryID: cat},
			{ID: uuid.New(), Name: "Beard", DurationMinutes: 15, PriceCents: 1500, IsActive: true, CategoryID: cat},
			{ID: uuid.New(), Name: "Colour", DurationMinutes: 120, PriceCents: 8500, IsActive: true, CategoryID: cat,
				Segments: []model.SegmentTemplate{{Kind: model.Active, DurationMinutes: 30}, {Kind: model.Gap, DurationMinutes: 45}, {Kind: model.Active, DurationMinutes: 45}}},
		},
	}
	day := []model.Span{{From: 9 * 60, To: 12*60 + 30}, {From: 13 * 60, To: 17*60 + 30}}
	for i := range 6 {
		st := model.Staff{ID: uuid.New(), Name: fmt.Sprint("S", i), IsActive: true, IsBookable: true}
		for _, svc := range spec.Services {
			st.AssignedServiceIDs = append(st.AssignedServiceIDs, svc.ID)
		}
		for wd := time.Monday; wd <= time.Saturday; wd++ {
			st.Hours[wd] = day
		}
		spec.Staff = append(spec.Staff, st)
	}
	if _, err := d.Put(context.Background(), []model.Spec{spec}); err != nil {
		b.Fatal(err)
	}
	loc, err := time.LoadLocation("Europe/Amsterdam")
	if err != nil {
		b.Fatal(err)
	}

	// Each staff member's days from tomorrow, walked from 09:00: a
	// booking of a random service, or a free stretch, in turn.
	type booking struct {
		svc, staff uuid.UUID
		start      time.Time
	}
	var todo []booking
	rng := rand.New(rand.NewPCG(6, 100))
	today := time.Now().In(loc)
	for dd := 1; dd <= 14; dd++ {
		date := time.Date(today.Year(), today.Month(), today.Day()+dd, 0, 0, 0, 0, loc)
		if date.Weekday() == time.Sunday {
			continue
		}
		for _, st := range spec.Staff {
			for _, sp := range day {
				m := int(sp.From)
				for m < int(sp.To) {
					if rng.IntN(5) < 2 {
						m += 15 * (1 + rng.IntN(4))
						continue
					}
					svc := spec.Services[rng.IntN(len(spec.Services))]
					if m+svc.DurationMinutes > int(sp.To) {
						break
					}
					todo = append(todo, booking{svc.ID, st.ID, time.Date(date.Year(), date.Month(), date.Day(), 0, m, 0, 0, loc).UTC()})
					m += svc.DurationMinutes
				}
			}
		}
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range 32 {
		wg.Go(func() {
			for i := range next {
				bk := todo[i]
				ans, err := d.book(context.Background(), id, ledger.CreateInput{ServiceID: bk.svc, Start: bk.start, StaffID: &bk.staff,
					Customer: model.Customer{FirstName: "C", Email: fmt.Sprintf("c%d@example.com", i)}},
					business.IdemKey{Key: fmt.Sprint("c", i)})
				if err != nil || ans.Kind == record.AnswerRefused {
					b.Errorf("booking %d: %v %+v", i, err, ans)
				}
			}
		})
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}

	var starts []time.Time
	for dd := 2; len(starts) < 100; dd++ {
		date := time.Date(today.Year(), today.Month(), today.Day()+dd, 0, 0, 0, 0, loc)
		if date.Weekday() == time.Sunday {
			continue
		}
		for m := 8 * 60; m < 18*60 && len(starts) < 100; m += 15 {
			starts = append(starts, time.Date(date.Year(), date.Month(), date.Day(), 0, m, 0, 0, loc).UTC())
		}
	}
	return id, spec.Services[0].ID, starts
}

// BenchmarkCheck is POST /availability/check without its HTTP: the
// published state loaded and ledger.Check for one service, no staff
// member pinned (every one of the six judged per start), for 100 starts
// (the most a request may list) and for 10; and 100 with one pinned.
func BenchmarkCheck(b *testing.B) {
	d := benchDir(b)
	biz, svc, starts := checkCalendar(b, d)
	h := d.handle(biz)
	var staff uuid.UUID // S0, whose calendar the seed fixes (list order follows random ids)
	for _, st := range h.State().Staff {
		if st.Name == "S0" {
			staff = st.ID
		}
	}
	tally := map[string]int{}
	vs, err := ledger.Check(h.State(), &ledger.CheckInput{ServiceID: svc, Starts: starts}, time.Now().UTC())
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range vs {
		tally[string(v.Code)]++
	}
	b.Logf("verdicts of the 100 starts: %v (\"\": bookable)", tally)
	for _, bc := range []struct {
		name  string
		n     int
		staff *uuid.UUID
	}{{"starts=100", 100, nil}, {"starts=10", 10, nil}, {"starts=100,pinned", 100, &staff}} {
		b.Run(bc.name, func(b *testing.B) {
			in := &ledger.CheckInput{ServiceID: svc, StaffID: bc.staff, Starts: starts[:bc.n]}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ledger.Check(d.handle(biz).State(), in, time.Now().UTC().Truncate(time.Millisecond)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bc.n), "ns/start")
		})
	}
}
