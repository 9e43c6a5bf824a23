package placement

import (
	"context"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/emptypb"
)

// grain is one business's placement on this node.
type grain struct {
	n      *Node
	id     uuid.UUID
	active bool
}

// Receive implements actor.Actor.
func (g *grain) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *cluster.ClusterInit:
		id, err := uuid.Parse(m.Identity.Identity)
		if err != nil {
			ctx.Stop(ctx.Self())
			return
		}
		g.id, g.active = id, true
		g.n.local.Store(id, struct{}{})
		g.n.owned.Add(1)
		// Loaded off the mailbox: requests handed over meanwhile wait for
		// the business's state in the directory, as any request does.
		go g.n.activate(id)
	case *actor.Stopping:
		if g.active {
			g.active = false
			g.n.deactivate(g.id)
		}
	case *emptypb.Empty:
		// A touch (the sweep's, or a request's) of a grain whose business
		// is not running here: its activation failed (the lost owner's
		// lease had not lapsed yet) or its actor broke. Try again, so
		// that its timers, couriers and outbox do not wait for a request.
		if _, ok := g.n.cfg.Dir.Loaded(g.id); g.active && !ok {
			go g.n.activate(g.id)
		}
		ctx.Respond(m)
	}
}

// activate starts business id's actor here. A business that cannot be
// taken over now (the journal has no leader yet, the lost owner's lease
// has not lapsed, or this node's own lease is not valid while the
// registry elects a leader) is tried again — after a quarter of a second,
// then at most every second — for as long as its grain stays here, up to
// activateFor; then by the next touch of its grain: a request, or the
// sweep within sweepEvery. One activation of a business runs at a time.
//
// Three tries within three seconds were too few: when the lost node led
// the registry's stream, every node's lease lapses until the others elect
// a leader (4–9 s), each try is refused at once, and the business waited
// for the sweep — a soak saw every business of a paused node down for
// 9–10 s where its lease was fenced after 5.
func (n *Node) activate(id uuid.UUID) {
	if _, busy := n.activating.LoadOrStore(id, struct{}{}); busy {
		return
	}
	defer n.activating.Delete(id)
	if n.cfg.Exists != nil && !n.cfg.Exists(id) {
		return // a put of a new business starts it, here, when it comes
	}
	ctx, cancel := context.WithTimeout(context.Background(), activateFor)
	defer cancel()
	for try, wait := 1, time.Second/4; ; try, wait = try+1, min(2*wait, time.Second) {
		h, err := n.cfg.Dir.Business(ctx, id)
		if err == nil {
			if h.State() != nil && n.cfg.Activated != nil {
				n.cfg.Activated(id)
			}
			return
		}
		if _, here := n.local.Load(id); !here {
			return // moved on: its new node takes it
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			n.cfg.Log.Warn("business not taken over on activation", "business", id, "err", err, "tries", try)
			return
		case <-n.stop:
			return
		}
	}
}

// activateFor bounds how long activate keeps trying.
const activateFor = 30 * time.Second

// deactivate stops business id's actor here: the grain moved or stopped.
func (n *Node) deactivate(id uuid.UUID) {
	n.local.Delete(id)
	n.owned.Add(-1)
	n.cfg.Dir.Drop(id)
}

// sweepEvery is how often each node makes sure every business is active
// somewhere, besides after each topology change.
const sweepEvery = 10 * time.Second

// sweeper activates every business on its owner after each topology
// change and every sweepEvery: a business on a node that was lost is
// otherwise activated only by its next request, and its timers, couriers
// and outbox would wait for it. Each node sweeps every business; a touch
// of an active business is one message.
func (n *Node) sweeper() {
	defer n.done.Done()
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		case <-n.sweepNow:
		}
		n.sweep()
	}
}

func (n *Node) kick() {
	select {
	case n.sweepNow <- struct{}{}:
	default:
	}
}

// sweep touches every business, a few at a time.
func (n *Node) sweep() {
	if n.cfg.Businesses == nil {
		return
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, 16)
	_ = n.cfg.Businesses(func(id uuid.UUID, _ string) error {
		select {
		case <-n.stop:
			return context.Canceled
		case slots <- struct{}{}:
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			ctx, cancel := context.WithTimeout(context.Background(), touchTimeout)
			defer cancel()
			_ = n.Touch(ctx, id)
		}()
		return nil
	})
	wg.Wait()
}
