package calendar

import (
	"math/bits"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
)

// Query asks which start times a service can be booked at.
type Query struct {
	Business *model.Business
	Loc      *time.Location
	Now      time.Time
	Service  *model.Service
	Staff    []model.Staff // every staff member of the business, in list order
	Only     *uuid.UUID    // staffMemberId: only this staff member
	Index    interval.Index
	// Tally counts the staff members' bookings for the booking limits
	// (decisions §9); nil: no limit applies.
	Tally Tally
	// Buffers, when set, replace the service's (a booking being moved
	// keeps its own).
	Buffers *model.Buffers
	// Resources are the business's (decisions §10); Needs, when set,
	// replace the service's, as Buffers do.
	Resources []model.Resource
	Needs     *[]model.ResourceNeed
	// Sessions are the open sessions of classes (decisions §10); nil:
	// none.
	Sessions Sessions
	From, To time.Time // both inclusive, on start times
	// Starts, when set, are the only candidate starts (Unix ms,
	// ascending), instead of the grid or the timetable: the starts of a
	// basket's later items, which follow the items before them
	// (decisions §11, Follows). Those inside [From, To] are judged by
	// every other rule.
	Starts []int64
	// Scratch, if set, lends Slots its working buffers and the staff lists
	// of its answer; reusing one Scratch (from a pool) across calls makes
	// Slots allocate nothing once the buffers have grown. The answer's
	// staff lists then live in the Scratch until its next use.
	Scratch *Scratch
}

// Scratch holds the buffers of one Slots call for the next one to reuse.
// It is not safe for concurrent use.
type Scratch struct {
	ticks  []tick
	days   []day
	spans  []interval.Span
	open   []interval.Span
	full   []bool
	counts []int
	mask   []uint64
	staff  []int32
	joins  []joined
	open1  []Session
	chain  *chainScratch // Chain's, made by its first use
}

// Slot is one start time on offer, in Unix milliseconds (an encoder writes
// them as they are; a time.Time per start and end was a fifth of building
// a 1-day answer). Until is At plus the service's durationMinutes; Staff lists, in list order, every eligible staff member
// who could be booked at Start, as indexes into Query.Staff (so an encoder
// can keep each member's id text once per state instead of formatting it
// per slot).
type Slot struct {
	At, Until int64 // start and end, Unix milliseconds
	Staff     []int32
	// SeatsLeft, for a class (decisions §10), is the most seats one
	// session at the start still has: the capacity where a staff member
	// listed would open one. 0 for a service that is not a class.
	SeatsLeft int32
}

// Start is the slot's start time, in UTC.
func (s *Slot) Start() time.Time { return time.UnixMilli(s.At).UTC() }

// End is the slot's end time, in UTC.
func (s *Slot) End() time.Time { return time.UnixMilli(s.Until).UTC() }

// StaffIDs returns the ids of s's staff, from the query's staff list.
func (s *Slot) StaffIDs(staff []model.Staff) []uuid.UUID {
	ids := make([]uuid.UUID, len(s.Staff))
	for i, x := range s.Staff {
		ids[i] = staff[x].ID
	}
	return ids
}

// grow returns buf emptied, with room for n elements, reusing it when it
// is big enough.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, 0, n)
	}
	return buf[:0]
}

// Slots appends to out, in ascending order, every start time on the
// business's grid with From <= start <= To at which the service can be
// booked, and returns the extended slice. A start is offered listing staff
// member X exactly when Decide, with the booking rules enforced, the customer
// on file and X pinned, accepts it; it is offered at all exactly when Decide
// with nobody pinned accepts it. An inactive service is offered nowhere; Only
// narrows the answer to one staff member (nothing when they are not
// eligible). The Staff slices of the slots appended share one backing array.
//
// Slots makes a fixed number of allocations besides its output (see
// TestSlotsAllocations), whatever the window, the staff or the bookings.
func Slots(q *Query, out []Slot) []Slot {
	if !q.Service.IsActive || q.To.Before(q.From) {
		return out
	}
	// The candidates and the shape stay on this stack frame: the sweep,
	// which is handed to methods, holds no pointer to it.
	var buf [64]int
	var acts [8]rel
	cands := buf[:0]
	for i := range q.Staff {
		// Only first: it is one comparison, and Eligible reads each
		// member's service list, a cache miss apiece on a large server.
		if (q.Only == nil || *q.Only == q.Staff[i].ID) && Eligible(&q.Staff[i], q.Service) {
			cands = append(cands, i)
		}
	}
	sc := q.Scratch
	if sc == nil {
		sc = new(Scratch)
	}
	sw := sweep{sc: sc, open: sc.open[:0], full: sc.full, counts: sc.counts, open1: sc.open1}
	if len(cands) == 0 || !sw.candidates(q) {
		return out
	}
	sh := shapeOf(q.Service, acts[:0])
	if q.Buffers != nil {
		sh = sh.withBuffers(*q.Buffers)
	}
	sw.lim, sw.limited = limitsOf(q.Business, q.Service, q.Tally)
	sw.prepare(q, &sh, len(cands))
	for c, i := range cands {
		sw.staff(c, &sh, &q.Staff[i], q.Index.Busy(q.Staff[i].ID, sw.rng.lo, sw.rng.hi))
	}
	sw.roomOnly(q, &sh)
	sw.sessions(q, &sh, cands)
	out = sw.emit(q, cands, out)
	sc.ticks, sc.days, sc.mask, sc.open, sc.full, sc.counts = sw.ticks, sw.ds.list, sw.mask, sw.open, sw.full, sw.counts
	if sw.joins != nil {
		sc.joins = sw.joins
	}
	sc.open1 = sw.open1
	return out
}

// sweep is the working state of one Slots call. Candidates are handled one
// after the other, reusing the same buffers, and mark in mask which grid
// starts they could take.
type sweep struct {
	sc      *Scratch
	ticks   []tick // grid starts passing the start-only rules, ascending
	minGap  int64
	pad     int64
	ds      days
	loc     *time.Location
	rng     clip            // union of the windows of every day with a start
	work    []interval.Span // scratch: one candidate's working time
	free    []interval.Span // scratch: one candidate's free stretches
	open    []interval.Span // scratch: one candidate's unoccupied stretches, with buffers
	lim     limits          // the booking limits, when limited
	limited bool
	full    []bool    // one candidate's days at a limit, by day - ticks[0].day
	counts  []int     // scratch: one candidate's counts, by day from the Monday of the first
	words   int       // mask words per start
	mask    []uint64  // bit c of row g: candidate c can take start g
	joins   []joined  // by grid start, a class's sessions (sessions)
	open1   []Session // scratch: one candidate's sessions
}

// tick is a grid start, with its local day number.
type tick struct{ at, day int64 }

// candidates collects the starts to judge: q.Starts when set, else the
// grid's or the timetable's.
func (sw *sweep) candidates(q *Query) bool {
	if q.Starts == nil {
		return sw.grid(q)
	}
	br := &q.Business.Rules
	lo := max(ceilMs(q.From), ceilMs(q.Now.Add(minutes(br.MinNoticeMinutes))))
	hi := min(q.To.UnixMilli(), ceilMs(q.Now.Add(advance(br.MaxAdvanceDays)))-1)
	sw.ticks = grow(sw.sc.ticks, len(q.Starts))
	for _, s := range q.Starts {
		if s >= lo && s <= hi && !restrictedMs(br, s) {
			n, _ := dayNumber(s, q.Loc)
			sw.ticks = append(sw.ticks, tick{s, n})
		}
	}
	return len(sw.ticks) > 0
}

// grid collects the starts that pass every rule depending on the start alone:
// on the grid, inside [From, To], past the notice period, before the advance
// limit and outside restricted periods. It reports whether there are any.
//
// The grid is the set of instants whose wall clock reads a whole multiple of
// the interval after local midnight (onGrid): within one zone offset that is
// every interval from each local midnight, so the walk goes zone period by
// zone period, and in each from local midnight to local midnight.
func (sw *sweep) grid(q *Query) bool {
	br := &q.Business.Rules
	lo := max(ceilMs(q.From), ceilMs(q.Now.Add(minutes(br.MinNoticeMinutes))))
	hi := min(q.To.UnixMilli(), ceilMs(q.Now.Add(advance(br.MaxAdvanceDays)))-1)
	if lo > hi {
		return false
	}
	step := int64(gridStep(br.SlotIntervalMinutes)) * 60
	perDay := (secDay+3*3600)/step + 2 // a fall-back day repeats up to a few hours
	sw.ticks = grow(sw.sc.ticks, int((floorDiv(hi-lo, msDay)+2)*perDay))
	for c := lo; c <= hi; {
		t := time.UnixMilli(c).In(q.Loc)
		_, o := t.Zone()
		off := int64(o)
		end := hi + 1
		if _, ze := t.ZoneBounds(); !ze.IsZero() {
			end = min(end, ze.UnixMilli())
		}
		wall := ceilDiv(c, 1000) + off
		d := floorDiv(wall, secDay)
		if tt := q.Service.Timetable; tt != nil {
			sw.timetabled(br, tt, d, wall-d*secDay, off, end)
		} else {
			sw.grid1(br, d, ceilDiv(wall-d*secDay, step)*step, step, off, end)
		}
		c = end
	}
	return len(sw.ticks) > 0
}

// grid1 collects the grid's starts of one zone period, of offset off,
// from second k of local day d up to end.
func (sw *sweep) grid1(br *model.BookingRules, d, k, step, off, end int64) {
	for ; ; d, k = d+1, 0 {
		for ; k < secDay; k += step {
			s := (d*secDay + k - off) * 1000
			if s >= end {
				return
			}
			if !restrictedMs(br, s) {
				sw.ticks = append(sw.ticks, tick{s, d})
			}
		}
	}
}

// timetabled collects a timetabled service's starts of one zone period
// instead (decisions §10): its times of each weekday, from second k of
// local day d up to end.
func (sw *sweep) timetabled(br *model.BookingRules, tt *model.Timetable, d, k, off, end int64) {
	for ; (d*secDay-off)*1000 < end; d, k = d+1, 0 {
		for _, c := range tt[weekday(d)] {
			kc := int64(c) * 60
			if kc < k {
				continue
			}
			s := (d*secDay + kc - off) * 1000
			if s >= end {
				return
			}
			if !restrictedMs(br, s) {
				sw.ticks = append(sw.ticks, tick{s, d})
			}
		}
	}
}

// restrictedMs is restricted for a whole-millisecond instant.
func restrictedMs(br *model.BookingRules, s int64) bool {
	for _, p := range br.RestrictedPeriods {
		if s >= ceilMs(p.From) && s < ceilMs(p.To) {
			return true
		}
	}
	return false
}

// prepare loads the calendar of every day with a start, with each day's
// window, and sizes the scratch buffers.
func (sw *sweep) prepare(q *Query, sh *shape, cands int) {
	footprint := sh.long
	sw.loc = q.Loc
	sw.minGap = gapOf(&q.Business.Rules)
	sw.pad = padOf(sw.minGap) + sh.pre + sh.post
	a, b := sw.ticks[0].day, sw.ticks[len(sw.ticks)-1].day
	first, last := dayRange(a, b, footprint, sw.pad)
	sw.ds = loadDays(grow(sw.sc.days, int(last-first+1)), q.Business, q.Loc, first, last)
	for n := a; n <= b; n++ {
		sw.ds.get(n).win = sw.ds.window(n, footprint, sw.pad)
	}
	sw.rng = clip{sw.ds.get(a).win.lo, sw.ds.get(b).win.hi}
	sw.sc.spans = grow(sw.sc.spans, 20*len(sw.ds.list))
	spans := sw.sc.spans[:20*len(sw.ds.list)]
	sw.work, sw.free = spans[:0:4*len(sw.ds.list)], spans[4*len(sw.ds.list):4*len(sw.ds.list)]
	sw.words = (cands + 63) / 64
	sw.mask = grow(sw.sc.mask, len(sw.ticks)*sw.words)[:len(sw.ticks)*sw.words]
	clear(sw.mask)
}

// staff marks the starts candidate c (staff member st, the time its items
// cover t) can take a booking of shape sh at.
// Only starts whose first active piece falls inside a free stretch can fit,
// so each stretch visits just the starts that put the first piece in it; the
// grid pointer g only moves forward, as the stretches do, and jumps the
// starts between stretches.
func (sw *sweep) staff(c int, sh *shape, st *model.Staff, t *interval.Busy) {
	acts := sh.acts
	sw.work = appendWorking(sw.work[:0], st, &sw.ds, sw.loc, sw.rng)
	sw.free, sw.open = appendFreeBusy(sw.free[:0], sw.open[:0], t, sw.work, sh.pre, sh.post)
	word, bit := c/64, uint64(1)<<(c%64)
	// full says whether this staff member is at a limit on some day of
	// the query: only then is each start's day looked at.
	full := sw.limited && sw.atLimit(st.ID)
	mark := func(g, k int) {
		tk := &sw.ticks[g]
		if full && sw.full[tk.day-sw.ticks[0].day] {
			return // at a limit that day or week: passed over, as Decide does
		}
		if judge(sw.free, sw.open, sw.ds.get(tk.day).win, sh, tk.at, sw.minGap, k) == fits {
			sw.mask[g*sw.words+word] |= bit
		}
	}
	if len(acts) == 0 {
		for g := range sw.ticks {
			mark(g, 0)
		}
		return
	}
	first, g := acts[0], 0
	if len(acts) == 1 && sw.minGap == 0 && first.end > first.off {
		// One active piece and no gap rule: judge accepts every start
		// that puts the piece inside a free stretch (and, with buffers,
		// the buffered piece inside the open stretch holding it), so a
		// stretch's starts are marked without judging each (a week of 20
		// staff judged 4,000 starts one by one: a third of the answer's
		// CPU, and with buffers more than half).
		j := 0
		for _, f := range sw.free {
			lo, hi := f.Start-first.off, f.End-first.end
			if sh.buffered() {
				// The open stretch holding f: the first that ends at
				// or after it (free time is open time).
				for j < len(sw.open) && sw.open[j].End < f.End {
					j++
				}
				if j == len(sw.open) {
					break
				}
				lo = max(lo, sw.open[j].Start+sh.pre-first.off)
				hi = min(hi, sw.open[j].End-sh.post-first.end)
			}
			g = sw.seek(g, lo)
			for ; g < len(sw.ticks) && sw.ticks[g].at <= hi; g++ {
				if !full || !sw.full[sw.ticks[g].day-sw.ticks[0].day] {
					sw.mask[g*sw.words+word] |= bit
				}
			}
		}
		return
	}
	for k, f := range sw.free {
		lo, hi := f.Start-first.off, f.End-first.end
		g = sw.seek(g, lo)
		for ; g < len(sw.ticks) && sw.ticks[g].at <= hi; g++ {
			mark(g, k)
		}
	}
}

// atLimit sets full, for staff member staff, to the days with a start on
// which one more booking would pass a limit, and reports whether there is
// one: the weeks of those days are counted in one call of the tally.
func (sw *sweep) atLimit(staff uuid.UUID) bool {
	first, last := sw.ticks[0].day, sw.ticks[len(sw.ticks)-1].day
	w0 := weekOf(first)
	n := int(weekOf(last) + 7 - w0)
	sw.counts = grow(sw.counts, 2*n)[:2*n]
	clear(sw.counts)
	all, of := sw.counts[:n], sw.counts[n:]
	sw.lim.t.Days(staff, sw.lim.svc, w0, all, of)
	sw.full = grow(sw.full, int(last-first+1))[:last-first+1]
	some, weekFull := false, false
	for d := first; d <= last; d++ {
		wk := weekOf(d)
		w := int(wk - w0)
		if d == first || d == wk { // each week's sums once
			weekFull = sw.lim.weekFull(all[w:w+7], of[w:w+7])
		}
		i := w + int(d-wk)
		sw.full[d-first] = weekFull || sw.lim.dayFull(all[i], of[i])
		some = some || sw.full[d-first]
	}
	return some
}

// seek returns the first grid index at or after g whose start is not before
// lo, by binary search: the nights and bookings between stretches are
// skipped without visiting their starts.
func (sw *sweep) seek(g int, lo int64) int {
	h := len(sw.ticks)
	for g < h {
		m := int(uint(g+h) >> 1)
		if sw.ticks[m].at < lo {
			g = m + 1
		} else {
			h = m
		}
	}
	return g
}

// roomOnly clears the starts at which the resources the booking needs
// (decisions §10) are not free: they are the same whoever does it.
func (sw *sweep) roomOnly(q *Query, sh *shape) {
	needs := q.Service.Resources
	if q.Needs != nil {
		needs = *q.Needs
	}
	if len(needs) == 0 || len(sw.ticks) == 0 || len(sh.acts) == 0 {
		return
	}
	// Each resource's profile, built once per version of its tree and
	// kept: a start is judged in O(log n), not by a search of the tree.
	var buf [8]interval.Span
	type use struct {
		p           *interval.Profile
		ext         interval.Tree
		quantity, n int
	}
	uses := make([]use, 0, len(needs))
	for _, n := range needs {
		r := resource(q.Resources, n.ResourceID)
		if r == nil || !r.IsActive {
			clear(sw.mask)
			return
		}
		uses = append(uses, use{q.Index.Profile(n.ResourceID), q.Index.External(n.ResourceID), r.Quantity, n.Quantity})
	}
	for g := range sw.ticks {
		row := sw.mask[g*sw.words : (g+1)*sw.words]
		if !slices.ContainsFunc(row, func(w uint64) bool { return w != 0 }) {
			continue
		}
		for _, sp := range sh.spans(buf[:0], sw.ticks[g].at) {
			if !slices.ContainsFunc(uses, func(u use) bool { return u.p.Peak(sp)+u.n > u.quantity || u.ext.Overlaps(sp) }) {
				continue
			}
			clear(row)
			break
		}
	}
}

// emit appends the starts someone can take, with their staff, to out.
func (sw *sweep) emit(q *Query, cands []int, out []Slot) []Slot {
	rows, ids := 0, 0
	for g := range sw.ticks {
		n := 0
		for _, w := range sw.mask[g*sw.words : (g+1)*sw.words] {
			n += bits.OnesCount64(w)
		}
		if n > 0 {
			rows, ids = rows+1, ids+n
		}
	}
	if rows == 0 {
		return out
	}
	out = slices.Grow(out, rows)
	sw.sc.staff = grow(sw.sc.staff, ids)
	all := sw.sc.staff[:ids]
	at := 0
	dur := int64(q.Service.DurationMinutes) * msMinute
	class, capacity := q.Service.IsClass(), int32(q.Service.Seats())
	for g, tk := range sw.ticks {
		s, from := tk.at, at
		for i, w := range sw.mask[g*sw.words : (g+1)*sw.words] {
			for ; w != 0; w &= w - 1 {
				all[at] = int32(cands[i*64+bits.TrailingZeros64(w)])
				at++
			}
		}
		if at > from {
			sl := Slot{At: s, Until: s + dur, Staff: all[from:at:at]}
			if class {
				sl.SeatsLeft = sw.seatsLeft(capacity, g, at-from)
			}
			out = append(out, sl)
		}
	}
	return out
}

// ceilMs is t in Unix ms, rounded up.
func ceilMs(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Nanosecond()%1e6 != 0 {
		ms++
	}
	return ms
}
