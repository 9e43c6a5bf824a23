package placement

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests below run providers in one process on loopback, each with the
// listener a test made for it (so every address is known before any
// starts) and a publish that records each round's members; they wait for
// what a round publishes or logs, never for a while.

const testRefresh = 20 * time.Millisecond

// wait bounds every wait for a round: generous, for a loaded machine.
const wait = 10 * time.Second

// testNode is a provider under test and what it publishes and logs.
type testNode struct {
	p      *membership
	addr   string
	rounds chan []string // the member IDs each round published, sorted
	logs   chan string   // the messages it logged at WARN and above
}

// listeners listens on n loopback ports.
func listeners(t *testing.T, n int) ([]net.Listener, []string) {
	var lns []net.Listener
	var addrs []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		lns, addrs = append(lns, ln), append(addrs, ln.Addr().String())
		t.Cleanup(func() { ln.Close() })
	}
	return lns, addrs
}

// startNode starts node id of cluster name answering on ln (none: a
// client) and polling peers; the test shuts it down when it ends.
func startNode(t *testing.T, id, name string, ln net.Listener, peers []string) *testNode {
	self := nodeModel{ID: id, Address: "127.0.0.1", Port: 7000, Kinds: []string{kind}, ClusterName: name}
	return run(t, newMembership(0, peers, testRefresh, kind), ln, self)
}

// run starts p answering on ln as self.
func run(t *testing.T, p *membership, ln net.Listener, self nodeModel) *testNode {
	n := &testNode{p: p, rounds: make(chan []string, 10000), logs: make(chan string, 10000)}
	if ln != nil {
		n.addr = ln.Addr().String()
	}
	p.start(slog.New(recorder(n.logs)), ln, self, func(ms cluster.Members) {
		ids := make([]string, 0, len(ms))
		for _, m := range ms {
			ids = append(ids, m.Id)
		}
		slices.Sort(ids)
		n.rounds <- ids
	})
	t.Cleanup(func() { _ = n.p.Shutdown(false) })
	return n
}

// waitMembers waits for a round of n that publishes exactly ids.
func (n *testNode) waitMembers(t *testing.T, ids ...string) {
	t.Helper()
	slices.Sort(ids)
	var last []string
	for deadline := time.After(wait); ; {
		select {
		case last = <-n.rounds:
			if slices.Equal(last, ids) {
				return
			}
		case <-deadline:
			t.Fatalf("no round published %v; the last published %v", ids, last)
		}
	}
}

// waitLog waits for n to log msg.
func (n *testNode) waitLog(t *testing.T, msg string) {
	t.Helper()
	for deadline := time.After(wait); ; {
		select {
		case m := <-n.logs:
			if m == msg {
				return
			}
		case <-deadline:
			t.Fatalf("%q was not logged", msg)
		}
	}
}

// recorder is a slog.Handler that sends the message of every record at
// WARN and above to ch.
type recorder chan string

func (recorder) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (r recorder) Handle(_ context.Context, rec slog.Record) error {
	select {
	case r <- rec.Message:
	default:
	}
	return nil
}
func (r recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r recorder) WithGroup(string) slog.Handler      { return r }

// Three nodes find each other; one that stops is gone from the others'
// members at the next round, and its port is free when Shutdown returns.
func TestMembershipMembersJoinAndLeave(t *testing.T) {
	lns, addrs := listeners(t, 3)
	a := startNode(t, "a", "slotd", lns[0], addrs)
	b := startNode(t, "b", "slotd", lns[1], addrs)
	c := startNode(t, "c", "slotd", lns[2], addrs)
	a.waitMembers(t, "a", "b", "c")
	b.waitMembers(t, "a", "b", "c")
	c.waitMembers(t, "a", "b", "c")

	require.NoError(t, c.p.Shutdown(false))
	ln, err := net.Listen("tcp", c.addr)
	require.NoError(t, err, "the port is free when Shutdown returns")
	ln.Close()
	a.waitMembers(t, "a", "b")
	b.waitMembers(t, "a", "b")
	a.waitLog(t, msgPeerSilent)
}

// A peer that answers with another cluster's name is no member (and a
// misconfiguration, logged); one that answers as something other than a
// node is none either.
func TestMembershipForeignPeersIgnored(t *testing.T) {
	lns, addrs := listeners(t, 3)
	stranger := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "<html>not a node</html>")
	})}
	go stranger.Serve(lns[2])
	t.Cleanup(func() { stranger.Close() })
	a := startNode(t, "a", "slotd", lns[0], addrs)
	startNode(t, "other", "staging", lns[1], addrs)
	a.waitMembers(t, "a")
	a.waitLog(t, msgPeerForeign)
	a.waitLog(t, msgPeerWrong)
}

// A node whose every peer (itself included) is silent publishes nothing:
// it is the one cut off, and its members stay as they were.
func TestMembershipNoAnswerPublishesNothing(t *testing.T) {
	_, addrs := listeners(t, 2) // listening, never answering: each poll times out...
	lns, gone := listeners(t, 1)
	lns[0].Close() // ...or is refused
	n := startNode(t, "client", "slotd", nil, append(addrs, gone...))
	n.waitLog(t, msgNoPeer)
	n.waitLog(t, msgNoPeer)
	assert.Empty(t, n.rounds, "a round without answers published members")
}

// Shutdown ends a round waiting on a paused peer at once, not after
// pollTimeout.
func TestMembershipShutdownIsPrompt(t *testing.T) {
	lns, paused := listeners(t, 1) // accepts, never answers
	asked := make(chan struct{}, 1)
	go func() {
		if c, err := lns[0].Accept(); err == nil {
			defer c.Close()
			asked <- struct{}{}
			_, _ = io.Copy(io.Discard, c)
		}
	}()
	n := startNode(t, "a", "slotd", nil, paused)
	select {
	case <-asked:
	case <-time.After(wait):
		t.Fatal("no poll came")
	}
	start := time.Now()
	require.NoError(t, n.p.Shutdown(false))
	assert.Less(t, time.Since(start), pollTimeout/2)
	assert.Empty(t, n.logs, "Shutdown's cancelled poll is no silent peer")
}

// A node that stops and starts again on the same membership port, as a
// node whose lease lapsed does, gets the port at once, though peers kept
// connections to it open; and Shutdown leaves no goroutine behind (but
// fasthttp's cleaner of idle workers, for up to idleWorker).
func TestMembershipRestartOnSamePort(t *testing.T) {
	port := freePort(t)
	peers := []string{fmt.Sprintf("127.0.0.1:%d", port)}
	for i := range 3 {
		p := newMembership(port, peers, testRefresh, kind)
		ln, err := p.listen()
		require.NoError(t, err, "start %d", i)
		id := fmt.Sprint("incarnation-", i)
		run(t, p, ln, nodeModel{ID: id, ClusterName: "slotd"}).waitMembers(t, id)
		require.NoError(t, p.Shutdown(false))
	}
	waitGoroutines(t)
}

// A port another process listens on is an error, not a log line.
func TestMembershipPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	require.NoError(t, err)
	defer ln.Close()
	p := newMembership(ln.Addr().(*net.TCPAddr).Port, nil, testRefresh, kind)
	_, err = p.listen()
	assert.Error(t, err)
}

// The answer is automanaged.NodeModel's JSON, key for key, so that a node
// of an older build reads it; a node reads an older build's answer
// (echo's, with its trailing newline) as well.
func TestMembershipWire(t *testing.T) {
	lns, addrs := listeners(t, 1)
	startNode(t, "a", "slotd", lns[0], addrs)
	resp, err := http.Get("http://" + addrs[0] + "/_health")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json; charset=UTF-8", resp.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"id":"a","address":"127.0.0.1","auto_manage_port":0,"port":7000,
		"kinds":["business"],"cluster_name":"slotd"}`, string(body))

	resp, err = http.Get("http://" + addrs[0] + "/health")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	old := `{"id":"b","address":"10.0.0.2","auto_manage_port":6330,"port":8090,"kinds":["business"],"cluster_name":"slotd"}` + "\n"
	var n nodeModel
	require.NoError(t, json.Unmarshal([]byte(old), &n))
	assert.Equal(t, &cluster.Member{Id: "b", Host: "10.0.0.2", Port: 8090, Kinds: []string{"business"}}, n.member())
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// waitGoroutines waits until no goroutine of the provider, its server or
// its client is left (fasthttp's process-wide clock of the Date header
// is none of them).
func waitGoroutines(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(wait); ; time.Sleep(10 * time.Millisecond) {
		left := providerGoroutines()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines left:\n%s", strings.Join(left, "\n\n"))
		}
	}
}

func providerGoroutines() []string {
	buf := make([]byte, 1<<20)
	var left []string
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		for _, f := range []string{"placement.(*membership)", "fasthttp.(*Server)", "fasthttp.(*workerPool)", "net/http.(*persistConn)"} {
			if strings.Contains(g, f) {
				left = append(left, g)
				break
			}
		}
	}
	return left
}

// testConfig is a one-node cluster on loopback with free ports.
func testConfig(t *testing.T) Config {
	mem := freePort(t)
	return Config{Host: "127.0.0.1", Port: freePort(t), MembershipPort: mem,
		Peers: []string{fmt.Sprintf("127.0.0.1:%d", mem)}, Refresh: testRefresh,
		Log: slog.New(slog.DiscardHandler)}
}

// waitJoined waits for n to see itself a member.
func waitJoined(t *testing.T, n *Node) {
	t.Helper()
	for deadline := time.Now().Add(wait); !n.Joined(); time.Sleep(10 * time.Millisecond) {
		require.False(t, time.Now().After(deadline), "not joined")
	}
}

// A node stops, as one whose lease lapsed does (Abandon: not gracefully,
// when Proto.Actor does not shut its provider down), and starts again at
// once on the same ports, twice.
func TestPlacementRejoinOnSamePorts(t *testing.T) {
	cfg := testConfig(t)
	for range 3 {
		n, err := Start(cfg)
		require.NoError(t, err)
		waitJoined(t, n)
		n.Abandon()
	}
	waitGoroutines(t)
}

// A membership port in use fails Start, and what the failed start had
// begun is undone: the remote's port is free again, for a node that tries
// again.
func TestPlacementMembershipPortInUse(t *testing.T) {
	cfg := testConfig(t)
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", cfg.MembershipPort))
	require.NoError(t, err)
	defer ln.Close()
	_, err = Start(cfg)
	require.ErrorContains(t, err, "membership port")
	require.ErrorIs(t, err, syscall.EADDRINUSE)
	// Soon rather than at once: Proto.Actor's remote serves from a
	// goroutine, which closes the listener itself when it starts after the
	// server was stopped.
	addr := fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	for deadline := time.Now().Add(wait); ; time.Sleep(time.Millisecond) {
		remote, err := net.Listen("tcp", addr)
		if err == nil {
			remote.Close()
			return
		}
		require.False(t, time.Now().After(deadline), "the remote's port is still in use: %v", err)
	}
}
