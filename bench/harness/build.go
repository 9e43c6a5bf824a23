package main

import (
	"context"
	"path/filepath"

	"github.com/slotd/slotd/bench/proc"
)

// build compiles the slotd command (unless -slotd names a binary) and
// bench/static into the run's directory. The go tool runs to completion
// or is killed with ctx; it starts no process that outlives it.
func (h *harness) build(ctx context.Context) error {
	root, err := proc.ModuleRoot(ctx)
	if err != nil {
		return err
	}
	h.bin.slotd = h.opt.Slotd
	if h.bin.slotd == "" {
		h.bin.slotd = filepath.Join(h.tmp, "slotd")
		if err := proc.GoBuild(ctx, root, h.bin.slotd, "./cmd/slotd"); err != nil {
			return err
		}
	}
	h.bin.static = filepath.Join(h.tmp, "static")
	return proc.GoBuild(ctx, root, h.bin.static, "./bench/static")
}
