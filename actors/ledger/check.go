package ledger

import (
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/problem"
)

// Explained availability (decisions §6): for each start, the code a
// booking would get at that moment and, per eligible staff member (only
// the pinned one when given), the code a booking pinned to them would
// get. Both come from decideSlot, the decision a booking makes, so they
// cannot disagree with it. A check knows no customer: it judges as for a
// customer on file, so the existing-customer rule never answers it.

// CheckInput is a validated POST /availability/check body.
type CheckInput struct {
	ServiceID uuid.UUID
	StaffID   *uuid.UUID
	Starts    []time.Time
}

// Verdict is the answer for one start; an empty Code is bookable.
type Verdict struct {
	Start time.Time
	Code  problem.Code
	Staff []StaffVerdict
}

// StaffVerdict is one staff member's answer for a start. A SLOT_TAKEN
// caused (also) by their external busy time names it (decisions §8).
type StaffVerdict struct {
	ID   uuid.UUID
	Code problem.Code
	// BusySource and ExternalID name the earliest busy interval under
	// the booking; "" when none is.
	BusySource, ExternalID string
	// ResourceID names the resource that is not free, when Code is
	// RESOURCE_UNAVAILABLE (decisions §10).
	ResourceID uuid.UUID
}

// Check answers a check against s at now. An unknown service or staff
// member is the booking's validation error.
func Check(s *State, in *CheckInput, now time.Time) ([]Verdict, error) {
	svc := s.Service(in.ServiceID)
	if svc == nil || svc.Deleted {
		return nil, errUnknownService
	}
	if in.StaffID != nil && s.StaffMember(*in.StaffID) == nil {
		return nil, errUnknownStaff
	}
	var staff []uuid.UUID
	if in.StaffID != nil {
		staff = []uuid.UUID{*in.StaffID}
	} else {
		for i := range s.Staff {
			if calendar.Eligible(&s.Staff[i], svc) {
				staff = append(staff, s.Staff[i].ID)
			}
		}
	}
	out := make([]Verdict, len(in.Starts))
	for i, t := range in.Starts {
		v := Verdict{Start: t, Code: codeOf(s, in.ServiceID, t, in.StaffID, now), Staff: make([]StaffVerdict, len(staff))}
		for j, id := range staff {
			sv := StaffVerdict{ID: id, Code: v.Code}
			if in.StaffID == nil {
				sv.Code = codeOf(s, in.ServiceID, t, &id, now)
			}
			switch sv.Code {
			case problem.SlotTaken:
				if b, ok := s.BusyBlocking(id, calendar.Occupied(svc, t)); ok {
					sv.BusySource, sv.ExternalID = b.Source, b.ExternalID
				}
			case problem.ResourceUnavailable:
				sv.ResourceID, _ = calendar.Room(s.index, s.Resources, svc.Resources, calendar.Occupied(svc, t), uuid.Nil)
			}
			v.Staff[j] = sv
		}
		out[i] = v
	}
	return out, nil
}

// codeOf is the code a booking of svc at t (with staff, or by strategy)
// would get, "" when it would be taken.
func codeOf(s *State, svc uuid.UUID, t time.Time, staff *uuid.UUID, now time.Time) problem.Code {
	_, _, err := decideSlot(s, &slotInput{ServiceID: svc, Start: t, StaffID: staff, Enforce: true, CustomerOnFile: true}, now)
	if err != nil {
		return problem.As(err).Code
	}
	return ""
}
