package storage

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDeliveryTable(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	require.NoError(t, err)
	defer s.Close()
	biz, ep, other := [16]byte{1}, [16]byte{2}, [16]byte{3}
	id := func(b byte) [16]byte { return [16]byte{0, 0, 0, 0, 0, b} } // time-ordered by b

	b := s.NewBatch()
	for i := byte(1); i <= 5; i++ {
		b.PutDelivery(biz, ep, id(i), i >= 4, []byte{'r', i})
	}
	b.PutDelivery(biz, other, id(9), true, []byte("x"))
	b.PutReplayAttempt(biz, ep, "evt_01A", 7)
	require.NoError(t, b.Commit())

	owners, err := s.PendingDeliveryOwners()
	require.NoError(t, err)
	require.Equal(t, [][16]byte{biz}, owners)

	walk := func(after *[16]byte, limit int) (got []byte) {
		require.NoError(t, s.Deliveries(biz, ep, after, func(k [16]byte, v []byte) (bool, error) {
			got = append(got, v[1])
			return len(got) < limit, nil
		}))
		return got
	}
	require.Equal(t, []byte{1, 2, 3, 4, 5}, walk(nil, 100))
	require.Equal(t, []byte{1, 2}, walk(nil, 2))
	after := id(2)
	require.Equal(t, []byte{3, 4, 5}, walk(&after, 100), "after is exclusive")
	open := func(e [16]byte) (n []byte) {
		require.NoError(t, s.OpenDeliveries(biz, e, func(k [16]byte) error { n = append(n, k[5]); return nil }))
		return n
	}
	require.Equal(t, []byte{4, 5}, open(ep))

	v, ok, err := s.Delivery(biz, ep, id(4))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []byte{'r', 4}, v)
	_, ok, err = s.Delivery(biz, other, id(4))
	require.NoError(t, err)
	require.False(t, ok, "another endpoint's log")

	n, err := s.LastReplayAttempt(biz, ep, "evt_01A")
	require.NoError(t, err)
	require.Equal(t, 7, n)
	n, err = s.LastReplayAttempt(biz, ep, "evt_01B")
	require.NoError(t, err)
	require.Zero(t, n)

	// Closing, rewriting closed, sweeping and deleting.
	b = s.NewBatch()
	b.CloseDelivery(biz, ep, id(4))
	b.PutDelivery(biz, ep, id(5), false, []byte{'r', 55})
	b.SweepDeliveries(biz, ep, id(3), "evt_01B")
	require.NoError(t, b.Commit())
	require.Equal(t, []byte{3, 4, 55}, walk(nil, 100))
	require.Empty(t, open(ep))
	n, _ = s.LastReplayAttempt(biz, ep, "evt_01A")
	require.Zero(t, n, "replay rows of old events are swept too")

	b = s.NewBatch()
	b.DeleteDeliveries(biz, ep)
	require.NoError(t, b.Commit())
	require.Empty(t, walk(nil, 100))
	require.Equal(t, []byte{9}, open(other), "other endpoints keep theirs")
	b = s.NewBatch()
	b.CloseDelivery(biz, other, id(9))
	b.PutDelivery([16]byte{7}, ep, id(1), false, []byte("closed"))
	b.PutDelivery([16]byte{8}, ep, id(1), true, []byte("open"))
	require.NoError(t, b.Commit())
	owners, err = s.PendingDeliveryOwners()
	require.NoError(t, err)
	require.Equal(t, [][16]byte{{8}}, owners)
}
