package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Every process the harness starts is registered here and stopped by its
// PID: at the end of its phase, and again, whatever is left, when the run
// ends, fails or is interrupted. Children get a process group of their own,
// so a Ctrl-C at the terminal reaches the harness alone and the harness
// decides how each child stops (SIGTERM for slotd, which drains; SIGINT
// for PostgreSQL, its fast shutdown; SIGKILL when a child overstays).

type procs struct {
	mu   sync.Mutex
	list []*proc
}

// proc is one started child.
type proc struct {
	name string
	cmd  *exec.Cmd
	stop os.Signal // the signal of a clean stop
	done chan struct{}
	err  error // the exit status, once done is closed
}

// start starts cmd and registers it under name.
func (ps *procs) start(name string, cmd *exec.Cmd, stop os.Signal) (*proc, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, stop: stop, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	ps.mu.Lock()
	ps.list = append(ps.list, p)
	ps.mu.Unlock()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// terminate sends the clean-stop signal to the PID and waits up to grace,
// then kills it. It returns how long the stop took and whether it was
// clean (ended within grace, exit status 0).
func (p *proc) terminate(grace time.Duration) (time.Duration, bool) {
	start := time.Now()
	if p.exited() {
		return 0, p.err == nil
	}
	_ = p.cmd.Process.Signal(p.stop)
	select {
	case <-p.done:
		return time.Since(start), p.err == nil
	case <-time.After(grace):
		p.kill()
		return time.Since(start), false
	}
}

// kill sends SIGKILL to the PID and waits for the process to be reaped.
func (p *proc) kill() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stopAll stops every child still running, newest first.
func (ps *procs) stopAll(grace time.Duration) {
	ps.mu.Lock()
	list := append([]*proc(nil), ps.list...)
	ps.mu.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		list[i].terminate(grace)
	}
}

// procStatus is what /proc/PID/status and /proc/PID/stat say about a
// process's memory and CPU.
type procStatus struct {
	RSS, HWM int64         // VmRSS and VmHWM (peak RSS), in bytes
	CPU      time.Duration // user + system time so far
}

// clockTicks is USER_HZ, which Linux fixes at 100 on every architecture
// Go supports; /proc/PID/stat counts CPU time in it.
const clockTicks = 100

func readProc(pid int) (procStatus, error) {
	var st procStatus
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
	st.CPU, err = procCPU(pid)
	return st, err
}

// procCPU reads utime + stime from /proc/PID/stat. The command name may
// hold spaces and parentheses, so fields are counted from the last ')'.
func procCPU(pid int) (time.Duration, error) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return 0, errors.New("/proc/PID/stat: no command name")
	}
	f := strings.Fields(string(stat[i+1:])) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, errors.New("/proc/PID/stat: too few fields")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// procWriteBytes is write_bytes of /proc/PID/io: what the process caused
// to be sent to the storage layer, compactions and e-mail files included.
func procWriteBytes(pid int) (int64, error) {
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

// selfCPU is the harness's own CPU time: the load generator shares the
// machine's cores with what it measures, and the report says how much it
// took.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
