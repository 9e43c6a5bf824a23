package ledger

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// Series (decisions §11): a rule's occurrences of one service, judged in
// one step of the business's actor against one state and against each
// other: each occurrence that fits is laid into a working copy of the
// state before the next is judged, so booking limits, class seats,
// resources and the staff member's time are counted across the series,
// exactly as if the occurrences had been booked one after the other.

// MaxSeriesOccurrences bounds a series.
const MaxSeriesOccurrences = 52

// SeriesInput is a validated series body.
type SeriesInput struct {
	RuleText  string // the rule as given, which the series keeps
	ServiceID uuid.UUID
	StaffID   *uuid.UUID
	Start     time.Time
	Rule      calendar.Rule
	// Customer is the customer's details, or CustomerID one on file:
	// exactly one is set.
	Customer   *model.Customer
	CustomerID *uuid.UUID
	Enforce    bool
	Skip       bool // onConflict: skip (else fail)
	Notes      *string
	Metadata   map[string]string
	// ByCustomer: booked on a booking page, with a publishable key
	// (decisions §7); its events say so.
	ByCustomer bool
}

// Occurrence is one start of a series as judged: Code is "" when it fits,
// and Staff then the staff member who takes it.
type Occurrence struct {
	Start time.Time
	Code  problem.Code
	Staff *model.Staff
}

var errUnknownCustomer = problem.FieldError("customerId", problem.Invalid, "No such customer.")

// PreviewSeries judges every occurrence of in as a series booked now
// would (POST /appointment-series/preview), booking nothing.
func PreviewSeries(s *State, in *SeriesInput, now time.Time) ([]Occurrence, error) {
	p, err := planSeries(s, in, now, &previewIDs{})
	if err != nil {
		return nil, err
	}
	return p.occ, nil
}

// seriesPlan is a series judged: every occurrence, the appointments of
// those that fit (their customer still to set), the series' id, and the
// first refusal, as a booking at that start would have got it.
type seriesPlan struct {
	id      uuid.UUID
	svc     *model.Service
	occ     []Occurrence
	appts   []model.Appointment
	refusal error
}

// planSeries judges the occurrences of in against s, each against the
// ones before it that fit.
func planSeries(s *State, in *SeriesInput, now time.Time, ids IDs) (*seriesPlan, error) {
	svc := s.Service(in.ServiceID)
	if svc == nil || svc.Deleted {
		return nil, errUnknownService
	}
	if in.StaffID != nil && s.StaffMember(*in.StaffID) == nil {
		return nil, errUnknownStaff
	}
	onFile, err := customerOnFile(s, in.Customer, in.CustomerID)
	if err != nil {
		return nil, err
	}
	if svc.PaymentRequired || s.Business.Payments.RequiresPayment {
		return nil, problem.FieldError("serviceId", problem.Invalid,
			"A service paid in advance cannot be booked as a series: book its occurrences one by one.")
	}
	starts, err := seriesStarts(s, in, now)
	if err != nil {
		return nil, err
	}
	p := &seriesPlan{id: ids.UUID(), svc: svc, occ: make([]Occurrence, len(starts))}
	occ, series := p.occ, p.id
	cur := s
	for i, t := range starts {
		occ[i].Start = t
		_, d, err := decideSlot(cur, &slotInput{ServiceID: svc.ID, Start: t, StaffID: in.StaffID, Enforce: in.Enforce, CustomerOnFile: onFile}, now)
		if err != nil {
			occ[i].Code = problem.As(err).Code
			if p.refusal == nil {
				p.refusal = err
			}
			continue
		}
		occ[i].Staff = d.Staff
		a := Appointment(ids.UUID(), &s.Business, s.Loc, svc, d.Staff, t, now)
		seated(&a, svc)
		a.Notes, a.Metadata, a.StaffLocked = in.Notes, in.Metadata, in.StaffID != nil
		a.RecurringSeriesID, a.IsRecurringOccurrence = &series, true
		// The next occurrences see this one as a booking: its time, seat,
		// room and place in the limits (occupy), and who was assigned last
		// (round robin turns across the series). Nothing else of the
		// state judges a booking, so nothing else is copied.
		next := *cur
		next.book = next.book.occupy(apptOccupant(&a))
		if in.StaffID == nil {
			next.book.lastAssigned = d.Staff.ID
		}
		cur = &next
		p.appts = append(p.appts, a)
	}
	return p, nil
}

// BookSeries books a series (POST /appointment-series, decisions §11):
// every occurrence judged in this one step, all of them written in one
// record, so a crash leaves the whole series or none of it. In fail mode
// any refused occurrence refuses the series, SERIES_CONFLICT naming
// each; in skip mode the others are booked (none fitting: the first
// refusal's own answer). Each occurrence has its own events and manage
// link; the customer gets one confirmation listing every date.
type BookSeries struct{ In SeriesInput }

func (BookSeries) Operation() model.Operation { return model.OpBookSeries }

func (o BookSeries) Decide(s *State, now time.Time, ids IDs) (*record.Change, *Answer, error) {
	in := &o.In
	p, err := planSeries(s, in, now, ids)
	if err != nil {
		return nil, nil, err
	}
	var conflicts []problem.Occurrence
	var skipped []model.SkippedStart
	for _, x := range p.occ {
		if x.Code != "" {
			conflicts = append(conflicts, problem.Occurrence{StartTime: x.Start, Code: x.Code})
			skipped = append(skipped, model.SkippedStart{StartTime: x.Start, Code: string(x.Code)})
		}
	}
	switch {
	case len(conflicts) > 0 && !in.Skip:
		return nil, nil, &problem.Error{Code: problem.SeriesConflict, Conflicts: conflicts,
			Message: "An occurrence of the series cannot be booked, so none was: see conflicts."}
	case len(p.appts) == 0:
		return nil, nil, p.refusal
	}
	ch := &record.Change{At: now}
	cu := customerFor(s, ch, in.Customer, in.CustomerID, now, ids)
	x := model.AppointmentSeries{ID: p.id, Rule: in.RuleText, ServiceID: p.svc.ID, CustomerID: cu.ID, Skipped: skipped, CreatedAt: now}
	for i := range p.appts {
		a := &p.appts[i]
		a.CustomerID = cu.ID
		x.Occurrences = append(x.Occurrences, a.ID)
		ch.Events = append(ch.Events, record.Event{ID: ids.Event(now), Type: model.EventAppointmentCreated, CreatedAt: now, Subject: a.ID})
	}
	ch.Appointments, ch.Series = p.appts, []model.AppointmentSeries{x}
	if in.StaffID == nil {
		last := p.appts[len(p.appts)-1].Staff.ID
		ch.LastAssigned = &last
	}
	if cu.Email != "" {
		ch.Mails = []record.Mail{{ID: ids.Mail(now), Kind: model.MailSeriesConfirmation, To: cu.Email, Appointment: p.appts[0].ID, At: now}}
	}
	if in.ByCustomer {
		byCustomer(ch)
	}
	return answered(s, ch, record.AnswerSeries)
}

// customerOnFile reports whether the customer of a series or basket is
// on file: the one of id (an unknown id is refused), or the one with the
// e-mail address of c.
func customerOnFile(s *State, c *model.Customer, id *uuid.UUID) (bool, error) {
	switch {
	case id != nil:
		if s.Customer(*id) == nil {
			return false, errUnknownCustomer
		}
		return true, nil
	case c != nil:
		return s.CustomerByEmail(c.Email) != nil, nil
	}
	return false, nil
}

// customerFor is the customer of a series or basket: the one of id, the
// one on file with c's e-mail address, or a new one made from c, whom ch
// then creates.
func customerFor(s *State, ch *record.Change, c *model.Customer, id *uuid.UUID, now time.Time, ids IDs) *model.Customer {
	if id != nil {
		return s.Customer(*id)
	}
	if cu := s.CustomerByEmail(c.Email); cu != nil {
		return cu
	}
	n := *c
	n.ID, n.Email, n.CreatedAt, n.UpdatedAt = ids.UUID(), strings.TrimSpace(n.Email), now, now
	ch.Customers = append(ch.Customers, n)
	ch.Events = append(ch.Events, record.Event{ID: ids.Event(now), Type: model.EventCustomerCreated, CreatedAt: now, Subject: n.ID})
	return &ch.Customers[len(ch.Customers)-1]
}

// Series returns the appointment series with id, or nil.
func (s *State) Series(id uuid.UUID) *model.AppointmentSeries {
	x, _ := s.series.Get(id)
	return x
}

// seriesStarts expands in's rule from its start on the business's wall
// clock: at most MaxSeriesOccurrences, an UNTIL no further ahead than the
// business books when the rules are enforced, the start one of BYDAY's
// days.
func seriesStarts(s *State, in *SeriesInput, now time.Time) ([]time.Time, error) {
	first := in.Start.In(s.Loc)
	r := in.Rule
	if len(r.ByDay) > 0 && !slices.Contains(r.ByDay, first.Weekday()) {
		return nil, problem.FieldError("startTime", problem.Invalid, "Must fall on one of the rule's BYDAY days, in the business's time zone.")
	}
	if in.Enforce && !r.Until.IsZero() {
		if horizon := now.AddDate(0, 0, s.Business.Rules.MaxAdvanceDays); r.Until.After(horizon) {
			return nil, problem.FieldError("rule", problem.Invalid,
				"UNTIL is further ahead than the business accepts bookings ("+strconv.Itoa(s.Business.Rules.MaxAdvanceDays)+" days).")
		}
	}
	var out []time.Time
	calendar.Occurrences(r, first, func(t time.Time, _ int) bool {
		out = append(out, t.UTC())
		return len(out) <= MaxSeriesOccurrences
	})
	if len(out) > MaxSeriesOccurrences {
		return nil, problem.Fields(problem.Bound("rule", problem.TooLarge, MaxSeriesOccurrences, "A series has at most 52 occurrences."))
	}
	if len(out) == 0 {
		return nil, problem.FieldError("rule", problem.Invalid, "The rule has no occurrence from startTime on.")
	}
	return out, nil
}

// previewIDs mints the ids of a preview, which keeps none of them.
type previewIDs struct{ n uint64 }

func (p *previewIDs) UUID() uuid.UUID {
	p.n++
	var u uuid.UUID
	u[0], u[15] = 0xff, byte(p.n)
	u[14], u[13] = byte(p.n>>8), byte(p.n>>16)
	return u
}
func (p *previewIDs) Event(time.Time) string { return "" }
func (p *previewIDs) Mail(time.Time) string  { return "" }

// CancelSeries cancels every occurrence of series ID that starts at or
// after From (nil: now) and may be cancelled (POST
// /appointment-series/{id}/cancel), in one write; the others it names
// with INVALID_STATUS_TRANSITION. Each cancelled occurrence emits its own
// appointment.cancelled; the customer gets one e-mail listing the dates.
type CancelSeries struct {
	ID   uuid.UUID
	From *time.Time
}

// SeriesCancelled is what cancelling a series did.
type SeriesCancelled struct {
	Cancelled []uuid.UUID
	Skipped   []SkippedOccurrence
}

// SkippedOccurrence is an occurrence a series' cancel left alone.
type SkippedOccurrence struct {
	ID   uuid.UUID
	Code problem.Code
}

func (o CancelSeries) Decide(s *State, now time.Time, ids IDs) (*record.Change, SeriesCancelled, error) {
	x := s.Series(o.ID)
	if x == nil {
		return nil, SeriesCancelled{}, errNotFound
	}
	from := now
	if o.From != nil {
		from = *o.From
	}
	ch, out := cancelAll(s, x.Occurrences, func(a *model.Appointment) bool { return !a.StartTime.Before(from) }, now, ids)
	if len(ch.Appointments) == 0 {
		return nil, out, nil
	}
	if cu := s.Customer(x.CustomerID); cu != nil && cu.Email != "" {
		ch.Mails = []record.Mail{{ID: ids.Mail(now), Kind: model.MailSeriesCancelled, To: cu.Email, Appointment: ch.Appointments[0].ID, At: now}}
	}
	return ch, out, nil
}
