package stream

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Lease is a node's right to serve the businesses it owns: a key of the
// registry bucket that only its node writes, renewed by compare-and-set
// every TTL/6. The node may serve while less than TTL has passed since
// it *sent* its last renewal that the journal acknowledged, on its own
// monotonic clock — a clock that runs on while the process is stopped
// (SIGSTOP), descheduled or cut off from the journal.
//
// So a node paused for longer than TTL finds, the moment it runs again,
// that it may not serve: it answers nothing from the state it held (the
// survivors may have taken its businesses over and written them since).
// When a renewal succeeds after such a lapse, Lapsed is called before
// the lease is valid again, for the node to let go of everything it
// owned and rejoin the cluster; what it serves after that it has taken
// over afresh from the journal.
type Lease struct {
	kv  jetstream.KeyValue
	key string
	ttl time.Duration
	// lapsed runs on the renewer when the lease had lapsed and was just
	// renewed; the lease is valid again only from the renewal after it
	// returned.
	lapsed func()

	// epoch is the base of until on the process's monotonic clock. Not
	// the injected clock.Clock: the point is a clock that keeps running
	// while the process is stopped, which a fake one cannot stand for.
	epoch time.Time
	until atomic.Int64 // nanoseconds after epoch the lease is valid until
	rev   uint64
	stop  chan struct{}
	done  chan struct{}
}

// LeaseTTL is how long a renewal lets a node serve: a node paused or cut
// off from the journal for longer stops serving, and the membership's
// failure detection (over 5 s) moves its businesses only after that.
const LeaseTTL = 3 * time.Second

// Lease takes node's lease and keeps renewing it until Stop. It returns
// once the lease is held.
func (r *Registry) Lease(ctx context.Context, node string, lapsed func()) (*Lease, error) {
	l := &Lease{kv: r.kv, key: leasePrefix + node, ttl: LeaseTTL, lapsed: lapsed, epoch: time.Now(),
		stop: make(chan struct{}), done: make(chan struct{})}
	err := retry(ctx, func(ctx context.Context) error {
		e, err := l.kv.Get(ctx, l.key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			l.rev, err = l.kv.Create(ctx, l.key, []byte("0"))
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

// Valid reports whether the node may serve now.
func (l *Lease) Valid() bool { return int64(time.Since(l.epoch)) < l.until.Load() }

// Stop ends the renewals (the lease then lapses).
func (l *Lease) Stop() {
	close(l.stop)
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

// renew renews the lease once; it reports whether the journal took it.
func (l *Lease) renew() bool {
	sent := time.Since(l.epoch)
	ctx, cancel := context.WithTimeout(context.Background(), l.ttl/2)
	rev, err := l.kv.Update(ctx, l.key, []byte(sent.String()), l.rev)
	cancel()
	if err != nil {
		// Perhaps our own write whose answer was lost: the next renewal
		// names the revision the key has now.
		ctx, cancel := context.WithTimeout(context.Background(), l.ttl/2)
		if e, err := l.kv.Get(ctx, l.key); err == nil {
			l.rev = e.Revision()
		}
		cancel()
		return false
	}
	l.rev = rev
	if until := l.until.Load(); until != 0 && int64(sent) >= until && l.lapsed != nil {
		// Renewed after a lapse: the node lets go first, and the lease
		// is valid again only from the next renewal, sent after that.
		l.lapsed()
		l.until.Store(0)
		return true
	}
	l.until.Store(int64(sent + l.ttl))
	return true
}
