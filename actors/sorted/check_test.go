package sorted

import "fmt"

// check verifies m's shape: every leaf at one depth, no node empty or over
// capacity, keys in order within the bounds of their separators, and Len
// equal to the entries held.
func (m Map[K, V]) check() error {
	if m.root == nil {
		if m.n != 0 {
			return fmt.Errorf("empty tree with Len %d", m.n)
		}
		return nil
	}
	depth := -1
	n, err := m.checkNode(m.root, nil, nil, 0, &depth)
	if err != nil {
		return err
	}
	if n != m.n {
		return fmt.Errorf("%d entries, Len %d", n, m.n)
	}
	return nil
}

func (m Map[K, V]) checkNode(n *node[K, V], lo, hi *K, d int, depth *int) (int, error) {
	in := func(k K) bool { return (lo == nil || m.cmp(*lo, k) <= 0) && (hi == nil || m.cmp(k, *hi) < 0) }
	if n.leaf() {
		if *depth == -1 {
			*depth = d
		}
		if d != *depth {
			return 0, fmt.Errorf("leaf at depth %d, another at %d", d, *depth)
		}
		if len(n.ents) == 0 || len(n.ents) > maxEntries {
			return 0, fmt.Errorf("leaf of %d entries", len(n.ents))
		}
		for i, e := range n.ents {
			if !in(e.k) || i > 0 && m.cmp(n.ents[i-1].k, e.k) >= 0 {
				return 0, fmt.Errorf("leaf key %v out of order", e.k)
			}
		}
		return len(n.ents), nil
	}
	if len(n.kids) == 0 || len(n.kids) > maxKids || len(n.keys) != len(n.kids)-1 {
		return 0, fmt.Errorf("inner node of %d kids, %d keys", len(n.kids), len(n.keys))
	}
	total := 0
	for i, c := range n.kids {
		l, h := lo, hi
		if i > 0 {
			l = &n.keys[i-1]
		}
		if i < len(n.keys) {
			h = &n.keys[i]
			if !in(*h) || i > 0 && m.cmp(n.keys[i-1], *h) >= 0 {
				return 0, fmt.Errorf("separator %v out of order", *h)
			}
		}
		k, err := m.checkNode(c, l, h, d+1, depth)
		if err != nil {
			return 0, err
		}
		total += k
	}
	return total, nil
}

// leaves returns the number of leaves and of entries in them.
func (m Map[K, V]) leaves() (leaves, ents int) {
	var walk func(*node[K, V])
	walk = func(n *node[K, V]) {
		if n.leaf() {
			leaves++
			ents += len(n.ents)
			return
		}
		for _, c := range n.kids {
			walk(c)
		}
	}
	if m.root != nil {
		walk(m.root)
	}
	return leaves, ents
}
