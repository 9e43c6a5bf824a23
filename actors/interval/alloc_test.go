package interval

import (
	"testing"

	"github.com/stretchr/testify/require"
)

var sink int

func TestQueriesDoNotAllocate(t *testing.T) {
	tree := benchTree()
	x := Index{}.Add(ann, listItems(tree)...)
	day := span(benchBase+10*benchDay, benchBase+11*benchDay)
	probe := span(day.Start+hm(5, 0), day.Start+hm(5, 30))
	spans := benchGaps(tree, day)[:3]
	for _, tc := range []struct {
		name string
		fn   func()
	}{
		{"Overlaps", func() { sink += b2i(tree.Overlaps(probe)) }},
		{"OverlapsExcept", func() { sink += b2i(tree.OverlapsExcept(probe, ann)) }},
		{"Fits", func() { sink += b2i(x.Fits(ann, spans, bob)) }},
		{"Fits except nobody", func() { sink += b2i(x.Fits(ann, spans, [16]byte{})) }},
		{"Overlapping", func() { tree.Overlapping(day, func(Item) bool { sink++; return true }) }},
		{"Free", func() { tree.Free(day, func(Span) bool { sink++; return true }) }},
		{"All", func() { tree.All(func(Item) bool { sink++; return true }) }},
		{"Tree", func() { sink += x.Tree(ann).Len() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Zero(t, testing.AllocsPerRun(100, tc.fn))
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestUpdatesAllocateOnlyThePath bounds the cost of an update: path copying
// allocates one node per level, and the depth is logarithmic.
func TestUpdatesAllocateOnlyThePath(t *testing.T) {
	tree := benchTree()
	limit := float64(2 * depth(tree.root))
	gap := benchGaps(tree, span(benchBase, benchBase+benchDay))[0]
	it := Item{Span: gap, Owner: bob}
	require.LessOrEqual(t, testing.AllocsPerRun(100, func() { sink += tree.Insert(it).Len() }), limit)
	victim := listItems(tree)[1000]
	require.LessOrEqual(t, testing.AllocsPerRun(100, func() {
		t2, _ := tree.Remove(victim)
		sink += t2.Len()
	}), limit)
}
