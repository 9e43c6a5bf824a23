package ledger

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// Class sessions (decisions §10). A session is one staff member's
// occupied stretch for one start of a class; each of its seats is an
// appointment (or a live hold, or a reservation waiting for its payment)
// of its own. The staff member's time and the resources are taken once
// per session, not per seat: in the index the session's items are owned
// by the session's id (sessionID), and the book counts its seats. The
// first seat opens it, taking the time; the last seat that leaves gives
// the time back. A seat knows it is one (model.Appointment.Session,
// model.Hold.Seat) from the moment it was decided, so a service's
// capacity changed later changes no seat already taken.

// SessionKey names a session: its service, staff member and start.
type SessionKey struct {
	Service, Staff uuid.UUID
	Start          int64 // Unix ms
}

func compareSessionKey(a, b SessionKey) int {
	if c := bytes.Compare(a.Service[:], b.Service[:]); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Staff[:], b.Staff[:]); c != 0 {
		return c
	}
	return cmp.Compare(a.Start, b.Start)
}

// session is an open session: the time it takes, and its seats.
type session struct {
	items []interval.Item // its staff member's items, owned by its id
	needs []model.ResourceNeed
	seats int // seats taken: appointments that occupy time, live holds, reservations
	// counting is how many of its seats count towards the booking limits
	// (reservations do not): the session counts once while any does.
	counting int
	counted  counted
}

// hull is the stretch a session's items cover.
func (s *session) hull() interval.Span {
	return interval.Span{Start: s.items[0].Start, End: s.items[len(s.items)-1].End}
}

// sessionID is the owner of a session's items in the index: a name-based
// UUID of its key, so that it never meets an appointment's or a hold's id
// and is the same on every replay.
func sessionID(k SessionKey) uuid.UUID {
	var name [40]byte
	copy(name[:16], k.Service[:])
	copy(name[16:32], k.Staff[:])
	binary.BigEndian.PutUint64(name[32:], uint64(k.Start))
	return hashedID(name[:])
}

// occupant is what an appointment, hold or reservation takes while it
// occupies time: its staff member's items, the resources, a place in the
// tally, and, for a seat, its session.
type occupant struct {
	staff  uuid.UUID
	items  []interval.Item
	needs  []model.ResourceNeed
	counts bool // it counts towards the booking limits
	count  counted
	seat   bool // a seat of the session key names
	key    SessionKey
}

func apptOccupant(a *model.Appointment) occupant {
	staff, items := Items(a)
	o := occupant{staff: staff, items: items, needs: a.Resources}
	o.count, o.counts = apptCounted(a)
	if len(items) > 0 && a.Session != nil {
		o.seat, o.key = true, SessionKey{Service: a.Service.ID, Staff: staff, Start: a.StartTime.UnixMilli()}
	}
	return o
}

func holdOccupant(h *model.Hold) occupant {
	o := occupant{staff: h.StaffID, items: HoldItems(h), needs: h.Resources}
	o.count, o.counts = holdCounted(h)
	if len(o.items) > 0 && h.Seat {
		o.seat, o.key = true, SessionKey{Service: h.ServiceID, Staff: h.StaffID, Start: h.Start.UnixMilli()}
	}
	return o
}

// reservation is a reservation's occupant: it takes time, but counts
// towards no limit.
func reservation(a *model.Appointment) occupant {
	o := apptOccupant(a)
	o.counts = false
	return o
}

// occupy returns b with o's time taken: a seat joins its session, opening
// it when it is the first.
func (b book) occupy(o occupant) book {
	if len(o.items) == 0 {
		return b
	}
	if !o.seat {
		b.index = take(b.index, o.staff, o.items, o.needs)
		if o.counts {
			b = b.tallied(o.count, 1)
		}
		return b
	}
	var s session
	if cur, ok := b.sessions.Get(o.key); ok {
		s = *cur
	} else {
		id := sessionID(o.key)
		s = session{items: slices.Clone(o.items), needs: o.needs, counted: o.count}
		for i := range s.items {
			s.items[i].Owner = id
		}
		b.index = take(b.index, o.staff, s.items, s.needs)
	}
	s.seats++
	if o.counts {
		if s.counting++; s.counting == 1 {
			s.counted = o.count
			b = b.tallied(o.count, 1)
		}
	}
	b.sessions = b.sessions.Set(o.key, &s)
	return b
}

// vacate returns b with what occupy took for o given back: a seat leaves
// its session, closing it when it was the last.
func (b book) vacate(o occupant) book {
	if len(o.items) == 0 {
		return b
	}
	if !o.seat {
		b.index = give(b.index, o.staff, o.items, o.needs)
		if o.counts {
			b = b.tallied(o.count, -1)
		}
		return b
	}
	cur, ok := b.sessions.Get(o.key)
	if !ok {
		return b
	}
	s := *cur
	s.seats--
	if o.counts {
		if s.counting--; s.counting == 0 {
			b = b.tallied(s.counted, -1)
		}
	}
	if s.seats > 0 {
		b.sessions = b.sessions.Set(o.key, &s)
		return b
	}
	b.index = give(b.index, o.staff, s.items, s.needs)
	b.sessions = b.sessions.Delete(o.key)
	return b
}

// Seats implements calendar.Sessions: the seats taken in staff's session
// of svc starting at start (Unix ms) and the stretch it occupies; false
// when there is none.
func (s *State) Seats(svc, staff uuid.UUID, start int64) (int, interval.Span, bool) {
	cur, ok := s.sessions.Get(SessionKey{Service: svc, Staff: staff, Start: start})
	if !ok {
		return 0, interval.Span{}, false
	}
	return cur.seats, cur.hull(), true
}

// SessionsOf implements calendar.Sessions: it appends to dst, in
// ascending order of start, staff's sessions of svc starting in
// [from, to].
func (s *State) SessionsOf(svc, staff uuid.UUID, from, to int64, dst []calendar.Session) []calendar.Session {
	k := SessionKey{Service: svc, Staff: staff, Start: from}
	s.sessions.Ascend(&k, func(k SessionKey, cur *session) bool {
		if k.Service != svc || k.Staff != staff || k.Start > to {
			return false
		}
		dst = append(dst, calendar.Session{Start: k.Start, Seats: cur.seats, Hull: cur.hull()})
		return true
	})
	return dst
}

// seatsOf is the seats taken in the session of seat a, 0 when it has none.
func (b *book) seatsOf(a *model.Appointment) int {
	if a.Staff == nil {
		return 0
	}
	if cur, ok := b.sessions.Get(SessionKey{Service: a.Service.ID, Staff: a.Staff.ID, Start: a.StartTime.UnixMilli()}); ok {
		return cur.seats
	}
	return 0
}

// live fills in the session of a, a seat read from s: the service's
// capacity and the seats taken now (decisions §10).
func (s *State) live(a *model.Appointment, into *model.Session) {
	if a.Session == nil {
		return
	}
	c := 1
	if svc := s.Service(a.Service.ID); svc != nil {
		c = svc.Seats()
	}
	*into = model.Session{Capacity: c, SeatsTaken: s.seatsOf(a)}
	a.Session = into
}

// freesTime reports whether moving seat a out of its session frees the
// session's time: it is the session's last seat. A move of any other
// appointment frees its own time.
func (s *State) freesTime(a *model.Appointment) bool {
	return a.Session == nil || s.seatsOf(a) <= 1
}

// MovedOwner is the owner of the index items a move of a frees: a's own,
// or its session's when a is the last seat in it; uuid.Nil when the move
// frees nothing (other seats keep the session).
func (s *State) MovedOwner(a *model.Appointment) uuid.UUID {
	switch {
	case a.Session == nil:
		return a.ID
	case a.Staff != nil && s.freesTime(a):
		return sessionID(SessionKey{Service: a.Service.ID, Staff: a.Staff.ID, Start: a.StartTime.UnixMilli()})
	}
	return uuid.Nil
}

// stampSessions sets the session of every seat ch writes to what it is
// once ch is applied to s: what its answer and events show, journalled
// with it (the state's own reads are live).
func stampSessions(s *State, ch *record.Change) {
	var seats []*model.Appointment
	for i := range ch.Appointments {
		if ch.Appointments[i].Session != nil {
			seats = append(seats, &ch.Appointments[i])
		}
	}
	for i := range ch.Checkouts {
		if ch.Checkouts[i].Appointment.Session != nil {
			seats = append(seats, &ch.Checkouts[i].Appointment)
		}
	}
	if len(seats) == 0 {
		return
	}
	next := s.book.applyChange(s.Seq, ch)
	for _, a := range seats {
		c := 1
		if svc := s.Service(a.Service.ID); svc != nil {
			c = svc.Seats()
		}
		a.Session = &model.Session{Capacity: c, SeatsTaken: next.seatsOf(a)}
	}
}
