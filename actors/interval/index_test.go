package interval

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

var (
	ann = id(101)
	bob = id(102)
	cat = id(103)
)

func TestIndexTree(t *testing.T) {
	var x Index
	require.Zero(t, x.Tree(ann).Len(), "zero Index")
	x = x.Add(bob, morning...)
	require.Equal(t, morning, listItems(x.Tree(bob)))
	require.Zero(t, x.Tree(ann).Len(), "unknown staff")
}

func TestIndexAddDelete(t *testing.T) {
	var x Index
	empty := x
	x = x.Add(ann, morning[0], morning[1])
	x = x.Add(cat, morning[2])
	x = x.Add(bob, morning[3], morning[4])
	require.Zero(t, empty.Tree(ann).Len(), "old version untouched")

	same := x.Add(ann, morning[0])
	require.Equal(t, x, same, "adding a present item changes nothing")
	require.Equal(t, x, x.Add(ann), "no items")
	require.Equal(t, x, x.Delete(ann, morning[4]), "deleting an absent item changes nothing")
	require.Equal(t, x, x.Delete(id(999), morning[0]), "unknown staff")

	y := x.Delete(ann, morning[0])
	require.Equal(t, morning[1:2], listItems(y.Tree(ann)))
	require.Equal(t, morning[0:2], listItems(x.Tree(ann)), "old version untouched")
	require.Equal(t, x.Tree(bob), y.Tree(bob), "untouched staff shared")

	z := y.Delete(ann, morning[1])
	require.Equal(t, []uuid.UUID{bob, cat}, staffOf(z), "staff with no items dropped")
	require.Equal(t, []uuid.UUID{ann, bob, cat}, staffOf(y))
}

func staffOf(x Index) []uuid.UUID {
	var out []uuid.UUID
	x.Staff(func(s uuid.UUID, t Tree) bool {
		if t.Len() == 0 {
			panic("Staff reported an empty tree")
		}
		out = append(out, s)
		return true
	})
	return out
}

func TestIndexStaffOrderAndStop(t *testing.T) {
	var x Index
	for _, s := range []uuid.UUID{cat, ann, bob} {
		x = x.Add(s, morning[0])
	}
	require.Equal(t, []uuid.UUID{ann, bob, cat}, staffOf(x))
	n := 0
	x.Staff(func(uuid.UUID, Tree) bool { n++; return false })
	require.Equal(t, 1, n)
}

func TestIndexFits(t *testing.T) {
	x := Index{}.Add(ann, morning...)
	for _, tc := range []struct {
		name   string
		staff  uuid.UUID
		spans  []Span
		except uuid.UUID
		want   bool
	}{
		{"no spans", ann, nil, uuid.Nil, true},
		{"gap", ann, []Span{span(hm(10, 0), hm(11, 0))}, uuid.Nil, true},
		{"touching both sides", ann, []Span{span(hm(10, 0), hm(11, 0)), span(hm(12, 30), hm(13, 0))}, uuid.Nil, true},
		{"second span collides", ann, []Span{span(hm(10, 0), hm(11, 0)), span(hm(12, 30), hm(13, 1))}, uuid.Nil, false},
		{"first span collides", ann, []Span{span(hm(9, 59), hm(11, 0))}, uuid.Nil, false},
		{"own old time", ann, []Span{span(hm(12, 15), hm(12, 45)), span(hm(13, 0), hm(13, 30))}, id(4), true},
		{"own time and someone else's", ann, []Span{span(hm(11, 45), hm(12, 15))}, id(4), false},
		{"except a stranger", ann, []Span{span(hm(12, 15), hm(12, 45))}, id(99), false},
		{"spans overlap each other", ann, []Span{span(hm(10, 0), hm(10, 40)), span(hm(10, 30), hm(11, 0))}, uuid.Nil, false},
		{"spans touch each other", ann, []Span{span(hm(10, 0), hm(10, 30)), span(hm(10, 30), hm(11, 0))}, uuid.Nil, true},
		{"empty span inside an item", ann, []Span{span(hm(9, 10), hm(9, 10))}, uuid.Nil, true},
		{"other staff free", bob, []Span{span(hm(9, 0), hm(10, 0))}, uuid.Nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, x.Fits(tc.staff, tc.spans, tc.except))
		})
	}
}

func TestIndexOverlaps(t *testing.T) {
	x := Index{}.Add(ann, morning...).Add(bob, morning[0])
	_, _, _, found := x.Overlaps()
	require.False(t, found, "touching items do not overlap")
	require.False(t, func() bool { _, _, _, f := (Index{}).Overlaps(); return f }())

	if invariants {
		require.Panics(t, func() { x.Add(bob, item(hm(9, 29), hm(9, 45), 7, 0)) })
		return
	}
	long := item(hm(8, 0), hm(9, 1), 7, 0)
	later := item(hm(9, 0), hm(9, 10), 8, 0)
	y := x.Add(bob, long, later)
	a, b, staff, found := y.Overlaps()
	require.True(t, found)
	require.Equal(t, bob, staff)
	require.True(t, a.Overlaps(b.Span), "%v and %v", a, b)
	require.True(t, x.Tree(bob).Len() == 1, "old version untouched")
}

// TestIndexFitsThenAdd is the property the actor relies on: if every Add is
// approved by Fits first (and a moved appointment's old items are deleted),
// no staff member ever holds two overlapping items.
func TestIndexFitsThenAdd(t *testing.T) {
	for seed := range 6 {
		data := make([]byte, 1200)
		for i := range data {
			data[i] = byte(mix(uint64(seed*len(data)+i)) >> 56)
		}
		runBookings(t, data)
	}
}
