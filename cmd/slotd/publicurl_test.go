package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPublicURLWarning: --public-url is the base of every link slotd
// gives out (decisions §1). Left at its loopback default while the API
// listens beyond loopback, as the quick start's :8080 does, the start
// says so; on loopback, or with the flag set, it says nothing.
func TestPublicURLWarning(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		name string
		args []string
		warn bool
	}{
		{"every interface, no --public-url", []string{"--listen", ":0"}, true},
		{"loopback", nil, false},
		{"every interface, --public-url set", []string{"--listen", ":0", "--public-url", "https://slotd.example"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := &syncBuffer{}
			s, cmd := startBinaryLog(t, bin, t.TempDir(), log, c.args...)
			require.NotEmpty(t, s.base)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			warned := strings.Contains(log.String(), "--public-url is not set")
			require.Equal(t, c.warn, warned, "%s", log.String())
			if c.warn {
				require.Contains(t, log.String(), "level=WARN")
				require.Contains(t, log.String(), "only this machine reaches")
			}
		})
	}
}
