package ledger

import (
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

var (
	errNotFound            = problem.New(problem.NotFound, "No such resource for this business.")
	errTransition          = problem.New(problem.InvalidTransition, "The appointment cannot move to that status from its current one.")
	errSlotTaken           = problem.New(problem.SlotTaken, "The time is taken by another booking.")
	errSessionFull         = problem.New(problem.SessionFull, "The class session at that time has no free seat.")
	errResourceUnavailable = problem.New(problem.ResourceUnavailable, "A resource the service needs (a room, a chair, a machine) is not free at that time.")
	errServiceGone         = problem.New(problem.ServiceNotBookable, "The appointment's service is no longer bookable.")
)

// PatchInput is a validated PATCH /appointments/{id} body; nil members were
// absent.
type PatchInput struct {
	ServiceID *uuid.UUID
	StaffID   *uuid.UUID
	Start     *time.Time
	NotesSet  bool
	Notes     *string
	// MetadataSet: the body had metadata, which replaces the
	// appointment's whole (Metadata nil: none left).
	MetadataSet bool
	Metadata    map[string]string
	Enforce     bool
	IfMatch     []int // If-Match: the versions the edit was made against; nil: any
}

var errStale = problem.New(problem.PreconditionFailed, "The appointment has changed since the version named in If-Match.")

// matches reports whether a's version is one of want (nil: any).
func matches(a *model.Appointment, want []int) bool {
	return want == nil || slices.Contains(want, a.Version)
}

// DecidePatch decides a field edit (api-v1 §4.2). A change of time, service
// or staff member is judged exactly like a booking, with the appointment's
// own time not counting against it, and emits appointment.updated; a
// notes-only or metadata-only edit is never rule-checked. No e-mail is
// sent.
func DecidePatch(s *State, id uuid.UUID, in *PatchInput, now time.Time, ids IDs) (*record.Change, *model.Appointment, error) {
	a := s.Appointment(id)
	if a == nil {
		return nil, nil, errNotFound
	}
	if !matches(a, in.IfMatch) {
		return nil, nil, errStale
	}
	if in.ServiceID != nil {
		if svc := s.Service(*in.ServiceID); svc == nil || svc.Deleted {
			return nil, nil, errUnknownService
		}
	}
	if in.StaffID != nil && s.StaffMember(*in.StaffID) == nil {
		return nil, nil, errUnknownStaff
	}
	next := *a
	if moves(a, in) {
		moved, err := move(s, a, in, now)
		if err != nil {
			return nil, nil, err
		}
		next = *moved
	}
	if in.NotesSet {
		next.Notes = in.Notes
	}
	if in.MetadataSet {
		next.Metadata = in.Metadata
	}
	if sameAppointment(a, &next) {
		return nil, a, nil
	}
	next.Touch(now)
	next.Rearm(a, now)
	ch := &record.Change{At: now, Appointments: []model.Appointment{next}}
	if moves(a, in) {
		ch.Events = []record.Event{{ID: ids.Event(now), Type: model.EventAppointmentUpdated, CreatedAt: now, Subject: a.ID}}
	}
	return ch, &ch.Appointments[0], nil
}

// moves reports whether in changes a's time, service or staff member.
func moves(a *model.Appointment, in *PatchInput) bool {
	return in.ServiceID != nil && *in.ServiceID != a.Service.ID ||
		in.Start != nil && !in.Start.Equal(a.StartTime) ||
		in.StaffID != nil && (a.Staff == nil || *in.StaffID != a.Staff.ID)
}

// move re-books a at its new time, service or staff member. An explicit or
// locked staff member is pinned; otherwise the current one is tried first
// and, failing that, any eligible staff member may take it over.
func move(s *State, a *model.Appointment, in *PatchInput, now time.Time) (*model.Appointment, error) {
	svc := s.Service(a.Service.ID)
	if in.ServiceID != nil {
		svc = s.Service(*in.ServiceID)
	}
	if svc == nil || svc.Deleted {
		return nil, errServiceGone
	}
	start := a.StartTime
	if in.Start != nil {
		start = *in.Start
	}
	req := calendar.Request{Business: &s.Business, Loc: s.Loc, Now: now, Service: svc, Start: start, Staff: s.Staff,
		Enforce: in.Enforce, CustomerOnFile: true, Index: s.index, Except: s.MovedOwner(a), LastAssigned: s.lastAssigned,
		Tally: TallyExcept(s, a), Resources: s.Resources, Sessions: s}
	if svc.ID == a.Service.ID {
		// Its own buffers and resources, as it keeps its own price
		// (decisions §9, §10).
		req.Buffers, req.Needs = &a.Buffers, &a.Resources
	}
	switch {
	case in.StaffID != nil:
		req.Pinned = in.StaffID
	case a.Staff != nil:
		cur := a.Staff.ID
		req.Pinned = &cur
	}
	d, perr := calendar.Decide(&req)
	if perr != nil && in.StaffID == nil && !a.StaffLocked && a.Staff != nil && reassignable(perr.Code) {
		req.Pinned = nil
		d, perr = calendar.Decide(&req)
	}
	if perr != nil {
		return nil, perr
	}
	m := Appointment(a.ID, &s.Business, s.Loc, svc, d.Staff, start, a.CreatedAt)
	m.Status, m.CustomerID, m.Notes, m.BookingReference = a.Status, a.CustomerID, a.Notes, a.BookingReference
	m.StaffLocked, m.Version = a.StaffLocked, a.Version
	m.RecurringSeriesID, m.IsRecurringOccurrence, m.BasketID = a.RecurringSeriesID, a.IsRecurringOccurrence, a.BasketID
	seated(&m, svc) // a seat moves alone: it joins or opens the session at its new start
	if svc.ID == a.Service.ID {
		m.BasePriceCents, m.TotalPriceCents, m.DepositCents = a.BasePriceCents, a.TotalPriceCents, a.DepositCents
		m.Buffers, m.Resources = a.Buffers, a.Resources
	}
	return &m, nil
}

// reassignable reports whether a refusal for the current staff member may
// be cured by another one.
func reassignable(c problem.Code) bool {
	return c == problem.SlotTaken || c == problem.SlotNotOffered || c == problem.StaffNotBookable ||
		c == problem.BookingSlotNotConnected
}

func sameAppointment(a, b *model.Appointment) bool {
	return a.StartTime.Equal(b.StartTime) && a.Service == b.Service && sameStaff(a.Staff, b.Staff) &&
		equalPtr(a.Notes, b.Notes) && maps.Equal(a.Metadata, b.Metadata) && slices.EqualFunc(a.Segments, b.Segments, func(x, y model.Segment) bool {
		return x.StartTime.Equal(y.StartTime) && x.EndTime.Equal(y.EndTime) && x.Kind == y.Kind
	})
}

func sameStaff(a, b *model.StaffRef) bool { return equalPtr(a, b) }

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// transitions is the permitted status matrix (decisions §3).
var transitions = map[model.Status][]model.Status{
	model.PendingPayment: {model.Confirmed, model.Cancelled},
	model.Confirmed:      {model.Cancelled, model.Completed, model.NoShow},
	model.Completed:      {model.NoShow},
	model.NoShow:         {model.Confirmed, model.Completed},
	model.Cancelled:      {model.Confirmed},
}

// DecideStatus decides POST /appointments/{id}/status: the transition
// matrix, a re-check of the slot when a freed appointment comes back, the
// matching event and a notification to the customer. An appointment
// leaving pending_payment takes its pending payment with it: cancelled,
// and cancelled at the provider too (decisions §5).
func DecideStatus(s *State, id uuid.UUID, to model.Status, ifMatch []int, now time.Time, ids IDs) (*record.Change, *model.Appointment, error) {
	a := s.Appointment(id)
	if a == nil {
		return nil, nil, errNotFound
	}
	if !matches(a, ifMatch) {
		return nil, nil, errStale
	}
	if !slices.Contains(transitions[a.Status], to) {
		return nil, nil, errTransition
	}
	next := *a
	next.Status = to
	next.Touch(now)
	next.Rearm(a, now)
	if !a.Status.Occupies() && to.Occupies() {
		if err := s.backIn(&next); err != nil {
			return nil, nil, err
		}
	}
	ch := &record.Change{At: now, Appointments: []model.Appointment{next},
		Events:   []record.Event{{ID: ids.Event(now), Type: model.StatusEvent(to), CreatedAt: now, Subject: a.ID}},
		Payments: leaving(s, a, now)}
	if cu := s.Customer(a.CustomerID); cu != nil && cu.Email != "" {
		ch.Mails = []record.Mail{{ID: ids.Mail(now), Kind: model.MailStatus, To: cu.Email, Appointment: a.ID, At: now}}
	}
	return ch, &ch.Appointments[0], nil
}

// backIn judges appointment a, freed (cancelled) before, taking its time
// again: a seat rejoins its session while the session has a free seat
// (nothing else to judge: the session holds the time, the room and its
// place in the limits), or opens it again; anything else must fit as a
// new booking would, within the booking limits.
func (s *State) backIn(a *model.Appointment) error {
	svc := s.Service(a.Service.ID)
	staff, items := Items(a)
	if a.Session != nil && len(items) > 0 {
		if seats, hull, ok := s.Seats(a.Service.ID, staff, a.StartTime.UnixMilli()); ok {
			switch {
			case hull != (interval.Span{Start: items[0].Start, End: items[len(items)-1].End}):
				return errSlotTaken
			case svc != nil && seats >= svc.Seats():
				return errSessionFull
			}
			return nil
		}
	}
	if svc != nil && a.Staff != nil {
		if perr := calendar.CheckLimit(&s.Business, svc, s, s.Loc, a.Staff.ID, a.StartTime); perr != nil {
			return perr
		}
	}
	if len(items) == 0 {
		return nil
	}
	spans := make([]interval.Span, len(items))
	for i, it := range items {
		spans[i] = it.Span
	}
	if !s.index.Fits(staff, spans, a.ID) {
		return errSlotTaken
	}
	if _, ok := calendar.Room(s.index, s.Resources, a.Resources, spans, a.ID); !ok {
		return errResourceUnavailable
	}
	return nil
}

// AppointmentView is an appointment with its customer, as an answer shows
// it. Both point into immutable state: share them, never change them.
type AppointmentView struct {
	Appointment *model.Appointment
	Customer    *model.Customer
}

// viewOf is appt with its customer as of s after ch; empty when appt is
// nil (a refused decision).
func viewOf(s *State, ch *record.Change, appt *model.Appointment) AppointmentView {
	if appt == nil {
		return AppointmentView{}
	}
	return AppointmentView{Appointment: appt, Customer: CustomerIn(s, ch, appt.CustomerID)}
}

// PatchAppointment edits appointment ID's fields
// (PATCH /appointments/{id}). ByCustomer is a move to In.Start through the
// manage link, judged first by the business's customerChanges setting
// (DecideCustomerReschedule).
type PatchAppointment struct {
	ID         uuid.UUID
	In         PatchInput
	ByCustomer bool
}

func (o PatchAppointment) Decide(s *State, now time.Time, ids IDs) (*record.Change, AppointmentView, error) {
	var ch *record.Change
	var appt *model.Appointment
	var err error
	if o.ByCustomer && o.In.Start != nil {
		ch, appt, err = DecideCustomerReschedule(s, o.ID, *o.In.Start, now, ids)
	} else {
		ch, appt, err = DecidePatch(s, o.ID, &o.In, now, ids)
	}
	return ch, viewOf(s, ch, appt), err
}

// SetStatus moves appointment ID to Status
// (POST /appointments/{id}/status); IfMatch, when not nil, lists the
// versions the change was made against. ByCustomer is a cancellation
// through the manage link, judged by the business's customerChanges
// setting (DecideCustomerCancel).
type SetStatus struct {
	ID         uuid.UUID
	Status     model.Status
	IfMatch    []int
	ByCustomer bool
}

func (o SetStatus) Decide(s *State, now time.Time, ids IDs) (*record.Change, AppointmentView, error) {
	var ch *record.Change
	var appt *model.Appointment
	var err error
	if o.ByCustomer {
		ch, appt, err = DecideCustomerCancel(s, o.ID, now, ids)
	} else {
		ch, appt, err = DecideStatus(s, o.ID, o.Status, o.IfMatch, now, ids)
	}
	return ch, viewOf(s, ch, appt), err
}
