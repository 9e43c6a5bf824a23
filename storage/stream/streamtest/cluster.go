// Package streamtest starts journal replica clusters on loopback for
// tests.
package streamtest

import (
	"fmt"
	"net"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/slotd/slotd/storage/stream"
)

// Cluster starts n embedded replicas on loopback and stops them when the
// test ends.
func Cluster(t testing.TB, n int) []*server.Server {
	t.Helper()
	ports := make([]int, n)
	routes := make([]string, n)
	for i := range ports {
		ports[i] = freePort(t)
		routes[i] = fmt.Sprintf("127.0.0.1:%d", ports[i])
	}
	out := make([]*server.Server, n)
	for i := range out {
		s, err := stream.Start(stream.Node{Name: fmt.Sprintf("n%d", i), Dir: t.TempDir(), Host: "127.0.0.1",
			ClientPort: -1, ClusterPort: ports[i], Routes: routes})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = s
	}
	t.Cleanup(func() {
		for _, s := range out {
			s.Shutdown()
		}
	})
	return out
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
