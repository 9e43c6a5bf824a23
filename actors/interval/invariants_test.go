//go:build invariants

package interval

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInvariantsBuildPanics documents the contract: Add does not refuse an
// overlap, but in the invariants build the overlap it creates panics at once.
func TestInvariantsBuildPanics(t *testing.T) {
	x := Index{}.Add(ann, morning...)
	require.NotPanics(t, func() { x.Add(ann, item(hm(10, 0), hm(11, 0), 9, 0)) }, "touching is fine")
	require.NotPanics(t, func() { x.Delete(ann, morning[1]) })

	defer func() {
		err, _ := recover().(error)
		require.ErrorIs(t, err, errOverlap)
	}()
	x.Add(ann, item(hm(10, 0), hm(11, 1), 9, 0))
	t.Fatal("overlapping Add did not panic")
}
