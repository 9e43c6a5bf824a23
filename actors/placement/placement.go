// Package placement runs slotd's businesses as Proto.Actor cluster
// virtual actors (grains) in cluster mode: it owns the node's cluster
// membership, the "business" grain kind, and the hand-off of a request to
// the node a business lives on.
//
// A business grain is the business's placement, not its state: when the
// cluster's identity lookup (rendezvous hashing over the members,
// disthash) activates business B on a node, the grain starts B's business
// actor in the node's directory — which takes B over from the replicated
// journal (storage.Store.Own) — and when the grain stops (its node leaves,
// or the topology gives B to another node) it stops that actor, which
// lets B's rows go. So at most one node runs a business's actor, its
// couriers and its outbox at a time as far as membership knows; when
// membership is wrong (a partition, a slow view) the journal's fencing is
// what keeps two nodes from both acknowledging writes.
//
// Requests cross nodes by one road, package transport/handover: the node
// that received a request for a business owned elsewhere asks Owner where
// the business's grain is (activating it there if need be) and proxies the
// request to that node's hand-over listener. This package answers that
// question and nothing more; it carries no requests.
package placement

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/problem"
)

// kind is the grain kind of a business.
const kind = "business"

// Config configures a node's membership.
type Config struct {
	Cluster string // cluster name; default "slotd"
	// Host and Port are where this node's remote (gRPC) listener is, as
	// the other nodes reach it.
	Host string
	Port int
	// MembershipPort is this node's membership port, where it answers
	// its peers' polls (on every interface; see membership); Peers are
	// host:port of every node's membership port, this one's included.
	MembershipPort int
	Peers          []string
	// Refresh is how often membership is polled (0: 500 ms). It bounds
	// how fast a lost node is noticed.
	Refresh time.Duration
	// Dir runs the businesses this node owns.
	Dir *directory.Directory
	// Activated is called once a business's actor is running here (the
	// registry entry is refreshed from it).
	Activated func(id uuid.UUID)
	// Businesses lists every business of the cluster, for the sweep that
	// activates them on their owners; Exists says whether one was ever
	// put (a grain of an id that names no business starts no actor).
	Businesses func(fn func(id uuid.UUID, name string) error) error
	Exists     func(id uuid.UUID) bool
	Log        *slog.Logger
}

// Node is this process's membership of the cluster.
type Node struct {
	cfg Config
	sys *actor.ActorSystem
	c   *cluster.Cluster

	local sync.Map // uuid.UUID -> struct{}: businesses whose grain is here
	// activating holds the businesses whose actor activate is starting.
	activating sync.Map // uuid.UUID -> struct{}
	pids       sync.Map // uuid.UUID -> *actor.PID: where each business's grain is (pid)
	owned      atomic.Int64
	members    atomic.Int64
	view       atomic.Pointer[[]string] // the members' cluster addresses, as the topology last said
	joined     atomic.Bool

	sweepNow chan struct{}
	stop     chan struct{}
	done     sync.WaitGroup
	member   *membership // the cluster provider
}

// Start joins the cluster and returns once this node is a member.
func Start(cfg Config) (*Node, error) {
	if cfg.Cluster == "" {
		cfg.Cluster = "slotd"
	}
	if cfg.Refresh == 0 {
		cfg.Refresh = 500 * time.Millisecond
	}
	n := &Node{cfg: cfg, sweepNow: make(chan struct{}, 1), stop: make(chan struct{})}
	quiet := slog.New(newQuietHandler(cfg.Log.Handler(), time.Now())).With("component", "cluster")
	n.sys = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return quiet }))
	props := actor.PropsFromProducer(func() actor.Actor { return &grain{n: n} })
	// The node says it hosts businesses only, not the topic kind Proto.Actor
	// adds of itself: so did the builds before this provider.
	n.member = newMembership(cfg.MembershipPort, cfg.Peers, cfg.Refresh, kind)
	conf := cluster.Configure(cfg.Cluster, n.member, disthash.New(), remote.Configure(cfg.Host, cfg.Port),
		cluster.WithKinds(cluster.NewKind(kind, props)), cluster.WithRequestTimeout(touchTimeout))
	n.c = cluster.New(n.sys, conf)
	n.sys.EventStream.Subscribe(func(evt any) {
		if t, ok := evt.(*cluster.ClusterTopology); ok {
			n.members.Store(int64(len(t.Members)))
			addrs := make([]string, 0, len(t.Members))
			for _, m := range t.Members {
				addrs = append(addrs, m.Address())
			}
			n.view.Store(&addrs)
			n.pids.Clear() // grains move only when the topology changes
			n.kick()
		}
	})
	if err := startMember(n.c); err != nil {
		n.abort()
		return nil, err
	}
	n.joined.Store(true)
	n.done.Add(1)
	go n.sweeper()
	return n, nil
}

// startMember starts the member, turning StartMember's panics (gossip or
// the provider failing to start, as on a membership port in use) into an
// error.
func startMember(c *cluster.Cluster) (err error) {
	defer func() {
		switch r := recover().(type) {
		case nil:
		case error: // the provider's, through Proto.Actor's panic
			err = fmt.Errorf("placement: joining the cluster: %w", r)
		default:
			err = fmt.Errorf("placement: joining the cluster: %v", r)
		}
	}()
	c.StartMember()
	return nil
}

// abort undoes a start that failed half-way: the remote (gRPC) listener
// and gossip are up by the time the provider starts, and a node that tries
// again needs the remote's port back.
func (n *Node) abort() {
	defer func() { _ = recover() }() // what failed to start may fail to stop
	defer n.member.Shutdown(false)
	n.c.Shutdown(false)
}

// Joined reports whether this node is a member with at least one member
// in view (itself).
func (n *Node) Joined() bool { return n.joined.Load() && n.members.Load() > 0 }

// Majority reports whether this node sees a majority of the cluster's
// members (Config.Peers), itself included: a node cut off from the others'
// membership must not serve, since they take its businesses over.
func (n *Node) Majority() bool {
	return n.Joined() && n.members.Load()*2 > int64(len(n.cfg.Peers))
}

// View returns the cluster addresses of the members this node sees, its
// own included.
func (n *Node) View() []string {
	if v := n.view.Load(); v != nil {
		return *v
	}
	return nil
}

// Local reports whether business id's grain is on this node.
func (n *Node) Local(id uuid.UUID) bool {
	_, ok := n.local.Load(id)
	return ok
}

// touchTimeout bounds asking a business's grain to activate.
const touchTimeout = 5 * time.Second

// errMoving answers a request whose business has no node yet.
var errMoving = problem.Moving(nil)

// Owner returns the cluster address of business id's node, activating the
// business there if need be (the identity lookup decides where); local
// reports that it is this node, where the business is then activated
// before Owner returns. An error means no owner can be named yet.
func (n *Node) Owner(ctx context.Context, id uuid.UUID) (addr string, local bool, err error) {
	if n.Local(id) {
		return "", true, nil
	}
	pid := n.pid(id)
	if pid == nil {
		return "", false, errMoving
	}
	if pid.Address != n.sys.Address() {
		return pid.Address, false, nil
	}
	if err := n.Touch(ctx, id); err != nil {
		return "", false, err
	}
	return "", true, nil
}

// Forget drops the remembered node of business id, after it could not be
// reached there.
func (n *Node) Forget(id uuid.UUID) { n.forget(id) }

// pid returns the PID of business id's grain, activating it where the
// identity lookup puts it. The lookup (disthash) asks the owner's
// placement actor every time — a round trip to another node — so the
// answer is kept until the topology changes or the PID fails.
func (n *Node) pid(id uuid.UUID) *actor.PID {
	if v, ok := n.pids.Load(id); ok {
		return v.(*actor.PID)
	}
	pid := n.c.Get(id.String(), kind)
	if pid != nil {
		n.pids.Store(id, pid)
	}
	return pid
}

func (n *Node) forget(id uuid.UUID) {
	n.pids.Delete(id)
	n.c.PidCache.Remove(id.String(), kind)
}

// Address is this node's cluster address (host:port), as grains' PIDs
// name it.
func (n *Node) Address() string { return n.sys.Address() }

// Touch activates business id on its owner.
func (n *Node) Touch(ctx context.Context, id uuid.UUID) error {
	pid := n.pid(id)
	if pid == nil {
		return errMoving
	}
	_, err := n.sys.Root.RequestFuture(pid, &emptypb.Empty{}, touchTimeout).Result()
	if err != nil {
		n.forget(id)
	}
	return err
}

// Stop leaves the cluster. A graceful stop hands the businesses on; a
// stop that is not lets them be found missing, as a crash would.
func (n *Node) Stop(graceful bool) {
	select {
	case <-n.stop:
		return // stopped already
	default:
	}
	close(n.stop)
	n.done.Wait()
	n.joined.Store(false)
	n.c.Shutdown(graceful)
	// Proto.Actor shuts the provider down on a graceful stop only; a
	// node that rejoins needs the membership port back at once either way,
	// and the poll loop must end.
	_ = n.member.Shutdown(graceful)
}

// Abandon leaves the cluster at once, as a lost node would, and stops
// every business actor the node still runs — a non-graceful shutdown
// need not stop the grains, and their businesses' state, held from
// before, must not outlive the membership that placed them here.
func (n *Node) Abandon() {
	n.Stop(false)
	n.local.Range(func(k, _ any) bool {
		n.deactivate(k.(uuid.UUID))
		return true
	})
}

// Stats are the node's counters.
type Stats struct {
	Owned   int64 // businesses whose grain is on this node
	Members int64 // members in this node's view
}

// Stats returns the counters.
func (n *Node) Stats() Stats {
	return Stats{Owned: n.owned.Load(), Members: n.members.Load()}
}
