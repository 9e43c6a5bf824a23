package calendar

import (
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/problem"
)

// Classes (decisions §10). A session of a class is one staff member's
// occupied stretch for one start; it holds up to the service's capacity
// of seats. A booking of a class at a start where a staff member already
// has a session of that service joins it while a seat is free, taking
// none of the staff member's time or the resources again: so joining
// asks for no free time, no working hours and no room, and counts
// towards no booking limit (limits count sessions). The rules that
// depend on the start alone still apply, and the start must still be
// offered. Anything else at that time meets the session as it meets any
// booking: its time is taken.
//
// A session joins only a booking of the same stretch: when the service's
// footprint or buffers changed since the session opened, the session is
// just time taken (nobody joins it).

// Sessions are the open sessions of the business's classes.
type Sessions interface {
	// Seats returns the seats taken in staff's session of svc starting
	// at start (Unix ms), and the stretch it occupies; false when there
	// is none.
	Seats(svc, staff uuid.UUID, start int64) (seats int, hull interval.Span, ok bool)
	// SessionsOf appends to dst staff's sessions of svc starting in
	// [from, to], in ascending order of start.
	SessionsOf(svc, staff uuid.UUID, from, to int64, dst []Session) []Session
}

// Session is one open session of a class: its start (Unix ms), the seats
// taken and the stretch it occupies.
type Session struct {
	Start int64
	Seats int
	Hull  interval.Span
}

// hull is the stretch a booking of shape sh at start occupies.
func (sh *shape) hull(start int64) interval.Span {
	if len(sh.acts) == 0 {
		return interval.Span{Start: start, End: start}
	}
	s, _ := sh.occupied(0, start)
	_, e := sh.occupied(len(sh.acts)-1, start)
	return interval.Span{Start: s, End: e}
}

// seatAt looks at the sessions of r's class at r.Start of the pinned
// staff member, or of every eligible one: the one to join (an index into
// r.Staff; -1: none), the fullest with a free seat first, ties to the
// earlier in list order; and whether one of them is full.
func (r *Request) seatAt(sh *shape, pinned int) (join int, full bool) {
	start, capacity := r.Start.UnixMilli(), r.Service.Seats()
	hull := sh.hull(start)
	join, most := -1, -1
	for i := range r.Staff {
		st := &r.Staff[i]
		if pinned >= 0 && i != pinned || pinned < 0 && !Eligible(st, r.Service) {
			continue
		}
		seats, h, ok := r.Sessions.Seats(r.Service.ID, st.ID, start)
		switch {
		case !ok || h != hull:
		case seats >= capacity:
			full = true
		case seats > most:
			join, most = i, seats
		}
	}
	return join, full
}

// joinSession decides a booking of a class that meets a session: it
// joins the one seatAt picked, or, pinned to a staff member whose session
// there is full, is SESSION_FULL. done is false when no session decides
// it: the booking opens one, judged as any booking is.
func (r *Request) joinSession(sh *shape, pinned int) (d *Decision, err *problem.Error, full, done bool) {
	join, full := r.seatAt(sh, pinned)
	if join < 0 && (!full || pinned < 0) {
		return nil, nil, full, false
	}
	if r.Enforce {
		if err := rules(r); err != nil {
			return nil, err, full, true
		}
		n, sec := dayNumber(r.Start.UnixMilli(), r.Loc)
		if !r.Chained && !offered(r.Business, r.Service, r.Start, n, sec) {
			return nil, refuse(problem.SlotNotOffered), full, true
		}
	}
	if join < 0 {
		return nil, refuse(problem.SessionFull), full, true
	}
	return &Decision{Staff: &r.Staff[join], Pieces: Footprint(r.Service, r.Start)}, nil, full, true
}

// fullInstead is the refusal of an auto-assigned class booking that
// found no staff member: SESSION_FULL when a session at that start is
// full (the customer asked for a seat, and there was one until it
// filled), else err.
func fullInstead(err *problem.Error, full bool) *problem.Error {
	if full && (err.Code == problem.NoStaffAvailable || err.Code == problem.SlotTaken) {
		return refuse(problem.SessionFull)
	}
	return err
}

// sessions marks the starts where a candidate's session of the class has
// a free seat (taking no time, room or limit: see above), and keeps, per
// start, how many candidates join one and the most seats one has left,
// for emit.
func (sw *sweep) sessions(q *Query, sh *shape, cands []int) {
	if !q.Service.IsClass() || q.Sessions == nil || len(sw.ticks) == 0 {
		return
	}
	capacity := q.Service.Seats()
	from, to := sw.ticks[0].at, sw.ticks[len(sw.ticks)-1].at
	sw.joins = grow(sw.sc.joins, len(sw.ticks))[:len(sw.ticks)]
	clear(sw.joins)
	for c, i := range cands {
		word, bit := c/64, uint64(1)<<(c%64)
		g := 0
		sw.open1 = q.Sessions.SessionsOf(q.Service.ID, q.Staff[i].ID, from, to, sw.open1[:0])
		for _, o := range sw.open1 {
			if g = sw.seek(g, o.Start); g == len(sw.ticks) || sw.ticks[g].at != o.Start {
				continue // not a start on offer
			}
			if o.Hull != sh.hull(o.Start) || o.Seats >= capacity {
				continue // time taken, or full: not offered by this staff member
			}
			sw.mask[g*sw.words+word] |= bit
			j := &sw.joins[g]
			j.n++
			j.left = max(j.left, int32(capacity-o.Seats))
		}
	}
}

// joined is, for one start, how many candidates would join a session
// there and the most seats one of those has left.
type joined struct {
	n    int32
	left int32
}

// seatsLeft is the seats left at grid start g, whose row in the mask
// has n candidates: the capacity when one of them would open a session,
// else the most any of their sessions has left.
func (sw *sweep) seatsLeft(capacity int32, g, n int) int32 {
	if len(sw.joins) == 0 || n > int(sw.joins[g].n) {
		return capacity
	}
	return sw.joins[g].left
}
