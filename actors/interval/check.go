package interval

import "fmt"

// Check verifies the invariants of t: items are non-empty and strictly
// ordered, no child sits above its parent in the order of the
// priorities hashed from the items (which, priorities being a function of the items,
// pins down the whole shape), each node's max End is exact, and Len matches
// the number of nodes. It costs O(n) and is meant for tests and the
// invariants build.
func (t Tree) Check() error {
	count, err := check(t.root, nil, nil)
	if err != nil {
		return err
	}
	if count != t.n {
		return fmt.Errorf("interval: Len is %d but the tree holds %d items", t.n, count)
	}
	return nil
}

// check verifies the subtree of n, whose items must lie strictly between lo
// and hi when those are set, and returns its size.
func check(n *node, lo, hi *Item) (int, error) {
	if n == nil {
		return 0, nil
	}
	if err := checkNode(n, lo, hi); err != nil {
		return 0, err
	}
	l, err := check(n.left, lo, &n.item)
	if err != nil {
		return 0, err
	}
	r, err := check(n.right, &n.item, hi)
	if err != nil {
		return 0, err
	}
	return l + 1 + r, nil
}

// checkNode verifies n against its bounds and its children.
func checkNode(n *node, lo, hi *Item) error {
	switch {
	case n.item.Empty():
		return fmt.Errorf("interval: empty item %v stored", n.item)
	case lo != nil && compare(*lo, n.item) >= 0:
		return fmt.Errorf("interval: item %v not after %v", n.item, *lo)
	case hi != nil && compare(n.item, *hi) >= 0:
		return fmt.Errorf("interval: item %v not before %v", n.item, *hi)
	case n.left != nil && above(n.left, n), n.right != nil && above(n.right, n):
		return fmt.Errorf("interval: heap order broken below %v", n.item)
	}
	want := *n
	want.fix()
	if n.maxEnd != want.maxEnd {
		return fmt.Errorf("interval: item %v has max End %d, want %d", n.item, n.maxEnd, want.maxEnd)
	}
	return nil
}
