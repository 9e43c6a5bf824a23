package interval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestUnion(t *testing.T) {
	got := Union([]Span{{50, 60}, {10, 20}, {15, 30}, {30, 40}, {70, 70}, {45, 46}})
	require.Equal(t, []Item{{Span: Span{10, 40}}, {Span: Span{45, 46}}, {Span: Span{50, 60}}}, got)
	require.Empty(t, Union(nil))
}

// External busy time blocks what it covers for every writer (Fits) and
// every reader (Busy), whatever it overlaps; bookings under it stay.
func TestExternalBusyTime(t *testing.T) {
	anna, bram := uuid.New(), uuid.New()
	appt := uuid.New()
	x := Index{}.Add(anna, Item{Span: Span{100, 200}, Owner: appt})
	x = x.WithExternal(anna, []Span{{150, 300}, {400, 500}, {450, 460}})
	require.Equal(t, 2, x.External(anna).Len())
	require.Equal(t, 1, x.Tree(anna).Len(), "the booking under it stays")
	require.False(t, x.Fits(anna, []Span{{300, 350}, {390, 401}}, uuid.Nil))
	require.True(t, x.Fits(anna, []Span{{300, 400}}, uuid.Nil))
	require.False(t, x.Fits(anna, []Span{{120, 160}}, appt), "an appointment moved onto busy time")
	require.True(t, x.Fits(anna, []Span{{100, 150}}, appt), "its own time, up to the busy time")
	require.True(t, x.Fits(bram, []Span{{150, 300}}, uuid.Nil), "another staff member is not busy")

	b := x.Busy(anna, 0, 600)
	var free []Span
	b.Free(Span{0, 600}, func(s Span) bool { free = append(free, s); return true })
	require.Equal(t, []Span{{0, 100}, {300, 400}, {500, 600}}, free)

	// Only external time: the entry lives; replaced by nothing, it goes.
	y := x.Delete(anna, Item{Span: Span{100, 200}, Owner: appt})
	require.Equal(t, 0, y.Tree(anna).Len())
	require.Equal(t, 2, y.External(anna).Len())
	z := y.WithExternal(anna, nil)
	require.Empty(t, z.staff)
	require.Equal(t, 2, y.External(anna).Len(), "persistent: y is unchanged")
}

// Busy over a tree and external time is the union of both, for random
// sets: the flat copy availability reads equals a plain merge.
func TestBusyMergesExternal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	for range 200 {
		staff := uuid.New()
		var x Index
		var all []Span
		at := int64(0)
		for range rng.IntN(20) { // disjoint bookings
			at += int64(rng.IntN(50))
			s := Span{at, at + 1 + int64(rng.IntN(40))}
			at = s.End
			x = x.Add(staff, Item{Span: s, Owner: uuid.New()})
			all = append(all, s)
		}
		var ext []Span
		for range rng.IntN(20) { // anything
			st := int64(rng.IntN(int(at + 100)))
			ext = append(ext, Span{st, st + int64(rng.IntN(60))})
		}
		x = x.WithExternal(staff, ext)
		all = append(all, ext...)
		from := int64(rng.IntN(int(at + 1)))
		// Compared from from on: a Busy is good for windows starting there.
		var want, got []Span
		for _, it := range Union(all) {
			if it.End > from {
				want = append(want, Span{max(it.Start, from), it.End})
			}
		}
		for _, s := range buildBusy(x.Tree(staff), x.External(staff), from, math.MaxInt64).spans {
			got = append(got, Span{max(s.Start, from), s.End})
		}
		require.Equal(t, want, got)
	}
}
