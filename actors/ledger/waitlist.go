package ledger

import (
	"bytes"
	"cmp"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// The waitlist (decisions §6): customers waiting for a start of a service
// in a window. Entries wait; when a write frees time (offers.go), the
// oldest entry a newly bookable start suits is offered the earliest such
// start, held for it; booking with the hold books the entry, the hold
// ending unused returns it to waiting, and a waiting entry whose window
// has passed expires.

// EntryInput is a validated POST /waitlist-entries body.
type EntryInput struct {
	ServiceID uuid.UUID
	StaffID   *uuid.UUID
	From, To  time.Time
	Customer  model.Person
}

// CreationKey orders entries by creation: createdAt, then id.
type CreationKey struct {
	At int64 // Unix ns
	ID uuid.UUID
}

func compareCreation(a, b CreationKey) int {
	if c := cmp.Compare(a.At, b.At); c != 0 {
		return c
	}
	return bytes.Compare(a.ID[:], b.ID[:])
}

func creationOf(e *model.WaitlistEntry) CreationKey {
	return CreationKey{At: e.CreatedAt.UnixNano(), ID: e.ID}
}

var errToPast = problem.FieldError("to", problem.Invalid, "Must be in the future.")

// Entry returns the waitlist entry with id, or nil; deleted entries are
// nil.
func (s *State) Entry(id uuid.UUID) *model.WaitlistEntry {
	e, ok := s.entries.Get(id)
	if !ok || e.Status == model.EntryDeleted {
		return nil
	}
	return e
}

// Entries calls fn for the entries in creation order, starting strictly
// after from (nil: the first), until fn returns false. Deleted entries are
// left out.
func (s *State) Entries(from *CreationKey, fn func(*model.WaitlistEntry) bool) {
	s.entryOrder.Ascend(from, func(k CreationKey, _ struct{}) bool {
		e, _ := s.entries.Get(k.ID)
		if e.Status == model.EntryDeleted {
			return true
		}
		return fn(e)
	})
}

// Waiting reports whether any entry waits for an offer: only then is a
// write that frees time looked at for one.
func (s *State) Waiting() bool { return s.waiting.Len() > 0 }

// NextEntryExpiry returns the earliest end of a waiting entry's window,
// false when none waits.
func (s *State) NextEntryExpiry() (time.Time, bool) {
	var next time.Time
	s.windowEnds.Ascend(nil, func(k CreationKey, _ struct{}) bool {
		next = time.Unix(0, k.At).UTC()
		return false
	})
	return next, !next.IsZero()
}

func windowEndOf(e *model.WaitlistEntry) CreationKey {
	return CreationKey{At: e.To.UnixNano(), ID: e.ID}
}

// DecideEntry decides POST /waitlist-entries.
func DecideEntry(s *State, in *EntryInput, now time.Time, ids IDs) (*record.Change, *model.WaitlistEntry, error) {
	if svc := s.Service(in.ServiceID); svc == nil || svc.Deleted {
		return nil, nil, errUnknownService
	}
	if in.StaffID != nil && s.StaffMember(*in.StaffID) == nil {
		return nil, nil, errUnknownStaff
	}
	if !in.To.After(now) {
		return nil, nil, errToPast
	}
	e := model.WaitlistEntry{ID: ids.UUID(), ServiceID: in.ServiceID, StaffID: in.StaffID, From: in.From, To: in.To,
		Customer: in.Customer, Status: model.EntryWaiting, CreatedAt: now, UpdatedAt: now}
	ch := &record.Change{At: now, Entries: []model.WaitlistEntry{e}}
	return ch, &ch.Entries[0], nil
}

// DecideEntryDelete decides DELETE /waitlist-entries/{id}: the entry is
// gone, and so is its offer's hold, whose time goes to the next entry.
func DecideEntryDelete(s *State, id uuid.UUID, now time.Time) (*record.Change, error) {
	e := s.Entry(id)
	if e == nil {
		return nil, errNotFound
	}
	n := *e
	n.Status, n.UpdatedAt = model.EntryDeleted, now
	ch := &record.Change{At: now, Entries: []model.WaitlistEntry{n}}
	if e.Status == model.EntryOffered && e.Offer != nil {
		if h := s.Hold(e.Offer.HoldID); h != nil && h.Live(now) {
			hn := *h
			hn.Status, hn.UpdatedAt = model.HoldReleased, now
			ch.Holds = append(ch.Holds, hn)
		}
	}
	return ch, nil
}

// DecideExpiries returns the change that ends everything whose deadline
// has come at now, or nil: active holds past expiresAt (an offer's entry
// waits again, or expires) and waiting entries past their window.
func DecideExpiries(s *State, now time.Time, ids IDs) *record.Change {
	ch := &record.Change{At: now}
	s.liveHolds.Ascend(nil, func(k CreationKey, _ struct{}) bool {
		h := s.Hold(k.ID)
		if h == nil || now.Before(h.ExpiresAt) {
			return false // in expiry order: the rest are later
		}
		endHold(s, ch, h, model.HoldExpired, now, ids)
		return true
	})
	s.windowEnds.Ascend(nil, func(k CreationKey, _ struct{}) bool {
		e, i := entryIn(s, ch, k.ID)
		if !e.To.Before(now) {
			return false // in order of to: the rest end later
		}
		if e.Status == model.EntryWaiting {
			n := *e
			n.Status, n.UpdatedAt = model.EntryExpired, now
			putEntryIn(ch, n, i)
		}
		return true
	})
	if len(ch.Holds) == 0 && len(ch.Entries) == 0 {
		return nil
	}
	return ch
}

// entryIn returns entry id as ch leaves it, or as s has it.
func entryIn(s *State, ch *record.Change, id uuid.UUID) (*model.WaitlistEntry, int) {
	for i := range ch.Entries {
		if ch.Entries[i].ID == id {
			return &ch.Entries[i], i
		}
	}
	return s.Entry(id), -1
}

// putEntryIn puts e into ch, replacing its earlier version there (at i).
func putEntryIn(ch *record.Change, e model.WaitlistEntry, i int) {
	if i >= 0 {
		ch.Entries[i] = e
		return
	}
	ch.Entries = append(ch.Entries, e)
}

// offerLapsed adds to ch the end of entry id's offer of hold: the entry
// waits again, or expires when its window has passed meanwhile.
func offerLapsed(s *State, ch *record.Change, id, hold uuid.UUID, now time.Time) {
	e, i := entryIn(s, ch, id)
	if e == nil || e.Status != model.EntryOffered || e.Offer == nil || e.Offer.HoldID != hold {
		return
	}
	n := *e
	n.Status, n.Offer, n.UpdatedAt = model.EntryWaiting, nil, now
	if n.To.Before(now) {
		n.Status = model.EntryExpired
	}
	putEntryIn(ch, n, i)
}

// entryBooked adds to ch entry id booked as appointment appt.
func entryBooked(s *State, ch *record.Change, id, appt uuid.UUID, now time.Time) {
	e, i := entryIn(s, ch, id)
	if e == nil {
		return
	}
	n := *e
	n.Status, n.Booked, n.UpdatedAt = model.EntryBooked, &appt, now
	putEntryIn(ch, n, i)
}

// putEntry returns b with e stored, replacing any older version.
func (b book) putEntry(e model.WaitlistEntry) book {
	k := creationOf(&e)
	if old, ok := b.entries.Get(e.ID); ok {
		b.windowEnds = b.windowEnds.Delete(windowEndOf(old))
	} else {
		b.entryOrder = b.entryOrder.Set(k, struct{}{})
	}
	b.entries = b.entries.Set(e.ID, &e)
	if e.Status == model.EntryWaiting {
		b.waiting = b.waiting.Set(k, struct{}{})
		b.windowEnds = b.windowEnds.Set(windowEndOf(&e), struct{}{})
	} else {
		b.waiting = b.waiting.Delete(k)
	}
	return b
}

// DeleteEntry takes waitlist entry ID off the list
// (DELETE /waitlist-entries/{id}).
type DeleteEntry struct{ ID uuid.UUID }

func (o DeleteEntry) Decide(s *State, now time.Time, _ IDs) (*record.Change, Done, error) {
	ch, err := DecideEntryDelete(s, o.ID, now)
	return ch, Done{}, err
}

// AddEntry puts a customer on the waitlist (POST /waitlist-entries).
type AddEntry struct{ In EntryInput }

func (AddEntry) Operation() model.Operation { return model.OpAddEntry }

func (o AddEntry) Decide(s *State, now time.Time, ids IDs) (*record.Change, *Answer, error) {
	ch, _, err := DecideEntry(s, &o.In, now, ids)
	if err != nil {
		return nil, nil, err
	}
	return answered(s, ch, record.AnswerEntry)
}
