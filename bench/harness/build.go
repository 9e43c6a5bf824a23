package main

import (
	"context"
	"path/filepath"

	"github.com/slotd/slotd/bench/proc"
)

// build compiles the slotd command (unless -slotd names a binary),
// bench/static and, for the SMTP storm, bench/smtpsink into the run's
// directory. The go tool runs to completion or is killed with ctx; it
// starts no process that outlives it.
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
	if err := proc.GoBuild(ctx, root, h.bin.static, "./bench/static"); err != nil {
		return err
	}
	if !h.opt.SMTPStorm {
		return nil
	}
	h.bin.sink = filepath.Join(h.tmp, "smtpsink")
	return proc.GoBuild(ctx, root, h.bin.sink, "./bench/smtpsink")
}
