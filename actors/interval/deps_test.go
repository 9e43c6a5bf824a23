package interval

import (
	gobuild "go/build"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImportsOnlyStdAndUUID keeps the index free of everything but the
// standard library and uuid, in both builds.
func TestImportsOnlyStdAndUUID(t *testing.T) {
	goTool := goTool(t)
	const self = "github.com/slotd/slotd/actors/interval"
	for _, tags := range []string{"", "invariants"} {
		out, err := exec.Command(goTool, "list", "-tags", tags, "-deps", self).CombinedOutput()
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

// goTool is the go command: on PATH, or in the GOROOT this test was built
// with. The test fails without it rather than skip: a dependency check
// that quietly does nothing is worse than none.
func goTool(t *testing.T) string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(gobuild.Default.GOROOT, "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the go tool is needed to check the dependencies: not on PATH, nor at %s", p)
	}
	return p
}
