package ledger

import (
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

var errOutsideWindow = problem.New(problem.OutsideChangeWindow, "The business does not allow this change of the booking now.")

// DecideCustomerCancel decides a cancellation through the appointment's
// manage link (decisions §7), inside the business's actor like every
// write, so the setting is judged against the state the change applies
// to: an appointment that is neither pending payment nor confirmed, or
// has started, is INVALID_STATUS_TRANSITION (judged first); one the
// business's customerChanges setting does not let its customer cancel now
// is OUTSIDE_CHANGE_WINDOW; otherwise it is exactly the API's transition
// to cancelled, every effect included, its events the customer's.
func DecideCustomerCancel(s *State, id uuid.UUID, now time.Time, ids IDs) (*record.Change, *model.Appointment, error) {
	a := s.Appointment(id)
	if a == nil {
		return nil, nil, errNotFound
	}
	if err := refusal(a, now, CustomerChanges(a, s.Business.CustomerChanges(), now).CanCancel); err != nil {
		return nil, nil, err
	}
	ch, next, err := DecideStatus(s, id, model.Cancelled, nil, now, ids)
	if err != nil {
		return nil, nil, err
	}
	byCustomer(ch)
	return ch, next, nil
}

// DecideCustomerReschedule decides a move to start through the
// appointment's manage link (decisions §7), in the business's actor: a
// booking that can no longer change is INVALID_STATUS_TRANSITION (judged
// first); one the setting does not let its customer move now (allowed at
// all, before the notice, fewer moves than maxReschedules) is
// OUTSIDE_CHANGE_WINDOW; then the new start is judged exactly as the API's
// PATCH of startTime with the booking rules enforced judges it, with its
// effects, its events the customer's, and the move counted. The same start
// again is no change and no move.
func DecideCustomerReschedule(s *State, id uuid.UUID, start time.Time, now time.Time, ids IDs) (*record.Change, *model.Appointment, error) {
	a := s.Appointment(id)
	if a == nil {
		return nil, nil, errNotFound
	}
	if err := RescheduleRefusal(a, s.Business.CustomerChanges(), now); err != nil {
		return nil, nil, err
	}
	ch, next, err := DecidePatch(s, id, &PatchInput{Start: &start, Enforce: true}, now, ids)
	if err != nil || ch == nil {
		return ch, next, err
	}
	ch.Appointments[0].CustomerReschedules++
	byCustomer(ch)
	return ch, &ch.Appointments[0], nil
}

// RescheduleRefusal is why a customer may not move a now, nil when they
// may: INVALID_STATUS_TRANSITION for a booking that can no longer change,
// then OUTSIDE_CHANGE_WINDOW when the setting does not allow it now.
func RescheduleRefusal(a *model.Appointment, set model.CustomerChanges, now time.Time) error {
	return refusal(a, now, CustomerChanges(a, set, now).CanReschedule)
}

// refusal is why a customer's change of a is refused at now: the booking
// can change no more (INVALID_STATUS_TRANSITION, judged first), or the
// setting does not allow this change now (allowed false).
func refusal(a *model.Appointment, now time.Time, allowed bool) error {
	switch {
	case !changeable(a, now):
		return errTransition
	case !allowed:
		return errOutsideWindow
	}
	return nil
}

// changeable reports whether a customer may still change a at all: it is
// pending payment or confirmed, and has not started.
func changeable(a *model.Appointment, now time.Time) bool {
	return (a.Status == model.PendingPayment || a.Status == model.Confirmed) && now.Before(a.StartTime)
}

// byCustomer marks ch's events as caused by the customer.
func byCustomer(ch *record.Change) {
	for i := range ch.Events {
		ch.Events[i].ByCustomer = true
	}
}

// Changes is what a customer may do with a booking now (decisions §7).
type Changes struct {
	CanCancel, CanReschedule       bool
	CancelBefore, RescheduleBefore *time.Time // nil: not allowed at all
}

// CustomerChanges applies the business's setting to appointment a at now:
// a booking that is neither pending payment nor confirmed, or has started,
// can no longer be changed; otherwise each change is allowed when the
// setting allows it at all, until its notice before the start, and (for a
// reschedule) while the booking has been moved fewer times than the
// setting's maximum.
func CustomerChanges(a *model.Appointment, set model.CustomerChanges, now time.Time) Changes {
	var c Changes
	if !changeable(a, now) {
		return c
	}
	if set.AllowCancel {
		t := a.StartTime.Add(-time.Duration(set.CancelMinNoticeMinutes) * time.Minute)
		c.CancelBefore, c.CanCancel = &t, now.Before(t)
	}
	if set.AllowReschedule && (set.MaxReschedules == nil || a.CustomerReschedules < *set.MaxReschedules) {
		t := a.StartTime.Add(-time.Duration(set.RescheduleMinNoticeMinutes) * time.Minute)
		c.RescheduleBefore, c.CanReschedule = &t, now.Before(t)
	}
	return c
}
