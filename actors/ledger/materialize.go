package ledger

import (
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// Appointment materializes a booking of svc at start for staff (nil: none)
// as the business's calendar would: the service's footprint, the price
// snapshot by the pricing rules, the business's currency. Segment ids are
// derived from the appointment id, so materializing twice gives the same
// appointment.
func Appointment(id uuid.UUID, biz *model.Business, loc *time.Location, svc *model.Service, staff *model.Staff, start time.Time, now time.Time) model.Appointment {
	pieces := calendar.Footprint(svc, start)
	base, total, deposit := calendar.Price(svc, loc, start)
	a := model.Appointment{
		ID: id, Status: model.Confirmed, StartTime: start.UTC(),
		EndTime:  start.UTC().Add(time.Duration(svc.DurationMinutes) * time.Minute),
		Service:  model.ServiceRef{ID: svc.ID, Name: svc.Name, DurationMinutes: svc.DurationMinutes, PriceCents: svc.PriceCents},
		Currency: biz.Currency, BasePriceCents: &base, TotalPriceCents: &total, DepositCents: deposit,
		CreatedAt: now, UpdatedAt: now, Version: 1, Buffers: svc.Buffers(),
		Resources: slices.Clone(svc.Resources),
	}
	var staffID *uuid.UUID
	if staff != nil {
		a.Staff = &model.StaffRef{ID: staff.ID, Name: staff.Name}
		sid := staff.ID
		staffID = &sid
	}
	a.Segments = make([]model.Segment, len(pieces))
	for i, p := range pieces {
		a.Segments[i] = model.Segment{
			ID: segmentID(id, i), Position: p.Position, Kind: p.Kind,
			StartTime: time.UnixMilli(p.Span.Start).UTC(), EndTime: time.UnixMilli(p.Span.End).UTC(),
			StaffMemberID: staffID, Label: p.Label,
		}
	}
	return a
}

// worldAppointments materializes the spec's appointments and recurring
// occurrences whose ids are new, refusing any that would make a staff
// member's active segments overlap.
func worldAppointments(s *State, spec *model.Spec, c *record.Catalog, now time.Time) ([]model.Appointment, error) {
	loc, err := model.Zone(c.Business.Timezone)
	if err != nil {
		return nil, err
	}
	m := materializer{spec: spec, c: c, loc: loc, now: now}
	if s != nil {
		// A world file's appointments are the business's own: external
		// busy time does not refuse them, as it leaves booked ones alone.
		m.known, m.index = s.Appointment, s.index.Bookings()
		m.sessions = func(k SessionKey) (int, bool) {
			x, ok := s.sessions.Get(k)
			if !ok {
				return 0, false
			}
			return x.seats, true
		}
	} else {
		// A new business: its appointments are all new, each one piece or
		// more. Growing the slices one append at a time was a fifth of
		// materializing a loaded world.
		m.deferred = true
		m.out = make([]model.Appointment, 0, len(spec.Appointments))
		m.held = make([]staffItem, 0, len(spec.Appointments))
	}
	if err := m.all(); err != nil {
		return nil, err
	}
	if m.deferred && overlapping(m.held) {
		// Some two overlap: the one-by-one check names the appointment the
		// file's order finds first, exactly as before.
		m = materializer{spec: spec, c: c, loc: loc, now: now}
		if err := m.all(); err != nil {
			return nil, err
		}
	}
	m.stampSeats()
	return m.out, nil
}

// seat decides where appointment a, a seat of a class, goes: into the
// session at its start when there is one (joined: its time, room and
// limit are the session's), else it opens one. A full session refuses it.
func (m *materializer) seat(a *model.Appointment, svc *model.Service, staff uuid.UUID, path string) (joined bool, err error) {
	k := SessionKey{Service: svc.ID, Staff: staff, Start: a.StartTime.UnixMilli()}
	if m.seats == nil {
		m.seats = map[SessionKey]int{}
	}
	n, ok := m.seats[k]
	if !ok && m.sessions != nil {
		n, ok = m.sessions(k)
	}
	switch {
	case !ok:
		m.seats[k] = 1
		return false, nil
	case n >= svc.Seats():
		return false, problem.FieldError(path+".startTime", problem.Invalid,
			"The class session at this time is full: it has "+strconv.Itoa(svc.Seats())+" seats.")
	}
	m.seats[k] = n + 1
	return true, nil
}

// stampSeats sets each seat's session to its class's capacity and the
// seats its session holds once the file is in.
func (m *materializer) stampSeats() {
	for i := range m.out {
		a := &m.out[i]
		if a.Session == nil || a.Staff == nil {
			continue
		}
		svc := findService(m.c.Services, a.Service.ID)
		a.Session = &model.Session{Capacity: svc.Seats(), SeatsTaken: m.seats[SessionKey{Service: svc.ID, Staff: a.Staff.ID, Start: a.StartTime.UnixMilli()}]}
	}
}

// overlapping reports whether two of the items held by one staff member
// overlap. It sorts held.
func overlapping(held []staffItem) bool {
	slices.SortFunc(held, compareHeld)
	for i := 1; i < len(held); i++ {
		end := held[i-1].item.End
		if held[i].staff == held[i-1].staff {
			if held[i].item.Start < end {
				return true
			}
			held[i].item.End = max(held[i].item.End, end) // the furthest reach so far
		}
	}
	return false
}

// all materializes the spec's appointments and series.
func (m *materializer) all() error {
	spec := m.spec
	for i := range spec.Appointments {
		if err := m.add(&spec.Appointments[i], "appointments."+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	for i := range spec.Series {
		if err := m.series(&spec.Series[i], "recurringSeries."+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

type materializer struct {
	spec  *model.Spec
	c     *record.Catalog
	loc   *time.Location
	now   time.Time
	known func(uuid.UUID) *model.Appointment
	index interval.Index
	out   []model.Appointment
	// deferred: the overlap check runs once over held, sorted, after
	// every appointment is made (a new business, whose index is empty),
	// instead of a persistent insert per appointment: that was 37 % of
	// materializing a loaded world (2026-11-27).
	deferred bool
	held     []staffItem
	// seats counts the seats of each class session the file's
	// appointments open or join (decisions §10), with those the business
	// already had (sessions, nil for a new business).
	seats    map[SessionKey]int
	sessions func(SessionKey) (int, bool)
}

func (m *materializer) add(wa *model.WorldAppointment, path string) error {
	if m.known != nil && m.known(wa.ID) != nil {
		return nil
	}
	svc := findService(m.c.Services, wa.ServiceID)
	var staff *model.Staff
	if wa.StaffMemberID != nil {
		staff = findStaff(m.c.Staff, *wa.StaffMemberID)
	}
	a := Appointment(wa.ID, &m.c.Business, m.loc, svc, staff, wa.StartTime, m.now)
	a.Status = model.Status(wa.Status)
	a.CustomerID, a.Notes = wa.CustomerID, wa.Notes
	a.RecurringSeriesID, a.IsRecurringOccurrence = wa.RecurringSeriesID, wa.IsRecurringOccurrence
	seated(&a, svc)
	sid, items := Items(&a)
	if a.Session != nil && len(items) > 0 {
		joined, err := m.seat(&a, svc, sid, path)
		if err != nil {
			return err
		}
		if joined { // the session's first seat took the time and the room
			m.out = append(m.out, a)
			return nil
		}
	}
	spans := make([]interval.Span, len(items))
	for i, it := range items {
		spans[i] = it.Span
	}
	switch {
	case len(items) == 0:
	case m.deferred:
		for _, it := range items {
			m.held = append(m.held, staffItem{sid, it})
		}
	case !m.index.Fits(sid, spans, uuid.Nil):
		return problem.FieldError(path+".startTime", problem.Invalid,
			"The appointment overlaps another appointment of the same staff member.")
	default:
		m.index = m.index.Add(sid, items...)
	}
	// Resources (decisions §10) are judged one by one in either case, in
	// the file's order: few appointments need them.
	if len(items) > 0 && len(a.Resources) > 0 {
		if _, ok := calendar.Room(m.index, m.c.Resources, a.Resources, spans, uuid.Nil); !ok {
			return problem.FieldError(path+".startTime", problem.Invalid,
				"The appointment needs more of a resource than is free at that time.")
		}
		m.index = takeUnits(m.index, items, a.Resources)
	}
	m.out = append(m.out, a)
	return nil
}

// series materializes a recurring series: COUNT rules whole, UNTIL rules up
// to maxAdvanceDays ahead. Occurrences keep the local wall-clock time of the
// first start across DST changes.
func (m *materializer) series(sr *model.Series, path string) error {
	rule, err := calendar.ParseRule(sr.Rule)
	if err != nil {
		return problem.FieldError(path+".rule", problem.InvalidFormat, "The recurrence rule is not supported.")
	}
	horizon := m.now.Add(time.Duration(m.c.Business.Rules.MaxAdvanceDays) * 24 * time.Hour)
	calendar.Occurrences(rule, sr.FirstStart.In(m.loc), func(at time.Time, k int) bool {
		if rule.Count == 0 && at.After(horizon) {
			return false
		}
		id := uuid.NewSHA1(sr.ID, []byte(strconv.Itoa(k)))
		sid := sr.ID
		wa := model.WorldAppointment{ID: id, CustomerID: sr.CustomerID, ServiceID: sr.ServiceID, StaffMemberID: sr.StaffMemberID,
			StartTime: at.UTC(), Status: string(model.Confirmed), RecurringSeriesID: &sid, IsRecurringOccurrence: true}
		err = m.add(&wa, path)
		return err == nil
	})
	return err
}

func findService(xs []model.Service, id uuid.UUID) *model.Service {
	for i := range xs {
		if xs[i].ID == id {
			return &xs[i]
		}
	}
	return nil
}

func findStaff(xs []model.Staff, id uuid.UUID) *model.Staff {
	for i := range xs {
		if xs[i].ID == id {
			return &xs[i]
		}
	}
	return nil
}
