package stream

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/oklog/ulid/v2"
)

// Lease is a node's right to serve the businesses it owns: a key of the
// registry bucket that only its node writes, renewed by compare-and-set
// every TTL/6. The node may serve while less than TTL, less leaseMargin,
// has passed since it *sent* its last renewal that the journal
// acknowledged, on its own monotonic clock — a clock that runs on while
// the process is stopped (SIGSTOP), descheduled or cut off from the
// journal.
//
// So a node paused for longer than TTL finds, the moment it runs again,
// that it may not serve: it answers nothing from the state it held (the
// survivors may have taken its businesses over and written them since).
// If a survivor fenced the lease meanwhile (to take a business over), the
// renewer finds it and calls lapsed, for the node to let go of everything
// it owned and rejoin the cluster, and only a renewal of a new
// incarnation, sent after that, makes the lease valid again; what the
// node serves then it has taken over afresh from the journal. If nobody
// fenced it, nobody took anything, and its next renewal lets it go on.
//
// Each run of valid renewals is one incarnation of the lease, named in
// the key's value and in the owner records of the businesses the node
// claims under it (owner.go). A lapse ends the incarnation for good: the
// renewal that finds it writes a new one. Another node that must take a
// business over from an incarnation that stopped renewing ends it itself,
// by compare-and-set on the key ("fenced"); the node then finds its lease
// lapsed at its next renewal, however long it was away.
type Lease struct {
	kv   jetstream.KeyValue
	node string
	key  string
	ttl  time.Duration
	// lapsed runs on the renewer once it finds the lease's incarnation
	// over; the lease is valid again only from a renewal sent after it
	// returned.
	lapsed func()
	// may, if set, says whether the node may hold the lease now (cmd/slotd:
	// it sees a majority of the cluster's members). Without it the lease
	// is not valid, and once the node has had it, the lease is not renewed
	// either, so that the majority's nodes can take its businesses over.
	may     func() bool
	hadMay  bool      // the renewer saw may() once
	mayLost time.Time // since when may() has been false (zero: it is true)

	inc    atomic.Pointer[string] // the incarnation
	fenced bool                   // the key was found fenced or taken (renewer only)

	// epoch is the base of until on the process's monotonic clock. Not
	// the injected clock.Clock: the point is a clock that keeps running
	// while the process is stopped, which a fake one cannot stand for.
	epoch    time.Time
	until    atomic.Int64 // nanoseconds after epoch the lease is valid until
	rev      uint64
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
}

// LeaseTTL is how long a renewal lets a node serve, less leaseMargin: a
// node paused or cut off from the journal for longer stops serving, and
// another node fences the lease (to take a business over) only after
// watching it unchanged for longer (Claims.Outlast).
const LeaseTTL = 3 * time.Second

// leaseMargin is taken off every renewal's validity: the node stops
// serving half a second before its lease runs out by its own clock, so
// that the rates of two nodes' clocks, and the moments between the check
// and the answer leaving, never bring it near the fence (which another
// node makes a second after the lease ran out by its clock).
const leaseMargin = 500 * time.Millisecond

// Lease takes node's lease and keeps renewing it until Stop. It returns
// once the lease is held. may is Lease.may (nil: always).
func (r *Registry) Lease(ctx context.Context, node string, lapsed func(), may func() bool) (*Lease, error) {
	l := &Lease{kv: r.kv, node: node, key: leasePrefix + node, ttl: LeaseTTL, lapsed: lapsed, may: may, epoch: time.Now(),
		stop: make(chan struct{}), done: make(chan struct{})}
	inc := newIncarnation()
	l.inc.Store(&inc)
	err := retry(ctx, func(ctx context.Context) error {
		e, err := l.kv.Get(ctx, l.key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			l.rev, err = l.kv.Create(ctx, l.key, leaseValue(inc, 0))
			return err
		case err != nil:
			return err
		}
		l.rev = e.Revision()
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !l.renew() {
		return nil, errors.New("stream: the node's lease could not be taken")
	}
	go l.run()
	return l, nil
}

// leasePrefix names the lease keys of the registry bucket.
const leasePrefix = "lease."

// Valid reports whether the node may serve now: less than LeaseTTL −
// leaseMargin has passed, on the monotonic clock, since it sent its last
// renewal that the journal acknowledged (and may allows). A node that was
// paused finds it false the moment it runs again, whatever it held: the
// clock ran on while it was stopped, and only a renewal sent after the
// pause makes it true again.
func (l *Lease) Valid() bool {
	return int64(time.Since(l.epoch)) < l.until.Load() && (l.may == nil || l.may())
}

// Holder names the lease's incarnation: node/incarnation.
func (l *Lease) Holder() string { return l.node + "/" + *l.inc.Load() }

func newIncarnation() string { return ulid.Make().String() }

// leaseValue is a renewal's value: the incarnation and when it was sent
// (for people reading the bucket).
func leaseValue(inc string, sent time.Duration) []byte {
	return []byte(inc + " " + sent.Round(time.Millisecond).String())
}

// leaseIncarnation is the incarnation a lease key's value names; "" for
// a fenced key.
func leaseIncarnation(v []byte) string {
	inc, _, _ := strings.Cut(string(v), " ")
	if inc == fencedValue {
		return ""
	}
	return inc
}

// fencedValue starts the value of a lease key another node fenced.
const fencedValue = "fenced"

// Stop ends the renewals (the lease then lapses). It may be called more
// than once.
func (l *Lease) Stop() {
	l.stopOnce.Do(func() { close(l.stop) })
	<-l.done
}

func (l *Lease) run() {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 6)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			l.renew()
		}
	}
}

// rejoinAfter is how many TTLs a node that does not see the majority (or
// is not seen by it) waits, its lease run out, before it gives up its
// incarnation and rejoins as a new member.
const rejoinAfter = 2

// over ends the lease's incarnation: the node lets go of everything
// (lapsed) before anything else, and the lease is valid again only as a
// new incarnation, from a renewal sent after that.
func (l *Lease) over() {
	l.until.Store(0)
	l.fenced = false
	inc := newIncarnation()
	l.inc.Store(&inc)
	if l.lapsed != nil {
		l.lapsed()
	}
}

// renew renews the lease once; it reports whether the journal took it.
//
// A lease that ran out because its renewals failed (the journal was
// between leaders, or out of reach) is not over: nobody fenced it — the
// renewal's compare-and-set from the last revision proves that — so no
// other node took anything it held, and the same incarnation goes on.
// One that was fenced is over (lapsed, then a new incarnation).
func (l *Lease) renew() bool {
	if l.fenced {
		l.over() // another node ended this incarnation: what it held is gone
	}
	if l.may != nil {
		if l.may() {
			l.hadMay, l.mayLost = true, time.Time{}
		} else if l.hadMay {
			// Let it run out: the majority takes over. A lease that ran
			// out for want of the majority for longer than rejoinAfter
			// is given up: the others may have dropped this node's
			// membership for good, and only a new member is let back.
			if l.mayLost.IsZero() {
				l.mayLost = time.Now()
			}
			if until := l.until.Load(); until != 0 && int64(time.Since(l.epoch)) >= until && time.Since(l.mayLost) >= l.ttl*rejoinAfter {
				l.over()
				l.mayLost = time.Now()
			}
			return false
		}
	}
	sent := time.Since(l.epoch)
	inc := *l.inc.Load()
	ctx, cancel := context.WithTimeout(context.Background(), l.ttl/2)
	rev, err := l.kv.Update(ctx, l.key, leaseValue(inc, sent), l.rev)
	cancel()
	if err != nil {
		// Perhaps our own write whose answer was lost: the next renewal
		// names the revision the key has now. Anything else in the key
		// means another node fenced this incarnation (or another process
		// runs under this node's name): the lease is over.
		ctx, cancel := context.WithTimeout(context.Background(), l.ttl/2)
		if e, err := l.kv.Get(ctx, l.key); err == nil && e.Revision() > l.rev { // an older revision is a lagging replica's
			l.rev = e.Revision()
			var over bool
			if x, fenced := strings.CutPrefix(string(e.Value()), fencedValue+" "); fenced {
				over = x == inc // a fence of an incarnation already let go of is nothing new
			} else {
				over = leaseIncarnation(e.Value()) != inc // not our own write
			}
			if over {
				l.fenced = true
				l.until.Store(min(l.until.Load(), 1)) // not valid from now on
			}
		}
		cancel()
		return false
	}
	l.rev = rev
	l.until.Store(int64(sent + l.ttl - leaseMargin))
	return true
}
