package ledger

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
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
