package transport

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestPingBucketIsExactAtTheWindowEdge(t *testing.T) {
	b := newPingBucket()
	biz, other := uuid.New(), uuid.New()
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	for i := 0; i < pingLimit; i++ {
		ok, _ := b.take(biz, t0.Add(time.Duration(i)*time.Second))
		require.True(t, ok, "spend %d", i)
	}
	ok, wait := b.take(biz, t0.Add(30*time.Second))
	require.False(t, ok)
	require.Equal(t, 30*time.Second, wait, "the oldest spend frees at t0+60s")
	ok, _ = b.take(other, t0.Add(30*time.Second))
	require.True(t, ok, "buckets are per business")
	ok, _ = b.take(biz, t0.Add(time.Minute-time.Millisecond))
	require.False(t, ok, "no burst across the edge")
	ok, _ = b.take(biz, t0.Add(time.Minute))
	require.True(t, ok, "the first spend has left the window")
	ok, _ = b.take(biz, t0.Add(time.Minute))
	require.False(t, ok, "only one freed")
}
