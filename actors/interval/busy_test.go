package interval

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// busyFree lists what Busy.Free reports for w, asking x's memo as a reader
// would.
func busyFree(x Index, staff int, w Span) []Span {
	var out []Span
	x.Busy(id(staff), w.Start, w.End).Free(w, func(s Span) bool {
		out = append(out, s)
		return true
	})
	return out
}

// The flat copy reports exactly the tree's free time, for every version of
// the index (old ones included, asked in any order, before and after the
// versions after them built their copies), for windows anywhere, also when
// items overlap and when a window starts before an earlier copy did.
func TestBusyIsTheTreesFreeTime(t *testing.T) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 21))
		var x Index
		versions := []Index{x}
		for range 400 {
			staff := id(r.IntN(3))
			o := randomOp(r)
			switch {
			case r.IntN(3) == 0:
				if all := listItems(x.Tree(staff)); len(all) > 0 {
					x = x.Delete(staff, all[r.IntN(len(all))])
				}
			case seed%2 == 0 && !invariants: // items pile up on each other (which the invariants build refuses)
				x = x.Add(staff, o.item)
			case x.Fits(staff, []Span{o.item.Span}, o.owner):
				x = x.Delete(staff, ownedBy(x.Tree(staff), o.owner)...).Add(staff, o.item)
			}
			versions = append(versions, x)
			for range 3 {
				v := versions[r.IntN(len(versions))]
				s := r.IntN(4) // the fourth has no items
				start := r.Int64N(2200) - 100
				w := span(start, start+r.Int64N(600))
				require.Equal(t, listFree(v.Tree(id(s)), w), busyFree(v, s, w), "seed %d, staff %d, window %v", seed, s, w)
			}
		}
	}
}

// Stopping early stops the report, as Tree.Free does.
func TestBusyFreeStops(t *testing.T) {
	x := Index{}.Add(id(1), item(10, 20, 1, 0), item(30, 40, 2, 0), item(50, 60, 3, 0))
	var got []Span
	x.Busy(id(1), 0, 100).Free(span(0, 100), func(s Span) bool {
		got = append(got, s)
		return len(got) < 2
	})
	require.Equal(t, []Span{span(0, 10), span(20, 30)}, got)
}

// A write starts the changed staff member's copy afresh and keeps the
// others'.
func TestBusyFollowsWrites(t *testing.T) {
	x := Index{}.Add(id(1), item(10, 20, 1, 0)).Add(id(2), item(10, 20, 2, 0))
	b1, b2 := x.Busy(id(1), 0, 100), x.Busy(id(2), 0, 100)
	y := x.Add(id(1), item(30, 40, 3, 0))
	require.Same(t, b2, y.Busy(id(2), 0, 100), "untouched: the same copy")
	require.NotSame(t, b1, y.Busy(id(1), 0, 100))
	require.Equal(t, []Span{span(0, 10), span(20, 30), span(40, 100)}, busyFree(y, 1, span(0, 100)))
	require.Equal(t, []Span{span(0, 10), span(20, 100)}, busyFree(x, 1, span(0, 100)), "the old version keeps its own")
}

// Readers on many goroutines build and share copies of published versions
// while the writer goes on; under -race this shows the memo is safe.
func TestBusyConcurrentReaders(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var x Index
	var versions []Index
	for range 200 {
		o := randomOp(r)
		staff := id(r.IntN(2))
		if x.Fits(staff, []Span{o.item.Span}, o.owner) {
			x = x.Delete(staff, ownedBy(x.Tree(staff), o.owner)...).Add(staff, o.item)
		}
		versions = append(versions, x)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range versions {
				v := versions[(i*7+g)%len(versions)]
				w := span(int64(g*100), 2000)
				if got, want := busyFree(v, g%2, w), listFree(v.Tree(id(g%2)), w); !equalSpans(got, want) {
					t.Errorf("version %d: %v, want %v", i, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func equalSpans(a, b []Span) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Build makes exactly the tree that inserting the same items one by one
// makes (node for node: a treap's shape is a function of its items), for
// disjoint and piled-up items, with repeats and empty items left out.
func TestBuildIsInsertion(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for round := range 300 {
		var items []Item
		var inserted Tree
		for range r.IntN(200) {
			it := randomOp(r).item
			if r.IntN(10) == 0 && len(items) > 0 {
				it = items[r.IntN(len(items))] // a repeat
			}
			items = append(items, it)
			inserted = inserted.Insert(it)
		}
		slices.SortFunc(items, compare)
		built := Build(items)
		require.NoError(t, built.Check(), "round %d", round)
		require.Equal(t, inserted.Len(), built.Len())
		require.True(t, sameShape(inserted.root, built.root), "round %d: another shape", round)
		if !invariants { // the items overlap, which the invariants build refuses in an Index
			x := Index{}.AddSorted(id(1), items)
			require.Equal(t, listItems(inserted), listItems(x.Tree(id(1))))
		}
	}
	require.Panics(t, func() { Build([]Item{item(5, 6, 1, 0), item(1, 2, 1, 0)}) })
}

func sameShape(a, b *node) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.item == b.item && a.maxEnd == b.maxEnd && sameShape(a.left, b.left) && sameShape(a.right, b.right)
}
