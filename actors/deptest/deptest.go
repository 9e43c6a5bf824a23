// Package deptest owns the checks that keep slotd's layers apart. A pure
// package, holding scheduling logic, codecs or policies, must not reach the
// actor system, the HTTP stack, the database or the metrics library,
// directly or through another package (RequirePure). And nothing below the
// front end (actors, storage, webhook delivery and mail) may depend on it
// (layering_test.go): the front end calls them, never the other way round.
package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

// Impure lists the import path prefixes a pure package may not depend on:
// the actor system, the HTTP stack, the database and the metrics library.
var Impure = []string{
	"github.com/asynkron/protoactor-go",
	"github.com/valyala/fasthttp",
	"github.com/fasthttp/router",
	"github.com/cockroachdb/pebble",
	"github.com/prometheus",
	"net/http",
}

// RequirePure fails t if pkg depends, even indirectly, on anything in Impure.
func RequirePure(t *testing.T, pkg string) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not on PATH")
	}
	out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range Impure {
			if dep == bad || strings.HasPrefix(dep, bad+"/") {
				t.Errorf("%s depends on %s; it must stay pure", pkg, dep)
			}
		}
	}
}
