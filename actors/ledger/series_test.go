package ledger

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// TestSeriesKeptBySnapshots: a series booked is in the record it was
// booked in and in a snapshot of the state, and comes back from either.
func TestSeriesKeptBySnapshots(t *testing.T) {
	sp := spec()
	for d := range sp.Staff[0].Hours {
		sp.Staff[0].Hours[d] = []model.Span{{From: 9 * 60, To: 18 * 60}}
	}
	sp.Staff[0].AssignedServiceIDs = []uuid.UUID{sp.Services[0].ID}
	s, _ := put(t, nil, sp, t0)
	r, err := calendar.ParseRule("FREQ=WEEKLY;COUNT=3")
	require.NoError(t, err)
	start := t0.Add(72 * time.Hour).Truncate(24 * time.Hour).Add(10 * time.Hour)
	ch, ans, err := BookSeries{In: SeriesInput{RuleText: "FREQ=WEEKLY;COUNT=3", Rule: r, ServiceID: sp.Services[0].ID, Start: start,
		Customer: &model.Customer{FirstName: "S", Email: "s@example.com"}, Enforce: true}}.Decide(s, t0, &seqIDs{})
	require.NoError(t, err)
	require.Len(t, ans.Occurrences, 3)
	s = replayed(t, s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
	id := ans.Series.ID
	require.Len(t, s.Series(id).Occurrences, 3)
	b, err := record.EncodeSnapshot(Snapshot(s))
	require.NoError(t, err)
	snap, err := record.DecodeSnapshot(b)
	require.NoError(t, err)
	again, err := FromSnapshot(s.Seq, snap)
	require.NoError(t, err)
	require.Equal(t, s.Series(id), again.Series(id))
	for _, o := range again.Series(id).Occurrences {
		require.Equal(t, &id, again.Appointment(o).RecurringSeriesID)
	}
}

// TestBasketKeptBySnapshots: a basket booked is in the record it was
// booked in and in a snapshot, each appointment knowing its basket, and
// its second item starts where the first one ends, buffers respected,
// off the grid.
func TestBasketKeptBySnapshots(t *testing.T) {
	sp := spec()
	for d := range sp.Staff[0].Hours {
		sp.Staff[0].Hours[d] = []model.Span{{From: 9 * 60, To: 18 * 60}}
	}
	cut := sp.Services[0]
	colour := cut
	colour.ID, colour.Name, colour.DurationMinutes = uuid.New(), "Colour", 50
	cut.DurationMinutes, cut.BufferAfterMinutes, colour.BufferBeforeMinutes = 25, 5, 10
	sp.Services = []model.Service{cut, colour}
	sp.Staff[0].AssignedServiceIDs = []uuid.UUID{cut.ID, colour.ID}
	s, _ := put(t, nil, sp, t0)
	start := t0.Add(72 * time.Hour).Truncate(24 * time.Hour).Add(10 * time.Hour)
	ch, ans, err := BookBasket{In: BasketInput{Start: start, Items: []BasketItem{{ServiceID: cut.ID}, {ServiceID: colour.ID}},
		Customer: &model.Customer{FirstName: "B", Email: "b@example.com"}, Enforce: true}}.Decide(s, t0, &seqIDs{})
	require.NoError(t, err)
	require.Len(t, ans.Occurrences, 2)
	require.Equal(t, start.Add(40*time.Minute), ans.Occurrences[1].StartTime, "25 minutes, 5 after, 10 before")
	s = replayed(t, s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
	id := ans.Basket.ID
	b, err := record.EncodeSnapshot(Snapshot(s))
	require.NoError(t, err)
	snap, err := record.DecodeSnapshot(b)
	require.NoError(t, err)
	again, err := FromSnapshot(s.Seq, snap)
	require.NoError(t, err)
	require.Equal(t, s.Basket(id), again.Basket(id))
	for _, o := range again.Basket(id).Appointments {
		require.Equal(t, &id, again.Appointment(o).BasketID)
	}
	// The same two again: the first item's time is taken, and the
	// refusal names it; then a start whose second item is taken.
	_, _, err = BookBasket{In: BasketInput{Start: start, Items: []BasketItem{{ServiceID: cut.ID}, {ServiceID: colour.ID}},
		Customer: &model.Customer{FirstName: "B", Email: "b@example.com"}, Enforce: true}}.Decide(again, t0, &seqIDs{})
	require.Equal(t, "items.0", problem.As(err).Fields[0].Path)
	_, _, err = BookBasket{In: BasketInput{Start: start.Add(-45 * time.Minute), Items: []BasketItem{{ServiceID: cut.ID}, {ServiceID: colour.ID}},
		Customer: &model.Customer{FirstName: "B", Email: "b@example.com"}, Enforce: true}}.Decide(again, t0, &seqIDs{})
	require.Equal(t, problem.NoStaffAvailable, problem.As(err).Code)
	require.Equal(t, "items.1", problem.As(err).Fields[0].Path)
}
