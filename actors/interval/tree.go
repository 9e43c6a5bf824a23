package interval

import "github.com/google/uuid"

// Tree is a persistent interval tree of items, ordered by (Start, Owner, Seg)
// and augmented with the largest End of each subtree. The zero Tree is empty.
//
// A Tree is an immutable value: Insert and Remove return a new Tree and leave
// the receiver, and every other Tree sharing its nodes, unchanged. Trees may
// therefore be read from any number of goroutines without synchronisation.
//
// Items with an empty span occupy no time and are never stored.
type Tree struct {
	root *node
	n    int
}

// node is one tree node. Once a node is reachable from a Tree returned to a
// caller it is never modified again; updates copy the nodes on their path.
type node struct {
	item        Item
	maxEnd      int64 // largest item.End in this subtree
	left, right *node
	// The priority, priority(item), is computed when needed rather than
	// kept: without it a node is 64 bytes instead of 80, and a business
	// holds one node per active segment of every appointment.
}

// Len returns the number of items in t.
func (t Tree) Len() int { return t.n }

// Insert returns t with it added. Inserting an item already present, or an
// item with an empty span, returns t unchanged. Overlapping items are
// accepted; callers that must keep a staff member's time disjoint check with
// Overlaps or Index.Fits first.
func (t Tree) Insert(it Item) Tree {
	if it.Empty() {
		return t
	}
	root, added := insert(t.root, it)
	if !added {
		return t
	}
	return Tree{root: root, n: t.n + 1}
}

// Remove returns t without it, and whether it was present. Only an item equal
// in Span, Owner and Seg matches.
func (t Tree) Remove(it Item) (Tree, bool) {
	if it.Empty() {
		return t, false
	}
	root, removed := remove(t.root, it)
	if !removed {
		return t, false
	}
	return Tree{root: root, n: t.n - 1}, true
}

// Contains reports whether t holds it.
func (t Tree) Contains(it Item) bool {
	for n := t.root; n != nil; {
		switch c := compare(it, n.item); {
		case c < 0:
			n = n.left
		case c > 0:
			n = n.right
		default:
			return true
		}
	}
	return false
}

// Overlaps reports whether any item overlaps s, in O(log n).
func (t Tree) Overlaps(s Span) bool {
	if s.Empty() {
		return false
	}
	n := t.root
	for n != nil && n.maxEnd > s.Start {
		if n.item.Start >= s.End {
			n = n.left // everything to the right starts even later
			continue
		}
		if n.item.End > s.Start {
			return true
		}
		// If the left subtree reaches past s.Start but holds no overlap, the
		// item reaching past s.Start starts at or after s.End, and so does
		// everything to its right: the right subtree cannot overlap either.
		if n.left != nil && n.left.maxEnd > s.Start {
			n = n.left
		} else {
			n = n.right
		}
	}
	return false
}

// OverlapsExcept reports whether any item not owned by owner overlaps s. It is
// the check for moving an appointment onto time it already holds. It costs
// O(log n + k), k being the number of owner's items overlapping s.
func (t Tree) OverlapsExcept(s Span, owner uuid.UUID) bool {
	if s.Empty() {
		return false
	}
	return overlapsExcept(t.root, s, owner)
}

func overlapsExcept(n *node, s Span, owner uuid.UUID) bool {
	if n == nil || n.maxEnd <= s.Start {
		return false
	}
	if overlapsExcept(n.left, s, owner) {
		return true
	}
	if n.item.Start >= s.End {
		return false
	}
	if n.item.End > s.Start && n.item.Owner != owner {
		return true
	}
	return overlapsExcept(n.right, s, owner)
}

// Overlapping calls fn for each item overlapping s, in (Start, Owner, Seg)
// order, until fn returns false. It costs O(log n + k) for k items reported
// while the items are disjoint (see the package documentation).
func (t Tree) Overlapping(s Span, fn func(Item) bool) {
	if s.Empty() {
		return
	}
	overlapping(t.root, s, fn)
}

// overlapping walks the subtree of n in order, skipping subtrees that end
// before s, and returns false once fn stops it or the walk passes s.End.
func overlapping(n *node, s Span, fn func(Item) bool) bool {
	if n == nil || n.maxEnd <= s.Start {
		return true
	}
	if !overlapping(n.left, s, fn) {
		return false
	}
	if n.item.Start >= s.End {
		return false
	}
	if n.item.End > s.Start && !fn(n.item) {
		return false
	}
	return overlapping(n.right, s, fn)
}

// Free calls fn, in order, for each maximal sub-span of window that no item
// covers, until fn returns false. The spans reported are never empty; an
// empty window reports nothing and a window over an empty tree reports
// itself. Like Overlapping, it costs O(log n + k) while items are disjoint.
func (t Tree) Free(window Span, fn func(Span) bool) {
	if window.Empty() {
		return
	}
	w := freeWalk{window: window, cursor: window.Start, fn: fn}
	w.walk(t.root)
	if !w.stopped && w.cursor < window.End {
		fn(Span{Start: w.cursor, End: window.End})
	}
}

// freeWalk sweeps a cursor through window: everything before the cursor is
// either reported free or known to be covered.
type freeWalk struct {
	window  Span
	cursor  int64
	fn      func(Span) bool
	stopped bool // fn returned false
}

// walk visits the subtree of n in order and reports whether the sweep should
// go on: it stops when fn does, when the cursor reaches the window's end, or
// when items start at or after the window's end.
func (w *freeWalk) walk(n *node) bool {
	if n == nil || n.maxEnd <= w.cursor {
		return true // nothing here reaches past what is already swept
	}
	if !w.walk(n.left) {
		return false
	}
	if n.item.Start >= w.window.End {
		return false
	}
	if !w.visit(n.item.Span) {
		return false
	}
	return w.walk(n.right)
}

// visit advances the cursor over one covered span, reporting the gap before
// it if there is one.
func (w *freeWalk) visit(s Span) bool {
	if s.End <= w.cursor {
		return true
	}
	if s.Start > w.cursor && !w.fn(Span{Start: w.cursor, End: s.Start}) {
		w.stopped = true
		return false
	}
	w.cursor = s.End
	return w.cursor < w.window.End
}

// All calls fn for every item in (Start, Owner, Seg) order until fn returns
// false.
func (t Tree) All(fn func(Item) bool) {
	all(t.root, fn)
}

func all(n *node, fn func(Item) bool) bool {
	if n == nil {
		return true
	}
	return all(n.left, fn) && fn(n.item) && all(n.right, fn)
}

// Build returns the tree of items, which must be sorted in tree order (by
// Start, Owner, Seg): the same tree inserting them one by one makes (a
// treap's shape is a function of its items), built in O(n) as a Cartesian
// tree over the right spine. Empty items and repeats are left out, as
// Insert leaves them out.
func Build(items []Item) Tree {
	var spine []*node // the right spine, root first
	n := 0
	var prev *Item
	for i := range items {
		it := items[i]
		if it.Empty() || prev != nil && compare(*prev, it) == 0 {
			continue
		}
		if prev != nil && compare(*prev, it) > 0 {
			panic("interval: Build needs items in tree order")
		}
		prev = &items[i]
		nd := leaf(it)
		var last *node
		for len(spine) > 0 && above(nd, spine[len(spine)-1]) {
			last = spine[len(spine)-1]
			spine = spine[:len(spine)-1]
		}
		nd.left = last
		if len(spine) > 0 {
			spine[len(spine)-1].right = nd
		}
		spine = append(spine, nd)
		n++
	}
	if n == 0 {
		return Tree{}
	}
	fixAll(spine[0])
	return Tree{root: spine[0], n: n}
}

// fixAll recomputes the augmentation of a fresh subtree, children first.
func fixAll(n *node) {
	if n == nil {
		return
	}
	fixAll(n.left)
	fixAll(n.right)
	n.fix()
}
