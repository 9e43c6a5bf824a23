// Package sorted owns a persistent (immutable) sorted map: every update
// returns a new Map in O(log n) time, sharing all untouched nodes with the
// old one, and old Maps stay valid forever.
//
// A business actor publishes its state to readers on other goroutines
// through an atomic pointer. Copying a plain Go map of thousands of
// appointments on every booking would cost more than the booking itself;
// a persistent map makes publishing a new version cost a handful of nodes,
// and readers need no locks because nothing they hold ever changes.
//
// # Why a B+tree with wide nodes
//
// The map holds millions of small entries (every appointment of every
// business, twice), so its memory per entry decides how many appointments a
// node holds. A binary tree pays a node per entry: two child pointers, a
// priority and the allocation's own rounding, 40–60 bytes on top of the
// entry, and the garbage collector marks one object per entry. A B+tree
// stores up to maxEntries entries inline in one leaf, so the overhead per
// entry is a few bytes and the collector marks one object per leaf. The
// price is on writes: an update copies the whole leaf and every inner node
// on its path (a few KiB), which is cheap next to a journal sync and
// garbage at once.
//
// Leaves split in half, except the rightmost leaf of the tree, which splits
// off only the new entry: keys written in ascending order (a world loaded in
// order, ids minted in time order) then fill every leaf. Deletion removes an
// emptied node and merges a node that fell below a quarter full into a
// neighbour when the two fit in one, so every leaf stays at the same depth.
package sorted

import "slices"

const (
	maxEntries = 32             // entries per leaf
	maxKids    = 32             // children per inner node
	minFill    = maxEntries / 4 // a node below this merges into a neighbour that has room
)

// Map is a persistent sorted map. The zero Map is unusable: use New.
type Map[K, V any] struct {
	root *node[K, V]
	cmp  func(a, b K) int
	n    int
}

type entry[K, V any] struct {
	k K
	v V
}

// node is a leaf (kids == nil: ents holds the entries in key order) or an
// inner node (kids[i] holds the keys in [keys[i-1], keys[i]); len(keys) is
// len(kids)-1). Once reachable from a Map a node is never written again.
type node[K, V any] struct {
	ents []entry[K, V]
	keys []K
	kids []*node[K, V]
}

func (n *node[K, V]) leaf() bool { return n.kids == nil }

func (n *node[K, V]) size() int {
	if n.leaf() {
		return len(n.ents)
	}
	return len(n.kids)
}

// New returns an empty map ordered by cmp.
func New[K, V any](cmp func(a, b K) int) Map[K, V] { return Map[K, V]{cmp: cmp} }

// Len returns the number of entries.
func (m Map[K, V]) Len() int { return m.n }

// child returns the index of the child of inner node n whose range holds k.
func (m Map[K, V]) child(n *node[K, V], k K) int {
	lo, hi := 0, len(n.keys)
	for lo < hi { // the number of separators <= k
		h := int(uint(lo+hi) >> 1)
		if m.cmp(n.keys[h], k) <= 0 {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// search returns the position of k in leaf n, or where it would go.
func (m Map[K, V]) search(n *node[K, V], k K) (int, bool) {
	return slices.BinarySearchFunc(n.ents, k, func(e entry[K, V], k K) int { return m.cmp(e.k, k) })
}

// Get returns the value of k.
func (m Map[K, V]) Get(k K) (V, bool) {
	n := m.root
	if n == nil {
		var zero V
		return zero, false
	}
	for !n.leaf() {
		n = n.kids[m.child(n, k)]
	}
	if i, ok := m.search(n, k); ok {
		return n.ents[i].v, true
	}
	var zero V
	return zero, false
}

// Set returns a map with k set to v.
func (m Map[K, V]) Set(k K, v V) Map[K, V] {
	m, _, _ = m.Swap(k, v)
	return m
}

// Swap returns a map with k set to v, and the value k had and whether
// it had one: Get and Set in one walk down the tree.
func (m Map[K, V]) Swap(k K, v V) (_ Map[K, V], old V, had bool) {
	if m.root == nil {
		m.root = &node[K, V]{ents: []entry[K, V]{{k, v}}}
		m.n = 1
		return m, old, false
	}
	left, right, sep, added := m.insert(m.root, k, v, true, &old)
	if right != nil {
		left = &node[K, V]{keys: []K{sep}, kids: []*node[K, V]{left, right}}
	}
	m.root = left
	if added {
		m.n++
	}
	return m, old, !added
}

// insert returns a copy of n with k set; when the copy overflowed, it comes
// back as two nodes and the smallest key of the right one. rightmost says n
// is the last node of its level. A value k had is stored in *old.
func (m Map[K, V]) insert(n *node[K, V], k K, v V, rightmost bool, old *V) (left, right *node[K, V], sep K, added bool) {
	if n.leaf() {
		i, found := m.search(n, k)
		if found {
			*old = n.ents[i].v
			ents := slices.Clone(n.ents)
			ents[i].v = v
			return &node[K, V]{ents: ents}, nil, sep, false
		}
		ents := make([]entry[K, V], len(n.ents)+1)
		copy(ents, n.ents[:i])
		ents[i] = entry[K, V]{k, v}
		copy(ents[i+1:], n.ents[i:])
		if len(ents) <= maxEntries {
			return &node[K, V]{ents: ents}, nil, sep, true
		}
		h := splitAt(len(ents), i, rightmost)
		// Both halves get arrays of their own exact size: the one
		// allocated above has room for one entry too many, which for small
		// entries crosses into the next size class.
		l, r := &node[K, V]{ents: slices.Clone(ents[:h])}, &node[K, V]{ents: slices.Clone(ents[h:])}
		return l, r, r.ents[0].k, true
	}
	i := m.child(n, k)
	nl, nr, s, added := m.insert(n.kids[i], k, v, rightmost && i == len(n.kids)-1, old)
	if nr == nil {
		kids := slices.Clone(n.kids)
		kids[i] = nl
		return &node[K, V]{keys: n.keys, kids: kids}, nil, sep, added
	}
	kids := slices.Insert(slices.Clone(n.kids), i+1, nr)
	kids[i] = nl
	keys := slices.Insert(slices.Clone(n.keys), i, s)
	if len(kids) <= maxKids {
		return &node[K, V]{keys: keys, kids: kids}, nil, sep, added
	}
	h := splitAt(len(kids), i+1, rightmost)
	l := &node[K, V]{keys: keys[: h-1 : h-1], kids: kids[:h:h]}
	r := &node[K, V]{keys: slices.Clone(keys[h:]), kids: slices.Clone(kids[h:])}
	return l, r, keys[h-1], added
}

// splitAt is where an overflowing node of n items splits, the new item at
// i: in half, or, at the end of the last node of a level, just before the
// new item, so that ascending inserts leave full nodes behind.
func splitAt(n, i int, rightmost bool) int {
	if rightmost && i == n-1 {
		return n - 1
	}
	return n / 2
}

// Delete returns a map without k.
func (m Map[K, V]) Delete(k K) Map[K, V] {
	if m.root == nil {
		return m
	}
	root, ok := m.remove(m.root, k)
	if !ok {
		return m
	}
	for root != nil && !root.leaf() && len(root.kids) == 1 {
		root = root.kids[0]
	}
	m.root = root
	m.n--
	return m
}

// remove returns a copy of n without k (nil when that leaves it empty), and
// whether k was there.
func (m Map[K, V]) remove(n *node[K, V], k K) (*node[K, V], bool) {
	if n.leaf() {
		i, found := m.search(n, k)
		if !found {
			return n, false
		}
		if len(n.ents) == 1 {
			return nil, true
		}
		return &node[K, V]{ents: slices.Delete(slices.Clone(n.ents), i, i+1)}, true
	}
	i := m.child(n, k)
	c, ok := m.remove(n.kids[i], k)
	if !ok {
		return n, false
	}
	kids, keys := slices.Clone(n.kids), slices.Clone(n.keys)
	if c == nil {
		if len(kids) == 1 {
			return nil, true
		}
		kids = slices.Delete(kids, i, i+1)
		keys = slices.Delete(keys, max(i-1, 0), max(i, 1))
		return &node[K, V]{keys: keys, kids: kids}, true
	}
	kids[i] = c
	if c.size() < minFill && len(kids) > 1 {
		j := i + 1 // merge kids[j-1] and kids[j]
		if j == len(kids) || (i > 0 && kids[i-1].size() < kids[j].size()) {
			j = i
		}
		if merged := merge(kids[j-1], kids[j], keys[j-1]); merged != nil {
			kids[j-1] = merged
			kids = slices.Delete(kids, j, j+1)
			keys = slices.Delete(keys, j-1, j)
		}
	}
	return &node[K, V]{keys: keys, kids: kids}, true
}

// merge returns one node holding neighbours a and b (sep the separator
// between them), or nil when they do not fit in one.
func merge[K, V any](a, b *node[K, V], sep K) *node[K, V] {
	if a.leaf() {
		if len(a.ents)+len(b.ents) > maxEntries {
			return nil
		}
		return &node[K, V]{ents: slices.Concat(a.ents, b.ents)}
	}
	if len(a.kids)+len(b.kids) > maxKids {
		return nil
	}
	keys := make([]K, 0, len(a.keys)+1+len(b.keys))
	keys = append(append(append(keys, a.keys...), sep), b.keys...)
	return &node[K, V]{keys: keys, kids: slices.Concat(a.kids, b.kids)}
}

// Ascend calls fn for the entries with keys >= from (all when from is nil)
// in ascending order until fn returns false.
func (m Map[K, V]) Ascend(from *K, fn func(K, V) bool) {
	if m.root != nil {
		m.ascend(m.root, from, fn)
	}
}

func (m Map[K, V]) ascend(n *node[K, V], from *K, fn func(K, V) bool) bool {
	if n.leaf() {
		i := 0
		if from != nil {
			i, _ = m.search(n, *from)
		}
		for ; i < len(n.ents); i++ {
			if !fn(n.ents[i].k, n.ents[i].v) {
				return false
			}
		}
		return true
	}
	i := 0
	if from != nil {
		i = m.child(n, *from)
	}
	for ; i < len(n.kids); i++ {
		if !m.ascend(n.kids[i], from, fn) {
			return false
		}
		from = nil // every later child is wholly above from
	}
	return true
}

// Descend calls fn for the entries with keys < below (all when below is
// nil) in descending order until fn returns false.
func (m Map[K, V]) Descend(below *K, fn func(K, V) bool) {
	if m.root != nil {
		m.descend(m.root, below, fn)
	}
}

func (m Map[K, V]) descend(n *node[K, V], below *K, fn func(K, V) bool) bool {
	if n.leaf() {
		i := len(n.ents)
		if below != nil {
			i, _ = m.search(n, *below)
		}
		for i--; i >= 0; i-- {
			if !fn(n.ents[i].k, n.ents[i].v) {
				return false
			}
		}
		return true
	}
	i := len(n.kids) - 1
	if below != nil {
		i = m.child(n, *below)
	}
	for ; i >= 0; i-- {
		if !m.descend(n.kids[i], below, fn) {
			return false
		}
		below = nil // every earlier child is wholly below below
	}
	return true
}

// SetAscending returns a map with the n entries at(0) … at(n-1) set; their
// keys must ascend strictly and be absent from m. Into an empty map the
// entries go in one pass, leaves and inner nodes filled whole, in O(n): a
// world load or a business read back from disk builds maps of thousands of
// appointments, and setting them one at a time copied a leaf of up to 32
// entries per entry (27 % of applying a loaded business, 2026-11-27).
// Into a map that has entries they are set one at a time.
func (m Map[K, V]) SetAscending(n int, at func(i int) (K, V)) Map[K, V] {
	if m.root != nil || n == 0 {
		for i := range n {
			k, v := at(i)
			m = m.Set(k, v)
		}
		return m
	}
	level := make([]*node[K, V], 0, (n+maxEntries-1)/maxEntries)
	mins := make([]K, 0, cap(level)) // the smallest key under each node of level
	for lo := 0; lo < n; lo += maxEntries {
		ents := make([]entry[K, V], min(maxEntries, n-lo))
		for i := range ents {
			ents[i].k, ents[i].v = at(lo + i)
		}
		level = append(level, &node[K, V]{ents: ents})
		mins = append(mins, ents[0].k)
	}
	for len(level) > 1 {
		var up []*node[K, V]
		var upMins []K
		for lo := 0; lo < len(level); lo += maxKids {
			hi := min(lo+maxKids, len(level))
			up = append(up, &node[K, V]{keys: slices.Clone(mins[lo+1 : hi]), kids: slices.Clone(level[lo:hi])})
			upMins = append(upMins, mins[lo])
		}
		level, mins = up, upMins
	}
	return Map[K, V]{root: level[0], cmp: m.cmp, n: n}
}
