package interval

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestSpanOverlaps(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b Span
		want bool
	}{
		{"touching before", span(hm(9, 0), hm(9, 30)), span(hm(9, 30), hm(10, 0)), false},
		{"touching after", span(hm(9, 30), hm(10, 0)), span(hm(9, 0), hm(9, 30)), false},
		{"one minute shared", span(hm(9, 0), hm(9, 31)), span(hm(9, 30), hm(10, 0)), true},
		{"identical", span(hm(9, 0), hm(9, 30)), span(hm(9, 0), hm(9, 30)), true},
		{"contains", span(hm(9, 0), hm(12, 0)), span(hm(10, 0), hm(10, 15)), true},
		{"contained", span(hm(10, 0), hm(10, 15)), span(hm(9, 0), hm(12, 0)), true},
		{"disjoint", span(hm(9, 0), hm(9, 30)), span(hm(11, 0), hm(12, 0)), false},
		{"empty inside", span(hm(10, 0), hm(10, 0)), span(hm(9, 0), hm(12, 0)), false},
		{"inside empty", span(hm(9, 0), hm(12, 0)), span(hm(10, 0), hm(10, 0)), false},
		{"inverted", span(hm(12, 0), hm(9, 0)), span(hm(10, 0), hm(11, 0)), false},
		{"both empty", span(5, 5), span(5, 5), false},
		{"negative times", span(-10, -5), span(-6, 0), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.a.Overlaps(tc.b))
			require.Equal(t, tc.want, tc.b.Overlaps(tc.a), "symmetric")
		})
	}
}

// morning is a staff member's morning: two touching half hours, a gap, an
// hour, and a two-segment appointment of owner 4 around a processing gap.
var morning = []Item{
	item(hm(9, 0), hm(9, 30), 1, 0),
	item(hm(9, 30), hm(10, 0), 2, 0),
	item(hm(11, 0), hm(12, 0), 3, 0),
	item(hm(12, 0), hm(12, 30), 4, 0),
	item(hm(13, 0), hm(13, 15), 4, 1),
}

func TestTreeOverlaps(t *testing.T) {
	tree := build(morning...)
	for _, tc := range []struct {
		name   string
		s      Span
		want   bool
		except []int // owners whose exclusion makes the span fit
	}{
		{"empty tree range before", span(hm(7, 0), hm(9, 0)), false, nil},
		{"touching first start", span(hm(8, 30), hm(9, 0)), false, nil},
		{"first minute", span(hm(8, 30), hm(9, 1)), true, []int{1}},
		{"across touching pair", span(hm(9, 15), hm(9, 45)), true, nil},
		{"touching gap exactly", span(hm(10, 0), hm(11, 0)), false, nil},
		{"gap plus a minute", span(hm(10, 0), hm(11, 1)), true, []int{3}},
		{"processing gap", span(hm(12, 30), hm(13, 0)), false, nil},
		{"over both segments", span(hm(12, 15), hm(13, 5)), true, []int{4}},
		{"after last", span(hm(13, 15), hm(18, 0)), false, nil},
		{"whole day", span(0, hm(24, 0)), true, nil},
		{"empty span inside item", span(hm(11, 30), hm(11, 30)), false, nil},
		{"inverted span", span(hm(12, 0), hm(9, 0)), false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tree.Overlaps(tc.s))
			require.Equal(t, tc.want, tree.OverlapsExcept(tc.s, uuid.Nil), "except nobody")
			require.Equal(t, tc.want, tree.OverlapsExcept(tc.s, id(99)), "except a stranger")
			for _, o := range tc.except {
				require.False(t, tree.OverlapsExcept(tc.s, id(o)), "except %d", o)
			}
			require.False(t, Tree{}.Overlaps(tc.s), "empty tree")
			require.False(t, Tree{}.OverlapsExcept(tc.s, id(1)), "empty tree")
		})
	}
}

func TestTreeOverlapsExceptKeepsOthers(t *testing.T) {
	tree := build(morning...)
	s := span(hm(9, 0), hm(10, 0))
	require.True(t, tree.OverlapsExcept(s, id(1)), "owner 2 still in the way")
	require.True(t, tree.OverlapsExcept(s, id(2)), "owner 1 still in the way")
	require.False(t, tree.OverlapsExcept(span(hm(9, 0), hm(9, 30)), id(1)))
}

func TestTreeOverlapping(t *testing.T) {
	tree := build(morning...)
	for _, tc := range []struct {
		name string
		s    Span
		want []Item
	}{
		{"nothing", span(hm(10, 5), hm(10, 55)), nil},
		{"window edges touch items", span(hm(10, 0), hm(11, 0)), nil},
		{"one", span(hm(11, 30), hm(11, 45)), morning[2:3]},
		{"touching pair", span(hm(9, 29), hm(9, 31)), morning[0:2]},
		{"exact item", span(hm(9, 30), hm(10, 0)), morning[1:2]},
		{"all", span(0, hm(24, 0)), morning},
		{"empty", span(hm(9, 10), hm(9, 10)), nil},
		{"inverted", span(hm(13, 0), hm(9, 0)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, listOverlapping(tree, tc.s))
		})
	}
}

func TestTreeOverlappingOrderAndStop(t *testing.T) {
	// Same start, different owners and segments: order is (Start, Owner, Seg).
	tree := build(item(10, 20, 2, 1), item(10, 30, 1, 5), item(10, 15, 2, 0), item(5, 11, 9, 0), item(10, 12, 1, 5))
	require.Equal(t, []Item{item(5, 11, 9, 0), item(10, 12, 1, 5), item(10, 30, 1, 5), item(10, 15, 2, 0), item(10, 20, 2, 1)},
		listOverlapping(tree, span(0, 100)))
	var got []Item
	tree.Overlapping(span(0, 100), func(it Item) bool {
		got = append(got, it)
		return len(got) < 2
	})
	require.Len(t, got, 2)
}

func TestTreeFree(t *testing.T) {
	tree := build(morning...)
	for _, tc := range []struct {
		name   string
		tree   Tree
		window Span
		want   []Span
	}{
		{"empty tree", Tree{}, span(hm(9, 0), hm(17, 0)), []Span{span(hm(9, 0), hm(17, 0))}},
		{"empty window", tree, span(hm(10, 30), hm(10, 30)), nil},
		{"empty window on empty tree", Tree{}, span(5, 5), nil},
		{"inverted window", tree, span(hm(17, 0), hm(9, 0)), nil},
		{"day", tree, span(hm(8, 0), hm(17, 0)), []Span{
			span(hm(8, 0), hm(9, 0)), span(hm(10, 0), hm(11, 0)),
			span(hm(12, 30), hm(13, 0)), span(hm(13, 15), hm(17, 0)),
		}},
		{"window edges on item edges", tree, span(hm(9, 0), hm(13, 15)), []Span{
			span(hm(10, 0), hm(11, 0)), span(hm(12, 30), hm(13, 0)),
		}},
		{"window exactly a gap", tree, span(hm(10, 0), hm(11, 0)), []Span{span(hm(10, 0), hm(11, 0))}},
		{"window inside an item", tree, span(hm(11, 10), hm(11, 50)), nil},
		{"window across touching pair", tree, span(hm(9, 10), hm(9, 50)), nil},
		{"window starts inside item", tree, span(hm(11, 30), hm(12, 45)), []Span{span(hm(12, 30), hm(12, 45))}},
		{"window ends inside item", tree, span(hm(10, 30), hm(11, 30)), []Span{span(hm(10, 30), hm(11, 0))}},
		{"before everything", tree, span(hm(6, 0), hm(7, 0)), []Span{span(hm(6, 0), hm(7, 0))}},
		{"after everything", tree, span(hm(20, 0), hm(21, 0)), []Span{span(hm(20, 0), hm(21, 0))}},
		{"nested items", build(item(0, 100, 1, 0), item(10, 20, 2, 0), item(30, 120, 3, 0)),
			span(-10, 130), []Span{span(-10, 0), span(120, 130)}},
		{"long item covers later gap", build(item(0, 50, 1, 0), item(5, 10, 2, 0), item(60, 70, 3, 0)),
			span(0, 80), []Span{span(50, 60), span(70, 80)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := listFree(tc.tree, tc.window)
			require.Equal(t, tc.want, got)
			for _, s := range got {
				require.False(t, s.Empty(), "Free reported an empty span")
				require.False(t, tc.tree.Overlaps(s), "Free span %v is covered", s)
			}
		})
	}
}

func TestTreeFreeStops(t *testing.T) {
	tree := build(morning...)
	for limit := 1; limit <= 4; limit++ {
		var got []Span
		tree.Free(span(hm(8, 0), hm(17, 0)), func(s Span) bool {
			got = append(got, s)
			return len(got) < limit
		})
		require.Len(t, got, limit)
	}
}

func TestTreeInsert(t *testing.T) {
	var empty Tree
	require.Zero(t, empty.Len())
	require.NoError(t, empty.Check())

	one := empty.Insert(morning[0])
	require.Equal(t, 1, one.Len())
	require.Equal(t, one, one.Insert(morning[0]), "identical item kept once")

	sameKeyOtherEnd := one.Insert(item(hm(9, 0), hm(9, 45), 1, 0))
	require.Equal(t, 2, sameKeyOtherEnd.Len(), "differing End is a different item")

	require.Equal(t, one, one.Insert(item(hm(10, 0), hm(10, 0), 1, 0)), "empty item not stored")
	require.Equal(t, one, one.Insert(item(hm(10, 0), hm(9, 0), 1, 0)), "inverted item not stored")

	tree := build(morning...)
	require.Equal(t, 5, tree.Len())
	require.Equal(t, morning, listItems(tree))
	require.NoError(t, tree.Check())
	for _, it := range morning {
		require.True(t, tree.Contains(it))
	}
	require.False(t, tree.Contains(item(hm(9, 0), hm(9, 30), 1, 1)))
}

func TestTreeRemove(t *testing.T) {
	tree := build(morning...)
	for _, tc := range []struct {
		name string
		it   Item
		ok   bool
	}{
		{"exact", morning[2], true},
		{"other End", item(hm(11, 0), hm(11, 59), 3, 0), false},
		{"other Start", item(hm(11, 1), hm(12, 0), 3, 0), false},
		{"other Owner", item(hm(11, 0), hm(12, 0), 2, 0), false},
		{"other Seg", item(hm(11, 0), hm(12, 0), 3, 1), false},
		{"empty", item(hm(11, 0), hm(11, 0), 3, 0), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tree.Remove(tc.it)
			require.Equal(t, tc.ok, ok)
			require.NoError(t, got.Check())
			if !ok {
				require.Equal(t, tree, got, "a miss returns the same tree")
				return
			}
			require.Equal(t, tree.Len()-1, got.Len())
			require.False(t, got.Contains(tc.it))
		})
	}
	_, ok := Tree{}.Remove(morning[0])
	require.False(t, ok)

	for _, it := range morning {
		tree, ok = tree.Remove(it)
		require.True(t, ok)
		require.NoError(t, tree.Check())
	}
	require.Equal(t, Tree{}, tree)
}

func TestTreeAll(t *testing.T) {
	tree := build(morning[4], morning[2], morning[0], morning[3], morning[1])
	require.Equal(t, morning, listItems(tree))
	n := 0
	tree.All(func(Item) bool { n++; return n < 3 })
	require.Equal(t, 3, n)
	Tree{}.All(func(Item) bool { t.Fatal("empty tree reported an item"); return true })
}

// TestTreeShape checks that the shape depends only on the set of items (so
// the same bookings in any order give the identical tree) and that the depth
// stays logarithmic for the sorted insertions a day's bookings produce.
func TestTreeShape(t *testing.T) {
	var forward, backward Tree
	const n = 2000
	for i := range n {
		forward = forward.Insert(item(int64(i)*10, int64(i)*10+5, i, 0))
		j := n - 1 - i
		backward = backward.Insert(item(int64(j)*10, int64(j)*10+5, j, 0))
	}
	require.NoError(t, forward.Check())
	require.Equal(t, forward, backward, "shape is a function of the items")
	require.LessOrEqual(t, depth(forward.root), 3*log2(n), "depth of %d items", n)
}

func TestTreeCheckDetectsCorruption(t *testing.T) {
	good := build(morning...)
	require.NoError(t, good.Check())
	for _, tc := range []struct {
		name    string
		corrupt func(root *node)
		want    string
	}{
		{"max End", func(r *node) { r.maxEnd++ }, "max End"},
		{"heap order", func(r *node) { // a child swapped with its parent's item
			if r.left != nil {
				r.item, r.left.item = r.left.item, r.item
			} else {
				r.item, r.right.item = r.right.item, r.item
			}
		}, "heap order"},
		{"empty item", func(r *node) { r.item.End = r.item.Start }, "empty item"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := clone(good.root)
			tc.corrupt(bad)
			require.ErrorContains(t, Tree{root: bad, n: good.n}.Check(), tc.want)
		})
	}

	a, b := item(10, 20, 1, 0), item(30, 40, 2, 0)
	hi, lo := leaf(a), leaf(b)
	if above(lo, hi) {
		hi, lo = lo, hi
	}
	wrongSide := pair(hi, lo, compare(lo.item, hi.item) > 0)
	require.ErrorContains(t, Tree{root: wrongSide, n: 2}.Check(), "not")
	upsideDown := pair(lo, hi, compare(hi.item, lo.item) < 0)
	require.ErrorContains(t, Tree{root: upsideDown, n: 2}.Check(), "heap")
	require.NoError(t, Tree{root: pair(hi, lo, compare(lo.item, hi.item) < 0), n: 2}.Check())

	require.ErrorContains(t, Tree{root: good.root, n: good.n + 1}.Check(), "Len")
}

// pair returns a copy of parent with a copy of child as its left or right
// child, whether or not that is where it belongs.
func pair(parent, child *node, left bool) *node {
	p, c := *parent, *child
	if left {
		p.left = &c
	} else {
		p.right = &c
	}
	p.fix()
	return &p
}

func clone(n *node) *node {
	if n == nil {
		return nil
	}
	c := *n
	c.left, c.right = clone(n.left), clone(n.right)
	return &c
}

// TestTreeOverlapsNested covers trees whose items overlap each other: a span
// lying in a gap between short items but inside a long one must still be
// found, wherever the long item sits in the tree.
func TestTreeOverlapsNested(t *testing.T) {
	for long := range 40 {
		var tree Tree
		for i := range 40 {
			tree = tree.Insert(item(int64(i)*10, int64(i)*10+5, i, 0))
		}
		start := int64(long) * 10
		tree = tree.Insert(item(start, start+100, 99, 0))
		for gap := start + 5; gap < start+100; gap += 10 {
			s := span(gap+1, gap+4)
			require.True(t, tree.Overlaps(s), "long item at %d, span %v", start, s)
			require.True(t, tree.OverlapsExcept(s, id(1)))
			require.False(t, tree.OverlapsExcept(s, id(99)))
			require.Equal(t, []Item{item(start, start+100, 99, 0)}, listOverlapping(tree, s))
			require.Empty(t, listFree(tree, s))
		}
	}
}
