package interval

import (
	"slices"

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
		y.res[i].tree = t
	case t.Len() == 0:
		return x
	default:
		y.res = slices.Insert(slices.Clone(x.res), i, entry{id: res, tree: t})
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
