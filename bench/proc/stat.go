package proc

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Status is what /proc/PID/status and /proc/PID/stat say about a
// process's memory and CPU.
type Status struct {
	RSS, HWM int64         // VmRSS and VmHWM (peak RSS), in bytes
	CPU      time.Duration // user + system time so far
}

// userHz is USER_HZ, which Linux fixes at 100 on every architecture Go
// supports; /proc counts CPU time in it.
const userHz = 100

// Read reads process pid's memory and CPU.
func Read(pid int) (Status, error) {
	var st Status
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return st, err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		f := strings.Fields(value) // "123456 kB"
		if len(f) != 2 || f[1] != "kB" {
			return st, fmt.Errorf("/proc/%d/status: unexpected %s line %q", pid, name, line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return st, err
		}
		if name == "VmRSS" {
			st.RSS = kb << 10
		} else {
			st.HWM = kb << 10
		}
	}
	st.CPU, err = CPU(pid)
	return st, err
}

// CPU is process pid's user + system time, from /proc/PID/stat. The
// command name may hold spaces and parentheses, so fields are counted
// from the last ')'.
func CPU(pid int) (time.Duration, error) {
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

// WriteBytes is write_bytes of /proc/PID/io: what the process caused to
// be sent to the storage layer, compactions and e-mail files included.
func WriteBytes(pid int) (int64, error) {
	io, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(io), "\n") {
		if v, ok := strings.CutPrefix(line, "write_bytes: "); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.New("/proc/PID/io: no write_bytes")
}

// Machine is the machine's CPU times so far, from /proc/stat.
type Machine struct {
	Busy  time.Duration // user, nice, system, irq and softirq of every process and the kernel
	Steal time.Duration // time the hypervisor gave to other guests
}

// MachineCPU reads the first line of /proc/stat: "cpu user nice system
// idle iowait irq softirq steal guest guest_nice".
func MachineCPU() (Machine, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return Machine{}, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return Machine{}, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	busy, err := ticks(f[1], f[2], f[3], f[6], f[7])
	if err != nil {
		return Machine{}, err
	}
	steal, err := ticks(f[8])
	return Machine{Busy: busy, Steal: steal}, err
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
	return time.Duration(sum) * time.Second / userHz, nil
}

// SelfCPU is the calling process's own user + system time: a load
// generator shares the machine's cores with what it measures, and a
// report says how much it took.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
