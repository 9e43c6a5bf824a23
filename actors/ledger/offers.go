package ledger

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// Complete adds to ch, decided against s, what follows from any write:
// the waitlist offers of the time it frees (AddOffers) and the sessions
// its seats are left in (decisions §10), which its answer and events
// show. The business actor calls it on every change it journals.
func Complete(s *State, ch *record.Change, ids IDs) {
	AddOffers(s, ch, ch.At, ids)
	stampSessions(s, ch)
}

// AddOffers adds to ch the waitlist offers its freeing of time makes
// (decisions §6): for each waiting entry, oldest first, the earliest start
// in its window that is bookable for it after ch and was not before ch is
// held for it (OfferTTL), the entry is offered it, e-mailed and announced
// (waitlist.offered). Each offer's hold is in place before the next entry
// is looked at, so one freed start goes to one entry. An entry whose
// offer lapsed in ch itself is passed over this time: the time goes to
// the next one.
//
// It looks only near the time ch frees, and returns at once when nothing
// waits or nothing is freed, so a business without a waitlist pays one
// length check per write.
func AddOffers(s *State, ch *record.Change, now time.Time, ids IDs) {
	if !s.Waiting() {
		return
	}
	freed := freedBy(s, ch)
	if len(freed) == 0 {
		return
	}
	cur := &State{}
	*cur = *s
	cur.book = s.book.applyChange(s.Seq, ch)
	var lapsed []uuid.UUID
	for i := range ch.Entries {
		if e := s.Entry(ch.Entries[i].ID); e != nil && e.Status == model.EntryOffered {
			lapsed = append(lapsed, e.ID)
		}
	}
	s.waiting.Ascend(nil, func(k CreationKey, _ struct{}) bool {
		if slices.Contains(lapsed, k.ID) {
			return true
		}
		e, i := entryIn(s, ch, k.ID)
		if e == nil || e.Status != model.EntryWaiting {
			return true
		}
		if start, ok := firstNewStart(s, cur, e, freed, now); ok {
			cur = offer(cur, ch, e, i, start, now, ids)
		}
		return true
	})
}

// freedSpan is time a write frees on one staff member.
type freedSpan struct {
	staff uuid.UUID // uuid.Nil: a resource's units, which any staff member's booking may need
	span  interval.Span
}

// freedBy returns the time ch frees: the active segments of appointments
// it moves or frees, of holds that end unused and of reservations released.
func freedBy(s *State, ch *record.Change) []freedSpan {
	var out []freedSpan
	add := func(staff uuid.UUID, items []interval.Item, needs []model.ResourceNeed) {
		for _, it := range items {
			out = append(out, freedSpan{staff: staff, span: it.Span})
			if len(needs) > 0 { // the units free a start for any staff member (decisions §10)
				out = append(out, freedSpan{staff: uuid.Nil, span: it.Span})
			}
		}
	}
	for i := range ch.Appointments {
		next := &ch.Appointments[i]
		if old := s.Appointment(next.ID); old != nil {
			staff, items := Items(old)
			nstaff, nitems := Items(next)
			if staff != nstaff || !slices.Equal(items, nitems) {
				add(staff, items, old.Resources)
			}
		}
	}
	for i := range ch.Holds {
		h := &ch.Holds[i]
		if old := s.Hold(h.ID); old != nil && old.Status == model.HoldActive &&
			(h.Status == model.HoldReleased || h.Status == model.HoldExpired) {
			add(old.StaffID, HoldItems(old), old.Resources)
		}
	}
	for _, id := range ch.Closed {
		if co := s.Checkout(id); co != nil && !slices.ContainsFunc(ch.Appointments, func(a model.Appointment) bool { return a.ID == id }) {
			staff, items := Items(&co.Appointment)
			add(staff, items, co.Appointment.Resources)
		}
	}
	return out
}

// firstNewStart returns the earliest start in e's window, near the freed
// time, that is bookable for e in cur and was not in before.
func firstNewStart(before, cur *State, e *model.WaitlistEntry, freed []freedSpan, now time.Time) (time.Time, bool) {
	svc := cur.Service(e.ServiceID)
	if svc == nil || svc.Deleted || !svc.IsActive {
		return time.Time{}, false
	}
	ahead, behind := calendar.Reach(&cur.Business, svc)
	var starts []time.Time
	for _, f := range freed {
		if e.StaffID != nil && f.staff != uuid.Nil && f.staff != *e.StaffID {
			continue
		}
		lo := latest(time.UnixMilli(f.span.Start).Add(-ahead), e.From, now).Truncate(time.Minute)
		hi := earliest(time.UnixMilli(f.span.End).Add(behind), e.To)
		for t := lo; !t.After(hi); t = t.Add(time.Minute) {
			if !t.Before(e.From) && !t.Before(now) && calendar.Offered(&cur.Business, svc, cur.Loc, t) {
				starts = append(starts, t)
			}
		}
	}
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	starts = slices.CompactFunc(starts, time.Time.Equal)
	for _, t := range starts {
		if bookableFor(cur, e, t, now) && !bookableFor(before, e, t, now) {
			return t, true
		}
	}
	return time.Time{}, false
}

// bookableFor reports whether a booking for entry e at t would be taken.
func bookableFor(s *State, e *model.WaitlistEntry, t, now time.Time) bool {
	_, _, err := decideSlot(s, &slotInput{ServiceID: e.ServiceID, Start: t, StaffID: e.StaffID, Enforce: true,
		CustomerOnFile: s.CustomerByEmail(e.Customer.Email) != nil}, now)
	return err == nil
}

// offer holds start for entry e (at i in ch.Entries, or -1) and adds the
// offer to ch; it returns cur with the hold in place.
func offer(cur *State, ch *record.Change, e *model.WaitlistEntry, i int, start, now time.Time, ids IDs) *State {
	hc, h, err := DecideHold(cur, &HoldInput{ServiceID: e.ServiceID, Start: start, StaffID: e.StaffID, TTL: model.OfferTTL}, now, ids)
	if err != nil {
		return cur
	}
	entry := e.ID
	h.Entry = &entry
	ch.Holds = append(ch.Holds, *h)
	if hc.LastAssigned != nil {
		ch.LastAssigned = hc.LastAssigned
	}
	n := *e
	n.Status, n.UpdatedAt = model.EntryOffered, now
	n.Offer = &model.Offer{HoldID: h.ID, Start: h.Start, StaffID: h.StaffID, ExpiresAt: h.ExpiresAt}
	putEntryIn(ch, n, i)
	ch.Events = append(ch.Events, record.Event{ID: ids.Event(now), Type: model.EventWaitlistOffered, CreatedAt: now, Subject: e.ID})
	ch.Mails = append(ch.Mails, record.Mail{ID: ids.Mail(now), Kind: model.MailWaitlistOffer, To: e.Customer.Email, Appointment: h.ID, At: now})
	next := &State{}
	*next = *cur
	next.book = cur.book.putHold(*h)
	return next
}

func latest(ts ...time.Time) time.Time {
	return slices.MaxFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
}

func earliest(ts ...time.Time) time.Time {
	return slices.MinFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
}
