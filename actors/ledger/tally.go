package ledger

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/model"
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

// The tally of each staff member is a list of runs of 32 local days,
// sorted by run, each holding its counts together: the week or weeks
// availability asks about are one or two runs, found by binary searches
// of the staff members (sorted by id) and of the staff member's runs.
// (Kept instead in one sorted map by staff member and run, each lookup
// walked a B+tree of 16-byte keys through a comparison closure: the
// booking limits made a week's slot search of 20 staff members 1.24
// times as costly as the same search without them, and with this layout
// 1.10-1.12 times, BenchmarkSlotsPoliciesRatio. A Go map from staff member to
// list was as fast and cost 6 bytes more per appointment in
// BenchmarkLiveHeap, a map per business.) The lists are copied on
// write: a booking copies one entry per staff member and one per run of
// the staff member's, which is little next to a journal sync, and every
// State keeps the tally it was built with.
type staffRuns struct {
	staff uuid.UUID
	runs  []run // sorted by block
}

type run struct {
	block  int64 // floor(day / blockDays)
	counts block
}

const blockDays = 32

// block is a run's counts: one entry per day and service that has any,
// in no order. It is sparse because most runs of most staff members
// hold a few bookings: a dense run of 32 days cost a business of the
// load harness's shape 127 bytes more per appointment (BenchmarkLiveHeap),
// where an entry is 6 (20 while it named its service by id: 3 bytes
// more per appointment there).
type block []tallyEntry

type tallyEntry struct {
	day uint8  // place in the run
	n   uint16 // bookings on that day of that service: they never overlap, so at most 1,440
	svc uint16 // the service, by its place in book.tallySvc
}

// blockKey names a staff member's run.
type blockKey struct {
	staff uuid.UUID
	block int64
}

// staffAt returns where staff member id's runs are in t (sorted by
// staff), or would go.
func staffAt(t []staffRuns, id uuid.UUID) (int, bool) {
	hi0, lo0 := binary.BigEndian.Uint64(id[:8]), binary.BigEndian.Uint64(id[8:])
	lo, hi := 0, len(t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		h, l := binary.BigEndian.Uint64(t[m].staff[:8]), binary.BigEndian.Uint64(t[m].staff[8:])
		if h < hi0 || h == hi0 && l < lo0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(t) && t[lo].staff == id
}

// runAt returns the counts of run bn in runs (sorted by block), and
// where it is or would go.
func runAt(runs []run, bn int64) (block, int) {
	lo, hi := 0, len(runs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if runs[m].block < bn {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(runs) && runs[lo].block == bn {
		return runs[lo].counts, lo
	}
	return nil, lo
}

// runsOf returns staff member staff's runs.
func (b *book) runsOf(staff uuid.UUID) []run {
	if i, ok := staffAt(b.tally, staff); ok {
		return b.tally[i].runs
	}
	return nil
}

// withRuns returns b with the runs of fresh in place of its own (a run
// left empty goes): one copy of the list of staff members, one of each
// staff member's list of runs touched.
func (b book) withRuns(fresh map[blockKey]block) book {
	t := slices.Clone(b.tally)
	owned := map[uuid.UUID]bool{}
	for k, blk := range fresh {
		i, ok := staffAt(t, k.staff)
		if !ok {
			t = slices.Insert(t, i, staffRuns{staff: k.staff})
		}
		if !owned[k.staff] {
			t[i].runs, owned[k.staff] = slices.Clone(t[i].runs), true
		}
		t[i].runs = putRun(t[i].runs, k.block, blk)
	}
	for i := range t {
		if owned[t[i].staff] && cap(t[i].runs) > len(t[i].runs) {
			t[i].runs = slices.Clone(t[i].runs) // no room kept: a business holds thousands of these lists
		}
	}
	if cap(t) > len(t) {
		t = slices.Clone(t)
	}
	b.tally = t
	return b
}

// putRun sets run bn of runs, which the caller owns, to blk.
func putRun(runs []run, bn int64, blk block) []run {
	_, at := runAt(runs, bn)
	found := at < len(runs) && runs[at].block == bn
	switch {
	case found && len(blk) == 0:
		return slices.Delete(runs, at, at+1)
	case found:
		runs[at].counts = blk
		return runs
	case len(blk) == 0:
		return runs
	}
	return slices.Insert(runs, at, run{bn, blk})
}

// blockOf is the run holding day, and day's place in it.
func blockOf(day int64) (int64, int) {
	b := day / blockDays
	if day%blockDays < 0 {
		b--
	}
	return b, int(day - b*blockDays)
}

// add returns blk with delta more bookings of svc on day i, as a new list
// when own is false (blk is another state's).
func (blk block) add(i int, svc uint16, delta int, own bool) block {
	out := blk
	if !own {
		out = make(block, len(blk), len(blk)+1)
		copy(out, blk)
	}
	for j := range out {
		if e := &out[j]; int(e.day) == i && e.svc == svc {
			if n := int(e.n) + delta; n > 0 {
				e.n = uint16(n)
			} else {
				out = append(out[:j], out[j+1:]...)
			}
			return out
		}
	}
	if delta > 0 {
		out = append(out, tallyEntry{day: uint8(i), n: uint16(delta), svc: svc})
	}
	return out
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
func (b book) tallied(c counted, delta int) book {
	if b.loc == nil {
		return b // no zone yet: inZone counts everything once it is known
	}
	bn, i := blockOf(calendar.LocalDay(c.start, b.loc))
	old, _ := runAt(b.runsOf(c.staff), bn)
	var svc uint16
	b, svc = b.svcPlace(c.svc)
	return b.withRun(c.staff, bn, old.add(i, svc, delta, false))
}

// withRun is withRuns for one run, the write of every booking: the
// same copies, without the two maps.
func (b book) withRun(staff uuid.UUID, bn int64, blk block) book {
	i, ok := staffAt(b.tally, staff)
	var t []staffRuns // sized exactly: every State keeps its own
	if ok {
		t = make([]staffRuns, len(b.tally))
		copy(t, b.tally)
	} else {
		t = make([]staffRuns, len(b.tally)+1)
		copy(t, b.tally[:i])
		copy(t[i+1:], b.tally[i:])
		t[i] = staffRuns{staff: staff}
	}
	t[i].runs = withBlock(t[i].runs, bn, blk)
	b.tally = t
	return b
}

// withBlock returns runs with run bn set to blk (gone when blk is
// empty), in a list of its own of exactly its length (a business holds
// thousands of these lists, so none keeps room to grow); runs itself is
// another state's and stays as it is.
func withBlock(runs []run, bn int64, blk block) []run {
	_, at := runAt(runs, bn)
	found := at < len(runs) && runs[at].block == bn
	var out []run
	switch {
	case found && len(blk) == 0:
		out = make([]run, len(runs)-1)
		copy(out, runs[:at])
		copy(out[at:], runs[at+1:])
	case found:
		out = make([]run, len(runs))
		copy(out, runs)
		out[at].counts = blk
	case len(blk) == 0:
		return runs
	default:
		out = make([]run, len(runs)+1)
		copy(out, runs[:at])
		out[at] = run{bn, blk}
		copy(out[at+1:], runs[at:])
	}
	return out
}

// svcPlace returns service id's place in b.tallySvc, adding it when it
// has none. The list only grows, and each addition copies it, so every
// State sees its own.
func (b book) svcPlace(id uuid.UUID) (book, uint16) {
	if i, ok := placeOf(b.tallySvc, id); ok {
		return b, i
	}
	b.tallySvc = append(slices.Clip(b.tallySvc), id)
	return b, uint16(len(b.tallySvc) - 1)
}

// placeOf is service id's place in list, false when it has none: a
// business has a few services, and availability asks once per staff
// member, so the list is searched from the start, eight bytes at a
// time.
func placeOf(list []uuid.UUID, id uuid.UUID) (uint16, bool) {
	h, l := binary.BigEndian.Uint64(id[:8]), binary.BigEndian.Uint64(id[8:])
	for i := range list {
		if binary.BigEndian.Uint64(list[i][:8]) == h && binary.BigEndian.Uint64(list[i][8:]) == l {
			return uint16(i), true
		}
	}
	return 0, false
}

// talliedAll returns b with each of cs counted once: a world's
// appointments, or everything again in a new zone. Each run is copied
// and set once, not once per booking.
func (b book) talliedAll(cs []counted) book {
	if b.loc == nil || len(cs) == 0 {
		return b
	}
	fresh := map[blockKey]block{}
	for _, c := range cs {
		bn, i := blockOf(calendar.LocalDay(c.start, b.loc))
		k := blockKey{c.staff, bn}
		blk, own := fresh[k]
		if !own {
			blk, _ = runAt(b.runsOf(c.staff), bn)
		}
		var svc uint16
		b, svc = b.svcPlace(c.svc)
		fresh[k] = blk.add(i, svc, 1, own)
	}
	return b.withRuns(fresh)
}

// inZone returns b with its tally kept in zone loc, counted again from
// every appointment and hold when the zone is new.
func (b book) inZone(loc *time.Location) book {
	if b.loc != nil && b.loc.String() == loc.String() {
		return b
	}
	b.loc, b.tally, b.tallySvc = loc, nil, nil
	var cs []counted
	var v view
	b.appts.Ascend(nil, func(id uuid.UUID, c appt) bool {
		if a := b.refs.materialize(id, &c, &v); a.Session == nil {
			if x, ok := apptCounted(a); ok {
				cs = append(cs, x)
			}
		}
		return true
	})
	b.holds.Ascend(nil, func(_ uuid.UUID, h *model.Hold) bool {
		if x, ok := holdCounted(h); ok && !h.Seat {
			cs = append(cs, x)
		}
		return true
	})
	// A session counts once, however many of its seats count.
	b.sessions.Ascend(nil, func(_ SessionKey, s *session) bool {
		if s.counting > 0 {
			cs = append(cs, s.counted)
		}
		return true
	})
	return b.talliedAll(cs)
}

// Days implements calendar.Tally: the bookings and active holds of staff
// member staff on each local day from from on, of every service and of
// svc: one binary search per run of 32 days.
func (s *State) Days(staff, svc uuid.UUID, from int64, all, ofSvc []int) {
	runs := s.runsOf(staff)
	place, known := placeOf(s.tallySvc, svc)
	for i := 0; i < len(all); {
		bn, j := blockOf(from + int64(i))
		span := min(blockDays-j, len(all)-i) // days i.. of the answer are j.. of the run
		blk, _ := runAt(runs, bn)
		for _, e := range blk {
			if d := int(e.day) - j; d >= 0 && d < span {
				all[i+d] += int(e.n)
				if known && e.svc == place {
					ofSvc[i+d] += int(e.n)
				}
			}
		}
		i += span
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
	if !ok || !s.freesTime(a) { // a seat with others: its session stays
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
