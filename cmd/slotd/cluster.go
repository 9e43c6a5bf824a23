package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/placement"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/stream"
	"github.com/slotd/slotd/transport"
	"github.com/slotd/slotd/transport/admin"
	"github.com/slotd/slotd/transport/handover"
)

// clusterFlags are the flags of cluster mode (docs/cluster.md). Cluster
// mode is on when --cluster-node is set; without it slotd is the single
// node it always was.
type clusterFlags struct {
	Node       string // this node's name, unique in the cluster
	Listen     string // host:port of this node's cluster (gRPC) listener
	Membership string // host:port of this node's membership endpoint
	Peers      string // comma-separated host:port of every node's membership endpoint
	HandOver   string // host:port of this node's hand-over listener (handover.go)

	JournalURL      string // an external NATS JetStream cluster
	JournalListen   string // host:port of the embedded journal replica's client port
	JournalRoutes   string // host:port of the embedded replica's route port
	JournalPeers    string // comma-separated host:port of every replica's route port
	JournalReplicas int
	JournalSync     string // always, or an fsync interval such as 1s (embedded replicas)
}

func (f *clusterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.Node, "cluster-node", "", "cluster mode: this node's `name`, unique in the cluster (off: a single node)")
	fs.StringVar(&f.Listen, "cluster-listen", "127.0.0.1:7100", "cluster mode: `host:port` where the other nodes reach this one (Proto.Actor remote)")
	fs.StringVar(&f.Membership, "cluster-membership", "127.0.0.1:7200", "cluster mode: `host:port` of this node's membership endpoint (listens on every interface)")
	fs.StringVar(&f.Peers, "cluster-peers", "", "cluster mode: `list` of every node's --cluster-membership, comma-separated, this one's included")
	fs.StringVar(&f.HandOver, "cluster-handover", "127.0.0.1:7300", "cluster mode: `host:port` where the other nodes hand this one requests for its businesses")
	fs.StringVar(&f.JournalURL, "journal-url", "", "cluster mode: `URLs` of an external NATS JetStream cluster (instead of the embedded replica)")
	fs.StringVar(&f.JournalListen, "journal-listen", "127.0.0.1:4222", "cluster mode: `host:port` of the embedded journal replica's client port")
	fs.StringVar(&f.JournalRoutes, "journal-routes", "127.0.0.1:6222", "cluster mode: `host:port` of the embedded journal replica's route port")
	fs.StringVar(&f.JournalPeers, "journal-peers", "", "cluster mode: `list` of every replica's --journal-routes, comma-separated, this one's included")
	fs.IntVar(&f.JournalReplicas, "journal-replicas", 3, "cluster mode: replicas of each journal record (`N`)")
	fs.StringVar(&f.JournalSync, "journal-sync", "always", "cluster mode: when the embedded replicas fsync: always (before acknowledging each write), or an `interval` such as 1s (faster; a write acknowledged in the last interval is lost if every replica fails at once)")
}

func (f *clusterFlags) on() bool { return f.Node != "" }

func (f *clusterFlags) check() error {
	if !f.on() {
		return nil
	}
	for _, a := range []struct{ name, v string }{{"--cluster-listen", f.Listen}, {"--cluster-membership", f.Membership}, {"--cluster-handover", f.HandOver}} {
		if _, err := hostPort(a.v); err != nil {
			return fmt.Errorf("%s: %v", a.name, err)
		}
	}
	if f.Peers == "" {
		return errors.New("--cluster-peers: every node's --cluster-membership is needed in cluster mode")
	}
	if f.JournalURL == "" {
		if f.JournalPeers == "" {
			return errors.New("--journal-peers (or --journal-url): the journal replicas are needed in cluster mode")
		}
		for _, a := range []struct{ name, v string }{{"--journal-listen", f.JournalListen}, {"--journal-routes", f.JournalRoutes}} {
			if _, err := hostPort(a.v); err != nil {
				return fmt.Errorf("%s: %v", a.name, err)
			}
		}
	}
	if _, err := f.syncInterval(); err != nil {
		return err
	}
	if f.JournalReplicas < 1 || f.JournalReplicas > 5 {
		return errors.New("--journal-replicas: want 1 to 5")
	}
	// Embedded replicas elect JetStream's leaders among themselves: one
	// alone never does, and a record cannot have more replicas than there
	// are replicas to hold it. Either would wait for ever at start.
	if n := len(splitList(f.JournalPeers)); f.JournalURL == "" && (n < 2 || f.JournalReplicas > n) {
		return fmt.Errorf("--journal-peers: %d embedded journal replica(s) cannot hold --journal-replicas %d (and one alone elects no leader): list every replica, or give --journal-url", n, f.JournalReplicas)
	}
	return nil
}

// syncInterval is --journal-sync: 0 for always.
func (f *clusterFlags) syncInterval() (time.Duration, error) {
	if f.JournalSync == "always" {
		return 0, nil
	}
	d, err := time.ParseDuration(f.JournalSync)
	if err != nil || d <= 0 {
		return 0, errors.New("--journal-sync: want always or a positive interval such as 1s")
	}
	return d, nil
}

type addrPort struct {
	host string
	port int
}

func hostPort(v string) (addrPort, error) {
	h, p, err := net.SplitHostPort(v)
	if err != nil {
		return addrPort{}, errors.New("want host:port")
	}
	n, err := strconv.Atoi(p)
	if err != nil || n <= 0 || n > 65535 {
		return addrPort{}, errors.New("want a port number")
	}
	return addrPort{h, n}, nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// clusterNode is what cluster mode adds to a node: the journal replica
// (embedded or not), the connection to it, the replicated journal, the
// registry and, once joined, the node's membership.
type clusterNode struct {
	f        *clusterFlags
	log      *slog.Logger
	replica  *natsserver.Server // nil with --journal-url
	nc       *nats.Conn
	journal  *stream.Journal
	registry *stream.Registry
	rep      *stream.Replicator
	node     atomic.Pointer[placement.Node] // replaced when the node rejoins (lapsed)
	member   placement.Config               // how it joins
	lease    *stream.Lease                  // its right to serve (stream.Lease)
	claims   *stream.Claims                 // the owner records it takes businesses over by
	leaving  atomic.Bool                    // leave was called
	seen     atomic.Bool                    // a majority's views list this node (views)
	rejoins  atomic.Uint64
	handLn   net.Listener // the hand-over listener
	handSrv  *fasthttp.Server
	reach    atomic.Bool // the journal answered its last ping
	stopPing chan struct{}
}

// startJournal starts the node's journal replica (unless external),
// connects to the journal and puts store in cluster mode. The store is
// this node's working copy of the businesses it owns: it starts empty.
func startJournal(ctx context.Context, f *clusterFlags, data string, store *storage.Store, status func(string), log *slog.Logger) (*clusterNode, error) {
	cn := &clusterNode{f: f, log: log, stopPing: make(chan struct{})}
	url := f.JournalURL
	if url == "" {
		lis, _ := hostPort(f.JournalListen)
		routes, _ := hostPort(f.JournalRoutes)
		sync, _ := f.syncInterval() // checked with the flags
		s, err := stream.Start(stream.Node{Name: f.Node, Dir: filepath.Join(data, "journal"), Host: lis.host,
			ClientPort: lis.port, ClusterPort: routes.port, Routes: splitList(f.JournalPeers), SyncInterval: sync})
		if err != nil {
			return nil, err
		}
		cn.replica, url = s, s.ClientURL()
	}
	nc, err := nats.Connect(url, nats.Name("slotd "+f.Node), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		cn.close()
		return nil, fmt.Errorf("journal %s: %w", url, err)
	}
	cn.nc = nc
	// The stream needs a quorum of replicas to be created: wait for the
	// peers to come up (each node starts its own), and say which are
	// missing — on /readyz at once, in the log every few seconds.
	start := time.Now()
	deadline, nextLog := start.Add(startWait), start.Add(3*time.Second)
	for {
		why, _ := f.waiting(url)
		status(why)
		octx, cancel := context.WithTimeout(ctx, 3*time.Second)
		cn.journal, err = stream.Open(octx, nc, stream.Config{Replicas: f.JournalReplicas})
		if err == nil {
			cn.registry, err = stream.OpenRegistry(octx, cn.journal, "", log)
		}
		cancel()
		if err == nil {
			break
		}
		why, all := f.waiting(url)
		if ctx.Err() != nil || time.Now().After(deadline) {
			cn.close()
			return nil, fmt.Errorf("journal: not available after waiting %v: %s (%w)", startWait, why, err)
		}
		if time.Now().After(nextLog) {
			// Electing the journal's leaders takes a healthy start
			// 10–20 s (more on a loaded machine): said at INFO. A missing replica, or an election
			// that takes longer, is worth a WARN.
			level, waited := slog.LevelInfo, time.Since(start)
			if !all || waited > electionWait {
				level = slog.LevelWarn
			}
			log.Log(ctx, level, why, "waited", waited.Round(time.Second), "gives up after", startWait, "err", err)
			nextLog = time.Now().Add(10 * time.Second)
		}
		time.Sleep(500 * time.Millisecond)
	}
	status("joining the cluster")
	cn.rep = stream.NewReplicator(cn.journal, store, log)
	store.SetReplicator(cn.rep)
	cn.reach.Store(true)
	go cn.ping()
	return cn, nil
}

// waiting says what the node waits for: with embedded replicas, which
// of them answer on their route port and which are missing, and whether
// all of them answer (with an external journal: assumed).
func (f *clusterFlags) waiting(url string) (why string, all bool) {
	if f.JournalURL != "" {
		return "waiting for the journal at " + url, true
	}
	peers := splitList(f.JournalPeers)
	var missing []string
	for _, p := range peers {
		if p == f.JournalRoutes {
			continue
		}
		c, err := net.DialTimeout("tcp", p, 300*time.Millisecond)
		if err != nil {
			missing = append(missing, p)
			continue
		}
		c.Close()
	}
	if len(missing) == 0 {
		return fmt.Sprintf("waiting for the journal: all %d replicas answer; electing leaders", len(peers)), true
	}
	return fmt.Sprintf("waiting for the journal: %d of %d replicas answer, a quorum of %d is needed; missing: %s (start them: docs/cluster.md)",
		len(peers)-len(missing), len(peers), len(peers)/2+1, strings.Join(missing, ", ")), false
}

// electionWait is how long a start may wait for the journal's leaders,
// with every replica up, before the wait is logged as a WARN.
const electionWait = time.Minute

// startWait bounds how long a starting node waits for the journal's
// replicas to elect leaders (stream, buckets) and for the cluster to settle
// before it gives up: seconds on an idle machine, far more on a loaded one.
const startWait = 2 * time.Minute

// ping keeps reach current for /readyz.
func (cn *clusterNode) ping() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-cn.stopPing:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		cn.reach.Store(cn.journal.Ping(ctx) == nil)
		cancel()
	}
}

// join makes the node a member of the cluster, serving handed-over
// requests with handOver.
func (cn *clusterNode) join(dir *directory.Directory, handOver fasthttp.RequestHandler) error {
	ln, err := listenOn("--cluster-handover", cn.f.HandOver)
	if err != nil {
		return err
	}
	lis, _ := hostPort(cn.f.Listen)
	mem, _ := hostPort(cn.f.Membership)
	// A membership port in use fails placement.Start too, but only after
	// the node has taken its lease: look first, and refuse to start
	// before claiming anything.
	probe, err := listenOn("--cluster-membership", fmt.Sprintf(":%d", mem.port))
	if err != nil {
		ln.Close()
		return err
	}
	probe.Close()
	cn.member = placement.Config{Host: lis.host, Port: lis.port, MembershipPort: mem.port,
		Peers: splitList(cn.f.Peers), Dir: dir, Businesses: cn.registry.Businesses, Exists: cn.registry.Has,
		Log: cn.log, Activated: func(id uuid.UUID) { cn.publish(dir, id) }}
	ctx, cancel := context.WithTimeout(context.Background(), startWait)
	defer cancel()
	// The lease first: the node serves nothing without it.
	if cn.lease, err = cn.registry.Lease(ctx, cn.f.Node, cn.lapsed, cn.majority); err != nil {
		ln.Close()
		return err
	}
	cn.claims = cn.registry.Claims(cn.lease)
	cn.rep.SetClaims(cn.claims)
	n, err := placement.Start(cn.member)
	if err != nil {
		ln.Close()
		return err
	}
	cn.node.Store(n)
	go cn.views()
	cn.handLn, cn.handSrv = ln, handOverServer(handOver)
	go func() { _ = cn.handSrv.Serve(ln) }()
	return cn.registry.PublishNode(ctx, cn.f.Node, n.Address(), ln.Addr().String())
}

// lapsed runs when this node finds its lease's incarnation over: another
// node ended it to take a business over (the node was paused, a stalled
// VM, or cut off), or the node has been without the majority for longer
// than two leases. Its businesses may have been taken over and written by
// the survivors meanwhile, and the survivors' view of the cluster has
// dropped it (and they will not take its old identity back). So it lets go of every business it ran — their actors stop,
// their rows go — and rejoins the cluster as a new member; what it serves
// from now on it takes over afresh from the journal. Nothing is served
// while this runs: the lease is valid again only afterwards.
func (cn *clusterNode) lapsed() {
	if cn.leaving.Load() {
		return // draining: the node is on its way out anyway
	}
	cn.log.Warn("this node's lease lapsed (paused, or cut off from the journal or the majority for longer than it lasts): letting go of its businesses and rejoining the cluster as a new member",
		"lease", stream.LeaseTTL)
	cn.rejoins.Add(1)
	if old := cn.node.Load(); old != nil {
		old.Abandon()
	}
	// Abandon returns with the old member's listeners closed, so the new
	// one binds the same ports at once.
	n, err := placement.Start(cn.member)
	if err != nil {
		cn.log.Error("rejoining the cluster failed; the node serves nothing until it restarts", "err", err)
		cn.node.Store(nil)
		return
	}
	cn.node.Store(n)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cn.registry.PublishNode(ctx, cn.f.Node, n.Address(), cn.handLn.Addr().String()); err != nil {
		cn.log.Warn("publishing the node entry after rejoining failed", "err", err)
	}
}

// majority reports whether the node may hold its lease: it sees a
// majority of the cluster's members and a majority sees it (or it has not
// joined yet).
func (cn *clusterNode) majority() bool {
	n := cn.node.Load()
	return n == nil || (n.Majority() && cn.seen.Load())
}

// viewsEvery is how often a node publishes its view of the membership.
const viewsEvery = time.Second

// views publishes this node's view of the membership every viewsEvery,
// and keeps seen current: whether the latest views of a majority of the
// cluster's nodes (of those it sees) list this node (stream/views.go).
func (cn *clusterNode) views() {
	t := time.NewTicker(viewsEvery / 4)
	defer t.Stop()
	var published time.Time
	for {
		select {
		case <-cn.stopPing:
			return
		case <-t.C:
		}
		n := cn.node.Load()
		if n == nil || !n.Joined() {
			cn.seen.Store(false)
			continue
		}
		if time.Since(published) >= viewsEvery {
			ctx, cancel := context.WithTimeout(context.Background(), viewsEvery)
			if err := cn.registry.PublishView(ctx, cn.f.Node, n.Address(), n.View()); err == nil {
				published = time.Now()
			}
			cancel()
		}
		cn.seen.Store(cn.registry.SeenBy(n.Address(), n.View())*2 > len(cn.member.Peers))
	}
}

// publish refreshes business id's registry entry from its state.
func (cn *clusterNode) publish(dir *directory.Directory, id uuid.UUID) {
	h, ok := dir.Loaded(id)
	if !ok || h.State() == nil {
		return
	}
	st := h.State()
	hashes := make([]model.KeyHash, 0, len(st.Keys))
	for _, k := range st.Keys {
		hashes = append(hashes, k.Hash)
	}
	cn.registry.PublishHashes(id, st.Business.Name, hashes)
}

// Local, NotReady and Businesses make the node an edge.Cluster.
//
// A node serves a business only while its lease is valid (stream.Lease):
// paused past it, it serves nothing it held, however its view of the
// cluster looks.
func (cn *clusterNode) Local(id uuid.UUID) bool {
	n := cn.node.Load()
	return n != nil && cn.lease.Valid() && n.Local(id)
}

// Serving reports whether this node may serve from the state it holds
// now: its lease is valid. The front end asks it again once an answer
// from this node's own state is written (edge.Cluster).
func (cn *clusterNode) Serving() bool { return cn.lease.Valid() }

func (cn *clusterNode) NotReady() string {
	n := cn.node.Load()
	switch {
	case n == nil || !n.Joined():
		return "not a member of the cluster"
	case !cn.nc.IsConnected() || !cn.reach.Load():
		return "the journal does not answer"
	case !n.Majority():
		st := n.Stats()
		return fmt.Sprintf("this node sees %d of the cluster's %d members; it serves only while it sees a majority", st.Members, len(cn.member.Peers))
	case !cn.seen.Load():
		return "a majority of the cluster's members does not see this node (can they reach its --cluster-membership port?); it serves only while they do"
	case !cn.lease.Valid():
		return "this node's lease is not valid (it was paused or cut off; it rejoins)"
	}
	if cn.replica != nil {
		// The embedded replica counts towards the journal's quorum only
		// once it is current: a node back from a crash is not ready
		// (and the cluster not yet tolerant of the next loss) before.
		if h := cn.replica.Healthz(nil); h.Status != "ok" {
			return "this node's journal replica is catching up: " + h.Error
		}
	}
	return ""
}

func (cn *clusterNode) Businesses(fn func(id uuid.UUID, name string) error) error {
	return cn.registry.Businesses(fn)
}

// leave leaves the cluster gracefully: the node's businesses move on.
func (cn *clusterNode) leave() {
	cn.leaving.Store(true)
	if n := cn.node.Load(); n != nil {
		n.Stop(true) // the businesses' actors stop, and release their owner records
	}
	if cn.claims != nil {
		cn.claims.Flush(2 * time.Second)
	}
	if cn.lease != nil {
		cn.lease.Stop()
	}
	if cn.handSrv != nil {
		_ = cn.handSrv.Shutdown()
	}
}

// close disconnects from the journal and stops the node's replica.
func (cn *clusterNode) close() {
	select {
	case <-cn.stopPing:
	default:
		close(cn.stopPing)
	}
	if cn.nc != nil {
		cn.nc.Close()
	}
	if cn.replica != nil {
		cn.replica.Shutdown()
		cn.replica.WaitForShutdown()
	}
}

// collector is cluster mode's metrics, per node; withheld counts the
// answers the front end withheld (transport.Server.Withheld).
func (cn *clusterNode) collector(road *handover.Node, withheld func() uint64) prometheus.Collector {
	return clusterCollector{cn: cn, road: road, withheld: withheld}
}

type clusterCollector struct {
	cn       *clusterNode
	road     *handover.Node // the hand-overs' counts
	withheld func() uint64
}

var (
	descOwned     = prometheus.NewDesc("slotd_cluster_owned_businesses", "Businesses whose grain (and actor) is on this node.", nil, nil)
	descMembers   = prometheus.NewDesc("slotd_cluster_members", "Members of the cluster in this node's view.", nil, nil)
	descForwarded = prometheus.NewDesc("slotd_cluster_forwarded_requests_total", "Requests this node handed to the node their business lives on.", nil, nil)
	descServed    = prometheus.NewDesc("slotd_cluster_served_requests_total", "Requests another node handed to this one.", nil, nil)
	descFenced    = prometheus.NewDesc("slotd_journal_fencing_refusals_total", "Appends refused because another node wrote the business since (fencing).", nil, nil)
	descAppends   = prometheus.NewDesc("slotd_journal_appends_total", "Records this node appended to the replicated journal (each may carry several writes).", nil, nil)
	descCkpts     = prometheus.NewDesc("slotd_journal_checkpoints_total", "Checkpoints of businesses this node stored.", nil, nil)
	descLease     = prometheus.NewDesc("slotd_cluster_lease_valid", "1 while this node's lease is valid: it may serve (it renews it, sees a majority and is seen by one).", nil, nil)
	descRejoins   = prometheus.NewDesc("slotd_cluster_rejoins_total", "Times this node found its lease over, let go of its businesses and rejoined as a new member.", nil, nil)
	descWithheld  = prometheus.NewDesc("slotd_cluster_answers_withheld_total", "Answers this node made from its own state of a business and replaced by 503 SERVICE_UNAVAILABLE, its lease having run out meanwhile (it was paused or cut off).", nil, nil)
	descClaims    = prometheus.NewDesc("slotd_cluster_owner_claims_total", "Owner records by outcome: taken by this node; refused (their holder's lease was alive); fenced (this node ended a silent holder's lease to take one); released by this node.", []string{"outcome"}, nil)
)

func (c clusterCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descOwned, descMembers, descForwarded, descServed, descFenced, descAppends, descCkpts,
		descLease, descRejoins, descWithheld, descClaims} {
		ch <- d
	}
}

func (c clusterCollector) Collect(ch chan<- prometheus.Metric) {
	var ns placement.Stats
	if n := c.cn.node.Load(); n != nil {
		ns = n.Stats()
	}
	rs := c.cn.rep.Stats()
	ch <- prometheus.MustNewConstMetric(descOwned, prometheus.GaugeValue, float64(ns.Owned))
	ch <- prometheus.MustNewConstMetric(descMembers, prometheus.GaugeValue, float64(ns.Members))
	var forwarded, served uint64
	if c.road != nil {
		forwarded, served = c.road.Counts()
	}
	ch <- prometheus.MustNewConstMetric(descForwarded, prometheus.CounterValue, float64(forwarded))
	ch <- prometheus.MustNewConstMetric(descServed, prometheus.CounterValue, float64(served))
	ch <- prometheus.MustNewConstMetric(descFenced, prometheus.CounterValue, float64(rs.Fenced))
	ch <- prometheus.MustNewConstMetric(descAppends, prometheus.CounterValue, float64(rs.Appends))
	ch <- prometheus.MustNewConstMetric(descCkpts, prometheus.CounterValue, float64(rs.Checkpoints))
	valid := 0.0
	if c.cn.lease != nil && c.cn.lease.Valid() {
		valid = 1
	}
	ch <- prometheus.MustNewConstMetric(descLease, prometheus.GaugeValue, valid)
	ch <- prometheus.MustNewConstMetric(descRejoins, prometheus.CounterValue, float64(c.cn.rejoins.Load()))
	if c.withheld != nil {
		ch <- prometheus.MustNewConstMetric(descWithheld, prometheus.CounterValue, float64(c.withheld()))
	}
	if c.cn.claims != nil {
		cs := c.cn.claims.Stats()
		for _, o := range []struct {
			name string
			n    uint64
		}{{"taken", cs.Taken}, {"refused", cs.Refused}, {"fenced", cs.Fenced}, {"released", cs.Released}} {
			ch <- prometheus.MustNewConstMetric(descClaims, prometheus.CounterValue, float64(o.n), o.name)
		}
	}
}

// startCluster starts cluster mode's journal over store, which it empties
// first: the node's working copy is rebuilt from the journal, business by
// business, as the node takes businesses over.
func startCluster(ctx context.Context, c *config, store *storage.Store, status func(string), log *slog.Logger) (*clusterNode, error) {
	if err := store.DropAll(); err != nil {
		return nil, err
	}
	return startJournal(ctx, &c.Cluster, c.Data, store, status, log)
}

// loadWorldClustered loads --world in cluster mode, each business on its
// node. Right after joining, the cluster may still be settling (the other
// nodes starting, the journal electing leaders): a put refused as
// unavailable is tried again for a while.
func loadWorldClustered(ctx context.Context, c *config, srv *transport.Server, log *slog.Logger) error {
	if c.World == "" {
		return nil
	}
	data, err := os.ReadFile(c.World)
	if err != nil {
		return err
	}
	began := time.Now()
	deadline := began.Add(startWait)
	for {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		var put []directory.PutResult
		put, err = srv.PutWorldClustered(wctx, data)
		cancel()
		var pe *admin.PutError
		settling := err != nil && (!errors.As(err, &pe) || pe.Status == 503 || pe.Status == 500)
		if !settling || ctx.Err() != nil || time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("world file %s:\n%s", c.World, indent(err.Error()))
			}
			log.Info("world file loaded", "file", c.World, "businesses", len(put), "took", time.Since(began).Round(time.Millisecond))
			return nil
		}
		log.Info("world load: the cluster is settling; trying again", "err", err)
		time.Sleep(500 * time.Millisecond)
	}
}
