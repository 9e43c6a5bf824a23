package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// An origin as a browser sends it: lower-case host, no default port,
// nothing after the host; anything but an absolute http(s) URL has none.
func TestOriginOf(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080":            "http://127.0.0.1:8080",
		"https://Salon.Example/slotd":      "https://salon.example",
		"https://salon.example:443/":       "https://salon.example",
		"http://salon.example:80":          "http://salon.example",
		"https://salon.example:8443/x?y=z": "https://salon.example:8443",
		"http://[::1]:8080":                "http://[::1]:8080",
	} {
		got, ok := OriginOf(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"salon.example", "ftp://salon.example", "://x"} {
		_, ok := OriginOf(bad)
		assert.False(t, ok, bad)
	}
}
