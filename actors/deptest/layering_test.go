package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNothingBelowTheFrontEndImportsIt: no package under actors/,
// storage/ or webhook/ depends, even indirectly, on transport/ or cmd/.
func TestNothingBelowTheFrontEndImportsIt(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not on PATH")
	}
	const mod = "github.com/slotd/slotd/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}",
		mod+"actors/...", mod+"storage/...", mod+"webhook/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	n := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		n++
		for _, dep := range fields[1:] {
			if strings.HasPrefix(dep, mod+"transport") || strings.HasPrefix(dep, mod+"cmd") {
				t.Errorf("%s depends on %s: the layers below the front end must not", fields[0], dep)
			}
		}
	}
	if n < 10 {
		t.Fatalf("go list named only %d packages:\n%s", n, out)
	}
}
