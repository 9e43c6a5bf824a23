package placement

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/valyala/fasthttp"
)

// membership is the node's cluster provider: it tells the cluster's member
// list who the members are by asking every peer, each Refresh, what it is.
// Every node answers GET /_health on its membership port with its
// nodeModel; the answers that name this cluster are the topology, and the
// member list turns a change of it into joins and leaves.
//
// The wire is that of Proto.Actor's automanaged provider, which slotd ran
// before, so that nodes of either build make one cluster. That provider is
// not used because it demands an echo server, a third HTTP stack beside the
// fasthttp slotd serves with and the net/http it calls with, and because it
// only logged a membership port it could not listen on and closed its
// server on some of its paths only.
//
// A peer that misses one round is a member no longer, and for good: the
// member list blocks a member that left, so it comes back only as a new
// member (a new actor system, as a node whose lease lapsed rejoins). So a
// poll waits pollTimeout, not just a Refresh: a slow answer delays a round,
// a missed one evicts a live node. A killed node refuses the connection and
// is noticed within a Refresh; only a paused one costs the whole timeout.
//
// Who touches what: newMembership sets every field but log, and nothing
// changes them; StartMember or StartClient sets log before it starts a
// goroutine. So the goroutines and Shutdown read them without a lock.
type membership struct {
	port    int      // where this node answers (every interface)
	peers   []string // host:port of every node's membership port, this one's included
	refresh time.Duration
	kinds   []string // what this node says it hosts
	client  *http.Client

	stop   chan struct{}   // closed by Shutdown
	ctx    context.Context // cancelled by Shutdown, ending a round in flight
	cancel context.CancelFunc
	halt   sync.Once      // Shutdown's closing, once
	done   sync.WaitGroup // the server and the poll loop

	log *slog.Logger // the cluster's, from StartMember or StartClient
}

// pollTimeout bounds one poll of a peer. It is the automanaged provider's
// and not bounded by Refresh: see membership.
const pollTimeout = 2 * time.Second

// maxAnswer bounds what is read of a peer's answer; a node's is about 150
// bytes.
const maxAnswer = 64 << 10

// The provider's log messages; quietHandler's level matches them.
const (
	msgPeerSilent    = "membership: a peer did not answer"
	msgPeerWrong     = "membership: a peer's answer is not a node's"
	msgPeerForeign   = "membership: a peer is a member of another cluster"
	msgNoPeer        = "membership: no peer answered; the members stay as they were"
	msgServeFailed   = "membership: the health server failed; peers will drop this node"
	msgServerStopped = "membership: the health server stopped"
)

// nodeModel is what a node answers on /_health: Proto.Actor's
// automanaged.NodeModel, field for field and tag for tag.
type nodeModel struct {
	ID             string   `json:"id"`
	Address        string   `json:"address"`
	AutoManagePort int      `json:"auto_manage_port"`
	Port           int      `json:"port"`
	Kinds          []string `json:"kinds"`
	ClusterName    string   `json:"cluster_name"`
}

// member is the cluster member a node's answer names.
func (m *nodeModel) member() *cluster.Member {
	return &cluster.Member{Id: m.ID, Host: m.Address, Port: int32(m.Port), Kinds: m.Kinds}
}

// newMembership returns a provider that answers on port and polls peers
// every refresh, saying the node hosts kinds.
func newMembership(port int, peers []string, refresh time.Duration, kinds ...string) *membership {
	ctx, cancel := context.WithCancel(context.Background())
	return &membership{port: port, peers: peers, refresh: refresh, kinds: kinds, client: pollClient(),
		stop: make(chan struct{}), ctx: ctx, cancel: cancel}
}

// pollClient is the client of the polls. It takes no proxy from the
// environment: the peers are the cluster's own nodes.
func pollClient() *http.Client {
	dial := &net.Dialer{Timeout: pollTimeout, KeepAlive: 5 * time.Second}
	return &http.Client{Timeout: pollTimeout, Transport: &http.Transport{
		DialContext: dial.DialContext, MaxIdleConnsPerHost: 2, IdleConnTimeout: time.Minute,
		DisableCompression: true,
	}}
}

// StartMember answers for this node on the membership port and starts
// polling. A port that cannot be listened on is an error: the node would
// otherwise run outside the cluster for good.
func (p *membership) StartMember(c *cluster.Cluster) error {
	host, port, err := c.ActorSystem.GetHostPort()
	if err != nil {
		return err
	}
	ln, err := p.listen()
	if err != nil {
		return err
	}
	self := nodeModel{ID: c.ActorSystem.ID, Address: host, AutoManagePort: p.port, Port: port,
		Kinds: p.kinds, ClusterName: c.Config.Name}
	p.start(c.Logger(), ln, self, c.MemberList.UpdateClusterTopology)
	return nil
}

// StartClient polls without answering: a client is no member.
func (p *membership) StartClient(c *cluster.Cluster) error {
	p.start(c.Logger(), nil, nodeModel{ClusterName: c.Config.Name}, c.MemberList.UpdateClusterTopology)
	return nil
}

// Shutdown stops answering and polling and returns once both have: the
// membership port is free again when it returns. It may be called more
// than once (Proto.Actor calls it on a graceful stop only; Node.Stop
// always does).
func (p *membership) Shutdown(bool) error {
	p.halt.Do(func() {
		close(p.stop)
		p.cancel()
	})
	p.done.Wait()
	p.client.CloseIdleConnections()
	return nil
}

// listen listens on the membership port on every interface, as the
// automanaged provider did.
func (p *membership) listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", p.port))
	if err != nil {
		return nil, fmt.Errorf("listening on the membership port: %w", err)
	}
	return ln, nil
}

// start answers for self on ln (none for a client) and polls the peers
// of self's cluster, handing each round's members to publish.
func (p *membership) start(log *slog.Logger, ln net.Listener, self nodeModel, publish func(cluster.Members)) {
	p.log = log
	if ln != nil {
		p.serve(ln, self)
	}
	p.done.Add(1)
	go p.poll(self.ClusterName, publish)
}

// serve answers /_health on ln until Shutdown. The listener is closed
// here as well as by the server's shutdown, since Shutdown may come before
// the server has taken ln up.
func (p *membership) serve(ln net.Listener, self nodeModel) {
	body, _ := json.Marshal(self) // plain strings and ints: cannot fail
	srv := &fasthttp.Server{Handler: health(body), NoDefaultServerHeader: true,
		ReadTimeout: pollTimeout, WriteTimeout: pollTimeout, IdleTimeout: time.Minute,
		MaxIdleWorkerDuration: idleWorker, Logger: serverLog{p.log}}
	p.done.Add(2)
	go func() {
		defer p.done.Done()
		if err := srv.Serve(ln); err != nil {
			p.log.Error(msgServeFailed, "err", err)
			return
		}
		p.log.Info(msgServerStopped)
	}()
	go func() {
		defer p.done.Done()
		<-p.stop
		ln.Close()
		ctx, cancel := context.WithTimeout(context.Background(), pollTimeout)
		defer cancel()
		_ = srv.ShutdownWithContext(ctx) // closes the idle connections; ln's second close errs
	}()
}

// idleWorker is how long the health server keeps an idle worker. It is
// also how long fasthttp's cleaner of idle workers outlives the server (it
// sleeps that long between rounds): at fasthttp's 10 s, a node that
// stopped would leave a goroutine behind for as long. A peer's polls keep
// their connection's worker busy, so idle ones are few either way.
const idleWorker = time.Second

// health answers GET /_health with body, a node's JSON.
func health(body []byte) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if !ctx.IsGet() || string(ctx.Path()) != "/_health" {
			ctx.SetStatusCode(fasthttp.StatusNotFound)
			return
		}
		ctx.SetContentType("application/json; charset=UTF-8")
		ctx.SetBody(body)
	}
}

// serverLog takes the health server's own complaints (a client's broken
// connection, mostly) to the cluster's log at DEBUG: they are not the
// membership's news, and fasthttp would write them to stderr.
type serverLog struct{ log *slog.Logger }

func (l serverLog) Printf(format string, args ...any) {
	l.log.Debug("membership: " + fmt.Sprintf(format, args...))
}

// poll runs a round at once and then each refresh until Shutdown. A round
// longer than refresh (a paused peer) delays the next; rounds never
// overlap.
func (p *membership) poll(name string, publish func(cluster.Members)) {
	defer p.done.Done()
	t := time.NewTicker(p.refresh)
	defer t.Stop()
	for {
		p.round(name, publish)
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
	}
}

// round asks every peer and publishes the members of cluster name among
// those that answered. When none answered (this node's own server included),
// the node is cut off, not the others gone: it publishes nothing, as the
// automanaged provider did, and the members stay as they were.
func (p *membership) round(name string, publish func(cluster.Members)) {
	nodes := p.ask()
	if p.ctx.Err() != nil {
		return // Shutdown came in the middle: the answers are moot
	}
	members, answered := p.members(name, nodes)
	if answered == 0 && len(p.peers) > 0 {
		p.log.Warn(msgNoPeer, "peers", len(p.peers))
		return
	}
	publish(members)
}

// members returns the members of cluster name among nodes, and how many
// nodes answered at all.
func (p *membership) members(name string, nodes []*nodeModel) (members cluster.Members, answered int) {
	for i, n := range nodes {
		if n == nil {
			continue
		}
		answered++
		if n.ClusterName != name {
			p.log.Warn(msgPeerForeign, "peer", p.peers[i], "cluster", n.ClusterName, "want", name)
			continue
		}
		members = append(members, n.member())
	}
	return members, answered
}

// ask polls every peer at once; a peer that did not answer is nil.
func (p *membership) ask() []*nodeModel {
	nodes := make([]*nodeModel, len(p.peers))
	var wg sync.WaitGroup
	for i, peer := range p.peers {
		wg.Go(func() { nodes[i] = p.askPeer(peer) })
	}
	wg.Wait()
	return nodes
}

// askPeer polls peer, logging why it is not a node this round.
func (p *membership) askPeer(peer string) *nodeModel {
	n, err := p.fetch(peer)
	switch {
	case err == nil:
		return n
	case p.ctx.Err() != nil: // Shutdown, not the peer
	case errors.Is(err, errWrongAnswer):
		p.log.Warn(msgPeerWrong, "peer", peer, "err", err)
	default:
		p.log.Warn(msgPeerSilent, "peer", peer, "err", err)
	}
	return nil
}

// errWrongAnswer is an answer that is not a node's: something else
// listens on the peer's port.
var errWrongAnswer = errors.New("not a node's answer")

// fetch asks peer for its node.
func (p *membership) fetch(peer string) (*nodeModel, error) {
	req, err := http.NewRequestWithContext(p.ctx, http.MethodGet, "http://"+peer+"/_health", nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body := io.LimitReader(resp.Body, maxAnswer)
	defer io.Copy(io.Discard, body) // to the end, so the connection is kept for the next round
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: status %d", errWrongAnswer, resp.StatusCode)
	}
	var n nodeModel
	if err := json.NewDecoder(body).Decode(&n); err != nil {
		return nil, fmt.Errorf("%w: %v", errWrongAnswer, err)
	}
	return &n, nil
}
