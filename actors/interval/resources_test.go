package interval

import (
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestRoomCountsUnits(t *testing.T) {
	room := uuid.New()
	a, b := uuid.New(), uuid.New()
	var x Index
	require.True(t, x.Room(room, 2, 2, []Span{span(0, 60)}, uuid.Nil), "an unused resource has every unit")
	require.False(t, x.Room(room, 2, 3, []Span{span(0, 60)}, uuid.Nil), "never more than its quantity")
	x = x.Take(room, Item{Span: span(0, 60), Owner: a, Units: 1})
	x = x.Take(room, Item{Span: span(30, 90), Owner: b, Units: 1})
	require.False(t, x.Room(room, 2, 1, []Span{span(45, 50)}, uuid.Nil), "both units taken from 30 to 60")
	require.True(t, x.Room(room, 2, 1, []Span{span(60, 90)}, uuid.Nil), "a ends at 60: touching is no overlap")
	require.True(t, x.Room(room, 2, 1, []Span{span(45, 50)}, a), "a's own units are not counted when a moves")
	require.True(t, x.Room(room, 3, 1, []Span{span(0, 100)}, uuid.Nil))
	require.False(t, x.Room(room, 2, 1, []Span{span(0, 10), span(40, 41)}, uuid.Nil), "every span counts")
	x = x.Give(room, Item{Span: span(30, 90), Owner: b, Units: 1})
	require.True(t, x.Room(room, 2, 1, []Span{span(45, 50)}, uuid.Nil))
	under := x.WithExternal(room, []Span{span(70, 80)})
	require.False(t, under.Room(room, 2, 1, []Span{span(75, 76)}, uuid.Nil), "busy time takes every unit")
	require.True(t, under.Room(room, 2, 1, []Span{span(80, 90)}, uuid.Nil))
	x = x.Give(room, Item{Span: span(0, 60), Owner: a, Units: 1})
	require.Zero(t, x.Used(room).Len())
	require.Empty(t, x.res, "an unused resource leaves no entry")
}

// TestRoomMatchesCounting checks Room against counting every minute.
func TestRoomMatchesCounting(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		res, quantity := uuid.New(), 1+r.IntN(4)
		var x Index
		var items []Item
		for range r.IntN(12) {
			s := r.Int64N(100)
			it := Item{Span: span(s, s+1+r.Int64N(40)), Owner: id(r.IntN(6)), Units: int32(1 + r.IntN(2))}
			if x.Used(res).Contains(it) {
				continue // one booking never takes the same span twice
			}
			items = append(items, it)
			x = x.Take(res, it)
		}
		s := r.Int64N(120)
		want := Span{s, s + 1 + r.Int64N(30)}
		units, except := 1+r.IntN(2), id(r.IntN(8))
		fits := true
		for m := want.Start; m < want.End; m++ {
			n := units
			for _, it := range items {
				if it.Owner != except && it.Start <= m && m < it.End {
					n += int(it.Units)
				}
			}
			fits = fits && n <= quantity
		}
		require.Equal(t, fits, x.Room(res, quantity, units, []Span{want}, except), "%v quantity %d units %d except %v", items, quantity, units, except)
	}
}

// TestProfileMatchesRoom checks a profile's peaks against Room.
func TestProfileMatchesRoom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		res, quantity := uuid.New(), 1+r.IntN(5)
		var x Index
		for i := range r.IntN(15) {
			s := r.Int64N(100)
			x = x.Take(res, Item{Span: span(s, s+1+r.Int64N(40)), Owner: id(i), Units: int32(1 + r.IntN(2))})
		}
		if r.IntN(3) == 0 {
			s := r.Int64N(100)
			x = x.WithExternal(res, []Span{span(s, s+1+r.Int64N(20))})
		}
		p := x.Profile(res)
		require.Same(t, p, x.Profile(res), "built once per version")
		for range 20 {
			s := r.Int64N(150)
			sp := span(s, s+1+r.Int64N(40))
			units := 1 + r.IntN(3)
			fits := p.Peak(sp)+units <= quantity && !x.External(res).Overlaps(sp)
			require.Equal(t, x.Room(res, quantity, units, []Span{sp}, uuid.Nil), fits, "%v", sp)
		}
	}
}
