package interval

import (
	"cmp"
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"
)

// Span is a half-open interval [Start, End) of Unix milliseconds. A span with
// End <= Start is empty: it covers no time and overlaps nothing.
type Span struct{ Start, End int64 }

// Empty reports whether s covers no time.
func (s Span) Empty() bool { return s.End <= s.Start }

// Overlaps reports whether s and o share any instant. Touching spans such as
// [9:00, 9:30) and [9:30, 10:00) do not overlap, and empty spans overlap
// nothing, not even a span that contains them.
func (s Span) Overlaps(o Span) bool {
	return s.Start < o.End && o.Start < s.End && !s.Empty() && !o.Empty()
}

func (s Span) String() string { return fmt.Sprintf("[%d,%d)", s.Start, s.End) }

// Item is one active segment: which appointment and which segment
// position. In a resource's tree (Index.Take) it also carries the units
// of the resource the appointment takes over the span.
type Item struct {
	Span
	Owner uuid.UUID // appointment id
	Seg   int32     // segment position within the appointment
	Units int32     // units of a resource taken (resource trees only)
}

func (it Item) String() string {
	return fmt.Sprintf("%v %v#%d", it.Span, it.Owner, it.Seg)
}

// compare orders items by (Start, Owner, Seg), the order in which every
// enumeration reports them. End breaks the remaining ties so that the tree is
// an exact set of items: two items differing only in End are both kept, and
// Remove matches the whole item.
func compare(a, b Item) int {
	if c := cmp.Compare(a.Start, b.Start); c != 0 {
		return c
	}
	if c := compareUUID(a.Owner, b.Owner); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Seg, b.Seg); c != 0 {
		return c
	}
	return cmp.Compare(a.End, b.End)
}

// Compare orders items as a Tree does: the order Build and
// Index.AddSorted take them in.
func Compare(a, b Item) int { return compare(a, b) }

// compareUUID orders ids bytewise, as two big-endian words.
func compareUUID(a, b uuid.UUID) int {
	ahi, alo := words(a)
	bhi, blo := words(b)
	if c := cmp.Compare(ahi, bhi); c != 0 {
		return c
	}
	return cmp.Compare(alo, blo)
}

func words(id uuid.UUID) (hi, lo uint64) {
	return binary.BigEndian.Uint64(id[:8]), binary.BigEndian.Uint64(id[8:])
}

// priority is the treap priority of an item: a hash of every field that
// compare looks at, so that equal items get equal priorities and the shape of
// a tree depends only on the items in it.
func priority(it Item) uint64 {
	hi, lo := words(it.Owner)
	h := mix(uint64(it.Start))
	h = mix(h ^ uint64(it.End))
	h = mix(h ^ hi)
	h = mix(h ^ lo)
	return mix(h ^ uint64(it.Seg))
}

// mix is the splitmix64 finaliser: a bijection on uint64 with good avalanche.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
