package webhook

import (
	"context"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// forbiddenDeps are packages the integrator-facing verifier must never pull
// in: integrators vendor this package next to their own HTTP stack, and
// slotd's server internals must not leak into it.
var forbiddenDeps = []string{
	"net/http",
	"github.com/valyala/fasthttp",
	"github.com/cockroachdb/pebble",
	"github.com/asynkron/protoactor-go",
}

// TestDependencies fails if the non-test package imports, directly or
// transitively, anything forbidden or anything outside the standard library.
func TestDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		// In the GOROOT this test was built with; without the tool the
		// test fails rather than skip: a check that quietly does nothing
		// is worse than none.
		goTool = filepath.Join(build.Default.GOROOT, "bin", "go")
		if _, serr := os.Stat(goTool); serr != nil {
			t.Fatalf("the go tool is needed to check the dependencies: not on PATH, nor at %s", goTool)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const self = "github.com/slotd/slotd/webhook"
	out, err := exec.CommandContext(ctx, goTool, "list", "-deps",
		"-f", "{{.ImportPath}} {{.Standard}}", self).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", self, err)
	}
	for line := range strings.Lines(string(out)) {
		path, std, _ := strings.Cut(strings.TrimSpace(line), " ")
		for _, bad := range forbiddenDeps {
			if path == bad || strings.HasPrefix(path, bad+"/") {
				t.Errorf("webhook depends on forbidden package %s", path)
			}
		}
		if std != "true" && path != self {
			t.Errorf("webhook depends on non-standard package %s", path)
		}
	}
}
