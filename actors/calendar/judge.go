package calendar

import (
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/interval"
)

// verdict is how a start fares with one staff member who is eligible for the
// service, once the rules that depend on the start alone have passed.
type verdict uint8

const (
	busy   verdict = iota // an active piece is not inside one free stretch
	gapped                // it fits, but leaves a stretch the gap rule refuses
	fits                  // bookable
)

// appendFree appends to dst the free stretches of working time work (sorted,
// merged, as appendWorking returns it): the maximal stretches of it that no
// active item of t covers. One Free walk over the hull of work, cut by the
// working spans, gives the same stretches as a walk per working span, at one
// descent of the tree instead of one per span.
func appendFree(dst []interval.Span, t interval.Tree, work []interval.Span) []interval.Span {
	if len(work) == 0 {
		return dst
	}
	c := cutter{dst: dst, work: work}
	t.Free(interval.Span{Start: work[0].Start, End: work[len(work)-1].End}, c.cut)
	return c.dst
}

// withoutExternal appends to dst the parts of work that ext (a staff
// member's external busy time) leaves free; work itself when there is
// none.
func withoutExternal(dst, work []interval.Span, ext interval.Tree) []interval.Span {
	if ext.Len() == 0 {
		return work
	}
	for _, w := range work {
		ext.Free(w, func(s interval.Span) bool {
			dst = append(dst, s)
			return true
		})
	}
	return dst
}

// appendFreeBusy is appendFree over a staff member's flat copy of their
// items (availability, which reads many staff members whole); decisions,
// which may set an appointment's own items aside, walk the tree. With
// buffers (pre, post > 0) the same walk, widened by them, also appends to
// open the stretches no item occupies, cut by nothing: where a buffer may
// lie. (A second walk for those was a seventh of a buffered search.)
func appendFreeBusy(dst, open []interval.Span, b *interval.Busy, work []interval.Span, pre, post int64) ([]interval.Span, []interval.Span) {
	if len(work) == 0 {
		return dst, open
	}
	c := cutter{dst: dst, work: work}
	if pre > 0 || post > 0 {
		c.open, c.keep = open, true
	}
	b.Free(interval.Span{Start: work[0].Start - pre, End: work[len(work)-1].End + post}, c.cut)
	return c.dst, c.open
}

// cutter cuts the free stretches of a walk by the working spans, and
// keeps them whole in open when keep is set.
type cutter struct {
	dst  []interval.Span
	work []interval.Span
	i    int // the first working span that may meet the next stretch
	open []interval.Span
	keep bool
}

func (c *cutter) cut(f interval.Span) bool {
	if c.keep {
		c.open = append(c.open, f)
	}
	for c.i < len(c.work) && c.work[c.i].End <= f.Start {
		c.i++
	}
	for j := c.i; j < len(c.work) && c.work[j].Start < f.End; j++ {
		if s, e := max(f.Start, c.work[j].Start), min(f.End, c.work[j].End); s < e {
			c.dst = append(c.dst, interval.Span{Start: s, End: e})
		}
	}
	return true
}

// without returns t less the items of the appointment owner that overlap w:
// an appointment being moved or reinstated does not stand in its own way.
func without(t interval.Tree, owner uuid.UUID, w clip) interval.Tree {
	if owner == uuid.Nil {
		return t
	}
	var mine [8]interval.Item
	own := mine[:0]
	t.Overlapping(interval.Span{Start: w.lo, End: w.hi}, func(it interval.Item) bool {
		if it.Owner == owner {
			own = append(own, it)
		}
		return true
	})
	for _, it := range own {
		t, _ = t.Remove(it)
	}
	return t
}

// judge decides a booking of shape sh starting at start, for a staff
// member whose free stretches (cut to w, the window of start's local day)
// are free. It is the single judgement behind both Decide and Slots.
//
// Every active piece must lie inside one free stretch, else busy; with
// buffers (decisions §9), the first piece stretched back by its buffer and
// the last stretched on by its own must also lie inside one open stretch
// (time no item occupies, working or not), else busy. With the gap rule on
// (minGap > 0), the free time left next to the booking is then inspected:
// in each stretch the booking uses, the part before its first piece there
// and the part after its last piece there (buffers included) are bounded on
// one side by the booking and on the other by a busy item or a
// working-time edge; each must be empty or at least minGap long, else
// gapped. Free time between two of the booking's own pieces in one stretch
// (the service's processing gap) is not judged.
//
// k is a hint: the index of a stretch at or before the one holding the first
// piece. It only saves work; any valid hint gives the same verdict.
func judge(free, open []interval.Span, w clip, sh *shape, start, minGap int64, k int) verdict {
	cur, prevEnd, bad := -1, int64(0), false
	last := len(sh.acts) - 1
	for i, a := range sh.acts {
		s, e := start+a.off, start+a.end
		for k < len(free) && free[k].End <= s {
			k++
		}
		if k == len(free) || free[k].Start > s || free[k].End < e {
			return busy
		}
		if sh.buffered() {
			if bs, be := sh.occupied(i, start); !within(open, bs, be) {
				return busy
			}
		}
		if k != cur {
			if cur >= 0 {
				bad = bad || short(min(free[cur].End, w.hi)-prevEnd, minGap)
			}
			if i == 0 && sh.pre > 0 {
				// The free time before the preparation, wherever it
				// lies: the buffer may reach out of this stretch.
				bad = bad || short(runBefore(free, w, s-sh.pre), minGap)
			} else {
				bad = bad || short(s-max(free[k].Start, w.lo), minGap)
			}
			cur = k
		}
		prevEnd = e
		if i == last && sh.post > 0 {
			bad = bad || short(runAfter(free, w, e+sh.post), minGap)
			cur = -1 // judged
		}
	}
	if cur >= 0 {
		bad = bad || short(min(free[cur].End, w.hi)-prevEnd, minGap)
	}
	if bad {
		return gapped
	}
	return fits
}

// runBefore is the free time that ends at t: the part before t of the free
// stretch holding the minute before it, cut to w; 0 when there is none.
func runBefore(free []interval.Span, w clip, t int64) int64 {
	i := firstEndingAfter(free, t-1)
	if i == len(free) || free[i].Start >= t {
		return 0
	}
	return t - max(free[i].Start, w.lo)
}

// runAfter is the free time that starts at t: the part after t of the
// free stretch holding t, cut to w; 0 when there is none.
func runAfter(free []interval.Span, w clip, t int64) int64 {
	i := firstEndingAfter(free, t)
	if i == len(free) || free[i].Start > t {
		return 0
	}
	return min(free[i].End, w.hi) - t
}

// firstEndingAfter is the index of the first of the sorted, disjoint
// stretches spans that ends after t.
func firstEndingAfter(spans []interval.Span, t int64) int {
	i, j := 0, len(spans)
	for i < j {
		m := int(uint(i+j) >> 1)
		if spans[m].End <= t {
			i = m + 1
		} else {
			j = m
		}
	}
	return i
}

// within reports whether [s, e) lies inside one of the sorted, disjoint
// stretches open.
func within(open []interval.Span, s, e int64) bool {
	i := firstEndingAfter(open, s)
	return i < len(open) && open[i].Start <= s && e <= open[i].End
}

// appendOpen appends to dst the stretches of hull that neither an item
// of t nor the external busy time ext occupies: where a buffer may lie.
func appendOpen(dst []interval.Span, t, ext interval.Tree, hull interval.Span) []interval.Span {
	from := len(dst)
	t.Free(hull, func(f interval.Span) bool {
		dst = append(dst, f)
		return true
	})
	if ext.Len() == 0 {
		return dst
	}
	var buf [16]interval.Span
	spans := append(buf[:0], dst[from:]...)
	return withoutExternal(dst[:from], spans, ext)
}

// short reports whether the gap rule refuses a free stretch of length n.
func short(n, minGap int64) bool { return n > 0 && n < minGap }
