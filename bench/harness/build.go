package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// moduleRoot is the directory of slotd's go.mod, wherever in the module
// the harness was started (go run from the root, go test from
// bench/harness).
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == "/dev/null" {
		return "", errors.New("not inside slotd's module: run the harness from the repository")
	}
	return filepath.Dir(gomod), nil
}

// build compiles the slotd command (unless -slotd names a binary) and
// bench/static into the run's directory. The go tool runs to completion
// or is killed with ctx; it starts no process that outlives it.
func (h *harness) build(ctx context.Context) error {
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	h.bin.slotd = h.opt.Slotd
	if h.bin.slotd == "" {
		h.bin.slotd = filepath.Join(h.tmp, "slotd")
		if err := goBuild(ctx, root, h.bin.slotd, "./cmd/slotd"); err != nil {
			return err
		}
	}
	h.bin.static = filepath.Join(h.tmp, "static")
	return goBuild(ctx, root, h.bin.static, "./bench/static")
}

func goBuild(ctx context.Context, root, out, pkg string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, stderr.String())
	}
	return nil
}
