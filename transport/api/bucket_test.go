package api

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/transport/quota"
)

func TestPingBucketIsExactAtTheWindowEdge(t *testing.T) {
	b := newPingBucket()
	biz, other := uuid.New(), uuid.New()
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	for i := 0; i < pingLimit; i++ {
		at := t0.Add(time.Duration(i) * time.Second)
		require.Equal(t, quota.Verdict{Allowed: true, Limit: 10, Remaining: 9 - i, Reset: at.Add(time.Minute)}, b.take(biz, at), "spend %d", i)
	}
	v := b.take(biz, t0.Add(30*time.Second))
	require.Equal(t, quota.Verdict{Limit: 10, Remaining: 0, Reset: t0.Add(69 * time.Second), RetryAfter: 30 * time.Second}, v,
		"the oldest spend frees at t0+60s, the newest at t0+69s")
	require.True(t, b.take(other, t0.Add(30*time.Second)).Allowed, "buckets are per business")
	require.False(t, b.take(biz, t0.Add(time.Minute-time.Millisecond)).Allowed, "no burst across the edge")
	v = b.take(biz, t0.Add(time.Minute))
	require.True(t, v.Allowed, "the first spend has left the window")
	require.Zero(t, v.Remaining)
	require.False(t, b.take(biz, t0.Add(time.Minute)).Allowed, "only one freed")
}
