package quota

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
)

var t0 = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

func TestForKey(t *testing.T) {
	require.Equal(t, KeyLimits{Window{60, time.Minute}, Window{600, time.Hour}, Window{30, time.Minute}}, ForKey(model.Groei, nil))
	require.Equal(t, KeyLimits{Window{120, time.Minute}, Window{2000, time.Hour}, Window{30, time.Minute}}, ForKey(model.Pro, nil))
	require.Equal(t, KeyLimits{Window{300, time.Minute}, Window{10000, time.Hour}, Window{30, time.Minute}}, ForKey(model.Zakelijk, nil))
	require.Equal(t, ForKey(model.Groei, nil), ForKey("enterprise-plus", nil), "an unrecognised plan gets Groei's")
	require.Equal(t, KeyLimits{Window{1000, time.Minute}, Window{2000, time.Hour}, Window{5, time.Minute}},
		ForKey(model.Pro, &model.Limits{PerMinute: 1000, MutationsPerMinute: 5}), "unset members keep the plan's")
}

func TestMinuteWindowExactly(t *testing.T) {
	fc := clock.NewFake(t0)
	l := New(fc)
	k := ForKey(model.Groei, nil)
	checks := []Check{{'m', k.Minute}, {'h', k.Hour}}
	for i := 1; i <= 60; i++ {
		v := l.Take("key", checks...)
		require.True(t, v.Allowed, "request %d", i)
		require.Equal(t, 60, v.Limit, "the minute is the most constrained")
		require.Equal(t, 60-i, v.Remaining)
	}
	v := l.Take("key", checks...)
	require.False(t, v.Allowed)
	require.Equal(t, 60, v.Limit)
	require.Zero(t, v.Remaining)
	require.Equal(t, time.Second, v.RetryAfter, "capacity returns one request per second")
	require.Equal(t, t0.Add(time.Minute), v.Reset, "full again a minute after the first")

	// A refusal spends nothing: the hour still has 540 left, and one second
	// later exactly one request passes.
	h := l.Peek("key", Check{'h', k.Hour})
	require.Equal(t, 540, h.Remaining)
	fc.Advance(time.Second)
	require.True(t, l.Take("key", checks...).Allowed)
	require.False(t, l.Take("key", checks...).Allowed)

	// No burst of twice the limit across a minute boundary: a minute after
	// the first request, only what came back in between is there.
	fc.Advance(59 * time.Second)
	n := 0
	for l.Take("key", checks...).Allowed {
		n++
	}
	require.Equal(t, 59, n, "the minute since the 61st request")
}

func TestHourWindowAndMutationCeiling(t *testing.T) {
	fc := clock.NewFake(t0)
	l := New(fc)
	k := ForKey(model.Pro, &model.Limits{PerMinute: 5, PerHour: 7, MutationsPerMinute: 2})
	read := []Check{{'m', k.Minute}, {'h', k.Hour}}
	write := append(read, Check{'w', k.Mutations})

	require.True(t, l.Take("k", write...).Allowed)
	v := l.Take("k", write...)
	require.True(t, v.Allowed)
	require.Equal(t, 2, v.Limit, "the mutation ceiling has the least left")
	require.Zero(t, v.Remaining)
	v = l.Take("k", write...)
	require.False(t, v.Allowed, "third mutation in the minute")
	require.Equal(t, byte('w'), v.Refused, "the check that refused")
	require.Equal(t, 2, v.Limit)
	require.Equal(t, 30*time.Second, v.RetryAfter)
	for i := 0; i < 3; i++ {
		require.True(t, l.Take("k", read...).Allowed, "reads go on")
	}
	v = l.Take("k", read...)
	require.False(t, v.Allowed)
	require.Equal(t, byte('m'), v.Refused)
	require.Equal(t, 5, v.Limit, "the minute is spent")

	fc.Advance(time.Minute)
	v = l.Take("k", read...)
	require.True(t, v.Allowed)
	require.Equal(t, 7, v.Limit, "now the hour has the least left")
	require.Equal(t, 1, v.Remaining)
	require.True(t, l.Take("k", read...).Allowed)
	v = l.Take("k", read...)
	require.False(t, v.Allowed)
	require.Equal(t, byte('h'), v.Refused)
	require.Equal(t, 7, v.Limit)
	require.Equal(t, t0.Add(time.Hour/7), t0.Add(v.RetryAfter+time.Minute), "one of seven an hour")

	require.True(t, l.Take("other", read...).Allowed, "limits are per subject")
}

func TestIdleStateIsDropped(t *testing.T) {
	fc := clock.NewFake(t0)
	l := New(fc)
	w := Check{'a', FailedAuth}
	for i := 0; i < 5000; i++ {
		l.Take(fmt.Sprint("ip", i), w)
	}
	require.Equal(t, 5000, l.Keys())
	fc.Advance(time.Minute)
	for i := 0; i < 5000; i++ {
		l.Take(fmt.Sprint("new", i), w)
	}
	require.Less(t, l.Keys(), 7000, "entries back at full allowance were swept")
	v := l.Peek("ip1", w)
	require.Equal(t, 20, v.Remaining, "a dropped subject is exactly a fresh one")
}

// TestPeekWithoutState: a subject the limiter holds nothing for, or whose
// state has lapsed, is answered without running GCRA, and the answer is
// the one GCRA gives; nothing is stored for it.
func TestPeekWithoutState(t *testing.T) {
	fc := clock.NewFake(t0)
	l := New(fc)
	c := Check{'a', FailedAuth}
	v := l.Peek("203.0.113.9", c)
	require.Equal(t, Verdict{Allowed: true, Limit: 20, Remaining: 20, Reset: t0}, v)
	require.Zero(t, l.Keys(), "a peek stores nothing")

	slow := gcraOf(c.Window).peek(t0.UnixNano(), t0, t0.UnixNano()) // a TAT of now: as fresh as none
	require.Equal(t, slow, v, "the fast answer is GCRA's")

	require.True(t, l.Take("203.0.113.9", c).Allowed)
	require.Equal(t, 19, l.Peek("203.0.113.9", c).Remaining, "state is read once there is some")
	fc.Advance(3 * time.Second) // one request's worth back: the TAT has passed
	require.Equal(t, Verdict{Allowed: true, Limit: 20, Remaining: 20, Reset: t0.Add(3 * time.Second)}, l.Peek("203.0.113.9", c))
}

// TestQuotaChangeKeepsWhatWasSpent: a key whose limit changes (a world
// reload) is not handed a fresh allowance; what it spent counts at the new
// rate.
func TestQuotaChangeKeepsWhatWasSpent(t *testing.T) {
	l := New(clock.NewFake(t0))
	for i := 0; i < 50; i++ {
		require.True(t, l.Take("key", Check{'m', Window{60, time.Minute}}).Allowed)
	}
	v := l.Take("key", Check{'m', Window{100, time.Minute}})
	require.True(t, v.Allowed)
	require.Equal(t, 100, v.Limit)
	// 50 spent at one a second put the TAT 50 s ahead: 83⅓ requests at the
	// new 0.6 s each; with this one, 84⅓ of 100 are used and 15 whole remain.
	require.Equal(t, 15, v.Remaining)
}

// TestRefusalPutsBackEarlierSpends: Take spends limit by limit; when a
// later one refuses, the earlier ones are exactly as before, whether they
// held state or none.
func TestRefusalPutsBackEarlierSpends(t *testing.T) {
	l := New(clock.NewFake(t0))
	minute, tight := Check{'m', Window{60, time.Minute}}, Check{'w', Window{1, time.Minute}}
	require.True(t, l.Take("fresh", tight).Allowed) // only the tight limit has state
	v := l.Take("fresh", minute, tight)
	require.False(t, v.Allowed)
	require.Equal(t, 1, v.Limit, "the refusing limit is reported")
	require.Equal(t, 1, l.Keys(), "the minute's new entry was taken back")

	require.True(t, l.Take("used", minute).Allowed)
	require.True(t, l.Take("used", tight).Allowed)
	before := l.Peek("used", minute)
	require.False(t, l.Take("used", minute, tight).Allowed)
	require.Equal(t, before, l.Peek("used", minute), "the minute's spend was put back")
	require.Equal(t, 59, before.Remaining)
}
