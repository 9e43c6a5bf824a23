package interval

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// FuzzTree decodes its input into Tree operations (see decodeOps), applies
// them to a Tree and to the naive model, and compares every answer, checking
// the tree's invariants after every update.
func FuzzTree(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 64, 10, 0, 0, 74, 10, 1, 2, 60, 40, 0, 5, 50, 60, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			t.Skip("long inputs add time, not coverage")
		}
		h := &harness{t: t}
		for _, o := range decodeOps(data) {
			h.apply(o)
		}
	})
}

// FuzzIndex books, moves and cancels appointments on two staff members the
// way the actor does, every Add approved by Fits, and checks that no staff
// member ever holds two overlapping items and that Fits agrees with a naive
// scan.
func FuzzIndex(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 10, 20, 30, 0, 10, 20, 30, 1, 15, 5, 0, 2, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			t.Skip("long inputs add time, not coverage")
		}
		runBookings(t, data)
	})
}

// runBookings reads five bytes per step: what to do, to which appointment,
// and up to two segments.
func runBookings(t *testing.T, data []byte) {
	var x Index
	staffOf := map[uuid.UUID]uuid.UUID{} // appointment -> staff
	for ; len(data) >= 5; data = data[5:] {
		owner := id(int(data[1] % 16))
		staff := id(200 + int(data[0]>>4)%2)
		spans := []Span{span(int64(data[2]), int64(data[2])+int64(data[3]%40))}
		if data[4]&1 == 1 {
			start := spans[0].End + int64(data[4]>>1)%30 - 5 // may touch or overlap the first
			spans = append(spans, span(start, start+int64(data[3]>>4)))
		}
		except := uuid.Nil
		old, booked := staffOf[owner]
		if booked {
			except = owner
		}
		switch data[0] % 3 {
		case 0, 1: // book, or move if already booked (possibly to other staff)
			if booked && old != staff {
				except = uuid.Nil
			}
			fits := x.Fits(staff, spans, except)
			require.Equal(t, naiveFits(x.Tree(staff), spans, except), fits)
			if !fits {
				continue
			}
			if booked {
				x = x.Delete(old, ownedBy(x.Tree(old), owner)...)
			}
			for i, s := range spans {
				x = x.Add(staff, Item{Span: s, Owner: owner, Seg: int32(i)})
			}
			staffOf[owner] = staff
		case 2: // cancel
			if booked {
				x = x.Delete(old, ownedBy(x.Tree(old), owner)...)
				delete(staffOf, owner)
			}
		}
		a, b, s, found := x.Overlaps()
		require.False(t, found, "staff %v holds %v and %v", s, a, b)
		x.Staff(func(s uuid.UUID, tree Tree) bool {
			require.NoError(t, tree.Check())
			return true
		})
	}
}

func naiveFits(t Tree, spans []Span, except uuid.UUID) bool {
	var m model
	t.All(func(it Item) bool { m.insert(it); return true })
	for i, s := range spans {
		if m.overlapsExcept(s, except) {
			return false
		}
		for _, o := range spans[:i] {
			if o.End > o.Start && s.End > s.Start && o.Start < s.End && s.Start < o.End {
				return false
			}
		}
	}
	return true
}
