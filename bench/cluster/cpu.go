package main

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
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

// cpuUserHz is USER_HZ, which Linux fixes at 100: /proc counts CPU time
// in it.
const cpuUserHz = 100

func markCPU(nodes []*node) cpuMark {
	m := cpuMark{at: time.Now(), self: selfCPU(), slotdOK: true}
	for _, n := range nodes {
		d, err := procCPU(n.p.pid())
		m.slotd += d
		m.slotdOK = m.slotdOK && err == nil
	}
	var err error
	m.machine, err = machineBusy()
	m.mOK = err == nil
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

// procCPU is a process's user + system time from /proc/PID/stat. The
// command name may hold spaces, so fields are counted from the last ')'.
func procCPU(pid int) (time.Duration, error) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return 0, errors.New("/proc/PID/stat: no command name")
	}
	f := strings.Fields(string(stat[i+1:])) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, errors.New("/proc/PID/stat: too few fields")
	}
	return ticks(f[11], f[12]) // fields 14 and 15, utime and stime
}

// machineBusy is the time every CPU of the machine spent not idle, from
// the first line of /proc/stat: "cpu user nice system idle iowait irq
// softirq steal ...".
func machineBusy() (time.Duration, error) {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, errors.New("/proc/stat: unexpected first line")
	}
	return ticks(f[1], f[2], f[3], f[6], f[7], f[8])
}

func ticks(fields ...string) (time.Duration, error) {
	var sum int64
	for _, s := range fields {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	return time.Duration(sum) * time.Second / cpuUserHz, nil
}

// selfCPU is the tool's own user + system time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
