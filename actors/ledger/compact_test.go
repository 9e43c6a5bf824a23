package ledger

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
)

// TestCompactRoundTrip checks that every appointment, of the forms slotd
// makes and of forms it never makes (foreign segment ids, times finer than
// a millisecond, unknown statuses), comes back from the compact form equal
// to what was put, and that the forms slotd makes take no whole copy.
func TestCompactRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	biz := &model.Business{Currency: "EUR"}
	svcs := []model.Service{
		{ID: uuid.New(), Name: "Cut", DurationMinutes: 30, PriceCents: 3500},
		{ID: uuid.New(), Name: "Colour", DurationMinutes: 90, PriceCents: 8500, DepositCents: ptr(2000),
			Segments: []model.SegmentTemplate{
				{Kind: model.Active, DurationMinutes: 30, Label: ptr("apply")},
				{Kind: model.Gap, DurationMinutes: 30},
				{Kind: model.Active, DurationMinutes: 30, Label: ptr("rinse")}}},
	}
	staff := []model.Staff{{ID: uuid.New(), Name: "Anna"}, {ID: uuid.New(), Name: "Bram"}}
	rf := &refs{}
	type stored struct {
		want model.Appointment
		c    appt
	}
	var all []stored
	for i := range 2000 {
		start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(5000)) * 15 * time.Minute)
		now := time.Date(2026, 11, 24, 10, 0, 0, r.IntN(1e9), time.Local)
		var st *model.Staff
		if r.IntN(4) > 0 {
			st = &staff[r.IntN(len(staff))]
		}
		a := Appointment(uuid.New(), biz, time.UTC, &svcs[r.IntN(len(svcs))], st, start, now)
		a.CustomerID = uuid.New()
		sts := model.Statuses.Values()
		a.Status = sts[r.IntN(len(sts))]
		if r.IntN(5) == 0 {
			a.Notes = ptr("window seat")
		}
		if r.IntN(7) == 0 {
			a.RecurringSeriesID, a.IsRecurringOccurrence = ptr(uuid.New()), true
		}
		if r.IntN(6) == 0 {
			a.Metadata = map[string]string{"utm_source": "newsletter", "n": fmt.Sprint(i)}
		}
		a.StaffLocked = st != nil && r.IntN(3) == 0
		made := true
		switch r.IntN(10) {
		case 0:
			a.Segments[0].ID = uuid.New() // a segment id from elsewhere
			made = false
		case 1:
			a.StartTime = a.StartTime.Add(time.Microsecond)
			made = false
		case 2:
			a.Status = "archived"
			made = false
		}
		c, next := compact(rf, &a)
		rf = next
		require.Equal(t, made, c.extra == nil || c.extra.whole == nil, "appointment %d", i)
		all = append(all, stored{a, c})
	}
	for i, s := range all {
		var v view
		got := rf.materialize(s.want.ID, &s.c, &v)
		require.Equal(t, normal(s.want), normal(*got), "appointment %d", i)
	}
	require.LessOrEqual(t, len(rf.shapes), 4, "shapes are shared")
}

// normal strips what rendering ignores: locations and monotonic readings.
func normal(a model.Appointment) model.Appointment {
	fix := func(t *time.Time) { *t = time.Unix(0, t.UnixNano()).UTC() }
	fix(&a.StartTime)
	fix(&a.EndTime)
	fix(&a.CreatedAt)
	fix(&a.UpdatedAt)
	segs := make([]model.Segment, len(a.Segments))
	copy(segs, a.Segments)
	for i := range segs {
		fix(&segs[i].StartTime)
		fix(&segs[i].EndTime)
	}
	a.Segments = segs
	return a
}

func ptr[T any](v T) *T { return &v }

// segmentID is uuid.NewSHA1 of the segment's position in the appointment's
// id, as segment ids have always been.
func TestSegmentIDIsNameBased(t *testing.T) {
	for i := range 1000 {
		appt := uuid.New()
		require.Equal(t, uuid.NewSHA1(appt, []byte{byte(i)}), segmentID(appt, i))
	}
}
