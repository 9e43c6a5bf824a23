package wire

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/problem"
)

// Every code the status table names is a code of problem.Codes, and every
// code has a status clients can expect from the published API.
func TestStatusTableNamesKnownCodes(t *testing.T) {
	for c := range statusOf {
		require.True(t, slices.Contains(problem.Codes, c), "%s is not in problem.Codes", c)
	}
	for _, c := range problem.Codes {
		s := Status(c)
		require.True(t, s >= 400 && s < 600, "%s: %d", c, s)
	}
}
