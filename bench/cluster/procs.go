package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Every slotd the tool starts is registered here and stopped by its PID:
// SIGTERM at the end of its phase (slotd drains), SIGKILL for the
// failover, and whatever is left when the run ends, fails or is
// interrupted. Children get a process group of their own, so a Ctrl-C at
// the terminal reaches the tool alone and the tool stops them; on Linux
// they also get SIGKILL should the tool itself die (procs_linux.go).

type procs struct {
	mu   sync.Mutex
	list []*proc
}

// proc is one started child.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the process has been reaped
	err  error         // its exit status, once done is closed
}

func (ps *procs) start(cmd *exec.Cmd) (*proc, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
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

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// terminate sends SIGTERM and waits up to grace, then kills.
func (p *proc) terminate(grace time.Duration) {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.kill()
	}
}

// kill sends SIGKILL and waits until the process is gone (reaped), so
// its ports are free again.
func (p *proc) kill() {
	if !p.exited() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-p.done
}

// stopAll stops every child still running, all at once (the nodes of a
// cluster leave together), each within grace.
func (ps *procs) stopAll(grace time.Duration) {
	ps.mu.Lock()
	list := append([]*proc(nil), ps.list...)
	ps.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range list {
		wg.Go(func() { p.terminate(grace) })
	}
	wg.Wait()
}

// node is one slotd process.
type node struct {
	name  string // "single", or the cluster node name n1, n2, n3
	pub   string // http://127.0.0.1:P, the public API
	admin string // http://127.0.0.1:A, the admin listener
	log   string // the file holding its stdout and stderr
	p     *proc
}

// nodePorts are the loopback addresses of one node.
type nodePorts struct {
	pub, admin, listen, membership, journal, routes, handover string
}

func pickPorts(cluster bool) (nodePorts, error) {
	n := 2
	if cluster {
		n = 7
	}
	addrs := make([]string, 7)
	for i := range n {
		a, err := freePort()
		if err != nil {
			return nodePorts{}, err
		}
		addrs[i] = a
	}
	return nodePorts{addrs[0], addrs[1], addrs[2], addrs[3], addrs[4], addrs[5], addrs[6]}, nil
}

// freePort returns a loopback address nobody listens on now, from
// 30000-32699: below the kernel's ephemeral range, so that what other
// programs get with ":0" cannot take it before slotd binds it (a node
// binds some of its ports only once the journal is up, seconds later).
// A port is handed out once per run: picked at random, two picks could
// otherwise name the same port before either is bound.
func freePort() (string, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		port := 30000 + rand.IntN(2700)
		if portsGiven[port] {
			continue
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		if ln, err := net.Listen("tcp", addr); err == nil {
			portsGiven[port] = true
			return addr, ln.Close()
		}
	}
	return "", errors.New("no free port in 30000-32699")
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// startNode starts slotd serve with the world file and the given extra
// (cluster) flags; its data directory and log live under the run's
// directory.
func (b *bench) startNode(name string, ports nodePorts, extra ...string) (*node, error) {
	data := filepath.Join(b.tmp, "data-"+name)
	args := append([]string{"serve", "--data", data, "--listen", ports.pub, "--admin-listen", ports.admin,
		"--admin-token", adminToken, "--world", b.worldFile, "--access-log", "off"}, extra...)
	logPath := filepath.Join(b.tmp, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(b.bin, args...)
	cmd.Env = environWithout("SLOTD_")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	p, err := b.procs.start(cmd)
	logFile.Close() // the child holds its own descriptor
	if err != nil {
		return nil, fmt.Errorf("start slotd %s: %w", name, err)
	}
	n := &node{name: name, pub: "http://" + ports.pub, admin: "http://" + ports.admin, log: logPath, p: p}
	b.progress("%s: slotd pid %d, api %s, admin %s", name, p.pid(), n.pub, n.admin)
	return n, nil
}

// clusterArgs are node i's cluster flags.
func clusterArgs(i int, all []nodePorts) []string {
	var members, routes []string
	for _, p := range all {
		members = append(members, p.membership)
		routes = append(routes, p.routes)
	}
	me := all[i]
	return []string{
		"--cluster-node", nodeName(i), "--cluster-listen", me.listen, "--cluster-membership", me.membership,
		"--cluster-peers", strings.Join(members, ","), "--cluster-handover", me.handover,
		"--journal-listen", me.journal, "--journal-routes", me.routes,
		"--journal-peers", strings.Join(routes, ","), "--journal-replicas", fmt.Sprint(len(all)),
	}
}

func nodeName(i int) string { return fmt.Sprintf("n%d", i+1) }

// startCluster starts n nodes together (the journal needs a quorum of
// its replicas to start) and waits until every one is ready.
func (b *bench) startCluster(ctx context.Context, n int) ([]*node, error) {
	all := make([]nodePorts, n)
	for i := range all {
		var err error
		if all[i], err = pickPorts(true); err != nil {
			return nil, err
		}
	}
	nodes := make([]*node, n)
	for i := range nodes {
		var err error
		if nodes[i], err = b.startNode(nodeName(i), all[i], clusterArgs(i, all)...); err != nil {
			return nil, err
		}
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, nd := range nodes {
		wg.Go(func() { errs[i] = nd.waitReady(ctx, b.opt.readyTimeout) })
	}
	wg.Wait()
	return nodes, errors.Join(errs...)
}

// waitReady polls /readyz every 50 ms until it answers 200.
func (n *node) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if status, _, _, err := control.get(ctx, n.admin+"/readyz", ""); err == nil && status == 200 {
			return nil
		}
		select {
		case <-n.p.done:
			return n.exitError()
		case <-ctx.Done():
			if n.p.exited() {
				return n.exitError()
			}
			if errors.Is(ctx.Err(), context.Canceled) {
				return fmt.Errorf("%s: interrupted while waiting for /readyz", n.name)
			}
			return fmt.Errorf("%s (pid %d) not ready within %s; the end of its log (%s):\n%s",
				n.name, n.p.pid(), timeout, n.log, logTail(n.log, 1500))
		case <-tick.C:
		}
	}
}

// exitError explains an early exit (a refused world, a port taken) with
// the end of the node's log.
func (n *node) exitError() error {
	return fmt.Errorf("%s (pid %d) exited: %v; the end of its log (%s):\n%s",
		n.name, n.p.pid(), n.p.err, n.log, logTail(n.log, 2500))
}

// logTail is the last n bytes of a log file.
func logTail(path string, n int) string {
	b, _ := os.ReadFile(path)
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return strings.TrimSpace(string(b))
}

// environWithout is the tool's environment minus the variables with the
// given prefixes, so an operator's SLOTD_* settings change nothing.
func environWithout(prefixes ...string) []string {
	var out []string
next:
	for _, kv := range os.Environ() {
		for _, p := range prefixes {
			if strings.HasPrefix(kv, p) {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// moduleRoot is the directory of slotd's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside slotd's module: run the tool from the repository")
	}
	return filepath.Dir(gomod), nil
}

// buildSlotd compiles ./cmd/slotd into the run's directory.
func (b *bench) buildSlotd(ctx context.Context) error {
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	b.bin = filepath.Join(b.tmp, "slotd")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", b.bin, "./cmd/slotd")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/slotd: %w\n%s", err, stderr.String())
	}
	return nil
}
