package ledger

import (
	"cmp"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/sorted"
)

// The tally (decisions §9, booking limits): how many bookings that occupy
// time, and active holds, each staff member has on each local day, of
// every service and of each one. A limit is judged against it when a
// booking, hold, move or reinstatement is decided and when availability
// is computed, so both read the same counts; the business actor decides
// one write at a time, so no two bookings can both take a limit's last
// place.
//
// It is kept by local day number (calendar.LocalDay), in the business's
// zone: a change of the zone counts everything again. A week is summed
// from its seven days.

// blockKey is a staff member's run of 32 local days: the tally keeps
// each run's counts together, so the week or weeks availability asks
// about are one or two lookups, and a booking copies one run.
type blockKey struct {
	staff uuid.UUID
	block int64 // floor(day / blockDays)
}

const blockDays = 32

type block [blockDays]dayTally

func compareBlockKey(a, b blockKey) int {
	if c := compareID(a.staff, b.staff); c != 0 {
		return c
	}
	return cmp.Compare(a.block, b.block)
}

// blockOf is the run holding day, and day's place in it.
func blockOf(day int64) (int64, int) {
	b := day / blockDays
	if day%blockDays < 0 {
		b--
	}
	return b, int(day - b*blockDays)
}

// dayTally is one staff member's day: bookings of every service, and of
// each (a day has few services: a short list, copied on write).
type dayTally struct {
	all  int32
	svcs []svcCount
}

type svcCount struct {
	svc uuid.UUID
	n   int32
}

// counted is what a booking or hold adds to the tally: its staff member,
// service and start; false when it occupies no one.
type counted struct {
	staff, svc uuid.UUID
	start      time.Time
}

func apptCounted(a *model.Appointment) (counted, bool) {
	if a.Staff == nil || !a.Status.Occupies() {
		return counted{}, false
	}
	return counted{a.Staff.ID, a.Service.ID, a.StartTime}, true
}

func holdCounted(h *model.Hold) (counted, bool) {
	if h.Status != model.HoldActive {
		return counted{}, false
	}
	return counted{h.StaffID, h.ServiceID, h.Start}, true
}

// tallied returns b with c counted delta (+1 or -1) times.
func (b book) tallied(c counted, delta int32) book {
	if b.loc == nil {
		return b // no zone yet: inZone counts everything once it is known
	}
	bn, i := blockOf(calendar.LocalDay(c.start, b.loc))
	k := blockKey{c.staff, bn}
	var blk block
	if old, ok := b.tally.Get(k); ok {
		blk = *old
	}
	old := blk[i]
	n := dayTally{all: old.all + delta, svcs: make([]svcCount, 0, len(old.svcs)+1)}
	found := false
	for _, x := range old.svcs {
		if x.svc == c.svc {
			x.n += delta
			found = true
		}
		if x.n > 0 {
			n.svcs = append(n.svcs, x)
		}
	}
	if !found && delta > 0 {
		n.svcs = append(n.svcs, svcCount{c.svc, delta})
	}
	blk[i] = n
	b.tally = b.tally.Set(k, &blk)
	return b
}

// inZone returns b with its tally kept in zone loc, counted again from
// every appointment and hold when the zone is new.
func (b book) inZone(loc *time.Location) book {
	if b.loc != nil && b.loc.String() == loc.String() {
		return b
	}
	b.loc, b.tally = loc, sorted.New[blockKey, *block](compareBlockKey)
	var v view
	b.appts.Ascend(nil, func(id uuid.UUID, c appt) bool {
		if x, ok := apptCounted(b.refs.materialize(id, &c, &v)); ok {
			b = b.tallied(x, 1)
		}
		return true
	})
	b.holds.Ascend(nil, func(_ uuid.UUID, h *model.Hold) bool {
		if x, ok := holdCounted(h); ok {
			b = b.tallied(x, 1)
		}
		return true
	})
	return b
}

// Days implements calendar.Tally: the bookings and active holds of staff
// member staff on each local day from from on, of every service and of
// svc: one lookup per run of 32 days.
func (s *State) Days(staff, svc uuid.UUID, from int64, all, ofSvc []int) {
	for i := 0; i < len(all); {
		bn, j := blockOf(from + int64(i))
		blk, ok := s.tally.Get(blockKey{staff, bn})
		for ; i < len(all) && j < blockDays; i, j = i+1, j+1 {
			if !ok {
				continue
			}
			t := &blk[j]
			all[i] += int(t.all)
			for _, x := range t.svcs {
				if x.svc == svc {
					ofSvc[i] += int(x.n)
				}
			}
		}
	}
}

// except is a tally without one booking: an appointment being moved or
// reinstated does not count against itself.
type except struct {
	calendar.Tally
	c  counted
	n  int64
	ok bool
}

// TallyExcept is s's tally without appointment a.
func TallyExcept(s *State, a *model.Appointment) calendar.Tally {
	c, ok := apptCounted(a)
	if !ok {
		return s
	}
	return except{Tally: s, c: c, n: calendar.LocalDay(c.start, s.Loc), ok: true}
}

func (e except) Days(staff, svc uuid.UUID, from int64, all, ofSvc []int) {
	e.Tally.Days(staff, svc, from, all, ofSvc)
	if i := e.n - from; e.ok && staff == e.c.staff && i >= 0 && i < int64(len(all)) {
		all[i]--
		if svc == e.c.svc {
			ofSvc[i]--
		}
	}
}
