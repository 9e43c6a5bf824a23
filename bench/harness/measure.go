package main

import (
	"context"
	"fmt"
	"time"

	"github.com/slotd/slotd/bench/loadgen"
	"github.com/slotd/slotd/bench/proc"
)

// phaseSpec is one closed-loop load against one server: slotd, or a
// baseline process.
type phaseSpec struct {
	name, title string
	cfg         loadgen.Config
	slotd       *slotd     // the server, when it is slotd
	server      *proc.Proc // the server, when it is a baseline
	profile     bool       // take a CPU profile of slotd meanwhile
	// split records each kind of request of a mixed load (cfg.Kinds) as a
	// phase of its own, "NAME-KIND", after the whole.
	split bool
}

// measure runs one load and records it as a phase, with the CPU the
// server, the harness and the rest of the machine used over the same
// interval, and slotd's GC CPU. The machine is shared: what other
// processes used is recorded, so that a figure taken while someone's
// build ran can be told from a clean one.
func (h *harness) measure(ctx context.Context, ps phaseSpec) (*Phase, error) {
	server := "static"
	serverPID := 0
	var before usage
	var profiled func() *Profile
	switch {
	case ps.slotd != nil:
		server, serverPID = "slotd", ps.slotd.p.PID()
		before = ps.slotd.usage()
		if ps.profile {
			profiled = h.startProfile(ctx, ps.slotd, ps.name, ps.cfg.Duration)
		}
	case ps.server != nil:
		serverPID = ps.server.PID()
		before.cpu, _ = proc.CPU(serverPID)
	}
	self := proc.SelfCPU()
	machine0, machineErr := proc.MachineCPU()
	sum, err := loadgen.Run(ctx, ps.cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ps.name, err)
	}
	ended := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: cut short: %w", ps.name, err) // not a measurement
	}
	machine1, machineErr1 := proc.MachineCPU()
	p := phaseOf(ps.name, ps.title, server, sum)
	p.ended = ended
	p.HarnessCPUSeconds = (proc.SelfCPU() - self).Seconds()
	if serverCPU, err := proc.CPU(serverPID); serverPID != 0 && err == nil {
		p.serverCPUEnd = serverCPU
		p.ServerCPUSeconds = (serverCPU - before.cpu).Seconds()
		if p.Requests > 0 {
			p.ServerCPUPerReqUS = p.ServerCPUSeconds * 1e6 / float64(p.Requests)
		}
	}
	if ps.slotd != nil {
		if after := ps.slotd.usage(); before.ok && after.ok && after.cpu > before.cpu {
			p.GCCycles = after.cycles - before.cycles
			p.GCSharePercent = 100 * float64(after.gc-before.gc) / float64(after.cpu-before.cpu)
		}
	}
	if machineErr == nil && machineErr1 == nil && p.ServerCPUSeconds >= 0 {
		other := (machine1.Busy - machine0.Busy).Seconds() - p.ServerCPUSeconds - p.HarnessCPUSeconds
		p.OtherCPUCores = max(0, other) / sum.Elapsed.Seconds()
		p.StealCores = (machine1.Steal - machine0.Steal).Seconds() / sum.Elapsed.Seconds()
	}
	if profiled != nil {
		p.Profile = profiled()
	}
	h.rep.Phases = append(h.rep.Phases, p)
	whole := len(h.rep.Phases) - 1
	if ps.split {
		for _, k := range sum.Kinds {
			h.rep.Phases = append(h.rep.Phases, phaseOf(ps.name+"-"+k.Kind, ps.title+": "+k.Kind+"s", server, k))
		}
	}
	h.progress("%s: %.0f req/s, p50 %s p99 %s p99.9 %s max %s, errors %d%s%s", ps.name, p.RPS,
		msText(p.Latency.P50), msText(p.Latency.P99), msText(p.Latency.P999), msText(p.Latency.Max), p.Errors, cpuText(&p), otherText(&p))
	if p.Profile != nil {
		h.progress("%s: CPU profile shares: %s", ps.name, profileText(p.Profile))
	}
	return &h.rep.Phases[whole], nil
}

// busyCores is the threshold above which other processes' CPU is called
// out: a quarter of a core taken from a 2-core machine moves the figures.
const busyCores = 0.25

func cpuText(p *Phase) string {
	if p.ServerCPUPerReqUS < 0 {
		return ""
	}
	if p.Server != "slotd" {
		return fmt.Sprintf("; server CPU %.0f µs/request", p.ServerCPUPerReqUS)
	}
	return fmt.Sprintf("; slotd CPU %.0f µs/request, GC about %.0f%% of it (gctrace)", p.ServerCPUPerReqUS, p.GCSharePercent)
}

func otherText(p *Phase) string {
	if p.OtherCPUCores < busyCores {
		return ""
	}
	return fmt.Sprintf("; other processes used %.2f cores meanwhile: this figure is disturbed", p.OtherCPUCores)
}

func msText(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0fms", v)
	case v >= 10:
		return fmt.Sprintf("%.1fms", v)
	default:
		return fmt.Sprintf("%.2fms", v)
	}
}
