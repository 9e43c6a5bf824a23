// Package sorted owns a persistent (immutable) sorted map: every update
// returns a new Map in O(log n) time and allocations, sharing all untouched
// nodes with the old one, and old Maps stay valid forever.
//
// A business actor publishes its state to readers on other goroutines
// through an atomic pointer. Copying a plain Go map of thousands of
// appointments on every booking would cost more than the booking itself;
// a persistent map makes publishing a new version cost a handful of nodes,
// and readers need no locks because nothing they hold ever changes.
//
// The map is a treap: a binary search tree on keys that is also a heap on
// random priorities, which keeps it balanced in expectation with simple
// path-copying updates.
package sorted

import "math/rand/v2"

// Map is a persistent sorted map. The zero Map is unusable: use New.
type Map[K, V any] struct {
	root *node[K, V]
	cmp  func(a, b K) int
	n    int
}

type node[K, V any] struct {
	k    K
	v    V
	prio uint64
	l, r *node[K, V]
}

// New returns an empty map ordered by cmp.
func New[K, V any](cmp func(a, b K) int) Map[K, V] { return Map[K, V]{cmp: cmp} }

// Len returns the number of entries.
func (m Map[K, V]) Len() int { return m.n }

// Get returns the value of k.
func (m Map[K, V]) Get(k K) (V, bool) {
	for n := m.root; n != nil; {
		switch c := m.cmp(k, n.k); {
		case c < 0:
			n = n.l
		case c > 0:
			n = n.r
		default:
			return n.v, true
		}
	}
	var zero V
	return zero, false
}

// Set returns a map with k set to v.
func (m Map[K, V]) Set(k K, v V) Map[K, V] {
	root, added := m.insert(m.root, k, v, rand.Uint64())
	m.root = root
	if added {
		m.n++
	}
	return m
}

// insert returns a copy of the subtree n with k set. Nodes it returns are
// fresh, so it may rotate them in place.
func (m Map[K, V]) insert(n *node[K, V], k K, v V, prio uint64) (*node[K, V], bool) {
	if n == nil {
		return &node[K, V]{k: k, v: v, prio: prio}, true
	}
	cp := *n
	c := m.cmp(k, n.k)
	if c == 0 {
		cp.v = v
		return &cp, false
	}
	var added bool
	if c < 0 {
		cp.l, added = m.insert(n.l, k, v, prio)
		if cp.l.prio > cp.prio {
			l := cp.l
			cp.l, l.r = l.r, &cp
			return l, added
		}
		return &cp, added
	}
	cp.r, added = m.insert(n.r, k, v, prio)
	if cp.r.prio > cp.prio {
		r := cp.r
		cp.r, r.l = r.l, &cp
		return r, added
	}
	return &cp, added
}

// Delete returns a map without k.
func (m Map[K, V]) Delete(k K) Map[K, V] {
	root, ok := m.remove(m.root, k)
	if ok {
		m.root = root
		m.n--
	}
	return m
}

func (m Map[K, V]) remove(n *node[K, V], k K) (*node[K, V], bool) {
	if n == nil {
		return nil, false
	}
	c := m.cmp(k, n.k)
	if c == 0 {
		return merge(n.l, n.r), true
	}
	cp := *n
	var ok bool
	if c < 0 {
		cp.l, ok = m.remove(n.l, k)
	} else {
		cp.r, ok = m.remove(n.r, k)
	}
	if !ok {
		return n, false
	}
	return &cp, true
}

// merge joins two treaps whose keys are all ordered a < b.
func merge[K, V any](a, b *node[K, V]) *node[K, V] {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		cp := *a
		cp.r = merge(a.r, b)
		return &cp
	}
	cp := *b
	cp.l = merge(a, b.l)
	return &cp
}

// Ascend calls fn for the entries with keys >= from (all when from is nil)
// in ascending order until fn returns false.
func (m Map[K, V]) Ascend(from *K, fn func(K, V) bool) { m.ascend(m.root, from, fn) }

func (m Map[K, V]) ascend(n *node[K, V], from *K, fn func(K, V) bool) bool {
	if n == nil {
		return true
	}
	if from != nil && m.cmp(n.k, *from) < 0 {
		return m.ascend(n.r, from, fn)
	}
	return m.ascend(n.l, from, fn) && fn(n.k, n.v) && m.ascend(n.r, from, fn)
}

// Descend calls fn for the entries with keys < below (all when below is
// nil) in descending order until fn returns false.
func (m Map[K, V]) Descend(below *K, fn func(K, V) bool) { m.descend(m.root, below, fn) }

func (m Map[K, V]) descend(n *node[K, V], below *K, fn func(K, V) bool) bool {
	if n == nil {
		return true
	}
	if below != nil && m.cmp(n.k, *below) >= 0 {
		return m.descend(n.l, below, fn)
	}
	return m.descend(n.r, below, fn) && fn(n.k, n.v) && m.descend(n.l, below, fn)
}
