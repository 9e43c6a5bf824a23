package linktoken

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestMakeOpens(t *testing.T) {
	c := New([]byte(strings.Repeat("s", 32)))
	biz, appt := uuid.New(), uuid.New()
	tok := c.Make(biz, appt)
	require.Len(t, tok, Len)
	require.Equal(t, tok, c.Make(biz, appt), "a function of the ids")
	gotBiz, gotAppt, ok := c.Open(tok)
	require.True(t, ok)
	require.Equal(t, biz, gotBiz)
	require.Equal(t, appt, gotAppt)
	require.NotEqual(t, tok, c.Make(biz, uuid.New()))

	other := New([]byte(strings.Repeat("t", 32)))
	_, _, ok = other.Open(tok)
	require.False(t, ok, "another secret's token")
	for i := range tok {
		flipped := []byte(tok)
		flipped[i] ^= 1
		_, _, ok := c.Open(string(flipped))
		require.False(t, ok, "a change at %d", i)
	}
	for _, bad := range []string{"", tok[:Len-1], tok + "A", strings.Repeat("!", Len), strings.Repeat("A", Len)} {
		_, _, ok := c.Open(bad)
		require.False(t, ok, "%q", bad)
	}
}

func FuzzOpen(f *testing.F) {
	c := New([]byte(strings.Repeat("s", 32)))
	f.Add(c.Make(uuid.New(), uuid.New()))
	f.Add(strings.Repeat("A", Len))
	f.Fuzz(func(t *testing.T, tok string) {
		biz, appt, ok := c.Open(tok)
		if ok && c.Make(biz, appt) != tok {
			t.Fatalf("opened %q, which Make would not make", tok)
		}
	})
}

// A manage link's token never opens as a calendar feed's, nor the
// reverse, under the same secret.
func TestKindsDoNotMix(t *testing.T) {
	secret := make([]byte, 32)
	manage, feeds := New(secret), NewFeeds(secret)
	biz, id := uuid.New(), uuid.New()
	_, _, ok := feeds.Open(manage.Make(biz, id))
	require.False(t, ok)
	_, _, ok = manage.Open(feeds.Make(biz, id))
	require.False(t, ok)
	b, f, ok := feeds.Open(feeds.Make(biz, id))
	require.True(t, ok)
	require.Equal(t, biz, b)
	require.Equal(t, id, f)
}

// A link costs one allocation, the string itself: keying an HMAC per
// link was most of what a booking's two links cost.
func TestURLAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops what is put back")
	}
	c := New(make([]byte, 32))
	biz, appt := uuid.New(), uuid.New()
	c.URL("https://example.com", biz, appt) // the pool's first HMAC
	if n := testing.AllocsPerRun(100, func() { c.URL("https://example.com", biz, appt) }); n > 1 {
		t.Errorf("URL: %.0f allocations, want 1", n)
	}
}
