package interval

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/google/uuid"
)

// A resource (decisions §10: a room, a chair, a machine) has a quantity
// of units, and bookings take some of them over their spans. Its tree in
// the Index holds the items of the bookings that take it, each with the
// units it takes; unlike a staff member's items they overlap, as long as
// at no instant the units taken exceed the quantity. The Index does not
// know quantities: callers ask Room before they Take, as they ask Fits
// before they Add.
//
// A resource's external busy time (decisions §10: a room under repair,
// §8's endpoints under /resources/{id}) is kept by its id as a staff
// member's is (WithExternal, External), and takes every unit.

// Used returns the items taking units of res; empty for an unused one.
func (x Index) Used(res uuid.UUID) Tree {
	if i, ok := findEntry(x.res, res); ok {
		return x.res[i].tree
	}
	return Tree{}
}

// Take returns x with items, each carrying its units, added to res's tree.
func (x Index) Take(res uuid.UUID, items ...Item) Index {
	t := x.Used(res)
	for _, it := range items {
		t = t.Insert(it)
	}
	y := x.withUsed(res, t)
	verifyUsed(y, res)
	return y
}

// Give returns x with items removed from res's tree; items that are not
// there are ignored.
func (x Index) Give(res uuid.UUID, items ...Item) Index {
	t := x.Used(res)
	for _, it := range items {
		t, _ = t.Remove(it)
	}
	y := x.withUsed(res, t)
	verifyUsed(y, res)
	return y
}

// withUsed returns x with res's tree replaced by t, copying the entry
// slice only when it changes, and dropping res when t is empty.
func (x Index) withUsed(res uuid.UUID, t Tree) Index {
	i, ok := findEntry(x.res, res)
	y := Index{staff: x.staff}
	switch {
	case ok && x.res[i].tree.root == t.root:
		return x
	case ok && t.Len() == 0:
		y.res = slices.Delete(slices.Clone(x.res), i, i+1)
	case ok:
		y.res = slices.Clone(x.res)
		y.res[i].tree, y.res[i].prof = t, new(profileCell)
	case t.Len() == 0:
		return x
	default:
		y.res = slices.Insert(slices.Clone(x.res), i, entry{id: res, tree: t, prof: new(profileCell)})
	}
	return y
}

// Room reports whether units more of res, of which there are quantity,
// can be taken over each of spans: at no instant of a span would the
// units of res's items (those owned by except left out) and units exceed
// quantity. The spans are one booking's, disjoint. It allocates nothing
// while a span meets at most 32 items.
func (x Index) Room(res uuid.UUID, quantity, units int, spans []Span, except uuid.UUID) bool {
	if units > quantity {
		return false
	}
	if ext := x.External(res); ext.Len() > 0 {
		for _, s := range spans {
			if ext.Overlaps(s) {
				return false
			}
		}
	}
	t := x.Used(res)
	if t.Len() == 0 {
		return true
	}
	var buf [64]edge
	for _, s := range spans {
		edges := buf[:0]
		t.Overlapping(s, func(it Item) bool {
			if it.Owner != except {
				edges = append(edges, edge{max(it.Start, s.Start), int(it.Units)}, edge{min(it.End, s.End), -int(it.Units)})
			}
			return true
		})
		if peak(edges)+units > quantity {
			return false
		}
	}
	return true
}

// edge is where an item's units start (+) or stop (-) counting.
type edge struct {
	at    int64
	units int
}

// peak is the most units counting at once over edges. At one instant the
// stops come before the starts: items that only touch never overlap.
func peak(edges []edge) int {
	slices.SortFunc(edges, func(a, b edge) int {
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		return a.units - b.units
	})
	n, most := 0, 0
	for _, e := range edges {
		n += e.units
		most = max(most, n)
	}
	return most
}

// findEntry returns the position of id in es and whether it is there.
func findEntry(es []entry, id uuid.UUID) (int, bool) {
	return slices.BinarySearchFunc(es, id, func(e entry, id uuid.UUID) int { return compareUUID(e.id, id) })
}

// Profile is the units of a resource its items take, as a step function:
// Level[i] units from At[i] until At[i+1] (0 before At[0]). Many starts
// are judged against one resource in a search; a profile answers each in
// O(log n) instead of a search of the tree. Its external busy time is not
// in it: that takes every unit, and Index.External answers it.
type Profile struct {
	At    []int64
	Level []int
}

// noProfile is the profile of an unused resource.
var noProfile Profile

// profileCell holds the profile of one resource entry's tree once a
// reader built it; Index copies share it as long as they share the tree.
type profileCell struct{ p atomic.Pointer[Profile] }

// Profile returns the profile of res's items: built on first use from the
// tree (O(n log n)) and kept for later readers of this version of it, as
// Index.Busy keeps a staff member's flat copy. Safe for concurrent use.
func (x Index) Profile(res uuid.UUID) *Profile {
	i, ok := findEntry(x.res, res)
	if !ok {
		return &noProfile
	}
	e := &x.res[i]
	if p := e.prof.p.Load(); p != nil {
		return p
	}
	p := buildProfile(e.tree)
	e.prof.p.Store(p)
	return p
}

// buildProfile builds a tree's profile. A tree reports its items by
// start, so only the ends need sorting, and they sort as plain integers,
// each end's time and units packed into one (a time in ms fits 41 bits,
// units 7).
func buildProfile(t Tree) *Profile {
	starts := make([]int64, 0, t.Len())
	ends := make([]int64, 0, t.Len())
	t.Overlapping(Span{Start: math.MinInt64 >> 8, End: math.MaxInt64 >> 8}, func(it Item) bool {
		starts = append(starts, it.Start<<7|int64(it.Units))
		ends = append(ends, it.End<<7|int64(it.Units))
		return true
	})
	slices.Sort(ends)
	p := &Profile{At: make([]int64, 0, 2*len(starts)), Level: make([]int, 0, 2*len(starts))}
	n := 0
	step := func(packed int64, sign int) {
		at := packed >> 7
		n += sign * int(packed&127)
		if k := len(p.At); k > 0 && p.At[k-1] == at {
			p.Level[k-1] = n
			return
		}
		p.At, p.Level = append(p.At, at), append(p.Level, n)
	}
	for i, j := 0, 0; i < len(starts) || j < len(ends); {
		// At one instant the ends come first: touching is no overlap.
		if j < len(ends) && (i == len(starts) || ends[j]>>7 <= starts[i]>>7) {
			step(ends[j], -1)
			j++
		} else {
			step(starts[i], 1)
			i++
		}
	}
	return p
}

// Peak is the most units taken at any instant of s.
func (p *Profile) Peak(s Span) int {
	// The last step at or before s.Start, then every step inside s.
	i, _ := slices.BinarySearch(p.At, s.Start+1)
	most := 0
	if i > 0 {
		most = p.Level[i-1]
	}
	for ; i < len(p.At) && p.At[i] < s.End; i++ {
		most = max(most, p.Level[i])
	}
	return most
}
