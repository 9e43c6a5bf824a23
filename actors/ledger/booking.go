package ledger

import (
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// IDs mints identifiers for decisions. The actor passes random ones; tests
// pass predictable ones.
type IDs interface {
	UUID() uuid.UUID
	Event(at time.Time) string // evt_ + ULID, sorting in time order
	Mail(at time.Time) string
}

// CreateInput is a validated POST /appointments body.
type CreateInput struct {
	ServiceID   uuid.UUID
	Start       time.Time
	Customer    model.Customer // FirstName, LastName, Email, Phone
	StaffID     *uuid.UUID
	StaffLocked bool
	Enforce     bool
	Notes       *string
	HoldID      *uuid.UUID        // book exactly this hold's footprint (decisions §6)
	Metadata    map[string]string // the integrator's own pairs (decisions §7); nil: none
	// ByCustomer: made with a publishable key, by the customer on a
	// booking page (decisions §7); its events say so (changedBy).
	ByCustomer bool
}

var (
	errUnknownService  = problem.FieldError("serviceId", problem.Invalid, "No such service.")
	errUnknownStaff    = problem.FieldError("staffMemberId", problem.Invalid, "No such staff member.")
	errUnknownResource = problem.FieldError("resourceId", problem.Invalid, "No such resource.")
	errPayments        = problem.New(problem.PaymentsUnavailable, "This booking requires prepayment and the business has no payment provider connected.")
)

// DecideCreate decides a booking (api-v1 §4.2): the rules in the order of
// decisions §4, the customer found by e-mail or created, the price
// snapshot, the events and the confirmation e-mail, all in one Change.
// A booking that needs prepayment (decisions §5) is refused when the
// business has no provider, and otherwise becomes a reservation
// (Change.Checkouts) that the provider's answer completes or releases.
func DecideCreate(s *State, in *CreateInput, now time.Time, ids IDs) (*record.Change, *model.Appointment, error) {
	ch, a, err := decideCreate(s, in, now, ids)
	if err == nil && in.ByCustomer {
		byCustomer(ch)
	}
	return ch, a, err
}

func decideCreate(s *State, in *CreateInput, now time.Time, ids IDs) (*record.Change, *model.Appointment, error) {
	if in.HoldID != nil {
		return decideHeld(s, in, now, ids)
	}
	existing := s.CustomerByEmail(in.Customer.Email)
	svc, d, err := decideSlot(s, &slotInput{ServiceID: in.ServiceID, Start: in.Start, StaffID: in.StaffID,
		Enforce: in.Enforce, CustomerOnFile: existing != nil}, now)
	if err != nil {
		return nil, nil, err
	}
	ch := &record.Change{At: now}
	a := Appointment(ids.UUID(), &s.Business, s.Loc, svc, d.Staff, in.Start, now)
	a.Notes, a.StaffLocked, a.Metadata = in.Notes, in.StaffLocked && in.StaffID != nil, in.Metadata
	seated(&a, svc)
	if in.StaffID == nil && d.Staff != nil {
		id := d.Staff.ID
		ch.LastAssigned = &id
	}
	return booked(s, ch, a, svc, existing, in, now, ids)
}

// slotInput is what decideSlot judges: a start of a service, with a
// staff member or by the business's strategy.
type slotInput struct {
	ServiceID      uuid.UUID
	Start          time.Time
	StaffID        *uuid.UUID
	Enforce        bool
	CustomerOnFile bool
	Chained        bool // a basket's later item (calendar.Request.Chained)
}

// decideSlot is the one decision behind a booking, a hold and a check
// (decisions §4 and §6): the service and staff member must exist, then
// calendar.Decide applies the rules in their order against the calendar,
// holds included. It returns the service and the accepted footprint.
func decideSlot(s *State, in *slotInput, now time.Time) (*model.Service, *calendar.Decision, error) {
	svc := s.Service(in.ServiceID)
	if svc == nil || svc.Deleted {
		return nil, nil, errUnknownService
	}
	if in.StaffID != nil && s.StaffMember(*in.StaffID) == nil {
		return nil, nil, errUnknownStaff
	}
	d, perr := calendar.Decide(&calendar.Request{
		Business: &s.Business, Loc: s.Loc, Now: now, Service: svc, Start: in.Start, Staff: s.Staff,
		Pinned: in.StaffID, Enforce: in.Enforce, CustomerOnFile: in.CustomerOnFile, Index: s.index,
		LastAssigned: s.lastAssigned, Tally: s, Resources: s.Resources, Sessions: s, Chained: in.Chained,
	})
	if perr != nil {
		return nil, nil, perr
	}
	if prepayBlocked(s, svc, in.Start) {
		return nil, nil, errPayments
	}
	return svc, d, nil
}

// seated makes a, a booking of svc, a seat when svc is a class
// (decisions §10): it joins the session at its start, or opens one. Its
// session is stamped once the write is complete (Complete).
func seated(a *model.Appointment, svc *model.Service) {
	if svc.IsClass() {
		a.Session = &model.Session{}
	}
}

// prepayBlocked reports whether a booking of svc at start would need
// prepayment (needsPayment) that the business cannot take, having no
// provider: the booking's last refusal, so a hold or a check gives it too.
func prepayBlocked(s *State, svc *model.Service, start time.Time) bool {
	if s.Business.Payments.Provider != "" || !s.Business.Payments.RequiresPayment && !svc.PaymentRequired {
		return false
	}
	_, total, deposit := calendar.Price(svc, s.Loc, start)
	return deposit != nil && *deposit > 0 || total > 0
}

// booked finishes a booking whose time is decided: appointment a of svc
// (its customer still to set), for the customer on file (existing) or a
// new one made from in.Customer; a reservation when it needs prepayment.
func booked(s *State, ch *record.Change, a model.Appointment, svc *model.Service, existing *model.Customer,
	in *CreateInput, now time.Time, ids IDs) (*record.Change, *model.Appointment, error) {
	pay, needs := needsPayment(s, svc, &a)
	if needs && s.Business.Payments.Provider == "" {
		return nil, nil, errPayments
	}
	cu := existing
	var fresh *model.Customer
	if cu == nil {
		c := in.Customer
		c.ID, c.Email, c.CreatedAt, c.UpdatedAt = ids.UUID(), strings.TrimSpace(c.Email), now, now
		fresh, cu = &c, &c
	}
	a.CustomerID = cu.ID
	if needs {
		// Reserved, not booked: the provider's answer completes it
		// (DecideCheckoutDone) with the events and the e-mail.
		reserve(ch, a, fresh, pay, now, ids)
		return ch, &ch.Checkouts[0].Appointment, nil
	}
	if fresh != nil {
		ch.Customers = append(ch.Customers, *fresh)
		ch.Events = append(ch.Events, record.Event{ID: ids.Event(now), Type: model.EventCustomerCreated, CreatedAt: now, Subject: fresh.ID})
	}
	ch.Appointments = []model.Appointment{a}
	ch.Events = append(ch.Events, record.Event{ID: ids.Event(now), Type: model.EventAppointmentCreated, CreatedAt: now, Subject: a.ID})
	ch.Mails = []record.Mail{{ID: ids.Mail(now), Kind: model.MailConfirmation, To: cu.Email, Appointment: a.ID, At: now}}
	return ch, &ch.Appointments[0], nil
}

// DecideCustomer decides POST /customers: 409 CONFLICT naming email when
// the address is on file.
func DecideCustomer(s *State, in model.Customer, now time.Time, ids IDs) (*record.Change, *model.Customer, error) {
	if s.CustomerByEmail(in.Email) != nil {
		return nil, nil, &problem.Error{Code: problem.Conflict, Message: "A customer with this e-mail address already exists.",
			Fields: []problem.Field{{Path: "email", Reason: problem.Invalid, Message: "Already on file for another customer."}}}
	}
	in.ID, in.Email, in.CreatedAt, in.UpdatedAt = ids.UUID(), strings.TrimSpace(in.Email), now, now
	ch := &record.Change{At: now, Customers: []model.Customer{in},
		Events: []record.Event{{ID: ids.Event(now), Type: model.EventCustomerCreated, CreatedAt: now, Subject: in.ID}}}
	return ch, &ch.Customers[0], nil
}

// Book books an appointment (POST /appointments). A booking that needs
// prepayment is a reservation with no answer yet: its change holds a
// checkout, and the actor answers once the provider has (business
// payments.go).
type Book struct{ In CreateInput }

func (Book) Operation() model.Operation { return model.OpBook }

// MayPay says a booking may wait for a payment provider's checkout.
func (Book) MayPay() bool { return true }

func (o Book) Decide(s *State, now time.Time, ids IDs) (*record.Change, *Answer, error) {
	ch, _, err := DecideCreate(s, &o.In, now, ids)
	if err != nil || len(ch.Checkouts) > 0 {
		return ch, nil, err
	}
	return answered(s, ch, record.AnswerBooked)
}

// Booked is the answer of a booking: appt with its customer as of s after
// ch, and its payment p (nil: none due).
func Booked(s *State, ch *record.Change, appt *model.Appointment, p *model.Payment) *Answer {
	return &Answer{Kind: record.AnswerBooked, Appointment: appt, Customer: CustomerIn(s, ch, appt.CustomerID), Payment: p}
}

// AddCustomer creates a customer (POST /customers).
type AddCustomer struct{ In model.Customer }

func (AddCustomer) Operation() model.Operation { return model.OpAddCustomer }

func (o AddCustomer) Decide(s *State, now time.Time, ids IDs) (*record.Change, *Answer, error) {
	ch, _, err := DecideCustomer(s, o.In, now, ids)
	if err != nil {
		return nil, nil, err
	}
	return answered(s, ch, record.AnswerCustomer)
}
