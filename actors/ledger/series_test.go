package ledger

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/model"
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
