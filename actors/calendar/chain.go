package calendar

import (
	"time"

	"github.com/slotd/slotd/actors/model"
)

// Chains (decisions §11): the starts at which a basket of services can
// be booked back to back, each item starting where the one before it
// ends (Follows). An item's start is fixed by the first item's, so the
// chain is searched one item at a time: the first item's slots on the
// grid, then each later item at exactly the starts the earlier items
// leave on offer (Query.Starts), each search the ordinary sweep.
//
// The items are judged each against the calendar as it stands, and
// booking them one after the other judges each against the items before
// it too. That changes nothing for two items of different services,
// unless a limit per staff member counts across services: a staff
// member who takes one item is free for the next (its buffer before
// begins where the one before it ends), which can only connect a start
// the gap rule would have refused, never refuse one; the next item's
// room is needed from where the first item's is released; a class
// session of one service is not another's. Coupled says when the
// shortcut does not hold, and the caller then confirms each chain the
// way booking it would.

// ChainSlot is one start of a chain on offer: every item's slot, in the
// items' order, each listing the staff members free for that item.
type ChainSlot struct {
	Items []Slot
}

// Chain appends to out the starts in [q.From, q.To] at which the chain
// of q.Service followed by rest can be booked, and returns it. Each
// item's staff are those Slots lists for that item at its start (q.Only
// narrows every item to one staff member). q.Buffers and q.Needs are
// not for chains: every item is judged with its service's own. The
// answer's items live in q.Scratch, when set, until its next use.
func Chain(q *Query, rest []*model.Service, out []ChainSlot) []ChainSlot {
	sc := q.Scratch
	if sc == nil {
		sc = new(Scratch)
	}
	if sc.chain == nil {
		sc.chain = new(chainScratch)
	}
	cs := sc.chain
	cs.first = Slots(q, cs.first[:0])
	first := cs.first
	if len(first) == 0 {
		return out
	}
	n := 1 + len(rest)
	// items[i*n+k] is item k of candidate i; a candidate dropped by a
	// later item is dropped from every row at the end.
	cs.items = grow(cs.items, len(first)*n)[:len(first)*n]
	cs.alive = grow(cs.alive, len(first))[:len(first)]
	items, alive := cs.items, cs.alive
	for i := range first {
		items[i*n], alive[i] = first[i], true
	}
	for len(cs.rest) < len(rest) {
		cs.rest = append(cs.rest, new(Scratch))
		cs.got = append(cs.got, nil)
	}
	prev, off := q.Service, time.Duration(0)
	starts := grow(cs.starts, len(first))
	for k, svc := range rest {
		off = Follows(prev, time.UnixMilli(0).Add(off), svc).Sub(time.UnixMilli(0))
		prev = svc
		starts = starts[:0]
		for i := range first {
			if alive[i] {
				starts = append(starts, first[i].At+off.Milliseconds())
			}
		}
		if len(starts) == 0 {
			return out
		}
		qk := *q
		qk.Service, qk.Buffers, qk.Needs, qk.Scratch = svc, nil, nil, cs.rest[k]
		qk.Starts, qk.From, qk.To = starts, time.UnixMilli(starts[0]), time.UnixMilli(starts[len(starts)-1])
		cs.got[k] = Slots(&qk, cs.got[k][:0])
		got := cs.got[k]
		j := 0
		for i := range first {
			if !alive[i] {
				continue
			}
			at := first[i].At + off.Milliseconds()
			for j < len(got) && got[j].At < at {
				j++
			}
			if j < len(got) && got[j].At == at {
				items[i*n+k+1] = got[j]
			} else {
				alive[i] = false
			}
		}
	}
	cs.starts = starts
	for i := range first {
		if alive[i] {
			out = append(out, ChainSlot{Items: items[i*n : (i+1)*n : (i+1)*n]})
		}
	}
	return out
}

// chainScratch is the working memory Chain keeps in a Scratch: the first
// item's slots, a Scratch and the slots of each later item, and the
// candidates. The answer's items live in it until its next use.
type chainScratch struct {
	first  []Slot
	rest   []*Scratch
	got    [][]Slot
	items  []Slot
	alive  []bool
	starts []int64
}

// Coupled reports whether the items of a chain of n services can stand
// in each other's way in a way Chain does not see: when a booking limit
// per staff member counts every service (the first item's staff member
// may reach it), or, from three items on, when the gap rule is on (a
// staff member who takes the first and the third item leaves the second
// item's time between them).
func Coupled(biz *model.Business, n int) bool {
	if l := biz.Limits; l != nil && (deref(l.PerStaffPerDay) > 0 || deref(l.PerStaffPerWeek) > 0) {
		return true
	}
	return n >= 3 && gapOf(&biz.Rules) > 0
}
