package ledger

import (
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// Baskets (decisions §11): several services booked back to back in one
// step of the business's actor, all or nothing. Each item starts where
// the one before it ends, the buffers respected (calendar.Follows), and
// is judged against the state with the items before it already laid in,
// exactly as if they had been booked one after the other.

// The number of items a basket has.
const (
	MinBasketItems = 2
	MaxBasketItems = 5
)

// BasketItem is one service of a basket, with its staff member or by the
// business's strategy.
type BasketItem struct {
	ServiceID uuid.UUID
	StaffID   *uuid.UUID
}

// BasketInput is a validated basket body.
type BasketInput struct {
	Start time.Time
	Items []BasketItem
	// Customer is the customer's details, or CustomerID one on file:
	// exactly one is set.
	Customer   *model.Customer
	CustomerID *uuid.UUID
	Enforce    bool
	Notes      *string
	Metadata   map[string]string
	// ByCustomer: made on a booking page, with a publishable key
	// (decisions §7); its events say so.
	ByCustomer bool
}

// planBasket judges the items of in one after the other against s, each
// against the items before it, and returns their appointments (their
// customer still to set) or the refusal of the first item that does not
// fit, naming it.
func planBasket(s *State, in *BasketInput, onFile bool, now time.Time, ids IDs) ([]model.Appointment, error) {
	appts := make([]model.Appointment, 0, len(in.Items))
	cur, t := s, in.Start
	var prev *model.Service
	for i, it := range in.Items {
		svc := s.Service(it.ServiceID)
		switch {
		case svc == nil || svc.Deleted:
			return nil, itemField(i, "serviceId", "No such service.")
		case it.StaffID != nil && s.StaffMember(*it.StaffID) == nil:
			return nil, itemField(i, "staffMemberId", "No such staff member.")
		case svc.PaymentRequired || s.Business.Payments.RequiresPayment:
			return nil, itemField(i, "serviceId", "A service paid in advance cannot be booked in a basket: book it on its own.")
		}
		if prev != nil {
			t = calendar.Follows(prev, t, svc)
		}
		_, d, err := decideSlot(cur, &slotInput{ServiceID: svc.ID, Start: t, StaffID: it.StaffID, Enforce: in.Enforce,
			CustomerOnFile: onFile, Chained: prev != nil}, now)
		if err != nil {
			return nil, itemRefusal(i, err)
		}
		a := Appointment(ids.UUID(), &s.Business, s.Loc, svc, d.Staff, t, now)
		seated(&a, svc)
		a.Notes, a.Metadata, a.StaffLocked = in.Notes, in.Metadata, it.StaffID != nil
		// The next items see this one as a booking, as a series'
		// occurrences see the ones before them (planSeries).
		next := *cur
		next.book = next.book.occupy(apptOccupant(&a))
		if it.StaffID == nil {
			next.book.lastAssigned = d.Staff.ID
		}
		cur, prev = &next, svc
		appts = append(appts, a)
	}
	return appts, nil
}

// itemField is a VALIDATION_ERROR on member name of item i.
func itemField(i int, name, message string) error {
	return problem.FieldError("items."+strconv.Itoa(i)+"."+name, problem.Invalid, message)
}

// itemRefusal is the refusal of a basket whose item i does not fit: the
// item's own code, naming it (decisions §11).
func itemRefusal(i int, err error) error {
	pe := problem.As(err)
	path := "items." + strconv.Itoa(i)
	if pe.Code == problem.Validation {
		return pe
	}
	return &problem.Error{Code: pe.Code, Message: "The basket cannot be booked, so nothing was (" + path + "): " + pe.Message,
		Fields: []problem.Field{{Path: path, Reason: problem.Invalid, Message: pe.Message}}}
}

// BookBasket books a basket (POST /baskets, decisions §11): every item
// judged in this one step and written in one record, so a crash leaves
// the whole basket or none of it. Each appointment has its own events and
// manage link; the customer gets one confirmation listing every item.
type BookBasket struct{ In BasketInput }

func (BookBasket) Operation() model.Operation { return model.OpBookBasket }

func (o BookBasket) Decide(s *State, now time.Time, ids IDs) (*record.Change, *Answer, error) {
	in := &o.In
	onFile, err := customerOnFile(s, in.Customer, in.CustomerID)
	if err != nil {
		return nil, nil, err
	}
	appts, err := planBasket(s, in, onFile, now, ids)
	if err != nil {
		return nil, nil, err
	}
	ch := &record.Change{At: now}
	cu := customerFor(s, ch, in.Customer, in.CustomerID, now, ids)
	x := model.Basket{ID: ids.UUID(), CustomerID: cu.ID, CreatedAt: now}
	for i := range appts {
		a := &appts[i]
		a.CustomerID, a.BasketID = cu.ID, &x.ID
		x.Appointments = append(x.Appointments, a.ID)
		ch.Events = append(ch.Events, record.Event{ID: ids.Event(now), Type: model.EventAppointmentCreated, CreatedAt: now, Subject: a.ID})
		if in.Items[i].StaffID == nil {
			last := a.Staff.ID
			ch.LastAssigned = &last
		}
	}
	ch.Appointments, ch.Baskets = appts, []model.Basket{x}
	if cu.Email != "" {
		ch.Mails = []record.Mail{{ID: ids.Mail(now), Kind: model.MailBasketConfirmation, To: cu.Email, Appointment: appts[0].ID, At: now}}
	}
	if in.ByCustomer {
		byCustomer(ch)
	}
	return answered(s, ch, record.AnswerBasket)
}

// Basket returns the basket with id, or nil.
func (s *State) Basket(id uuid.UUID) *model.Basket {
	x, _ := s.baskets.Get(id)
	return x
}

// CancelBasket cancels every appointment of basket ID that may be
// cancelled (POST /baskets/{id}/cancel), in one write; the others it
// names with INVALID_STATUS_TRANSITION. Each cancelled appointment emits
// its own appointment.cancelled; the customer gets one e-mail listing
// them.
type CancelBasket struct{ ID uuid.UUID }

func (o CancelBasket) Decide(s *State, now time.Time, ids IDs) (*record.Change, SeriesCancelled, error) {
	x := s.Basket(o.ID)
	if x == nil {
		return nil, SeriesCancelled{}, errNotFound
	}
	ch, out := cancelAll(s, x.Appointments, func(*model.Appointment) bool { return true }, now, ids)
	if len(ch.Appointments) == 0 {
		return nil, out, nil
	}
	if cu := s.Customer(x.CustomerID); cu != nil && cu.Email != "" {
		ch.Mails = []record.Mail{{ID: ids.Mail(now), Kind: model.MailBasketCancelled, To: cu.Email, Appointment: ch.Appointments[0].ID, At: now}}
	}
	return ch, out, nil
}

// cancelAll cancels, in one change, every appointment of ids that want
// accepts and that may be cancelled, and names the others that want
// accepts with INVALID_STATUS_TRANSITION: a series' or a basket's cancel.
func cancelAll(s *State, ids []uuid.UUID, want func(*model.Appointment) bool, now time.Time, mint IDs) (*record.Change, SeriesCancelled) {
	var out SeriesCancelled
	ch := &record.Change{At: now}
	for _, id := range ids {
		a := s.Appointment(id)
		if a == nil || !want(a) {
			continue
		}
		if !slices.Contains(transitions[a.Status], model.Cancelled) {
			out.Skipped = append(out.Skipped, SkippedOccurrence{ID: id, Code: problem.InvalidTransition})
			continue
		}
		next := *a
		next.Status = model.Cancelled
		next.Touch(now)
		next.Rearm(a, now)
		ch.Appointments = append(ch.Appointments, next)
		ch.Events = append(ch.Events, record.Event{ID: mint.Event(now), Type: model.StatusEvent(model.Cancelled), CreatedAt: now, Subject: id})
		out.Cancelled = append(out.Cancelled, id)
	}
	return ch, out
}

// ChainQuery asks for the starts at which a basket of services can be
// booked (GET /availability/slots?serviceIds=…).
type ChainQuery struct {
	Services []*model.Service // two or more, none twice
	Only     *uuid.UUID
	From, To time.Time
	Now      time.Time
	Scratch  *calendar.Scratch
}

// Chains returns the starts on offer for q, each with every item's slot.
// A start is offered only where a basket of those services booked right
// after, nobody pinned, would be accepted (a property test holds it to
// that): when the items may stand in each other's way in a way the
// search does not see (calendar.Coupled), each start found is confirmed
// by judging the basket as booking it would.
func Chains(s *State, q *ChainQuery) []calendar.ChainSlot {
	cq := calendar.Query{Business: &s.Business, Loc: s.Loc, Now: q.Now, Service: q.Services[0], Staff: s.Staff, Only: q.Only,
		Index: s.index, Tally: s, Resources: s.Resources, Sessions: s, From: q.From, To: q.To, Scratch: q.Scratch}
	out := calendar.Chain(&cq, q.Services[1:], nil)
	if !calendar.Coupled(&s.Business, len(q.Services)) {
		return out
	}
	in := &BasketInput{Items: make([]BasketItem, len(q.Services)), Enforce: true}
	for i, svc := range q.Services {
		in.Items[i] = BasketItem{ServiceID: svc.ID, StaffID: q.Only}
	}
	return slices.DeleteFunc(out, func(c calendar.ChainSlot) bool {
		in.Start = c.Items[0].Start()
		_, err := planBasket(s, in, true, q.Now, &previewIDs{})
		return err != nil
	})
}
