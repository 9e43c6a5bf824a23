package ledger

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// TestClassTimetableAcrossDST: a class timetabled at 18:00 (decisions
// §10) is offered, booked and filled at 18:00 on the business's wall
// clock on both sides of each change of the clocks, its sessions keyed by
// those instants, an hour apart in UTC.
func TestClassTimetableAcrossDST(t *testing.T) {
	for _, change := range []string{"2026-03-29", "2026-10-25"} { // Europe/Amsterdam's two changes
		t.Run(change, func(t *testing.T) {
			sp := spec()
			loc, err := time.LoadLocation(sp.Business.Timezone)
			require.NoError(t, err)
			day, err := time.ParseInLocation(time.DateOnly, change, loc)
			require.NoError(t, err)
			yoga := &sp.Services[0]
			yoga.Capacity = 2
			var tt model.Timetable
			for d := range tt {
				tt[d] = []model.Clock{18 * 60}
			}
			yoga.Timetable = &tt
			for d := range sp.Staff[0].Hours {
				sp.Staff[0].Hours[d] = []model.Span{{From: 9 * 60, To: 21 * 60}}
			}
			sp.Staff[0].AssignedServiceIDs = []uuid.UUID{yoga.ID}
			now := day.AddDate(0, 0, -3)
			s, _ := put(t, nil, sp, now)
			ids := &seqIDs{}
			before, after := day.AddDate(0, 0, -1).Add(18*time.Hour), day.AddDate(0, 0, 1).Add(18*time.Hour)
			require.Equal(t, time.Hour, absDur(after.UTC().Sub(before.UTC())-48*time.Hour), "an hour apart in UTC, as the clocks moved")
			for _, at := range []time.Time{before, after, before, after} {
				ch, a, err := DecideCreate(s, &CreateInput{ServiceID: yoga.ID, Start: at, Enforce: true,
					Customer: model.Customer{FirstName: "Y", Email: fmt.Sprintf("y%d@example.com", ids.n)}}, now, ids)
				require.NoError(t, err)
				s = step(t, s, ch)
				require.Equal(t, 18, a.StartTime.In(loc).Hour())
			}
			_, _, err = DecideCreate(s, &CreateInput{ServiceID: yoga.ID, Start: after, Enforce: true,
				Customer: model.Customer{FirstName: "Y", Email: "late@example.com"}}, now, ids)
			require.Equal(t, problem.SessionFull, problem.As(err).Code)

			slots := calendar.Slots(&calendar.Query{Business: &s.Business, Loc: s.Loc, Now: now, Service: s.Service(yoga.ID), Staff: s.Staff,
				Index: s.Index(), Tally: s, Resources: s.Resources, Sessions: s, From: day.AddDate(0, 0, -2), To: day.AddDate(0, 0, 3)}, nil)
			var got []string
			for _, sl := range slots {
				got = append(got, fmt.Sprintf("%s %d", sl.Start().In(loc).Format("01-02 15:04"), sl.SeatsLeft))
			}
			// The two full sessions are not offered; the other days' are,
			// each at 18:00 local with both places.
			d := func(n int) string { return day.AddDate(0, 0, n).Format("01-02") }
			require.Equal(t, []string{d(-2) + " 18:00 2", d(0) + " 18:00 2", d(2) + " 18:00 2"}, got)
		})
	}
}

func absDur(d time.Duration) time.Duration { return max(d, -d) }
