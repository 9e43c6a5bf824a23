package wire

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestResponseEncodingIsValidJSON(t *testing.T) {
	for _, s := range []string{"plain", "quote\" backslash\\ newline\n tab\t", "\x00\x1f control", "ünïcødé ✂", "bad \xff utf8", "</script>"} {
		b := AppendString(nil, s)
		var got string
		require.NoError(t, json.Unmarshal(b, &got), "%q -> %s", s, b)
		if s != "bad \xff utf8" {
			require.Equal(t, s, got)
		}
	}
	id := uuid.New()
	require.Equal(t, `"`+id.String()+`"`, string(AppendUUID(nil, id)))
	tm := time.Date(2026, 3, 29, 1, 2, 3, 4e6, time.FixedZone("x", 3600))
	require.Equal(t, `"2026-03-29T00:02:03.004Z"`, string(AppendTime(nil, tm)))
}

// TestAppendTimeMatchesTheStandardLibrary compares the hand-written
// timestamp encoder with time.Time.AppendFormat over a wide, random range,
// the epoch, leap days and the years where the fast path hands over.
func TestAppendTimeMatchesTheStandardLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var times Times // remembers a day between calls: also random days in a row, and runs of one day
	check := func(tm time.Time) {
		want := `"` + tm.UTC().Format(TimeLayout) + `"`
		require.Equal(t, want, string(AppendTime(nil, tm)), "%v", tm)
		require.Equal(t, want, string(times.Append(nil, tm)), "%v", tm)
		next := tm.Add(time.Duration(r.IntN(3*3600)) * time.Second) // often the same day
		require.Equal(t, `"`+next.UTC().Format(TimeLayout)+`"`, string(times.Append(nil, next)), "%v", next)
	}
	for _, tm := range []time.Time{time.Unix(0, 0), time.Unix(-1, 0), time.UnixMilli(-1),
		time.Date(2024, 2, 29, 23, 59, 59, 999e6, time.UTC), time.Date(2000, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-5, 6, 1, 0, 0, 0, 0, time.UTC), {}} {
		check(tm)
	}
	for i := 0; i < 200000; i++ {
		check(time.UnixMilli(r.Int64N(500*365*86400000) - 250*365*86400000).In(time.FixedZone("x", 3600)))
	}
}

func BenchmarkAppendTime(b *testing.B) {
	buf := make([]byte, 0, 64)
	tm := time.Date(2027, 1, 5, 9, 15, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendTime(buf[:0], tm)
	}
}
