package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ModuleRoot is the directory of slotd's go.mod, wherever in the module
// the tool was started (go run from the root, go test from its package).
func ModuleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside slotd's module: run the tool from the repository")
	}
	return filepath.Dir(gomod), nil
}

// GoBuild compiles package pkg of the module at root into out. The go
// tool runs to completion or is killed with ctx; it starts no process
// that outlives it.
func GoBuild(ctx context.Context, root, out, pkg string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, stderr.String())
	}
	return nil
}

// Environ is the tool's environment minus the variables with the given
// prefixes, so that an operator's SLOTD_* settings cannot change what is
// measured.
func Environ(without ...string) []string {
	var out []string
next:
	for _, kv := range os.Environ() {
		for _, p := range without {
			if strings.HasPrefix(kv, p) {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// LogTail is about the last n bytes of the file at path, from the start
// of a line: the end of a child's log, for an error that explains its
// exit.
func LogTail(path string, n int) string {
	b, _ := os.ReadFile(path)
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return strings.TrimSpace(string(b))
}
