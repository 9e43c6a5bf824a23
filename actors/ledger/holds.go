package ledger

import (
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// Holds (decisions §6): a slot kept for a customer while they finish
// checkout. A hold is decided exactly as a booking is (decideSlot), and
// its active segments go into the interval index under the hold's id like
// an appointment's, so every later booking, hold, PATCH, reinstatement and
// availability answer sees the time as taken, with no code of their own.
// It leaves the index when it is booked, released or expired; the actor's
// timer journals the expiry at expiresAt, and a restart re-arms it from
// the state.

// HoldInput is a validated POST /holds body.
type HoldInput struct {
	ServiceID uuid.UUID
	Start     time.Time
	StaffID   *uuid.UUID
	TTL       time.Duration
}

var (
	errUnknownHold = problem.FieldError("holdId", problem.Invalid, "No such hold.")
	errHoldGone    = problem.New(problem.HoldExpired, "The hold has expired, was released or was already used.")
)

// Hold returns the hold with id, live or not, or nil.
func (s *State) Hold(id uuid.UUID) *model.Hold {
	h, _ := s.holds.Get(id)
	return h
}

// NextHoldExpiry returns the earliest expiresAt of the active holds, false
// when there are none: the first of liveHolds, which is kept in expiry
// order so that re-arming the timer after every hold costs a descent, not
// a walk over every live hold.
func (s *State) NextHoldExpiry() (time.Time, bool) {
	var next time.Time
	s.liveHolds.Ascend(nil, func(k CreationKey, _ struct{}) bool {
		next = time.Unix(0, k.At).UTC()
		return false
	})
	return next, !next.IsZero()
}

func expiryOf(h *model.Hold) CreationKey { return CreationKey{At: h.ExpiresAt.UnixNano(), ID: h.ID} }

// DecideHold decides POST /holds: the booking decision with no customer
// (so the existing-customer rule is left to the booking that uses the
// hold), and the footprint held until now + TTL.
func DecideHold(s *State, in *HoldInput, now time.Time, ids IDs) (*record.Change, *model.Hold, error) {
	svc, d, err := decideSlot(s, &slotInput{ServiceID: in.ServiceID, Start: in.Start, StaffID: in.StaffID,
		Enforce: true, CustomerOnFile: true}, now)
	if err != nil {
		return nil, nil, err
	}
	id := ids.UUID()
	a := Appointment(id, &s.Business, s.Loc, svc, d.Staff, in.Start, now)
	h := model.Hold{ID: id, ServiceID: svc.ID, StaffID: d.Staff.ID, Start: a.StartTime, End: a.EndTime,
		Segments: a.Segments, ExpiresAt: now.Add(in.TTL), CreatedAt: now, UpdatedAt: now, Status: model.HoldActive,
		Buffers: a.Buffers, Resources: a.Resources, Seat: svc.IsClass()}
	ch := &record.Change{At: now, Holds: []model.Hold{h}}
	if in.StaffID == nil {
		ch.LastAssigned = &h.StaffID
	}
	return ch, &ch.Holds[0], nil
}

// DecideExtend decides PATCH /holds/{id}: expiresAt becomes now + ttl, at
// most HoldMaxLife after the hold was made.
func DecideExtend(s *State, id uuid.UUID, ttl time.Duration, now time.Time) (*record.Change, *model.Hold, error) {
	h := s.Hold(id)
	switch {
	case h == nil:
		return nil, nil, errNotFound
	case !h.Live(now):
		return nil, nil, errHoldGone
	}
	exp := now.Add(ttl)
	if last := h.CreatedAt.Add(model.HoldMaxLife); exp.After(last) {
		left := int64(last.Sub(now) / time.Second)
		return nil, nil, problem.Fields(problem.Bound("ttlSeconds", problem.TooLarge, left,
			"A hold lasts at most 1800 seconds from its creation; this one has "+strconv.FormatInt(left, 10)+" seconds left."))
	}
	n := *h
	n.ExpiresAt, n.UpdatedAt = exp, now
	ch := &record.Change{At: now, Holds: []model.Hold{n}}
	if h.Entry != nil { // an offer: the entry shows when it lapses
		if e := s.Entry(*h.Entry); e != nil && e.Offer != nil && e.Offer.HoldID == h.ID {
			en, o := *e, *e.Offer
			o.ExpiresAt = exp
			en.Offer, en.UpdatedAt = &o, now
			ch.Entries = append(ch.Entries, en)
		}
	}
	return ch, &ch.Holds[0], nil
}

// DecideRelease decides DELETE /holds/{id}: a live hold is released and
// its time freed; releasing a released hold again changes nothing (nil);
// one that expired or was booked is HOLD_EXPIRED.
func DecideRelease(s *State, id uuid.UUID, now time.Time, ids IDs) (*record.Change, error) {
	h := s.Hold(id)
	switch {
	case h == nil:
		return nil, errNotFound
	case h.Status == model.HoldReleased:
		return nil, nil
	case !h.Live(now):
		return nil, errHoldGone
	}
	ch := &record.Change{At: now}
	endHold(s, ch, h, model.HoldReleased, now, ids)
	return ch, nil
}

// endHold adds to ch the end of hold h in status to. A waitlist offer's
// hold ending unused is the offer lapsing (offerLapsed).
func endHold(s *State, ch *record.Change, h *model.Hold, to model.HoldStatus, now time.Time, ids IDs) {
	n := *h
	n.Status, n.UpdatedAt = to, now
	ch.Holds = append(ch.Holds, n)
	if h.Entry != nil {
		offerLapsed(s, ch, *h.Entry, h.ID, now)
	}
}

// decideHeld decides a booking with a hold: exactly the held footprint,
// staff member included, with no rule or overlap judged again while the
// hold lives (the hold was judged when made, and nothing could take its
// time since). Only the existing-customer rule, which is about who books
// and which a hold could not judge, is applied, unless enforcement is off.
// The hold is consumed; an offer's waitlist entry becomes booked.
func decideHeld(s *State, in *CreateInput, now time.Time, ids IDs) (*record.Change, *model.Appointment, error) {
	h := s.Hold(*in.HoldID)
	if h == nil {
		return nil, nil, errUnknownHold
	}
	if !h.Live(now) {
		return nil, nil, errHoldGone
	}
	svc := s.Service(h.ServiceID)
	if svc == nil {
		return nil, nil, errUnknownHold
	}
	existing := s.CustomerByEmail(in.Customer.Email)
	if in.Enforce && s.Business.Rules.RequireExistingCustomer && existing == nil {
		return nil, nil, problem.New(problem.BookingRequiresCustomer, "Only customers already on file may book online.")
	}
	staff := s.StaffMember(h.StaffID)
	if staff == nil { // removed from the business since: the hold still names them
		staff = &model.Staff{ID: h.StaffID}
	}
	a := Appointment(ids.UUID(), &s.Business, s.Loc, svc, staff, h.Start, now)
	a.EndTime, a.Segments, a.Buffers, a.Resources = h.End, make([]model.Segment, len(h.Segments)), h.Buffers, h.Resources
	for i, sg := range h.Segments {
		sg.ID = segmentID(a.ID, i)
		a.Segments[i] = sg
	}
	a.Notes, a.StaffLocked, a.Metadata = in.Notes, in.StaffLocked, in.Metadata
	if h.Seat { // its seat goes to the appointment (stamped by Complete)
		a.Session = &model.Session{}
	}
	n := *h
	n.Status, n.Appointment, n.UpdatedAt = model.HoldBooked, &a.ID, now
	ch := &record.Change{At: now, Holds: []model.Hold{n}}
	if h.Entry != nil {
		entryBooked(s, ch, *h.Entry, a.ID, now)
	}
	return booked(s, ch, a, svc, existing, in, now, ids)
}

// HoldItems returns the index items of hold h: its active segments with
// its buffers, while it is active.
func HoldItems(h *model.Hold) []interval.Item {
	if h.Status != model.HoldActive {
		return nil
	}
	var items []interval.Item
	for _, sg := range h.Segments {
		if sg.Kind == model.Active {
			items = append(items, interval.Item{
				Span:  interval.Span{Start: sg.StartTime.UnixMilli(), End: sg.EndTime.UnixMilli()},
				Owner: h.ID, Seg: int32(sg.Position),
			})
		}
	}
	return buffered(items, h.Buffers)
}

// putHold returns b with h stored, replacing any older version, its time
// held while it is active and freed when it is not.
func (b book) putHold(h model.Hold) book {
	if old, ok := b.holds.Get(h.ID); ok {
		b = b.vacate(holdOccupant(old))
		b.liveHolds = b.liveHolds.Delete(expiryOf(old))
	}
	b.holds = b.holds.Set(h.ID, &h)
	b = b.occupy(holdOccupant(&h))
	if h.Status == model.HoldActive {
		b.liveHolds = b.liveHolds.Set(expiryOf(&h), struct{}{})
	}
	return b
}

// restoreHold adds to ch the return of the hold that reservation appt
// consumed, when the reservation is released: the booking never happened,
// so the hold is the client's again until it expires (its timer then ends
// it as usual, and an offer's entry is still offered).
func restoreHold(s *State, ch *record.Change, appt uuid.UUID, now time.Time) {
	s.holds.Ascend(nil, func(_ uuid.UUID, h *model.Hold) bool {
		if h.Status != model.HoldBooked || h.Appointment == nil || *h.Appointment != appt {
			return true
		}
		n := *h
		n.Status, n.Appointment, n.UpdatedAt = model.HoldActive, nil, now
		ch.Holds = append(ch.Holds, n)
		if h.Entry != nil {
			if e := s.Entry(*h.Entry); e != nil && e.Status == model.EntryBooked {
				en := *e
				en.Status, en.Booked, en.UpdatedAt = model.EntryOffered, nil, now
				ch.Entries = append(ch.Entries, en)
			}
		}
		return false
	})
}

// ExtendHold sets live hold ID's expiry to now + TTL (PATCH /holds/{id}).
type ExtendHold struct {
	ID  uuid.UUID
	TTL time.Duration
}

func (o ExtendHold) Decide(s *State, now time.Time, _ IDs) (*record.Change, model.Hold, error) {
	ch, h, err := DecideExtend(s, o.ID, o.TTL, now)
	return ch, deref(h), err
}

// ReleaseHold releases hold ID (DELETE /holds/{id}).
type ReleaseHold struct{ ID uuid.UUID }

func (o ReleaseHold) Decide(s *State, now time.Time, ids IDs) (*record.Change, Done, error) {
	ch, err := DecideRelease(s, o.ID, now, ids)
	return ch, Done{}, err
}

// CreateHold places a hold (POST /holds).
type CreateHold struct{ In HoldInput }

func (CreateHold) Operation() model.Operation { return model.OpCreateHold }

func (o CreateHold) Decide(s *State, now time.Time, ids IDs) (*record.Change, *Answer, error) {
	ch, _, err := DecideHold(s, &o.In, now, ids)
	if err != nil {
		return nil, nil, err
	}
	return answered(s, ch, record.AnswerHold)
}
