package cursor

import (
	"errors"
	"testing"
)

// FuzzDecode checks that Decode never panics on arbitrary input and that any
// cursor it accepts is canonical: re-encoding the decoded position yields the
// very same string, so there is exactly one spelling per cursor.
func FuzzDecode(f *testing.F) {
	c := New(testSecret)
	f.Add(c.Encode(testScope, Position{Sort: 42, ID: [16]byte{1}}))
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := c.Decode(testScope, s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode(%q) returned %v, want ErrInvalid", s, err)
			}
			return
		}
		if again := c.Encode(testScope, p); again != s {
			t.Fatalf("accepted %q but it re-encodes to %q", s, again)
		}
	})
}
