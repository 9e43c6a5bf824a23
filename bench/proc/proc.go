// Package proc owns the child processes of slotd's bench tools
// (bench/harness, bench/cluster): it starts them in process groups of
// their own, tracks them by PID and stops them, builds the binaries they
// run, and reads what Linux's /proc says a process or the machine spent.
//
// Every child is registered in a Group and stopped by its PID: at the end
// of its phase, and again, whatever is left, when the run ends, fails or
// is interrupted. A process group of its own means a Ctrl-C at the
// terminal reaches the tool alone and the tool decides how each child
// stops (SIGTERM for slotd, which drains; SIGINT for PostgreSQL, its fast
// shutdown; SIGKILL when a child overstays). On Linux a child also gets
// SIGKILL should the tool itself die (a go test timeout), so no server is
// left holding loopback ports and CPU.
package proc

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Group is the children one run started.
type Group struct {
	mu   sync.Mutex
	list []*Proc
}

// Proc is one started child.
type Proc struct {
	Name string
	cmd  *exec.Cmd
	stop os.Signal // the signal of a clean stop
	done chan struct{}
	err  error // the exit status, once done is closed
}

// Start starts cmd and registers it under name; stop is the signal that
// asks it to stop cleanly.
func (g *Group) Start(name string, cmd *exec.Cmd, stop os.Signal) (*Proc, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{Name: name, cmd: cmd, stop: stop, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	g.mu.Lock()
	g.list = append(g.list, p)
	g.mu.Unlock()
	return p, nil
}

// PID is the child's process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Done is closed once the process has ended and been reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is the exit status; it is meaningful once Done is closed.
func (p *Proc) Err() error {
	<-p.done
	return p.err
}

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Terminate sends the clean-stop signal to the PID and waits up to grace,
// then kills it. It returns how long the stop took and whether it was
// clean (ended within grace, exit status 0).
func (p *Proc) Terminate(grace time.Duration) (time.Duration, bool) {
	start := time.Now()
	if p.Exited() {
		return 0, p.err == nil
	}
	_ = p.cmd.Process.Signal(p.stop)
	select {
	case <-p.done:
		return time.Since(start), p.err == nil
	case <-time.After(grace):
		p.Kill()
		return time.Since(start), false
	}
}

// Kill sends SIGKILL to the PID and waits until the process is reaped, so
// its ports are free again.
func (p *Proc) Kill() {
	if !p.Exited() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-p.done
}

// StopAll stops every child still running, all at once (the nodes of a
// cluster leave together rather than hand their businesses to each other
// one by one), each within grace.
func (g *Group) StopAll(grace time.Duration) {
	g.mu.Lock()
	list := append([]*Proc(nil), g.list...)
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range list {
		wg.Go(func() { p.Terminate(grace) })
	}
	wg.Wait()
}
