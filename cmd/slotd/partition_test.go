package main

import (
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
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
// other nodes' membership but not from the journal — the case a lease
// alone does not cover, since the node keeps reaching the journal. Both
// ways, it sees no majority; one way (its membership port blocked: it
// still reaches the others'), it sees them all but the majority's
// published views no longer list it. Either way it stops serving and
// stops renewing its lease; the two others take the salon over once that
// lease is over (or released), and book on it. When the partition heals,
// the cut-off node rejoins as a new member without a restart. Throughout,
// bookings and reads go through all three nodes: no read of an
// acknowledged booking is ever 404 (stale), no two acknowledged bookings
// overlap, and the nodes agree on one owner within seconds of the heal.
func TestClusterMembershipPartition(t *testing.T) {
	clusterFaultTest(t)
	bin := buildBinary(t)
	t.Run("both ways", func(t *testing.T) { partition(t, bin, false) })
	t.Run("its port blocked", func(t *testing.T) { partition(t, bin, true) })
}

// partition runs TestClusterMembershipPartition's scenario; oneWay blocks
// only the others' roads to the salon node's membership port.
func partition(t *testing.T, bin string, oneWay bool) {
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
	v := slices.Index(procs, victim)
	others := without(procs, victim)
	l := newLedger("part")
	l.mustBook(t, victim, 3)

	cut := func(open bool) {
		for j := range n {
			if j != v {
				gates[j][v].set(open)
				if !oneWay {
					gates[v][j].set(open)
				}
			}
		}
	}
	cut(false)
	parted := time.Now()
	// Bookings and reads through all three while the others take over.
	var tookOver time.Duration
	// Until 5 s after the majority took over (at most 20 s): long
	// enough for a stale read or a second writer to show.
	for time.Since(parted) < 20*time.Second && (tookOver == 0 || time.Since(parted) < tookOver+5*time.Second) {
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
	// The bound is the failure detection's, not a speed target: the
	// membership notices within seconds, a silent lease is over 4 s after
	// it was last seen renewed. (A cut-off node that judged only its own
	// view kept the salon here until gossip shrank its view: 24 s.)
	require.NotZero(t, tookOver, "the majority never took the salon over")
	require.Less(t, tookOver, 15*time.Second, "the majority took the salon over only after the failure detection's bound")
	t.Logf("partition: the majority acknowledged a booking of the salon %v after the cut", tookOver.Round(time.Millisecond))
	r, err := client.Get(victim.admin + "/readyz")
	require.NoError(t, err)
	raw, _ := io.ReadAll(r.Body)
	r.Body.Close()
	require.Equal(t, 503, r.StatusCode)
	why := "this node sees 1 of the cluster's 3 members"
	if oneWay {
		why = "a majority of the cluster's members does not see this node"
	}
	require.Contains(t, string(raw), why, "the cut-off node says why it is not ready")

	cut(true)
	healed := time.Now()
	agreedAt := hammerUntilAgreed(t, procs, l, healed, 15*time.Second)
	require.False(t, agreedAt.IsZero(), "the nodes never agreed on the salon's owner after the partition healed")
	t.Logf("one owner agreed by all nodes %v after the heal (and since)", agreedAt.Sub(healed).Round(time.Millisecond))
	waitReady(t, procs)
	l.requireAllThere(t, others[0])
	t.Logf("%d bookings acknowledged, none overlapping, none lost", l.count())
}

// TestClusterDrainReleases: a drained node (SIGTERM) releases the owner
// records of its businesses before its lease stops, so a survivor takes
// the salon over without waiting for that lease to run out and fencing it.
func TestClusterDrainReleases(t *testing.T) {
	bin := buildBinary(t)
	procs := startNodes(t, bin, 3, false)
	victim := owner(t, procs)
	rest := without(procs, victim)
	require.NoError(t, victim.cmd.Process.Signal(syscall.SIGTERM))
	drained := time.Now()
	require.Eventually(t, func() bool {
		status, _, h, err := clusterCall("GET", rest[0].pub, "/api/v1/me", "")
		return err == nil && status == 200 && h.Get("X-Slotd-Node") != victim.name
	}, 30*time.Second, 20*time.Millisecond, "no survivor took the salon over")
	t.Logf("the salon answered on a survivor %v after its node was told to drain", time.Since(drained).Round(time.Millisecond))
	require.NoError(t, victim.cmd.Wait(), "a drained node exits 0")
	for _, p := range rest {
		require.NotContains(t, p.log.String(), "fenced the lease", "%s had to wait out the drained node's lease", p.name)
	}
}
