package ledger

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// Busy time through the journal and a snapshot: windows replace what they
// intersect, a clear drops the source, and a state rebuilt from its
// snapshot has the same intervals and the same external time in its
// index.
func TestBusyThroughJournalAndSnapshot(t *testing.T) {
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	s, _, _ := feedState(t, 10, now)
	anna := s.Staff[0].ID
	at := func(h int) time.Time { return now.Add(time.Duration(h) * time.Hour) }
	step := func(ch *record.Change, err error) {
		t.Helper()
		require.NoError(t, err)
		require.NotNil(t, ch)
		s = replayed(t, s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
	}
	step(DecideBusyPut(s, &BusyPut{Staff: anna, Source: "a", From: at(0), To: at(24), Busy: []model.BusyTime{
		{Start: at(1), End: at(2), ExternalID: "x"}, {Start: at(10), End: at(12), Title: "T"}}}, now))
	step(DecideBusyPut(s, &BusyPut{Staff: anna, Source: "b", From: at(0), To: at(24), Busy: []model.BusyTime{
		{Start: at(11), End: at(13)}}}, now))
	require.Len(t, s.BusyTimes(anna, at(0), at(24), ""), 3)
	require.Equal(t, 2, s.Index().External(anna).Len(), "[1,2) and [10,13) merged")

	// A window over the first one replaces it alone.
	step(DecideBusyPut(s, &BusyPut{Staff: anna, Source: "a", From: at(0), To: at(5), Busy: []model.BusyTime{
		{Start: at(3), End: at(4)}}}, now))
	got := s.BusyTimes(anna, at(0), at(24), "a")
	require.Len(t, got, 2)
	require.Equal(t, at(3), got[0].Start)
	require.Equal(t, "a", got[0].Source)
	require.Equal(t, "T", got[1].Title)

	back, err := FromSnapshot(s.Seq, Snapshot(s))
	require.NoError(t, err)
	require.Equal(t, s.BusyTimes(anna, at(0), at(24), ""), back.BusyTimes(anna, at(0), at(24), ""))
	require.Equal(t, s.Index().External(anna).Len(), back.Index().External(anna).Len())

	step(DecideBusyClear(s, anna, "a", now))
	require.Len(t, s.BusyTimes(anna, at(0), at(24), ""), 1)
	ch, err := DecideBusyClear(s, anna, "a", now)
	require.NoError(t, err)
	require.Nil(t, ch, "nothing to clear: no write")
	_, err = DecideBusyPut(s, &BusyPut{Staff: uuid.New(), Source: "a", From: at(0), To: at(1)}, now)
	require.Error(t, err)

	// An interval reaching into a list's window from long before is
	// found, however the source's intervals overlap.
	step(DecideBusyPut(s, &BusyPut{Staff: anna, Source: "c", From: at(0), To: at(100), Busy: []model.BusyTime{
		{Start: at(0), End: at(90)}, {Start: at(1), End: at(2)}}}, now))
	require.Len(t, s.BusyTimes(anna, at(50), at(51), "c"), 1)
}
