package main

import (
	"time"

	"github.com/slotd/slotd/bench/proc"
)

// CPU accounting of a phase, from Linux's /proc: the slotd processes'
// CPU time (what a request costs the server, whichever node spends it),
// the tool's own (the load generator shares the cores) and the machine's
// (anything else running at the time skews the throughput figures, and
// the report says how much there was). Elsewhere the figures stay zero.

// CPU is the CPU time spent during one phase, in seconds.
type CPU struct {
	Slotd   float64 `json:"slotdSeconds"`   // every node of the deployment
	LoadGen float64 `json:"loadGenSeconds"` // this tool
	Others  float64 `json:"othersSeconds"`  // the rest of the machine
	Wall    float64 `json:"wallSeconds"`
	PerOKus float64 `json:"slotdPerOkUs"` // slotd CPU per successful request
}

// cpuMark is a reading at the start of a phase.
type cpuMark struct {
	at           time.Time
	slotd, self  time.Duration
	machine      time.Duration
	slotdOK, mOK bool
}

func markCPU(nodes []*node) cpuMark {
	m := cpuMark{at: time.Now(), self: proc.SelfCPU(), slotdOK: true}
	for _, n := range nodes {
		d, err := proc.CPU(n.p.PID())
		m.slotd += d
		m.slotdOK = m.slotdOK && err == nil
	}
	mc, err := proc.MachineCPU()
	m.machine, m.mOK = mc.Busy, err == nil
	return m
}

// since is the CPU spent from m to now, with ok requests answered.
func (m cpuMark) since(nodes []*node, ok int64) *CPU {
	now := markCPU(nodes)
	c := &CPU{Wall: now.at.Sub(m.at).Seconds(), LoadGen: (now.self - m.self).Seconds()}
	if !m.slotdOK || !now.slotdOK {
		return c
	}
	c.Slotd = (now.slotd - m.slotd).Seconds()
	if ok > 0 {
		c.PerOKus = c.Slotd * 1e6 / float64(ok)
	}
	if m.mOK && now.mOK {
		c.Others = max(0, (now.machine-m.machine).Seconds()-c.Slotd-c.LoadGen)
	}
	return c
}
