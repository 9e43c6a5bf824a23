package main

import (
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

	"github.com/slotd/slotd/bench/proc"
)

// Every slotd the tool starts is a child in bench.procs (package proc),
// stopped by its PID: SIGTERM at the end of its phase (slotd drains),
// SIGKILL for the failover, and whatever is left when the run ends, fails
// or is interrupted.

// node is one slotd process.
type node struct {
	name  string // "single", or the cluster node name n1, n2, n3
	pub   string // http://127.0.0.1:P, the public API
	admin string // http://127.0.0.1:A, the admin listener
	log   string // the file holding its stdout and stderr
	p     *proc.Proc
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
	// Appended to: a node the soak restarts keeps its earlier lives' log.
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(b.bin, args...)
	cmd.Env = proc.Environ("SLOTD_")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	p, err := b.procs.Start("slotd "+name, cmd, syscall.SIGTERM)
	logFile.Close() // the child holds its own descriptor
	if err != nil {
		return nil, err
	}
	n := &node{name: name, pub: "http://" + ports.pub, admin: "http://" + ports.admin, log: logPath, p: p}
	b.progress("%s: slotd pid %d, api %s, admin %s", name, p.PID(), n.pub, n.admin)
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
		case <-n.p.Done():
			return n.exitError()
		case <-ctx.Done():
			if n.p.Exited() {
				return n.exitError()
			}
			if errors.Is(ctx.Err(), context.Canceled) {
				return fmt.Errorf("%s: interrupted while waiting for /readyz", n.name)
			}
			return fmt.Errorf("%s (pid %d) not ready within %s; the end of its log (%s):\n%s",
				n.name, n.p.PID(), timeout, n.log, proc.LogTail(n.log, 1500))
		case <-tick.C:
		}
	}
}

// exitError explains an early exit (a refused world, a port taken) with
// the end of the node's log.
func (n *node) exitError() error {
	return fmt.Errorf("%s (pid %d) exited: %v; the end of its log (%s):\n%s",
		n.name, n.p.PID(), n.p.Err(), n.log, proc.LogTail(n.log, 2500))
}

// buildSlotd compiles ./cmd/slotd into the run's directory.
func (b *bench) buildSlotd(ctx context.Context) error {
	root, err := proc.ModuleRoot(ctx)
	if err != nil {
		return err
	}
	b.bin = filepath.Join(b.tmp, "slotd")
	return proc.GoBuild(ctx, root, b.bin, "./cmd/slotd")
}
