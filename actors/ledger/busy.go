package ledger

import (
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// External busy time (decisions §8): per staff member, per source, the
// intervals an integrator pushed (or an ICS calendar gave), sorted by
// start. Their union is the staff member's external time in the interval
// index (Index.WithExternal), which every booking decision and
// availability answer reads; the intervals themselves, with their ids and
// titles, answer the list and name the source that blocks a start.
//
// The maps are copied on write: a state is immutable, and a write replaces
// one source of one staff member.
type busyBook map[uuid.UUID]map[string][]model.BusyTime

var errNoStaffHere = problem.New(problem.NotFound, "No such resource for this business.")

// BusyPut is a validated PUT /staff/{id}/busy-times/{source} or
// /resources/{id}/busy-times/{source} (decisions §10): the intervals of
// the source within [From, To) become Busy. Staff is the id of the staff
// member or the resource; the two never share an id.
type BusyPut struct {
	Staff    uuid.UUID
	Source   string
	From, To time.Time
	Busy     []model.BusyTime // inside [From, To); Source is set from the put
}

// DecideBusyPut replaces the source's intervals that intersect the window
// with the put's. Bookings already there are left alone.
func DecideBusyPut(s *State, in *BusyPut, now time.Time) (*record.Change, error) {
	if !s.busyOwner(in.Staff) {
		return nil, errNoStaffHere
	}
	return &record.Change{At: now, Busy: []record.BusyChange{{Staff: in.Staff, Source: in.Source, From: in.From, To: in.To,
		Intervals: sourced(in.Busy, in.Source)}}}, nil
}

// sourced is a copy of busy with each interval's Source set to source.
func sourced(busy []model.BusyTime, source string) []model.BusyTime {
	out := make([]model.BusyTime, len(busy))
	for i, b := range busy {
		b.Source = source
		out[i] = b
	}
	return out
}

// DecideBusyClear drops a source of a staff member whole; nil when it has
// nothing.
func DecideBusyClear(s *State, staff uuid.UUID, source string, now time.Time) (*record.Change, error) {
	if !s.busyOwner(staff) {
		return nil, errNoStaffHere
	}
	if len(s.busy[staff][source]) == 0 {
		return nil, nil
	}
	return &record.Change{At: now, Busy: []record.BusyChange{{Staff: staff, Source: source, Clear: true}}}, nil
}

// busyOwner reports whether id may have busy time: a staff member's or a
// resource's (decisions §10).
func (s *State) busyOwner(id uuid.UUID) bool {
	return s.StaffMember(id) != nil || s.Resource(id) != nil
}

// applyBusy returns b with the busy changes made, and the index's external
// time of each staff member they touch rebuilt from all its sources.
func (b book) applyBusy(cs []record.BusyChange) book {
	if len(cs) == 0 {
		return b
	}
	busy := maps.Clone(b.busy)
	if busy == nil {
		busy = busyBook{}
	}
	touched := map[uuid.UUID]bool{}
	for _, c := range cs {
		sources := maps.Clone(busy[c.Staff])
		if sources == nil {
			sources = map[string][]model.BusyTime{}
		}
		if next := replaceBusy(sources[c.Source], &c); len(next) > 0 {
			sources[c.Source] = next
		} else {
			delete(sources, c.Source)
		}
		if len(sources) > 0 {
			busy[c.Staff] = sources
		} else {
			delete(busy, c.Staff)
		}
		touched[c.Staff] = true
	}
	b.busy = busy
	for staff := range touched {
		var spans []interval.Span
		for _, list := range busy[staff] {
			for _, x := range list {
				spans = append(spans, interval.Span{Start: x.Start.UnixMilli(), End: x.End.UnixMilli()})
			}
		}
		b.index = b.index.WithExternal(staff, spans)
	}
	return b
}

// replaceBusy is old with c applied: cleared, replaced whole (a zero
// window), or with the intervals intersecting c's window replaced.
func replaceBusy(old []model.BusyTime, c *record.BusyChange) []model.BusyTime {
	switch {
	case c.Clear:
		return nil
	case c.From.IsZero() && c.To.IsZero():
		return sortBusy(slices.Clone(c.Intervals))
	}
	out := make([]model.BusyTime, 0, len(old)+len(c.Intervals))
	for _, x := range old {
		if !(x.Start.Before(c.To) && x.End.After(c.From)) {
			out = append(out, x)
		}
	}
	return sortBusy(append(out, c.Intervals...))
}

func sortBusy(xs []model.BusyTime) []model.BusyTime {
	slices.SortFunc(xs, func(a, b model.BusyTime) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return a.End.Compare(b.End)
	})
	return xs
}

// BusyTimes returns the busy time of staff member staff that intersects
// [from, to), of source only when it is not "", sorted by start (then
// source).
func (s *State) BusyTimes(staff uuid.UUID, from, to time.Time, source string) []model.BusyTime {
	var out []model.BusyTime
	for name, list := range s.busy[staff] {
		if source != "" && name != source {
			continue
		}
		// Sorted by start only, and a source's intervals may overlap: any
		// earlier one may still reach from, so the walk starts at the
		// first (a list, a refusal's explanation: not a hot path).
		i := 0
		for ; i < len(list) && list[i].Start.Before(to); i++ {
			if list[i].End.After(from) {
				out = append(out, list[i])
			}
		}
	}
	slices.SortFunc(out, func(a, b model.BusyTime) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		if a.Source != b.Source {
			if a.Source < b.Source {
				return -1
			}
			return 1
		}
		return a.End.Compare(b.End)
	})
	return out
}

// busySnapshot is every staff member's busy time as snapshot changes:
// each source whole.
func (s *State) busySnapshot() []record.BusyChange {
	var out []record.BusyChange
	for _, staff := range slices.SortedFunc(maps.Keys(s.busy), compareID) {
		sources := s.busy[staff]
		for _, name := range slices.Sorted(maps.Keys(sources)) {
			out = append(out, record.BusyChange{Staff: staff, Source: name, Intervals: sources[name]})
		}
	}
	return out
}

// BusyBlocking returns the first busy interval of staff member staff that
// overlaps one of spans (Unix ms), for explaining a refusal (decisions
// §8: busySource); false when none does.
func (s *State) BusyBlocking(staff uuid.UUID, spans []interval.Span) (model.BusyTime, bool) {
	var best model.BusyTime
	found := false
	for _, sp := range spans {
		// BusyTimes is by start: its first is the earliest under sp.
		under := s.BusyTimes(staff, time.UnixMilli(sp.Start), time.UnixMilli(sp.End), "")
		if len(under) > 0 && (!found || under[0].Start.Before(best.Start)) {
			best, found = under[0], true
		}
	}
	return best, found
}

// PutBusyTime replaces a staff member's busy time of one source within a
// window (PUT /staff/{id}/busy-times/{source}); the answer is the write's
// time.
type PutBusyTime struct{ In BusyPut }

func (o PutBusyTime) Decide(s *State, now time.Time, _ IDs) (*record.Change, time.Time, error) {
	ch, err := DecideBusyPut(s, &o.In, now)
	return ch, now, err
}

// ClearBusyTime drops a staff member's busy time of one source
// (DELETE /staff/{id}/busy-times/{source}).
type ClearBusyTime struct {
	Staff  uuid.UUID
	Source string
}

func (o ClearBusyTime) Decide(s *State, now time.Time, _ IDs) (*record.Change, Done, error) {
	ch, err := DecideBusyClear(s, o.Staff, o.Source, now)
	return ch, Done{}, err
}
