package interval

import (
	"bytes"
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// Minutes since midnight, in milliseconds, for readable tables.
const minute = int64(60_000)

func hm(h, m int64) int64 { return (h*60 + m) * minute }

func span(a, b int64) Span { return Span{Start: a, End: b} }

// id returns a fixed, readable uuid for small n.
func id(n int) uuid.UUID {
	return uuid.MustParse(fmt.Sprintf("00000000-0000-4000-8000-%012d", n))
}

func item(a, b int64, owner, seg int) Item {
	return Item{Span: span(a, b), Owner: id(owner), Seg: int32(seg)}
}

func build(items ...Item) Tree {
	var t Tree
	for _, it := range items {
		t = t.Insert(it)
	}
	return t
}

func listItems(t Tree) []Item {
	var out []Item
	t.All(func(it Item) bool {
		out = append(out, it)
		return true
	})
	return out
}

func listOverlapping(t Tree, s Span) []Item {
	var out []Item
	t.Overlapping(s, func(it Item) bool {
		out = append(out, it)
		return true
	})
	return out
}

func listFree(t Tree, w Span) []Span {
	var out []Span
	t.Free(w, func(s Span) bool {
		out = append(out, s)
		return true
	})
	return out
}

func depth(n *node) int {
	if n == nil {
		return 0
	}
	return 1 + max(depth(n.left), depth(n.right))
}

func log2(n int) int { return bits.Len(uint(n)) }

// model is the naive reference: an unordered set of non-empty items, every
// query a linear scan written independently of the tree code.
type model struct{ items []Item }

func (m *model) insert(it Item) {
	if it.End > it.Start && !slices.Contains(m.items, it) {
		m.items = append(m.items, it)
	}
}

func (m *model) remove(it Item) bool {
	i := slices.Index(m.items, it)
	if i < 0 {
		return false
	}
	m.items = slices.Delete(m.items, i, i+1)
	return true
}

func hits(it Item, s Span) bool {
	return s.End > s.Start && it.Start < s.End && s.Start < it.End
}

func (m *model) overlaps(s Span) bool {
	return slices.ContainsFunc(m.items, func(it Item) bool { return hits(it, s) })
}

func (m *model) overlapsExcept(s Span, owner uuid.UUID) bool {
	return slices.ContainsFunc(m.items, func(it Item) bool { return hits(it, s) && it.Owner != owner })
}

func modelOrder(a, b Item) int {
	return cmp.Or(cmp.Compare(a.Start, b.Start), bytes.Compare(a.Owner[:], b.Owner[:]),
		cmp.Compare(a.Seg, b.Seg), cmp.Compare(a.End, b.End))
}

func (m *model) sorted() []Item {
	if len(m.items) == 0 {
		return nil
	}
	out := slices.Clone(m.items)
	slices.SortFunc(out, modelOrder)
	return out
}

func (m *model) overlapping(s Span) []Item {
	var out []Item
	for _, it := range m.sorted() {
		if hits(it, s) {
			out = append(out, it)
		}
	}
	return out
}

// free cuts w at every item boundary inside it, keeps the elementary pieces
// no item covers and joins adjacent ones.
func (m *model) free(w Span) []Span {
	if w.End <= w.Start {
		return nil
	}
	points := []int64{w.Start, w.End}
	for _, it := range m.items {
		for _, p := range []int64{it.Start, it.End} {
			if p > w.Start && p < w.End {
				points = append(points, p)
			}
		}
	}
	slices.Sort(points)
	points = slices.Compact(points)
	var out []Span
	for i := 0; i+1 < len(points); i++ {
		piece := span(points[i], points[i+1])
		if m.overlaps(piece) {
			continue
		}
		if n := len(out); n > 0 && out[n-1].End == piece.Start {
			out[n-1].End = piece.End
		} else {
			out = append(out, piece)
		}
	}
	return out
}

// op is one step of a generated workload.
type op struct {
	kind  int // opInsert ... opFree
	item  Item
	span  Span
	owner uuid.UUID
	pick  int // for opRemove: remove the existing item at pick % n if >= 0
}

const (
	opInsert = iota
	opRemove
	opOverlaps
	opExcept
	opOverlapping
	opFree
	opKinds
)

// harness applies ops to a Tree and the model side by side.
type harness struct {
	t     testing.TB
	tree  Tree
	model model
}

func (h *harness) apply(o op) {
	h.t.Helper()
	switch o.kind {
	case opInsert:
		h.tree = h.tree.Insert(o.item)
		h.model.insert(o.item)
		h.verify()
	case opRemove:
		if o.pick >= 0 && len(h.model.items) > 0 {
			o.item = h.model.items[o.pick%len(h.model.items)]
		}
		var ok bool
		h.tree, ok = h.tree.Remove(o.item)
		require.Equal(h.t, h.model.remove(o.item), ok, "Remove(%v)", o.item)
		h.verify()
	case opOverlaps:
		require.Equal(h.t, h.model.overlaps(o.span), h.tree.Overlaps(o.span), "Overlaps(%v)", o.span)
	case opExcept:
		require.Equal(h.t, h.model.overlapsExcept(o.span, o.owner), h.tree.OverlapsExcept(o.span, o.owner),
			"OverlapsExcept(%v, %v)", o.span, o.owner)
	case opOverlapping:
		require.Equal(h.t, h.model.overlapping(o.span), listOverlapping(h.tree, o.span), "Overlapping(%v)", o.span)
	case opFree:
		require.Equal(h.t, h.model.free(o.span), listFree(h.tree, o.span), "Free(%v)", o.span)
	}
}

func (h *harness) verify() {
	h.t.Helper()
	require.NoError(h.t, h.tree.Check())
	require.Equal(h.t, len(h.model.items), h.tree.Len())
	require.Equal(h.t, h.model.sorted(), listItems(h.tree))
}

// decodeOps reads four bytes per op. The value ranges are small on purpose,
// so that the ops collide: equal starts, duplicate items, touching and empty
// spans, several owners competing for the same time.
func decodeOps(data []byte) []op {
	var ops []op
	for ; len(data) >= 4; data = data[4:] {
		k, a, b, c := data[0], data[1], data[2], data[3]
		start := int64(a) - 64
		o := op{
			kind:  int(k) % opKinds,
			item:  Item{Span: span(start, start+int64(b%24)), Owner: id(int(c % 4)), Seg: int32(c>>2) % 3},
			span:  span(start, start+int64(b)-32),
			owner: id(int(c % 5)), // 4 is nobody's
			pick:  -1,
		}
		if k >= 128 {
			o.pick = int(b)
		}
		ops = append(ops, o)
	}
	return ops
}
