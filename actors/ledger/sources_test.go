package ledger

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// A calendar source's life through the journal and a snapshot: made,
// fetched (its busy time replaced within the window), failed (its busy
// time kept, the error said), unchanged (the error cleared), deleted (its
// busy time gone with it).
func TestSourceThroughJournalAndSnapshot(t *testing.T) {
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	s, _, _ := feedState(t, 10, now)
	anna := s.Staff[0].ID
	step := func(ch *record.Change) {
		t.Helper()
		require.NotNil(t, ch)
		s = replayed(t, s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
	}
	ch, src, err := DecideSourceCreate(s, &SourceInput{Staff: anna, URL: "https://cal.example/a.ics", RefreshMinutes: 15}, now, &fixedIDs{})
	require.NoError(t, err)
	step(ch)
	id := src.ID
	require.Len(t, s.StaffSources(anna), 1)
	require.True(t, s.Source(id).TriedAt.IsZero())

	_, _, err = DecideSourceCreate(s, &SourceInput{Staff: anna, URL: "https://cal.example/a.ics", RefreshMinutes: 30}, now, &fixedIDs{n: 9})
	require.Equal(t, problem.Conflict, problem.As(err).Code, "the same URL twice")
	_, _, err = DecideSourceCreate(s, &SourceInput{Staff: uuid.New(), URL: "https://cal.example/b.ics", RefreshMinutes: 15}, now, &fixedIDs{n: 9})
	require.Equal(t, problem.NotFound, problem.As(err).Code)

	from, to := SourceWindow(s, now)
	busy := []model.BusyTime{{Start: now.Add(2 * time.Hour), End: now.Add(3 * time.Hour), ExternalID: "u1", Title: "Dentist"}}
	at := now.Add(time.Second)
	step(DecideSourceFetched(s, &SourceFetch{ID: id, Started: now, ETag: `"v1"`, From: from, To: to, Busy: busy}, at))
	got := s.BusyTimes(anna, from, to, "")
	require.Len(t, got, 1)
	require.Equal(t, "ics:"+id.String(), got[0].Source)
	ch = DecideSourceFetched(s, &SourceFetch{ID: id, Started: now, ETag: `"v1"`, From: from, To: to, Busy: busy}, at)
	require.Equal(t, "ics:"+id.String(), ch.Busy[0].Intervals[0].Source, "as the actor applies it, before any replay")
	require.Equal(t, at, s.Source(id).LastSyncAt)
	require.Equal(t, `"v1"`, s.Source(id).ETag)
	require.True(t, Conditional(s.Source(id), to))
	require.False(t, Conditional(s.Source(id), to.Add(25*time.Hour)), "the window moved on by more than a day")

	later := now.Add(15 * time.Minute)
	step(DecideSourceFetched(s, &SourceFetch{ID: id, Started: later, Err: "the calendar server answered 503 Service Unavailable"}, later))
	require.Len(t, s.BusyTimes(anna, from, to, ""), 1, "a failure keeps the busy time")
	require.Equal(t, "the calendar server answered 503 Service Unavailable", s.Source(id).LastError)
	require.Equal(t, at, s.Source(id).LastSyncAt)
	require.Equal(t, later, s.Source(id).TriedAt)

	back, err := FromSnapshot(s.Seq, Snapshot(s))
	require.NoError(t, err)
	require.Equal(t, s.Sources(), back.Sources())

	step(DecideSourceFetched(s, &SourceFetch{ID: id, Started: later.Add(time.Minute), NotModified: true}, later.Add(time.Minute)))
	require.Empty(t, s.Source(id).LastError)
	require.Len(t, s.BusyTimes(anna, from, to, ""), 1)

	_, err = DecideSourceDelete(s, s.Staff[1].ID, id, later)
	require.Equal(t, problem.NotFound, problem.As(err).Code, "another staff member's source")
	ch, err = DecideSourceDelete(s, anna, id, later)
	require.NoError(t, err)
	step(ch)
	require.Empty(t, s.Sources())
	require.Empty(t, s.BusyTimes(anna, from, to, ""), "its busy time goes with it")
	require.Nil(t, DecideSourceFetched(s, &SourceFetch{ID: id, Started: later}, later), "a fetch that ends after the delete changes nothing")
}

// A calendar's past is dropped once it is more than 30 days behind the
// fetch window; what is less is kept, as a PUT of the window keeps it.
func TestSourceForgetsItsPast(t *testing.T) {
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	s, _, _ := feedState(t, 10, now)
	anna := s.Staff[0].ID
	ch, src, err := DecideSourceCreate(s, &SourceInput{Staff: anna, URL: "https://cal.example/a.ics", RefreshMinutes: 15}, now, &fixedIDs{})
	require.NoError(t, err)
	s = replayed(t, s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
	id := src.ID
	fetch := func(at time.Time, busy ...time.Time) {
		from, to := SourceWindow(s, at)
		var list []model.BusyTime
		for _, b := range busy {
			list = append(list, model.BusyTime{Start: b, End: b.Add(time.Hour)})
		}
		ch := DecideSourceFetched(s, &SourceFetch{ID: id, Started: at, From: from, To: to, Busy: list}, at)
		s = replayed(t, s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
	}
	day := func(n int) time.Time { return now.AddDate(0, 0, n) }
	fetch(now, day(1), day(20), day(40))
	fetch(day(25), day(40))
	all := s.BusyTimes(anna, day(-100), day(100), "")
	require.Len(t, all, 3, "the past within 30 days stays: days 1 and 20, and 40")
	fetch(day(55), day(60))
	all = s.BusyTimes(anna, day(-100), day(100), "")
	require.Len(t, all, 2, "days 1 and 20 are more than 30 days behind day 55's window; day 40 is not")
	require.Equal(t, day(40), all[0].Start)
	require.Equal(t, day(60), all[1].Start)
}

func TestSourceDue(t *testing.T) {
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	seen := map[time.Duration]bool{}
	for i := range 50 {
		src := model.CalendarSource{ID: uuid.New(), RefreshMinutes: 15}
		first := SourceDue(&src, now)
		require.False(t, first.Before(now))
		require.Less(t, first.Sub(now), 5*time.Second, "the first fetch within 5 s")

		src.TriedAt = now
		next := SourceDue(&src, now.Add(time.Minute))
		require.True(t, next.After(now.Add(15*time.Minute-90*time.Second)) && !next.After(now.Add(15*time.Minute)), "a refresh later, less a tenth at most: %v", next.Sub(now))
		seen[next.Sub(now)] = true

		over := SourceDue(&src, now.Add(3*time.Hour))
		require.Less(t, over.Sub(now.Add(3*time.Hour)), time.Minute, "overdue: within a minute (%d)", i)
	}
	require.Greater(t, len(seen), 40, "sources made together are fetched apart")
}
