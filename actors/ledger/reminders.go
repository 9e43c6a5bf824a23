package ledger

import (
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// Reminders (decisions §9). A business's reminder with offset o is due
// for an appointment at start − o. Nothing per appointment says which
// reminders went out; instead the state keeps when the last write that
// sent reminders ran (Reminded), and every reminder due by then has been
// sent or passed over. The next write sends those due in (Reminded, now],
// found by start time in the appointment list, so a restart or a cluster
// take-over sends exactly what the journal says is still owed: at least
// once across a crash, once otherwise.
//
// A reminder is due for an appointment only when its time is after the
// appointment's ArmedAt (booked, moved or last confirmed) and after the
// reminder's Since (when the business gained it): a booking or move made
// inside an offset gets none for it, and neither does a reminder added
// after its time. At its time the appointment must be confirmed and not
// yet started.

// ReminderOutcome is what became of one reminder that came due.
type ReminderOutcome struct {
	Channel model.ReminderChannel
	// Outcome is sent (in the outbox within a minute of its time), late
	// (in the outbox later than that: the business was down or moving
	// when it came due), skipped (the appointment was not confirmed, or
	// an e-mail's customer has no address) or missed (the appointment had
	// started before the reminder could go).
	Outcome string
}

// The reminder outcomes.
const (
	ReminderSent    = "sent"
	ReminderLate    = "late"
	ReminderSkipped = "skipped"
	ReminderMissed  = "missed"
)

// lateAfter is how long after its time a reminder still counts as sent
// on time.
const lateAfter = time.Minute

// Reminded is when the last write that sent reminders ran: every
// reminder due by then has been sent or passed over.
func (s *State) Reminded() time.Time { return s.reminded }

// DecideReminders returns the change that sends the reminders due in
// (after, now], after being no earlier than s.Reminded() (the actor's own
// scan may be ahead of the journal: a scan that found nothing to send
// writes nothing), or nil when none is to be sent, and what became of
// every reminder that came due.
func DecideReminders(s *State, after, now time.Time, ids IDs) (*record.Change, []ReminderOutcome) {
	var (
		ch  *record.Change
		out []ReminderOutcome
	)
	after = later(after, s.reminded)
	for _, r := range s.Business.Reminders {
		s.dueReminders(r, later(after, r.Since), now, func(id uuid.UUID) {
			a := s.Appointment(id)
			o := reminderOutcome(a, r, now)
			if o == ReminderSent || o == ReminderLate {
				if ch == nil {
					ch = &record.Change{At: now, Reminded: now}
				}
				if !remind(s, ch, a, r, now, ids) {
					o = ReminderSkipped // a customer without an address
				}
			}
			out = append(out, ReminderOutcome{Channel: r.Channel, Outcome: o})
		})
	}
	return ch, out
}

func reminderOutcome(a *model.Appointment, r model.Reminder, now time.Time) string {
	switch {
	case a.Status != model.Confirmed:
		return ReminderSkipped
	case !now.Before(a.StartTime):
		return ReminderMissed
	case now.Sub(a.StartTime.Add(-r.Offset())) > lateAfter:
		return ReminderLate
	}
	return ReminderSent
}

// remind adds to ch reminder r of appointment a: an e-mail to its
// customer, or an appointment.reminder event. It reports whether it
// added one: an e-mail needs the customer's address.
func remind(s *State, ch *record.Change, a *model.Appointment, r model.Reminder, now time.Time, ids IDs) bool {
	switch r.Channel {
	case model.ReminderEmail:
		cu := s.Customer(a.CustomerID)
		if cu == nil || cu.Email == "" {
			return false
		}
		ch.Mails = append(ch.Mails, record.Mail{ID: ids.Mail(now), Kind: model.MailReminder, To: cu.Email, Appointment: a.ID, At: now})
	case model.ReminderWebhook:
		ch.Events = append(ch.Events, record.Event{ID: ids.Event(now), Type: model.EventAppointmentReminder, CreatedAt: now,
			Subject: a.ID, Reminder: r.OffsetMinutes})
	}
	return true
}

// NextReminder returns the time of the earliest reminder that will come
// due after after (no earlier than s.Reminded()), false when there is
// none. It may return an earlier time at which nothing is due (a wake-up
// after scanning maxScan appointments that are not), so that a business
// with many cancelled bookings ahead pays a bounded cost per call.
func (s *State) NextReminder(after time.Time) (time.Time, bool) {
	var (
		next time.Time
		ok   bool
	)
	after = later(after, s.reminded)
	for _, r := range s.Business.Reminders {
		if at, found := s.nextReminder(r, later(after, r.Since)); found && (!ok || at.Before(next)) {
			next, ok = at, true
		}
	}
	return next, ok
}

// maxScan bounds the appointments NextReminder looks at per reminder.
const maxScan = 256

func (s *State) nextReminder(r model.Reminder, after time.Time) (time.Time, bool) {
	var (
		at    time.Time
		found bool
		n     int
	)
	s.startsAfter(after.Add(r.Offset()), func(id uuid.UUID, start time.Time) bool {
		c, _ := s.appts.Get(id)
		due := start.Add(-r.Offset())
		status, armed := remindable(&c)
		if n++; n > maxScan || status == model.Confirmed && due.After(armed) {
			at, found = due, true
			return false
		}
		return true
	})
	return at, found
}

// dueReminders calls fn for every appointment whose reminder r's time
// lies in (after, now] and after its ArmedAt, whatever its status.
func (s *State) dueReminders(r model.Reminder, after, now time.Time, fn func(id uuid.UUID)) {
	until := now.Add(r.Offset())
	s.startsAfter(after.Add(r.Offset()), func(id uuid.UUID, start time.Time) bool {
		if start.After(until) {
			return false
		}
		c, _ := s.appts.Get(id)
		if _, armed := remindable(&c); start.Add(-r.Offset()).After(armed) {
			fn(id)
		}
		return true
	})
}

// startsAfter calls fn for the appointments that start after t, in start
// order, until fn returns false.
func (s *State) startsAfter(t time.Time, fn func(id uuid.UUID, start time.Time) bool) {
	from := StartKey{Start: t.UnixMilli()}
	s.byStart.Ascend(&from, func(k StartKey, _ struct{}) bool {
		start := time.UnixMilli(k.Start).UTC()
		if !start.After(t) {
			return true // the same millisecond, not after t
		}
		return fn(k.ID, start)
	})
}

// remindable is compact appointment c's status and when its reminders
// were last armed (model.Appointment.ArmedAt), without building it.
func remindable(c *appt) (model.Status, time.Time) {
	if x := c.extra; x != nil {
		if x.whole != nil {
			return x.whole.Status, x.whole.ArmedAt()
		}
		if !x.remindFrom.IsZero() {
			return statusOf(c.status), x.remindFrom
		}
	}
	return statusOf(c.status), time.Unix(0, c.created)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// armReminders returns the reminders of next, the business a catalogue
// puts, each with its Since: kept from the one before (prev) with the same
// offset and channel, or the catalogue's time at when it is new. A
// reminder that already has one (a snapshot's catalogue) keeps it.
func armReminders(prev []model.Reminder, next []model.Reminder, at time.Time) []model.Reminder {
	if len(next) == 0 {
		return next
	}
	out := make([]model.Reminder, len(next))
	for i, r := range next {
		out[i] = r
		if !r.Since.IsZero() {
			continue
		}
		out[i].Since = at
		for _, p := range prev {
			if p.OffsetMinutes == r.OffsetMinutes && p.Channel == r.Channel {
				out[i].Since = p.Since
			}
		}
	}
	return out
}
