package courier

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestIDsKeepCreationOrderPerEndpoint: ids made for one endpoint in one
// millisecond sort in the order they were made, even when another
// endpoint's ids were stamped with a later time first (its business's
// clock a moment ahead, or another test server's fake clock).
func TestIDsKeepCreationOrderPerEndpoint(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	ahead, ep := uuid.New(), uuid.New()
	NewID(ahead, t0.Add(time.Hour))
	prev := NewID(ep, t0)
	for i := 0; i < 100; i++ {
		next := NewID(ep, t0)
		require.Negative(t, bytes.Compare(prev[:], next[:]), "id %d sorts after the one before", i)
		require.Equal(t, t0.UnixMilli(), int64(next[0])<<40|int64(next[1])<<32|int64(next[2])<<24|int64(next[3])<<16|int64(next[4])<<8|int64(next[5]))
		prev = next
	}
}
