package interval

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImportsOnlyStdAndUUID keeps the index free of everything but the
// standard library and uuid, in both builds.
func TestImportsOnlyStdAndUUID(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not on PATH")
	}
	const self = "github.com/slotd/slotd/actors/interval"
	for _, tags := range []string{"", "invariants"} {
		out, err := exec.Command("go", "list", "-tags", tags, "-deps", self).CombinedOutput()
		require.NoError(t, err, "%s", out)
		for _, dep := range strings.Fields(string(out)) {
			first, _, _ := strings.Cut(dep, "/")
			std := !strings.Contains(first, ".")
			if !std && dep != "github.com/google/uuid" && dep != self {
				t.Errorf("tags %q: %s depends on %s", tags, self, dep)
			}
		}
	}
}
