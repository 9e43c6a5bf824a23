package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Zone gives LoadLocation's zone, the same one every time, and its errors.
func TestZone(t *testing.T) {
	for _, name := range []string{"Europe/Amsterdam", "America/New_York", "UTC", ""} {
		want, err := time.LoadLocation(name)
		require.NoError(t, err)
		got, err := Zone(name)
		require.NoError(t, err)
		require.Equal(t, want.String(), got.String())
		at := time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)
		require.Equal(t, at.In(want).Format(time.RFC3339), at.In(got).Format(time.RFC3339))
		again, _ := Zone(name)
		require.Same(t, got, again)
	}
	_, err := Zone("Nowhere/Else")
	require.Error(t, err)
	_, ok := zones.Load("Nowhere/Else")
	require.False(t, ok, "a name that is not a zone is not kept")
}

func BenchmarkZone(b *testing.B) {
	b.Run("LoadLocation", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = time.LoadLocation("Europe/Amsterdam")
		}
	})
	b.Run("Zone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = Zone("Europe/Amsterdam")
		}
	})
}
