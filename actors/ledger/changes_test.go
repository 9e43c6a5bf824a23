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

func TestCustomerChanges(t *testing.T) {
	start := time.Date(2027, 3, 2, 10, 0, 0, 0, time.UTC)
	zero := 0
	two := 2
	at := func(d time.Duration) time.Time { return start.Add(d) }
	ts := func(d time.Duration) *time.Time { x := at(d); return &x }
	for _, c := range []struct {
		name   string
		status model.Status
		set    model.CustomerChanges
		now    time.Time
		want   Changes
	}{
		{"defaults, before", model.Confirmed, model.DefaultCustomerChanges(), at(-time.Hour),
			Changes{CanCancel: true, CanReschedule: true, CancelBefore: ts(0), RescheduleBefore: ts(0)}},
		{"pending payment", model.PendingPayment, model.DefaultCustomerChanges(), at(-time.Hour),
			Changes{CanCancel: true, CanReschedule: true, CancelBefore: ts(0), RescheduleBefore: ts(0)}},
		{"at the start", model.Confirmed, model.DefaultCustomerChanges(), at(0), Changes{}},
		{"cancelled", model.Cancelled, model.DefaultCustomerChanges(), at(-time.Hour), Changes{}},
		{"completed", model.Completed, model.DefaultCustomerChanges(), at(-time.Hour), Changes{}},
		{"notice not yet", model.Confirmed, model.CustomerChanges{AllowCancel: true, CancelMinNoticeMinutes: 60}, at(-61 * time.Minute),
			Changes{CanCancel: true, CancelBefore: ts(-time.Hour)}},
		{"notice reached", model.Confirmed, model.CustomerChanges{AllowCancel: true, CancelMinNoticeMinutes: 60}, at(-time.Hour),
			Changes{CancelBefore: ts(-time.Hour)}},
		{"no reschedules at all", model.Confirmed, model.CustomerChanges{AllowReschedule: true, MaxReschedules: &zero}, at(-time.Hour), Changes{}},
		{"two reschedules", model.Confirmed, model.CustomerChanges{AllowReschedule: true, MaxReschedules: &two, RescheduleMinNoticeMinutes: 30}, at(-time.Hour),
			Changes{CanReschedule: true, RescheduleBefore: ts(-30 * time.Minute)}},
	} {
		a := &model.Appointment{Status: c.status, StartTime: start}
		require.Equal(t, c.want, CustomerChanges(a, c.set, c.now), c.name)
	}
}

// A customer's move through the manage link: judged by the setting, then
// as a PATCH of the start; counted, through the journal and a snapshot,
// up to maxReschedules.
func TestDecideCustomerReschedule(t *testing.T) {
	sp := spec()
	sp.Staff[0].AssignedServiceIDs = []uuid.UUID{sp.Services[0].ID}
	for d := range sp.Staff[0].Hours {
		sp.Staff[0].Hours[d] = []model.Span{{From: 0, To: 24 * 60}}
	}
	one := 1
	sp.Business.Changes = &model.CustomerChanges{AllowCancel: true, AllowReschedule: true, MaxReschedules: &one}
	s, _ := put(t, nil, sp, t0)
	ids := &seqIDs{}
	start := t0.Add(72 * time.Hour).Truncate(time.Hour)
	ch, a, err := DecideCreate(s, &CreateInput{ServiceID: sp.Services[0].ID, Start: start, Enforce: false,
		Customer: model.Customer{FirstName: "R", Email: "r@example.com"}}, t0, ids)
	require.NoError(t, err)
	s = step(t, s, ch)

	_, same, err := DecideCustomerReschedule(s, a.ID, start, t0, ids)
	require.NoError(t, err)
	require.Zero(t, same.CustomerReschedules, "the same start is no move")

	later := start.Add(time.Hour)
	ch, moved, err := DecideCustomerReschedule(s, a.ID, later, t0, ids)
	require.NoError(t, err)
	require.Equal(t, 1, moved.CustomerReschedules)
	require.Equal(t, later, moved.StartTime)
	for _, ev := range ch.Events {
		require.True(t, ev.ByCustomer)
	}
	s = step(t, s, ch)
	require.Equal(t, 1, s.Appointment(a.ID).CustomerReschedules)

	b, err := record.EncodeSnapshot(Snapshot(s))
	require.NoError(t, err)
	snap, err := record.DecodeSnapshot(b)
	require.NoError(t, err)
	r, err := FromSnapshot(s.Seq, snap)
	require.NoError(t, err)
	require.Equal(t, 1, r.Appointment(a.ID).CustomerReschedules)
	_, _, err = DecideCustomerReschedule(r, a.ID, start, t0, ids)
	require.Equal(t, problem.OutsideChangeWindow, problem.As(err).Code, "maxReschedules reached")
	require.False(t, CustomerChanges(r.Appointment(a.ID), r.Business.CustomerChanges(), t0).CanReschedule)
}
