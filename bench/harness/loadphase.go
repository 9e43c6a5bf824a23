package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/slotd/slotd/bench/proc"
)

// The load phase: a large world (-load-appointments over -load-businesses)
// loaded into a fresh slotd, measured by the time from the process's
// start to /readyz and by its resident memory, now and at its peak; then
// slotd is killed with SIGKILL and started again on the same data
// directory without --world, measured by the time to /readyz and to the
// first API answer that needs a business's state (businesses load lazily).

func (h *harness) loadPhase(ctx context.Context) error {
	if !h.opt.LoadPhase {
		h.progress("load phase skipped (-load=false)")
		return nil
	}
	l, err := newLayout(h.opt.loadWorld())
	if err != nil {
		return err
	}
	ld := &Load{Businesses: l.Businesses, Appointments: l.occupied()}
	h.rep.Load = ld
	path := filepath.Join(h.tmp, "world-load.json")
	h.progress("load: writing a world of %d appointments over %d businesses", ld.Appointments, ld.Businesses)
	t := time.Now()
	if ld.FileBytes, err = writeWorldFile(path, l); err != nil {
		return err
	}
	ld.WriteSeconds = time.Since(t).Seconds()
	h.progress("load: world %s in %.1fs", bytesText(ld.FileBytes), ld.WriteSeconds)

	data := filepath.Join(h.tmp, "data-load")
	machine0, merr := proc.MachineCPU()
	self := proc.SelfCPU()
	s, ready, err := h.startReady(ctx, "slotd-load", data, path)
	if err != nil {
		return err
	}
	st, err := proc.Read(s.p.PID())
	if err != nil {
		return err
	}
	ld.ReadySeconds, ld.RSS, ld.HWM = ready.Seconds(), st.RSS, st.HWM
	ld.OtherCPUCores = -1
	if machine1, err := proc.MachineCPU(); err == nil && merr == nil {
		other := (machine1.Busy - machine0.Busy - st.CPU - (proc.SelfCPU() - self)).Seconds()
		ld.OtherCPUCores = max(0, other) / ready.Seconds()
	}
	h.progress("load: ready in %.1fs, RSS %s (peak %s); slotd used %.1fs of CPU%s", ld.ReadySeconds, bytesText(ld.RSS), bytesText(ld.HWM),
		st.CPU.Seconds(), otherLoadText(ld.OtherCPUCores))
	ld.CPUSeconds = st.CPU.Seconds()
	// The world file has served its purpose; half a gigabyte less on disk.
	if !h.opt.Keep {
		_ = os.Remove(path)
	}

	s.p.Kill()
	h.progress("load: killed slotd (pid %d) with SIGKILL; restarting on %s without --world", s.p.PID(), data)
	s, ready, err = h.startReady(ctx, "slotd-restart", data, "")
	if err != nil {
		return err
	}
	ld.RestartReadySeconds = ready.Seconds()
	b, svc, from := l.weekQuery(0)
	first, err := s.waitAnswer(ctx, h.opt.ReadyTimeout, s.base+slotsPath(l, b, svc, -1, from, 24*time.Hour), l.bearer[b])
	if err != nil {
		return fmt.Errorf("first answer after the restart: %w", err)
	}
	ld.RestartFirstAnswer = first.Seconds()
	if st, err := proc.Read(s.p.PID()); err == nil {
		ld.RestartRSS = st.RSS
	}
	h.progress("load: after kill -9, ready in %.2fs, first answer after %.2fs, RSS %s",
		ld.RestartReadySeconds, ld.RestartFirstAnswer, bytesText(ld.RestartRSS))
	return h.stopSlotd(s, "restart")
}

func otherLoadText(cores float64) string {
	if cores < busyCores {
		return ""
	}
	return fmt.Sprintf("; other processes used %.2f cores meanwhile: this figure is disturbed", cores)
}
