package ledger

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/slotd/slotd/actors/calendar"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// BenchmarkBookNewCustomer: one booking of a plain service by a new
// customer, decided, encoded as the journal does and applied.
func BenchmarkBookNewCustomer(b *testing.B) {
	sp := spec()
	for d := range sp.Staff[0].Hours {
		sp.Staff[0].Hours[d] = []model.Span{{From: 0, To: 24 * 60}}
	}
	sp.Staff[0].AssignedServiceIDs = append(sp.Staff[0].AssignedServiceIDs, sp.Services[0].ID)
	rec, err := DecidePut(nil, sp, t0)
	if err != nil {
		b.Fatal(err)
	}
	s0, err := Apply(nil, 1, rec)
	if err != nil {
		b.Fatal(err)
	}
	ids := &seqIDs{}
	b.ReportAllocs()
	s := s0
	i := 0
	for b.Loop() {
		if i%2000 == 0 {
			s = s0
		}
		at := t0.Add(48*time.Hour + time.Duration(i%2000)*30*time.Minute)
		ch, _, err := DecideCreate(s, &CreateInput{ServiceID: sp.Services[0].ID, Start: at,
			Customer: model.Customer{FirstName: "C", Email: fmt.Sprintf("c%d@example.com", i)}}, t0, ids)
		if err != nil {
			b.Fatal(err)
		}
		rec := &record.Record{Kind: record.KindChange, Change: ch}
		if _, err := record.Encode(nil, rec); err != nil {
			b.Fatal(err)
		}
		if s, err = Apply(s, s.Seq+1, rec); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSeriesRatio measures what booking a series of 12 weekly
// occurrences costs the business's actor (decide, encode the one record,
// apply it) against one booking, as a same-run ratio (x_series, the
// median over rounds). Issue 42's target is at most 4.
func BenchmarkSeriesRatio(b *testing.B) {
	sp := spec()
	for d := range sp.Staff[0].Hours {
		sp.Staff[0].Hours[d] = []model.Span{{From: 0, To: 24 * 60}}
	}
	sp.Staff[0].AssignedServiceIDs = append(sp.Staff[0].AssignedServiceIDs, sp.Services[0].ID)
	sp.Business.Rules.MaxAdvanceDays = 400
	rec, err := DecidePut(nil, sp, t0)
	if err != nil {
		b.Fatal(err)
	}
	s0, err := Apply(nil, 1, rec)
	if err != nil {
		b.Fatal(err)
	}
	rule, err := calendar.ParseRule("FREQ=WEEKLY;COUNT=12")
	if err != nil {
		b.Fatal(err)
	}
	ids := &seqIDs{}
	write := func(s *State, ch *record.Change) *State {
		r := &record.Record{Kind: record.KindChange, Change: ch}
		if _, err := record.Encode(nil, r); err != nil {
			b.Fatal(err)
		}
		n, err := Apply(s, s.Seq+1, r)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	const batch = 50
	var ratios []float64
	i := 0
	for b.Loop() {
		one, series := s0, s0
		start := time.Now()
		for k := range batch {
			at := t0.Add(48*time.Hour + time.Duration(k)*30*time.Minute)
			ch, _, err := DecideCreate(one, &CreateInput{ServiceID: sp.Services[0].ID, Start: at,
				Customer: model.Customer{FirstName: "C", Email: fmt.Sprintf("c%d@example.com", i)}}, t0, ids)
			if err != nil {
				b.Fatal(err)
			}
			one = write(one, ch)
			i++
		}
		took1 := time.Since(start)
		start = time.Now()
		for k := range batch {
			at := t0.Add(48*time.Hour + time.Duration(k)*30*time.Minute)
			ch, _, err := BookSeries{In: SeriesInput{RuleText: "FREQ=WEEKLY;COUNT=12", Rule: rule, ServiceID: sp.Services[0].ID, Start: at,
				Customer: &model.Customer{FirstName: "S", Email: fmt.Sprintf("s%d@example.com", i)}}}.Decide(series, t0, ids)
			if err != nil {
				b.Fatal(err)
			}
			series = write(series, ch)
			i++
		}
		ratios = append(ratios, float64(time.Since(start))/float64(took1))
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "x_series")
}
