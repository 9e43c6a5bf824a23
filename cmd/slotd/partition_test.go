package main

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// gate is a TCP proxy to one address that a test can close (every
// connection through it cut, new ones refused at once) and open again:
// a network partition of one road between two nodes.
type gate struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	open  bool
	conns map[net.Conn]struct{}
}

func newGate(t *testing.T, target string) *gate {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	g := &gate{ln: ln, target: target, open: true, conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() { ln.Close(); g.set(false) })
	go g.serve()
	return g
}

func (g *gate) addr() string { return g.ln.Addr().String() }

func (g *gate) serve() {
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return
		}
		go g.pipe(c)
	}
}

func (g *gate) pipe(c net.Conn) {
	g.mu.Lock()
	if !g.open {
		g.mu.Unlock()
		c.Close()
		return
	}
	g.conns[c] = struct{}{}
	g.mu.Unlock()
	up, err := net.DialTimeout("tcp", g.target, time.Second)
	if err != nil {
		g.drop(c)
		return
	}
	g.mu.Lock()
	g.conns[up] = struct{}{}
	g.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); g.drop(up) }()
	_, _ = io.Copy(c, up)
	g.drop(c)
}

func (g *gate) drop(c net.Conn) {
	g.mu.Lock()
	delete(g.conns, c)
	g.mu.Unlock()
	c.Close()
}

// set opens or closes the gate; closing cuts the connections through it.
func (g *gate) set(open bool) {
	g.mu.Lock()
	g.open = open
	var cut []net.Conn
	if !open {
		for c := range g.conns {
			cut = append(cut, c)
		}
	}
	g.mu.Unlock()
	for _, c := range cut {
		g.drop(c)
	}
}

// TestClusterMembershipPartition: the salon's node is cut off from the
// other nodes' membership (both ways) but not from the journal — the case
// a lease alone does not cover, since the node keeps reaching the journal.
// It sees no majority, so it stops serving and stops renewing its lease;
// the two others take the salon over once that lease is over, and book on
// it. When the partition heals, the cut-off node rejoins as a new member
// without a restart. Throughout, bookings and reads go through all three
// nodes: no read of an acknowledged booking is ever 404 (stale), no two
// acknowledged bookings overlap, and the nodes agree on one owner within
// seconds of the heal.
func TestClusterMembershipPartition(t *testing.T) {
	clusterFaultTest(t)
	bin := buildBinary(t)
	const n = 3
	gates := make([][]*gate, n) // gates[i][j]: node i's road to node j's membership
	procs := startNodesPeers(t, bin, n, func(i int, members []string) string {
		if gates[0] == nil {
			for a := range gates {
				gates[a] = make([]*gate, n)
				for b := range gates[a] {
					if a != b {
						gates[a][b] = newGate(t, members[b])
					}
				}
			}
		}
		peers := []string{members[i]}
		for j := range members {
			if j != i {
				peers = append(peers, gates[i][j].addr())
			}
		}
		return strings.Join(peers, ",")
	})
	victim := owner(t, procs)
	v := -1
	var others []*clusterProc
	for i, p := range procs {
		if p == victim {
			v = i
		} else {
			others = append(others, p)
		}
	}
	l := newLedger("part")
	for range 3 {
		status, _, err := l.book(victim)
		require.NoError(t, err)
		require.Equal(t, 201, status)
	}

	cut := func(open bool) {
		for j := range n {
			if j != v {
				gates[v][j].set(open)
				gates[j][v].set(open)
			}
		}
	}
	cut(false)
	parted := time.Now()
	// Bookings and reads through all three while the others take over.
	var tookOver time.Duration
	for time.Since(parted) < 25*time.Second {
		for _, p := range procs {
			status, node, _ := l.book(p)
			if status == 201 && node == victim.name {
				require.Zero(t, tookOver, "the cut-off node acknowledged a booking after the majority took the salon over")
			}
			if status == 201 && node != victim.name && tookOver == 0 {
				tookOver = time.Since(parted)
			}
			for _, b := range l.last(4) {
				status, _, _, err := clusterCall("GET", p.pub, "/api/v1/appointments/"+b.id, "")
				if err == nil {
					require.NotEqual(t, 404, status, "%s answered an acknowledged booking %s with 404 (stale) %v into the partition", p.name, b.id, time.Since(parted))
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.NotZero(t, tookOver, "the majority never took the salon over")
	t.Logf("partition: the majority acknowledged a booking of the salon %v after the cut", tookOver.Round(time.Millisecond))
	r, err := client.Get(victim.admin + "/readyz")
	require.NoError(t, err)
	raw, _ := io.ReadAll(r.Body)
	r.Body.Close()
	require.Equal(t, 503, r.StatusCode)
	require.Contains(t, string(raw), "of the cluster's 3 members", "the cut-off node says why it is not ready")

	cut(true)
	healed := time.Now()
	agreedAt := hammerUntilAgreed(t, procs, l, healed, 30*time.Second)
	require.False(t, agreedAt.IsZero(), "the nodes never agreed on the salon's owner after the partition healed")
	t.Logf("one owner agreed by all nodes %v after the heal (and since)", agreedAt.Sub(healed).Round(time.Millisecond))
	waitReady(t, procs)
	l.requireAllThere(t, others[0])
	t.Logf("%d bookings acknowledged, none overlapping, none lost", l.count())
}
