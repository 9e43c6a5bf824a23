package record

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAttemptRoundTrip(t *testing.T) {
	a := Attempt{Failures: 3, Next: time.Date(2026, 11, 27, 9, 30, 0, 123e6, time.UTC)}
	b := AppendAttempt(nil, a)
	got, ok := DecodeAttempt(b)
	require.True(t, ok)
	require.Equal(t, a, got)

	// The form the mail outbox wrote before Attempt existed.
	old := binary.AppendUvarint(nil, 3)
	old = binary.AppendUvarint(old, uint64(a.Next.UnixMilli()))
	require.Equal(t, old, b)

	for _, bad := range [][]byte{nil, {0x80}, {1}, append(b, 0), {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 1}} {
		_, ok := DecodeAttempt(bad)
		require.False(t, ok, "%x", bad)
	}
}

func FuzzDecodeAttempt(f *testing.F) {
	f.Add(AppendAttempt(nil, Attempt{Failures: 2, Next: time.UnixMilli(1e12)}))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, ok := DecodeAttempt(b)
		if ok {
			require.Equal(t, b, AppendAttempt(nil, a), "a decoded attempt encodes back to its bytes")
		}
	})
}
