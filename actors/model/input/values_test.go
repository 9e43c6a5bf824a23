package input

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestParseTime(t *testing.T) {
	got, err := ParseTime("2026-03-29T03:30:00+02:00")
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC), got)
	require.Equal(t, time.UTC, got.Location())
	for _, bad := range []string{"", "2026-03-29", "2026-03-29T01:30:00", "2026-03-29T01:30:00z",
		"2026-03-29t01:30:00Z", "2026-03-29T01:30:00+25:00", "tomorrow",
		"2026-03-29T01:30:00." + strings.Repeat("1", 80) + "Z"} {
		_, err := ParseTime(bad)
		require.Error(t, err, bad)
	}
}

func TestValidEmail(t *testing.T) {
	good := []string{"a@b.co", "first.last+tag@sub.example.org", "x_y-z@example-mail.com", "é@exämple.de"}
	bad := []string{"", "@b.co", "a@", "a@b", "a@.b.co", "a@b..co", "a@b.co.", "a@-b.co", "a@b-.co",
		"a b@c.de", "a@b.co\n", "<a@b.co>", "a,b@c.de", "\"a\"@b.co", "a@[1.2.3.4]", "a@b@c.de",
		strings.Repeat("a", 65) + "@b.co", "a@" + strings.Repeat("b", 250) + ".co", "a\x00@b.co"}
	for _, s := range good {
		require.True(t, ValidEmail(s), s)
	}
	for _, s := range bad {
		require.False(t, ValidEmail(s), s)
	}
}

func TestParseIntLiterals(t *testing.T) {
	cases := []struct {
		lit  string
		want int
		res  intResult
	}{
		{"0", 0, intOK},
		{"-17", -17, intOK},
		{"9223372036854775807", 9223372036854775807, intOK},
		{"9223372036854775808", 0, intTooLarge},
		{"-9223372036854775809", 0, intTooSmall},
		{"1.5", 0, intNotWhole},
		{"1E3", 0, intNotWhole},
	}
	for _, tc := range cases {
		n, res := parseInt(tc.lit)
		require.Equal(t, tc.res, res, tc.lit)
		require.Equal(t, tc.want, n, tc.lit)
	}
}

// parseUUID accepts exactly the 36-character texts uuid.ParseBytes accepts,
// with the same value, over random and mutated texts.
func TestParseUUIDAsTheLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	alphabet := []byte("0123456789abcdefABCDEF-gGxz{}: \\x00\\xff")
	for range 200000 {
		b := []byte(uuid.New().String())
		if r.IntN(2) == 0 {
			b = bytes.ToUpper(b)
		}
		for range r.IntN(3) {
			b[r.IntN(len(b))] = alphabet[r.IntN(len(alphabet))]
		}
		got, ok := parseUUID(b)
		want, err := uuid.ParseBytes(b)
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("%q: parseUUID %v %v, uuid %v %v", b, got, ok, want, err)
		}
	}
	for _, s := range []string{"", "x", "{01234567-89ab-cdef-0123-456789abcdef}", "0123456789abcdef0123456789abcdef"} {
		_, ok := parseUUID([]byte(s))
		require.False(t, ok, s)
	}
}
