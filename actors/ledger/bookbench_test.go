package ledger

import (
	"fmt"
	"testing"
	"time"

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
