package ledger

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// reminderBiz is a business open around the clock with two reminders: an
// e-mail a day before and an event an hour before.
type reminderBiz struct {
	t     *testing.T
	sp    *model.Spec
	s     *State
	ids   *seqIDs
	scan  time.Time // the actor's remindScan
	sent  []string  // "<name> <channel> <offset> at <time since t0>"
	names map[uuid.UUID]string
}

func newReminderBiz(t *testing.T) *reminderBiz {
	sp := spec()
	sp.Staff[0].AssignedServiceIDs = []uuid.UUID{sp.Services[0].ID}
	for d := range sp.Staff[0].Hours {
		sp.Staff[0].Hours[d] = []model.Span{{From: 0, To: 24 * 60}}
	}
	sp.Business.Reminders = []model.Reminder{{OffsetMinutes: 1440, Channel: model.ReminderEmail}, {OffsetMinutes: 60, Channel: model.ReminderWebhook}}
	s, _ := put(t, nil, sp, t0)
	return &reminderBiz{t: t, sp: sp, s: s, ids: &seqIDs{}, names: map[uuid.UUID]string{}}
}

func (b *reminderBiz) book(name string, start, now time.Time) uuid.UUID {
	b.t.Helper()
	b.run(now)
	ch, a, err := DecideCreate(b.s, &CreateInput{ServiceID: b.sp.Services[0].ID, Start: start,
		Customer: model.Customer{FirstName: name, Email: name + "@example.com"}}, now, b.ids)
	require.NoError(b.t, err)
	b.s = step(b.t, b.s, ch)
	b.names[a.ID] = name
	return a.ID
}

// run sends the reminders due up to until as the actor's timer would:
// wake at the next one, send what is due, and again.
func (b *reminderBiz) run(until time.Time) {
	b.t.Helper()
	for {
		next, ok := b.s.NextReminder(b.scan)
		if !ok || next.After(until) {
			return
		}
		ch, _ := DecideReminders(b.s, b.scan, next, b.ids)
		b.scan = next
		if ch == nil {
			continue
		}
		for _, m := range ch.Mails {
			require.Equal(b.t, model.MailReminder, m.Kind)
			b.sent = append(b.sent, fmt.Sprintf("%s email at %v", b.names[m.Appointment], next.Sub(t0)))
			require.Equal(b.t, b.names[m.Appointment]+"@example.com", m.To)
		}
		for _, ev := range ch.Events {
			require.Equal(b.t, model.EventAppointmentReminder, ev.Type)
			b.sent = append(b.sent, fmt.Sprintf("%s webhook %d at %v", b.names[ev.Subject], ev.Reminder, next.Sub(t0)))
		}
		b.s = step(b.t, b.s, ch)
		require.Equal(b.t, next, b.s.Reminded())
	}
}

func (b *reminderBiz) restart() {
	b.t.Helper()
	enc, err := record.EncodeSnapshot(Snapshot(b.s))
	require.NoError(b.t, err)
	snap, err := record.DecodeSnapshot(enc)
	require.NoError(b.t, err)
	b.s, err = FromSnapshot(b.s.Seq, snap)
	require.NoError(b.t, err)
	b.scan = time.Time{}
}

func h(n float64) time.Duration { return time.Duration(n * float64(time.Hour)) }

// Each reminder goes once, at its time, to a confirmed appointment that
// was booked (or moved, or confirmed again) before that time.
func TestRemindersTimeline(t *testing.T) {
	b := newReminderBiz(t)
	start := t0.Add(h(72))
	b.book("ann", start, t0)                      // both, at 48 h and 71 h
	b.book("ben", start.Add(h(2)), t0.Add(h(50))) // inside the day: the hour's only, at 73 h
	cid := b.book("cas", start.Add(h(4)), t0)     // cancelled, then reinstated inside the day: the hour's only
	did := b.book("dan", start.Add(h(6)), t0)     // moved a day on before its e-mail: both, for the new time

	b.run(t0.Add(h(30)))
	ch, _, err := DecideStatus(b.s, cid, model.Cancelled, nil, t0.Add(h(30)), b.ids)
	require.NoError(t, err)
	b.s = step(t, b.s, ch)
	newStart := start.Add(h(30))
	ch, _, err = DecidePatch(b.s, did, &PatchInput{Start: &newStart}, t0.Add(h(40)), b.ids)
	require.NoError(t, err)
	b.s = step(t, b.s, ch)

	b.run(t0.Add(h(60)))
	ch, _, err = DecideStatus(b.s, cid, model.Confirmed, nil, t0.Add(h(60)), b.ids)
	require.NoError(t, err)
	b.s = step(t, b.s, ch)
	b.restart() // the e-mails of 48 h are not sent again
	b.run(t0.Add(h(200)))

	require.Equal(t, []string{
		"ann email at 48h0m0s",
		"ann webhook 60 at 71h0m0s",
		"ben webhook 60 at 73h0m0s",
		"cas webhook 60 at 75h0m0s",
		"dan email at 78h0m0s",
		"dan webhook 60 at 101h0m0s",
	}, b.sent)
}

// A reminder the business gains is sent only where its time is still to
// come; one it keeps keeps its Since through an unchanged put, and one it
// loses is no longer sent.
func TestRemindersFollowTheSetting(t *testing.T) {
	b := newReminderBiz(t)
	b.book("ann", t0.Add(h(10)), t0)
	b.book("ben", t0.Add(h(30)), t0)
	since := b.s.Business.Reminders[0].Since
	require.Equal(t, t0, since)

	b.sp.Business.Reminders = append(b.sp.Business.Reminders, model.Reminder{OffsetMinutes: 600, Channel: model.ReminderWebhook})
	b.run(t0.Add(h(5)))
	var changed bool
	b.s, changed = put(t, b.s, b.sp, t0.Add(h(5)))
	require.True(t, changed)
	require.Equal(t, since, b.s.Business.Reminders[0].Since, "a reminder kept keeps its Since")
	require.Equal(t, t0.Add(h(5)), b.s.Business.Reminders[2].Since)
	_, changed = put(t, b.s, b.sp, t0.Add(h(6)))
	require.False(t, changed, "the same reminders again are no change")

	b.run(t0.Add(h(25)))
	b.sp.Business.Reminders = b.sp.Business.Reminders[1:] // the e-mail goes
	b.s, _ = put(t, b.s, b.sp, t0.Add(h(25)))
	b.run(t0.Add(h(100)))
	require.Equal(t, []string{
		"ben email at 6h0m0s",
		"ann webhook 60 at 9h0m0s", // ann's 10-hour reminder was due at 0 h, before the business had it
		"ben webhook 600 at 20h0m0s",
		"ben webhook 60 at 29h0m0s",
	}, b.sent)
}

// A business that was down sends what came due meanwhile once it is back,
// late, but not for appointments that have started or are no longer
// confirmed.
func TestRemindersAfterDowntime(t *testing.T) {
	b := newReminderBiz(t)
	ann := b.book("ann", t0.Add(h(30)), t0)
	b.book("ben", t0.Add(h(31)), t0)
	b.book("cas", t0.Add(h(26)), t0)
	ch, _, err := DecideStatus(b.s, ann, model.Cancelled, nil, t0.Add(h(1)), b.ids)
	require.NoError(t, err)
	b.s = step(t, b.s, ch)

	b.restart()
	back := t0.Add(h(26.5)) // cas has started; ben's e-mail (7 h) is late, his event (30 h) not yet due
	ch, outcomes := DecideReminders(b.s, time.Time{}, back, b.ids)
	require.NotNil(t, ch)
	require.Len(t, ch.Mails, 1)
	require.Empty(t, ch.Events)
	require.ElementsMatch(t, []ReminderOutcome{{model.ReminderEmail, ReminderSkipped}, {model.ReminderEmail, ReminderLate},
		{model.ReminderEmail, ReminderMissed}, {model.ReminderWebhook, ReminderMissed}}, outcomes)
	b.s = step(t, b.s, ch)

	ch, outcomes = DecideReminders(b.s, time.Time{}, back, b.ids)
	require.Nil(t, ch, "sent once")
	require.Empty(t, outcomes)
	next, ok := b.s.NextReminder(time.Time{})
	require.True(t, ok)
	require.Equal(t, t0.Add(h(30)), next, "ben's event")
}

// NextReminder looks at a bounded number of appointments that are due
// nothing, and wakes the actor early rather than look further.
func TestNextReminderScanIsBounded(t *testing.T) {
	b := newReminderBiz(t)
	var ids []uuid.UUID
	for i := range maxScan + 10 {
		ids = append(ids, b.book(fmt.Sprint("c", i), t0.Add(h(48)+time.Duration(i)*30*time.Minute), t0))
	}
	for _, id := range ids {
		ch, _, err := DecideStatus(b.s, id, model.Cancelled, nil, t0, b.ids)
		require.NoError(t, err)
		b.s = step(t, b.s, ch)
	}
	b.book("last", t0.Add(h(200)), t0)
	next, ok := b.s.NextReminder(time.Time{})
	require.True(t, ok)
	require.True(t, next.Before(t0.Add(h(176))), "an early wake-up")
	b.run(t0.Add(h(300)))
	require.Equal(t, []string{"last email at 176h0m0s", "last webhook 60 at 199h0m0s"}, b.sent)
}

// What the journal says a move or a reinstatement armed holds after a
// restart, when the business looks again from the last reminders it
// sent: a reminder whose time passed before the change is not sent late.
func TestRearmedRemindersAfterRestart(t *testing.T) {
	b := newReminderBiz(t)
	b.book("ann", t0.Add(h(30)), t0) // her e-mail at 6 h is the last write that sends reminders before the restart
	eve := b.book("eve", t0.Add(h(40)), t0)
	cas := b.book("cas", t0.Add(h(50)), t0)
	ch, _, err := DecideStatus(b.s, cas, model.Cancelled, nil, t0.Add(h(1)), b.ids)
	require.NoError(t, err)
	b.s = step(t, b.s, ch)

	b.run(t0.Add(h(10)))
	moved := t0.Add(h(33)) // its e-mail's time (9 h) has passed
	ch, _, err = DecidePatch(b.s, eve, &PatchInput{Start: &moved}, t0.Add(h(10)), b.ids)
	require.NoError(t, err)
	b.s = step(t, b.s, ch)
	b.run(t0.Add(h(27)))
	ch, _, err = DecideStatus(b.s, cas, model.Confirmed, nil, t0.Add(h(27)), b.ids) // its e-mail's time (26 h) has passed
	require.NoError(t, err)
	b.s = step(t, b.s, ch)

	b.restart()
	require.Equal(t, t0.Add(h(6)), b.s.Reminded())
	b.run(t0.Add(h(100)))
	require.Equal(t, []string{
		"ann email at 6h0m0s",
		"ann webhook 60 at 29h0m0s",
		"eve webhook 60 at 32h0m0s",
		"cas webhook 60 at 49h0m0s",
	}, b.sent)
}
