package webhook

import (
	"context"
	"os/exec"
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
		t.Skip("go tool not in PATH")
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
