package interval

import (
	"testing"

	"github.com/google/uuid"
)

// The benchmark schedule: 20 days of 100 items each, 2,000 in all. A day
// cannot hold 100 disjoint half hours, so the items are 10 minutes long on a
// 14.4 minute pitch, leaving a 4.4 minute gap after each; the tree stays
// disjoint, as a staff member's does.
const (
	benchBase  = int64(1_767_225_600_000) // 2026-01-01T00:00Z
	benchDay   = 24 * 60 * minute
	benchPitch = benchDay / 100
	benchLen   = 10 * minute
)

func benchTree() Tree {
	var t Tree
	for d := range int64(20) {
		for i := range int64(100) {
			start := benchBase + d*benchDay + i*benchPitch
			owner := uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(d), byte(i)})
			t = t.Insert(Item{Span: span(start, start+benchLen), Owner: owner})
		}
	}
	return t
}

// benchGaps returns 3-minute spans inside the gaps of window.
func benchGaps(t Tree, window Span) []Span {
	var out []Span
	t.Free(window, func(s Span) bool {
		if s.End-s.Start >= 3*minute {
			out = append(out, span(s.Start+30_000, s.Start+30_000+3*minute))
		}
		return true
	})
	return out
}

// benchProbes alternates half-hour spans that hit items with 3-minute spans
// that fall in gaps, spread over all 20 days.
func benchProbes(t Tree) []Span {
	gaps := benchGaps(t, span(benchBase, benchBase+20*benchDay))
	out := make([]Span, 0, 1024)
	for i := range 512 {
		g := gaps[(i*397)%len(gaps)]
		out = append(out, span(g.Start-hm(0, 20), g.Start+hm(0, 10)), g)
	}
	return out
}

func BenchmarkOverlaps(b *testing.B) {
	t := benchTree()
	probes := benchProbes(t)
	for i := 0; b.Loop(); i++ {
		sink += b2i(t.Overlaps(probes[i%len(probes)]))
	}
}

func BenchmarkFits(b *testing.B) {
	t := benchTree()
	x := Index{}.Add(ann, listItems(t)...)
	gaps := benchGaps(t, span(benchBase, benchBase+20*benchDay))
	for i := 0; b.Loop(); i++ {
		j := (i * 3) % (len(gaps) - 2)
		sink += b2i(x.Fits(ann, gaps[j:j+3], uuid.Nil)) // fits: all three searched
	}
}

func BenchmarkFreeDay(b *testing.B) {
	t := benchTree()
	for i := 0; b.Loop(); i++ {
		d := int64(i % 20)
		t.Free(span(benchBase+d*benchDay, benchBase+(d+1)*benchDay), func(Span) bool { sink++; return true })
	}
}

func BenchmarkInsert(b *testing.B) {
	t := benchTree()
	gaps := benchGaps(t, span(benchBase, benchBase+20*benchDay))
	for i := 0; b.Loop(); i++ {
		sink += t.Insert(Item{Span: gaps[i%len(gaps)], Owner: bob}).Len()
	}
}

func BenchmarkRemove(b *testing.B) {
	t := benchTree()
	all := listItems(t)
	for i := 0; b.Loop(); i++ {
		t2, _ := t.Remove(all[(i*7)%len(all)])
		sink += t2.Len()
	}
}
