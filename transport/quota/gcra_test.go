package quota

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/throttled/throttled/v2"

	"github.com/slotd/slotd/actors/clock"
)

// mapStore is throttled's GCRA store over a map, reading a test's clock.
type mapStore struct {
	m   map[string]int64
	now *time.Time
}

func (s *mapStore) GetWithTime(_ context.Context, key string) (int64, time.Time, error) {
	if v, ok := s.m[key]; ok {
		return v, *s.now, nil
	}
	return -1, *s.now, nil
}

func (s *mapStore) SetIfNotExistsWithTTL(_ context.Context, key string, value int64, _ time.Duration) (bool, error) {
	if _, ok := s.m[key]; ok {
		return false, nil
	}
	s.m[key] = value
	return true, nil
}

func (s *mapStore) CompareAndSwapWithTTL(_ context.Context, key string, old, new int64, _ time.Duration) (bool, error) {
	if v, ok := s.m[key]; !ok || v != old {
		return false, nil
	}
	s.m[key] = new
	return true, nil
}

// TestGCRAAsThrottled holds the limiter to the library it replaced: over
// random windows, random spends and peeks at random times, every answer
// (allowed, limit, remaining, reset, retry-after) is the one
// github.com/throttled/throttled/v2's GCRA gives for the same history.
func TestGCRAAsThrottled(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for round := range 200 {
		w := Window{N: 1 + r.IntN(120), Per: []time.Duration{time.Second, time.Minute, time.Hour}[r.IntN(3)]}
		now := t0
		st := &mapStore{m: map[string]int64{}, now: &now}
		lib, err := throttled.NewGCRARateLimiterCtx(st, throttled.RateQuota{MaxRate: throttled.PerDuration(w.N, w.Per), MaxBurst: w.N - 1})
		require.NoError(t, err)
		fc := clock.NewFake(t0)
		lim := New(fc)
		c := Check{'x', w}
		for step := range 300 {
			fc.Advance(time.Duration(r.Int64N(int64(w.Per) / int64(w.N) * 3)))
			now = fc.Now()
			quantity := 1
			if r.IntN(4) == 0 {
				quantity = 0
			}
			limited, res, err := lib.RateLimitCtx(context.Background(), "s", quantity)
			require.NoError(t, err)
			want := Verdict{Allowed: !limited, Limit: res.Limit, Remaining: res.Remaining, Reset: now.Add(res.ResetAfter)}
			if res.RetryAfter > 0 {
				want.RetryAfter = res.RetryAfter
			}
			var got Verdict
			if quantity == 0 {
				got = lim.Peek("s", c)
				want.Allowed = want.Remaining > 0
			} else {
				got = lim.Take("s", c)
			}
			if !want.Allowed {
				want.Refused = 'x'
			}
			require.Equal(t, want, got, "round %d (%+v), step %d, quantity %d", round, w, step, quantity)
		}
	}
}

// A subject already holding state costs no allocation, even passed as a
// conversion of the caller's bytes (the API passes a key's id that way on
// every request); only a new subject's name is copied.
func TestTakeAllocatesNothingForAKnownSubject(t *testing.T) {
	l := New(clock.NewFake(t0))
	id := []byte("0123456789abcdef")
	checks := []Check{{'m', Window{1 << 30, time.Minute}}, {'h', Window{1 << 30, time.Hour}}}
	l.Take(string(id), checks...)
	if n := testing.AllocsPerRun(100, func() { l.Take(string(id), checks...) }); n != 0 {
		t.Fatalf("Take allocates %v times per call", n)
	}
	id[0] = 'x' // the stored name is the limiter's own copy
	require.Equal(t, 2, l.Keys())
	require.Less(t, l.Peek("0123456789abcdef", checks[0]).Remaining, 1<<30, "the subject's state is found by its first name")
}
