package ledger

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// TestChainsMatchBasket checks chain availability (decisions §11, GET
// /availability/slots?serviceIds=…) against the basket it offers, on the
// random businesses of TestCheckAgreesWithBooking: every start offered is
// one at which a basket of those services, booked right after by a
// customer on file with nobody pinned (or everyone pinned to the staff
// member asked about), is accepted, its items at the starts the slot
// gives. The other way, a start of the first service's on which such a
// basket would be accepted may be missing only where the search is
// knowingly cautious: with the gap rule on, a staff member whose previous
// item would have connected the next one is not listed for it.
func TestChainsMatchBasket(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261129, 11))
	var offered, accepted, missed, refused int
	codes := map[problem.Code]int{}
	for i := range 200 {
		b := newCheckBiz(t, rng, i)
		var svcs []*model.Service
		for _, j := range rng.Perm(len(b.s.Services)) {
			if svc := &b.s.Services[j]; !svc.Deleted {
				svcs = append(svcs, svc)
			}
		}
		if len(svcs) < 2 {
			continue
		}
		svcs = svcs[:2+rng.IntN(min(2, len(svcs)-1))]
		q := &ChainQuery{Services: svcs, From: b.now.Add(-time.Hour), To: b.now.Add(time.Duration(24+rng.IntN(48)) * time.Hour), Now: b.now}
		if rng.IntN(4) == 0 {
			q.Only = &b.s.Staff[rng.IntN(len(b.s.Staff))].ID
		}
		if !t.Run(fmt.Sprint(i), func(t *testing.T) {
			got := Chains(b.s, q)
			at := map[int64]bool{}
			cu := b.s.CustomerByEmail(b.onFile).ID
			book := func(start time.Time) ([]model.Appointment, error) {
				in := BasketInput{Start: start, CustomerID: &cu, Enforce: true}
				for _, svc := range svcs {
					in.Items = append(in.Items, BasketItem{ServiceID: svc.ID, StaffID: q.Only})
				}
				_, ans, err := BookBasket{In: in}.Decide(b.s, b.now, &seqIDs{})
				if err != nil {
					return nil, err
				}
				return ans.Occurrences, nil
			}
			for _, c := range got {
				offered++
				at[c.Items[0].At] = true
				appts, err := book(c.Items[0].Start())
				require.NoError(t, err, "offered at %s, refused; made: %v", b.local(c.Items[0].Start()), b.made)
				for k := range appts {
					require.Equal(t, c.Items[k].Start(), appts[k].StartTime, "item %d", k)
					require.Equal(t, c.Items[k].End(), appts[k].EndTime, "item %d", k)
				}
			}
			// Every start of the first service's, offered or not.
			cq := calendar.Query{Business: &b.s.Business, Loc: b.s.Loc, Now: b.now, Service: svcs[0], Staff: b.s.Staff, Only: q.Only,
				Index: b.s.index, Tally: b.s, Resources: b.s.Resources, Sessions: b.s, From: q.From, To: q.To}
			for _, sl := range calendar.Slots(&cq, nil) {
				if at[sl.At] {
					continue
				}
				if _, err := book(sl.Start()); err == nil {
					missed++
					require.True(t, b.s.Business.Rules.PreventGaps, "a basket at %s is accepted but not offered, without the gap rule", b.local(sl.Start()))
				} else {
					refused++
					codes[problem.As(err).Code]++
				}
			}
			accepted += len(got)
		}) {
			t.Logf("made: %v", b.made)
			return
		}
	}
	t.Logf("offered %d, not offered: refused %d (%v), accepted %d", offered, refused, codes, missed)
	require.GreaterOrEqual(t, offered, 300, "chains offered")
	require.GreaterOrEqual(t, refused, 100, "first-item starts the chain does not fit")
	require.Less(t, missed, offered/20, "starts missed")
}
