package main

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Nine requests in ten are reads, alternating between the two kinds; the
// tenth is a booking; each kind's indices are dense from 0, so a booking
// index is a slot and a read index a query.
func TestMixedRequest(t *testing.T) {
	const n = 1000
	seen := map[[2]uint64]bool{} // (kind, index)
	counts := [3]uint64{}        // day, week, booking
	for seq := range uint64(n) {
		booking, week, i := mixedRequest(seq)
		kind := uint64(0)
		switch {
		case booking:
			kind = 2
			assert.Equal(t, uint64(mixedEvery-1), seq%mixedEvery)
		case week:
			kind = 1
		}
		require.False(t, seen[[2]uint64{kind, i}], "seq %d: kind %d index %d again", seq, kind, i)
		seen[[2]uint64{kind, i}] = true
		counts[kind]++
	}
	assert.Equal(t, [3]uint64{450, 450, 100}, counts)
	for kind, c := range counts {
		for i := range c {
			assert.True(t, seen[[2]uint64{uint64(kind), i}], "kind %d: index %d missing", kind, i)
		}
	}
}

// mixedCounts counts what mixedRequest made, for any number of requests.
func TestMixedCounts(t *testing.T) {
	l := testLayout(t, smallSpec())
	for _, n := range []int64{0, 1, 9, 10, 25, 1234} {
		var day, week int64
		for seq := range uint64(n) {
			if booking, isWeek, _ := mixedRequest(seq); !booking && isWeek {
				week++
			} else if !booking {
				day++
			}
		}
		var m Mixed
		mixedCounts(&m, &Phase{Requests: n}, l, 90)
		assert.Equal(t, day, m.DayReads, "n=%d", n)
		assert.Equal(t, week, m.WeekReads, "n=%d", n)
		assert.True(t, m.UncachedGuaranteed)
	}
	var m Mixed
	mixedCounts(&m, &Phase{Requests: 10 * 90 * maxShift}, l, 90)
	assert.False(t, m.UncachedGuaranteed, "more 7-day reads than distinct shifted queries")
}

// The mixed phase's reads are distinct from each other and from what the
// read phases asked (their windows start at midnight), and each moves its
// window by whole minutes before opening.
func TestMixedReadsAreNew(t *testing.T) {
	l := testLayout(t, smallSpec())
	h := &harness{opt: defaults()}
	h.opt.Queries = 90
	asked := map[string]bool{}
	for q := range h.opt.Queries {
		b, svc, from := l.weekQuery(q)
		asked[slotsPath(l, b, svc, -1, from, 7*24*time.Hour)] = true
	}
	for n := range l.dayQueries() {
		b, st, svc, from := l.dayQuery(n)
		asked[slotsPath(l, b, svc, st, from, 24*time.Hour)] = true
	}
	before := len(asked)
	const reads = 5000
	for n := range uint64(reads) {
		week, _ := h.mixedWeek(l, n)
		day, _ := mixedDay(l, n)
		require.False(t, asked[week], "7-day read %d asked before: %s", n, week)
		asked[week] = true
		require.False(t, asked[day], "1-day read %d asked before: %s", n, day)
		asked[day] = true
	}
	assert.Len(t, asked, before+2*reads)

	for _, n := range []uint64{0, 89, 90, 90*maxShift - 1} {
		q, shift := shiftedQuery(n, 90)
		assert.Less(t, q, 90)
		assert.GreaterOrEqual(t, shift, time.Minute)
		assert.Less(t, shift, openHour*time.Hour, "the window starts before opening")
		assert.Zero(t, shift%time.Minute)
	}
	q0, s0 := shiftedQuery(0, 90)
	q1, s1 := shiftedQuery(90*maxShift, 90)
	assert.Equal(t, [2]any{q0, s0}, [2]any{q1, s1}, "past every shift the queries repeat")
}

// A slot range starts where the slotd's last workload stopped and hands
// its end to the next one, however its requests interleave.
func TestSlotRange(t *testing.T) {
	s := &slotd{nextSlot: 5}
	r := newSlotRange(s)
	var wg sync.WaitGroup
	for n := range uint64(100) {
		wg.Go(func() { assert.Equal(t, 5+int(n), r.take(n)) })
	}
	wg.Wait()
	assert.Equal(t, 42, r.slot(37))
	r.done(s)
	assert.Equal(t, 105, s.nextSlot)
	newSlotRange(s).done(s)
	assert.Equal(t, 105, s.nextSlot, "a workload that booked nothing takes nothing")
}

func TestMemStat(t *testing.T) {
	profile := "heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1\n\n# runtime.MemStats\n# Alloc = 123\n# TotalAlloc = 999\n# HeapAlloc = 4567\n# HeapSys = 8192\n"
	n, ok := memStat(profile, "HeapAlloc")
	assert.True(t, ok)
	assert.Equal(t, int64(4567), n)
	_, ok = memStat(profile, "HeapInuse")
	assert.False(t, ok)
	_, ok = memStat("# HeapAlloc = x\n", "HeapAlloc")
	assert.False(t, ok)
}
