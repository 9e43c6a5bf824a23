package interval

// This file holds the path-copying treap updates. Every function here that
// returns a node it changed returns a fresh copy; the only nodes ever written
// to are ones allocated during the current update and not yet reachable from
// any Tree, which is what keeps published trees immutable.

// above reports whether a belongs above b in the heap order of priorities.
// Ties, which a 64-bit hash makes rare, fall back to the item order, so the
// order is total and the shape of a tree is a function of its items alone.
func above(a, b *node) bool {
	if pa, pb := priority(a.item), priority(b.item); pa != pb {
		return pa > pb
	}
	return compare(a.item, b.item) < 0
}

func leaf(it Item) *node {
	return &node{item: it, maxEnd: it.End}
}

// with returns a copy of n with the given children.
func (n *node) with(left, right *node) *node {
	c := &node{item: n.item, left: left, right: right}
	c.fix()
	return c
}

// fix recomputes the augmentation of a fresh node from its children.
func (n *node) fix() {
	n.maxEnd = n.item.End
	if n.left != nil && n.left.maxEnd > n.maxEnd {
		n.maxEnd = n.left.maxEnd
	}
	if n.right != nil && n.right.maxEnd > n.maxEnd {
		n.maxEnd = n.right.maxEnd
	}
}

// insert returns the subtree n with it added and whether it was absent. When
// it was added, the returned root is fresh, so the caller may still rotate it.
func insert(n *node, it Item) (*node, bool) {
	if n == nil {
		return leaf(it), true
	}
	c := compare(it, n.item)
	switch {
	case c < 0:
		l, added := insert(n.left, it)
		if !added {
			return n, false
		}
		m := n.with(l, n.right)
		if above(l, m) {
			return rotateRight(m), true
		}
		return m, true
	case c > 0:
		r, added := insert(n.right, it)
		if !added {
			return n, false
		}
		m := n.with(n.left, r)
		if above(r, m) {
			return rotateLeft(m), true
		}
		return m, true
	default:
		return n, false
	}
}

// rotateRight lifts n's left child above n. Both nodes must be fresh.
func rotateRight(n *node) *node {
	l := n.left
	n.left = l.right
	n.fix()
	l.right = n
	l.fix()
	return l
}

// rotateLeft lifts n's right child above n. Both nodes must be fresh.
func rotateLeft(n *node) *node {
	r := n.right
	n.right = r.left
	n.fix()
	r.left = n
	r.fix()
	return r
}

// remove returns the subtree n without it and whether it was present.
func remove(n *node, it Item) (*node, bool) {
	if n == nil {
		return nil, false
	}
	switch c := compare(it, n.item); {
	case c < 0:
		l, removed := remove(n.left, it)
		if !removed {
			return n, false
		}
		return n.with(l, n.right), true
	case c > 0:
		r, removed := remove(n.right, it)
		if !removed {
			return n, false
		}
		return n.with(n.left, r), true
	default:
		return merge(n.left, n.right), true
	}
}

// merge joins two treaps where every item of a precedes every item of b,
// copying only the right spine of a and the left spine of b.
func merge(a, b *node) *node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case above(a, b):
		return a.with(a.left, merge(a.right, b))
	default:
		return b.with(merge(a, b.left), b.right)
	}
}
