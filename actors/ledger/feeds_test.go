package ledger

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/ical"
	"github.com/slotd/slotd/storage/record"
)

// feedState is memWorld's business with n appointments over its ten staff
// members, and a feed of its first staff member and one of the whole
// business.
func feedState(tb testing.TB, n int, now time.Time) (*State, *model.Feed, *model.Feed) {
	tb.Helper()
	sp := memWorld(0, n, now)
	rec, err := DecidePut(nil, sp, now)
	require.NoError(tb, err)
	s, err := Apply(nil, 1, rec)
	require.NoError(tb, err)
	staff := sp.Staff[0].ID
	return s, &model.Feed{ID: uuid.New(), StaffID: &staff}, &model.Feed{ID: uuid.New(), IncludeCustomerNames: true}
}

func TestFeedCalendarWindowAndStaff(t *testing.T) {
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	s, one, all := feedState(t, 200, now)
	mine := FeedCalendar(s, one, now)
	whole := FeedCalendar(s, all, now)
	require.Len(t, mine.Events, 20)
	require.Len(t, whole.Events, 200)
	require.Equal(t, "Salon 0 – Staff 0", mine.Name)
	for i := 1; i < len(whole.Events); i++ {
		require.False(t, whole.Events[i].Start.Before(whole.Events[i-1].Start), "in start order")
	}
	require.Regexp(t, `^Service 1 \(Staff \d\) – Eva \d\.$`, whole.Events[0].Summary, "the staff member, a first name and an initial")
	require.Equal(t, "Service 1", mine.Events[0].Summary)

	// Past the window: 30 days after the last one ended, nothing.
	late := whole.Events[len(whole.Events)-1].End.Add(FeedBack + time.Minute)
	require.Empty(t, FeedCalendar(s, all, late).Events)
}

// BenchmarkFeed renders the feed of one staff member with 2,000
// appointments (a business of ten such staff members, 20,000 in all) and
// of a business with 2,000, as GET /feeds/{token}.ics does: issue 25's
// target is under 5 ms.
func BenchmarkFeed(b *testing.B) {
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		n     int
		staff bool
	}{{"staff-2000-of-20000", 20000, true}, {"business-2000", 2000, false}} {
		b.Run(c.name, func(b *testing.B) {
			s, one, all := feedState(b, c.n, now)
			f := all
			if c.staff {
				f = one
			}
			var buf []byte
			b.ReportAllocs()
			events := 0
			for b.Loop() {
				cal := FeedCalendar(s, f, now)
				events = len(cal.Events)
				buf = ical.Append(buf[:0], cal)
			}
			b.ReportMetric(float64(events), "events")
			b.ReportMetric(float64(len(buf)), "bytes")
		})
	}
}

// Feeds are made and revoked through the journal, and a snapshot keeps
// the ones there are.
func TestFeedsThroughJournalAndSnapshot(t *testing.T) {
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	s, _, _ := feedState(t, 10, now)
	ids := &seqIDs{}
	step := func(ch *record.Change, err error) {
		t.Helper()
		require.NoError(t, err)
		s = replayed(t, s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
	}
	staff := s.Staff[3].ID
	ch, f, err := DecideFeedCreate(s, &FeedInput{StaffID: &staff}, now, ids)
	step(ch, err)
	first := *f
	ch, _, err = DecideFeedCreate(s, &FeedInput{IncludeCustomerNames: true}, now.Add(time.Second), ids)
	step(ch, err)
	require.Len(t, s.Feeds(), 2)
	require.Equal(t, first, *s.Feed(first.ID))

	back, err := FromSnapshot(s.Seq, Snapshot(s))
	require.NoError(t, err)
	require.Equal(t, s.Feeds(), back.Feeds())

	step(DecideFeedDelete(s, first.ID, now))
	require.Nil(t, s.Feed(first.ID))
	require.Len(t, s.Feeds(), 1)
	_, err = DecideFeedDelete(s, first.ID, now)
	require.Error(t, err, "revoked once")

	unknown := uuid.New()
	_, _, err = DecideFeedCreate(s, &FeedInput{StaffID: &unknown}, now, ids)
	require.Error(t, err)
	for range model.MaxFeeds - 1 {
		step(func() (*record.Change, error) {
			ch, _, err := DecideFeedCreate(s, &FeedInput{}, now, ids)
			return ch, err
		}())
	}
	_, _, err = DecideFeedCreate(s, &FeedInput{}, now, ids)
	require.ErrorContains(t, err, "50")
}
