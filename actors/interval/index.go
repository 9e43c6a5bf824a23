package interval

import (
	"cmp"
	"slices"

	"github.com/google/uuid"
)

// Index maps staff members to the trees of their active segments. Like Tree it
// is a persistent value: Add and Delete return a new Index sharing every tree
// they did not touch, and the receiver stays valid and unchanged. The zero
// Index is empty.
//
// A business has tens of staff, so the map from staff to tree is a sorted
// slice copied on write: copying a few dozen entries is cheaper than a
// persistent map would be, lookups are a binary search without allocation,
// and Staff reports staff members in a stable order.
//
// The Index keeps each staff member's items disjoint only if its callers do:
// Add does not check for overlaps. The contract is to call Fits first and
// Add only the spans it approved (after deleting the items of the appointment
// passed as except, when moving one). Built with the "invariants" tag, Add
// and Delete verify the touched staff member afterwards and panic if two of
// its items overlap or its tree is malformed, so an Add that skipped Fits
// fails loudly in tests instead of double-booking silently in production.
type Index struct {
	staff []entry // sorted by id; no entry holds two empty trees
	// res are the resources' trees (decisions §10), sorted by id, each
	// entry's tree non-empty. Unlike a staff member's, a resource's items
	// overlap: each carries the units it takes, and Room counts them.
	res []entry
}

type entry struct {
	id   uuid.UUID
	tree Tree
	// ext is the staff member's external busy time (decisions §8): the
	// union of what their other calendars hold, merged, so its items are
	// disjoint however those overlap. It is kept apart from tree because
	// it may overlap bookings made before it arrived, which tree never
	// holds; a new booking must fit both (Fits, Busy).
	ext  Tree
	busy *busyCell    // the flat copy of tree and ext, once a reader built it (Busy)
	prof *profileCell // a resource entry's profile, once a reader built it (Profile)
}

// find returns the position of staff in x.staff and whether it is there.
func (x Index) find(staff uuid.UUID) (int, bool) { return findEntry(x.staff, staff) }

// Tree returns the items of staff; the tree is empty for unknown staff.
func (x Index) Tree(staff uuid.UUID) Tree {
	if i, ok := x.find(staff); ok {
		return x.staff[i].tree
	}
	return Tree{}
}

// Add returns x with items added to staff's tree. It does not check for
// overlaps: callers check with Fits first (see the Index documentation).
func (x Index) Add(staff uuid.UUID, items ...Item) Index {
	t := x.Tree(staff)
	for _, it := range items {
		t = t.Insert(it)
	}
	y := x.with(staff, t)
	verify(y, staff)
	return y
}

// Delete returns x with items removed from staff's tree. Items that are not
// there are ignored.
func (x Index) Delete(staff uuid.UUID, items ...Item) Index {
	t := x.Tree(staff)
	for _, it := range items {
		t, _ = t.Remove(it)
	}
	y := x.with(staff, t)
	verify(y, staff)
	return y
}

// with returns x with staff's tree replaced by t.
func (x Index) with(staff uuid.UUID, t Tree) Index {
	return x.set(staff, t, x.External(staff))
}

// set returns x with staff's trees replaced by t and ext, copying the entry
// slice only if a tree actually changed, and dropping staff when both are
// empty.
func (x Index) set(staff uuid.UUID, t, ext Tree) Index {
	i, ok := x.find(staff)
	empty := t.Len() == 0 && ext.Len() == 0
	switch {
	case ok && x.staff[i].tree.root == t.root && x.staff[i].ext.root == ext.root:
		return x
	case ok && empty:
		return Index{staff: slices.Delete(slices.Clone(x.staff), i, i+1), res: x.res}
	case ok:
		y := Index{staff: slices.Clone(x.staff), res: x.res}
		y.staff[i].tree, y.staff[i].ext, y.staff[i].busy = t, ext, new(busyCell)
		return y
	case empty:
		return x
	default:
		s := make([]entry, 0, len(x.staff)+1)
		s = append(s, x.staff[:i]...)
		s = append(s, entry{id: staff, tree: t, ext: ext, busy: new(busyCell)})
		return Index{staff: append(s, x.staff[i:]...), res: x.res}
	}
}

// External returns staff's external busy time: disjoint items, of owner
// uuid.Nil; empty for unknown staff.
func (x Index) External(staff uuid.UUID) Tree {
	if i, ok := x.find(staff); ok {
		return x.staff[i].ext
	}
	return Tree{}
}

// WithExternal returns x with staff's external busy time replaced by the
// union of spans (in any order, overlapping or not).
func (x Index) WithExternal(staff uuid.UUID, spans []Span) Index {
	return x.set(staff, x.Tree(staff), Build(Union(spans)))
}

// Bookings returns x without any external busy time: the index of the
// bookings alone.
func (x Index) Bookings() Index {
	y := x
	for _, e := range x.staff {
		if e.ext.Len() > 0 {
			y = y.set(e.id, e.tree, Tree{})
		}
	}
	return y
}

// Union returns the items covering exactly the time spans cover: sorted,
// disjoint and not touching, empty spans dropped. spans is not modified.
func Union(spans []Span) []Item {
	sorted := make([]Span, 0, len(spans))
	for _, s := range spans {
		if !s.Empty() {
			sorted = append(sorted, s)
		}
	}
	slices.SortFunc(sorted, func(a, b Span) int { return cmp.Compare(a.Start, b.Start) })
	var out []Item
	for _, s := range sorted {
		if n := len(out); n > 0 && s.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, Item{Span: s})
	}
	return out
}

// Fits reports whether spans can be added to staff's items without creating
// an overlap: no span overlaps an item of staff other than those owned by
// except (uuid.Nil excepts nobody), and no two spans overlap each other, so
// that adding all of them keeps staff's items disjoint. It allocates nothing
// and costs O(m log n + m²) for m spans, m being an appointment's few
// segments.
//
// External busy time counts like an item no one is excepted from: a
// booking never goes over it (decisions §8).
func (x Index) Fits(staff uuid.UUID, spans []Span, except uuid.UUID) bool {
	t, ext := x.Tree(staff), x.External(staff)
	for i, s := range spans {
		if taken(t, s, except) || ext.Overlaps(s) {
			return false
		}
		for _, o := range spans[:i] {
			if s.Overlaps(o) {
				return false
			}
		}
	}
	return true
}

// taken reports whether an item of t not owned by except overlaps s.
// Excepting nobody takes the cheaper O(log n) search.
func taken(t Tree, s Span, except uuid.UUID) bool {
	if except == uuid.Nil {
		return t.Overlaps(s)
	}
	return t.OverlapsExcept(s, except)
}

// Staff calls fn for every staff member holding at least one item or some
// external busy time, in ascending id order, until fn returns false.
func (x Index) Staff(fn func(uuid.UUID, Tree) bool) {
	for _, e := range x.staff {
		if !fn(e.id, e.tree) {
			return
		}
	}
}

// Overlaps finds two overlapping items of one staff member, if there are any.
// The actor never creates such a pair; this is the check that proves it.
func (x Index) Overlaps() (a, b Item, staff uuid.UUID, found bool) {
	for _, e := range x.staff {
		if a, b, found = firstOverlap(e.tree); found {
			return a, b, e.id, true
		}
	}
	return Item{}, Item{}, uuid.Nil, false
}

// firstOverlap sweeps t in order, remembering the item reaching furthest so
// far: an item starting before that reach overlaps it, and if no item does,
// no two items overlap.
func firstOverlap(t Tree) (a, b Item, found bool) {
	var reach Item
	seen := false
	t.All(func(it Item) bool {
		if seen && it.Start < reach.End {
			a, b, found = reach, it, true
			return false
		}
		if !seen || it.End > reach.End {
			reach, seen = it, true
		}
		return true
	})
	return a, b, found
}

// AddSorted returns x with items added to staff's tree, as Add does; items
// must be sorted in tree order (by Start, Owner, Seg). Into a staff
// member's empty tree they go in one pass (Build), O(n) instead of a path
// copy per item: loading a business builds every tree from scratch.
func (x Index) AddSorted(staff uuid.UUID, items []Item) Index {
	if x.Tree(staff).Len() > 0 {
		return x.Add(staff, items...)
	}
	y := x.with(staff, Build(items))
	verify(y, staff)
	return y
}
