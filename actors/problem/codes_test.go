package problem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCodesAreFrozen: a code's text is what clients branch on and what
// stored refusals hold; none changes or goes. New codes are appended to
// the golden file by hand, after the published API or the decisions page
// names them.
func TestCodesAreFrozen(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "codes.golden"))
	require.NoError(t, err)
	golden := strings.Fields(string(raw))
	var now []string
	seen := map[Code]bool{}
	for _, c := range Codes {
		require.False(t, seen[c], "%s listed twice", c)
		seen[c] = true
		now = append(now, string(c))
	}
	require.Equal(t, golden, now)
}
