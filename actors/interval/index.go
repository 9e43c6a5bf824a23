package interval

import (
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
	staff []entry // sorted by id; no entry holds an empty tree
}

type entry struct {
	id   uuid.UUID
	tree Tree
	busy *busyCell // tree's flat copy, once a reader built it (Busy)
}

// find returns the position of staff in x.staff and whether it is there.
func (x Index) find(staff uuid.UUID) (int, bool) {
	return slices.BinarySearchFunc(x.staff, staff, func(e entry, id uuid.UUID) int {
		return compareUUID(e.id, id)
	})
}

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

// with returns x with staff's tree replaced by t, copying the entry slice
// only if the tree actually changed, and dropping staff when t is empty.
func (x Index) with(staff uuid.UUID, t Tree) Index {
	i, ok := x.find(staff)
	switch {
	case ok && x.staff[i].tree.root == t.root:
		return x
	case ok && t.Len() == 0:
		return Index{staff: slices.Delete(slices.Clone(x.staff), i, i+1)}
	case ok:
		y := Index{staff: slices.Clone(x.staff)}
		y.staff[i].tree, y.staff[i].busy = t, new(busyCell)
		return y
	case t.Len() == 0:
		return x
	default:
		s := make([]entry, 0, len(x.staff)+1)
		s = append(s, x.staff[:i]...)
		s = append(s, entry{id: staff, tree: t, busy: new(busyCell)})
		return Index{staff: append(s, x.staff[i:]...)}
	}
}

// Fits reports whether spans can be added to staff's items without creating
// an overlap: no span overlaps an item of staff other than those owned by
// except (uuid.Nil excepts nobody), and no two spans overlap each other, so
// that adding all of them keeps staff's items disjoint. It allocates nothing
// and costs O(m log n + m²) for m spans, m being an appointment's few
// segments.
func (x Index) Fits(staff uuid.UUID, spans []Span, except uuid.UUID) bool {
	t := x.Tree(staff)
	for i, s := range spans {
		if taken(t, s, except) {
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

// Staff calls fn for every staff member holding at least one item, in
// ascending id order, until fn returns false.
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
