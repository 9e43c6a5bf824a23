package interval

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// randomOp draws one op over a range wide enough to grow trees of hundreds of
// items and narrow enough that items still collide.
func randomOp(r *rand.Rand) op {
	start := r.Int64N(2000)
	o := op{
		item:  Item{Span: span(start, start+r.Int64N(60)), Owner: id(r.IntN(8)), Seg: r.Int32N(3)},
		span:  span(start, start+r.Int64N([]int64{16, 220}[r.IntN(2)])-8),
		owner: id(r.IntN(9)),
		pick:  -1,
	}
	switch p := r.IntN(100); {
	case p < 40:
		o.kind = opInsert
	case p < 65:
		o.kind = opRemove
		if p < 60 {
			o.pick = r.IntN(1 << 20)
		}
	default:
		o.kind = opOverlaps + r.IntN(opKinds-opOverlaps)
	}
	return o
}

func TestTreeAgainstModel(t *testing.T) {
	for seed := range uint64(4) {
		// Odd seeds keep the tree disjoint, as the actor does; even seeds let
		// items pile up on each other.
		disjoint := seed%2 == 1
		r := rand.New(rand.NewPCG(seed, 0x5107d))
		h := &harness{t: t}
		for range 1000 {
			o := randomOp(r)
			if disjoint && o.kind == opInsert {
				o.item.End = o.item.Start + (o.item.End-o.item.Start)/4 // room for more
				if h.tree.Overlaps(o.item.Span) {
					continue
				}
			}
			h.apply(o)
		}
		t.Logf("seed %d: %d items at the end, depth %d", seed, h.tree.Len(), depth(h.tree.root))
		if disjoint {
			_, _, found := firstOverlap(h.tree)
			require.False(t, found)
		}
	}
}

// snapshot is everything a version of a tree answered when it was current.
type snapshot struct {
	items    []Item
	overlaps []bool
	except   []bool
	over     [][]Item
	free     [][]Span
}

var probes = func() []Span {
	var s []Span
	for a := int64(-20); a < 2100; a += 53 {
		s = append(s, span(a, a+45))
	}
	return s
}()

func snap(t Tree) snapshot {
	s := snapshot{items: listItems(t)}
	for _, p := range probes {
		s.overlaps = append(s.overlaps, t.Overlaps(p))
		s.except = append(s.except, t.OverlapsExcept(p, id(3)))
		s.over = append(s.over, listOverlapping(t, p))
		s.free = append(s.free, listFree(t, p))
	}
	return s
}

// TestPersistence keeps every version of a tree through a long sequence of
// updates and checks that each still answers exactly as it did when it was
// the newest.
func TestPersistence(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var tree Tree
	versions := []Tree{tree}
	want := []snapshot{snap(tree)}
	for i := range 300 {
		o := randomOp(r)
		if i%3 == 0 && tree.Len() > 0 {
			all := listItems(tree)
			tree, _ = tree.Remove(all[r.IntN(len(all))])
		} else {
			tree = tree.Insert(o.item)
		}
		versions = append(versions, tree)
		want = append(want, snap(tree))
	}
	for i, v := range versions {
		require.NoError(t, v.Check(), "version %d", i)
		require.Equal(t, want[i], snap(v), "version %d changed", i)
	}
}

func TestIndexPersistence(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	var x Index
	type view map[int][]Item
	look := func(x Index) view {
		v := view{}
		for s := range 3 {
			v[s] = listItems(x.Tree(id(s)))
		}
		return v
	}
	versions := []Index{x}
	want := []view{look(x)}
	for range 300 {
		staff := id(r.IntN(3))
		o := randomOp(r)
		if r.IntN(3) == 0 {
			all := listItems(x.Tree(staff))
			if len(all) > 0 {
				x = x.Delete(staff, all[r.IntN(len(all))])
			}
		} else if x.Fits(staff, []Span{o.item.Span}, o.owner) {
			x = x.Delete(staff, ownedBy(x.Tree(staff), o.owner)...).Add(staff, o.item)
		}
		versions = append(versions, x)
		want = append(want, look(x))
	}
	for i, v := range versions {
		require.Equal(t, want[i], look(v), "version %d changed", i)
	}
}

func ownedBy(t Tree, owner uuid.UUID) []Item {
	var out []Item
	t.All(func(it Item) bool {
		if it.Owner == owner {
			out = append(out, it)
		}
		return true
	})
	return out
}

// TestConcurrentReaders publishes every version to readers on other
// goroutines while the writer keeps updating; under -race it proves that an
// update never writes to a node a published version can reach.
func TestConcurrentReaders(t *testing.T) {
	var current atomic.Pointer[Tree]
	current.Store(&Tree{})
	var done atomic.Bool
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for !done.Load() {
				v := *current.Load()
				n := 0
				v.All(func(Item) bool { n++; return true })
				if n != v.Len() || v.Check() != nil {
					t.Error("reader saw a version change under it")
					return
				}
				v.Free(span(0, 2000), func(Span) bool { return true })
			}
		})
	}
	r := rand.New(rand.NewPCG(9, 9))
	tree := Tree{}
	for i := range 3000 {
		o := randomOp(r)
		if i%4 == 3 && tree.Len() > 0 {
			tree, _ = tree.Remove(listItems(tree)[r.IntN(tree.Len())])
		} else {
			tree = tree.Insert(o.item)
		}
		published := tree // a fresh variable: tree itself is about to change
		current.Store(&published)
	}
	done.Store(true)
	wg.Wait()
}
