// Package streamtest starts journal replica clusters on loopback for
// tests.
package streamtest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/slotd/slotd/storage/stream"
)

// Cluster starts n embedded replicas on loopback and stops them when the
// test ends.
func Cluster(t testing.TB, n int) []*server.Server {
	return Start(t, n).Servers
}

// Replicas is a loopback cluster whose replicas a test can stop and
// start again (same name, store and cluster port).
type Replicas struct {
	t       testing.TB
	nodes   []stream.Node
	Servers []*server.Server
}

// Start starts n embedded replicas on loopback and stops them when the
// test ends.
func Start(t testing.TB, n int) *Replicas {
	t.Helper()
	ports := make([]int, n)
	routes := make([]string, n)
	for i := range ports {
		ports[i] = freePort(t)
		routes[i] = fmt.Sprintf("127.0.0.1:%d", ports[i])
	}
	r := &Replicas{t: t, nodes: make([]stream.Node, n), Servers: make([]*server.Server, n)}
	for i := range r.nodes {
		// JetStream's own default sync interval: these tests are about
		// replication, fencing and take-over, not fsync (the binaries'
		// tests run the default, --journal-sync always).
		r.nodes[i] = stream.Node{Name: fmt.Sprintf("n%d", i), Dir: t.TempDir(), Host: "127.0.0.1",
			ClientPort: -1, ClusterPort: ports[i], Routes: routes, SyncInterval: 2 * time.Minute}
		r.Restart(i)
	}
	t.Cleanup(func() {
		for _, s := range r.Servers {
			s.Shutdown()
		}
	})
	return r
}

// Stop shuts replica i down and waits until it has.
func (r *Replicas) Stop(i int) {
	r.Servers[i].Shutdown()
	r.Servers[i].WaitForShutdown()
}

// Restart starts replica i (again), on a new client port.
func (r *Replicas) Restart(i int) {
	r.t.Helper()
	s, err := stream.Start(r.nodes[i])
	if err != nil {
		r.t.Fatal(err)
	}
	r.Servers[i] = s
}

func freePort(t testing.TB) int { return FreePort(t, 10000) }

// FreePort returns a port nobody listens on now, from lo to lo+9999 —
// below the kernel's ephemeral range, so that the ports of connections
// other tests open meanwhile (tests of other packages run in parallel)
// cannot take it in the moments before a replica binds it (CI saw a
// replica never start on a ":0" port). A port is handed out once per test
// binary: two random picks could otherwise name the same port before
// either is bound. Test binaries running at once should use different lo.
func FreePort(t testing.TB, lo int) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		port := lo + rand.IntN(10000)
		if portsGiven[port] {
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			l.Close()
			portsGiven[port] = true
			return port
		}
	}
	t.Fatalf("no free port in %d-%d", lo, lo+9999)
	return 0
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)
