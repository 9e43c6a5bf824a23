package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
)

// Claims are the businesses' owner records: one key per business in the
// registry bucket naming the lease incarnation (Lease.Holder) that may
// serve it, so that ownership is the journal's record and not any node's
// view of the membership.
//
// A node takes a business over only by moving its record to itself with
// compare-and-set, and only from a record that is free: released by its
// holder (who stopped serving the business first), naming this very
// incarnation, or naming an incarnation that is over. An incarnation is
// over when its lease key names another one, or when this node ends it:
// it reads the key's revision, waits longer than the lease lasts, and
// fences the key by compare-and-set from that revision. The fence
// succeeds only if the holder did not renew meanwhile — then its last
// renewal was sent before the read, so by its own clock its lease ran out
// before the fence — and it makes every later renewal of that
// incarnation fail, so the holder lets go of all it held before it
// serves again (Lease). The holder cannot be serving the business when
// the record moves; no reader anywhere sees another node's writes late.
//
// Membership decides where a business should live; the record decides
// whether it may be served there yet. When they disagree (a partition,
// a slow view), the business waits on the node membership chose until
// the holder's lease lapses or it lets go, and is answered 503 there
// meanwhile: never served by two nodes.
type Claims struct {
	reg   *Registry
	kv    jetstream.KeyValue
	lease *Lease
	log   *slog.Logger
	// Outlast is how long a holder's lease key must stay unchanged before
	// it is fenced: the lease's TTL and a margin for the two clocks' rates
	// and the renewal's own round trip.
	Outlast time.Duration

	releasing sync.WaitGroup

	taken, refused, fenced, released atomic.Uint64
}

// ClaimStats are the claims' counters.
type ClaimStats struct {
	Taken    uint64 // owner records this node took
	Refused  uint64 // claims given up: the holder's lease was alive
	Fenced   uint64 // leases of other nodes this node ended to take a business
	Released uint64 // owner records this node released
}

// Stats returns the counters.
func (c *Claims) Stats() ClaimStats {
	return ClaimStats{Taken: c.taken.Load(), Refused: c.refused.Load(), Fenced: c.fenced.Load(), Released: c.released.Load()}
}

// Claims returns the owner records of the registry's bucket, claimed
// under lease.
func (r *Registry) Claims(lease *Lease) *Claims {
	return &Claims{reg: r, kv: r.kv, lease: lease, log: r.log, Outlast: lease.ttl + time.Second}
}

// ownerPrefix names the owner keys of the registry bucket.
const ownerPrefix = "owner."

const (
	held     = "held "
	released = "released "
)

// ErrNoLease refuses a claim while this node's lease is not valid.
var ErrNoLease = errors.New("stream: this node's lease is not valid")

// Claim makes this node's current lease incarnation (holder) the owner
// of biz and returns the record's revision, for Release. It waits for the
// previous holder to let go or for its lease to end, until ctx is done.
func (c *Claims) Claim(ctx context.Context, biz uuid.UUID) (holder string, rev uint64, err error) {
	key := ownerPrefix + biz.String()
	for {
		if !c.lease.Valid() {
			return "", 0, ErrNoLease
		}
		me := c.lease.Holder()
		rev, err := c.try(ctx, key, me)
		if err == nil {
			c.taken.Add(1)
			return me, rev, nil
		}
		if errors.Is(err, ErrHolderAlive) {
			c.refused.Add(1)
		}
		if errors.Is(err, ErrHolderAlive) || ctx.Err() != nil {
			return "", 0, fmt.Errorf("stream: claiming %s: %w", biz, err)
		}
		time.Sleep(retryWait)
	}
}

// try moves biz's record (key) to me once, waiting out its holder if
// need be.
func (c *Claims) try(ctx context.Context, key, me string) (uint64, error) {
	actx, cancel := context.WithTimeout(ctx, attemptTimeout)
	e, err := c.kv.Get(actx, key)
	cancel()
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return c.kv.Create(ctx, key, []byte(held+me))
	}
	if err != nil {
		return 0, err
	}
	holder, free := strings.CutPrefix(string(e.Value()), released)
	if !free {
		holder, _ = strings.CutPrefix(holder, held)
	}
	if !free && holder != me {
		if err := c.outlive(ctx, holder, key, e.Revision()); err != nil {
			return 0, err
		}
	}
	return c.kv.Update(ctx, key, []byte(held+me), e.Revision())
}

// ErrHolderAlive refuses a claim: the business's holder renewed its
// lease while this node waited for it to let go. The business stays
// where it is; membership will move it, or the holder will release it.
var ErrHolderAlive = errors.New("stream: the business is served by another node, whose lease is alive")

// aliveAfter is the least time a claim waits for a holder that keeps its
// lease alive to release the business (a business moving between two
// live nodes: the holder stops serving it, then releases its record)
// before it gives up.
const aliveAfter = time.Second

// outlive returns nil once holder's incarnation is over, or once the
// record at key moved from rev (released, or taken by another: the
// caller reads it again); ErrHolderAlive once the holder renewed and
// aliveAfter passed.
func (c *Claims) outlive(ctx context.Context, holder, key string, rev uint64) error {
	node, inc, _ := strings.Cut(holder, "/")
	lkey := leasePrefix + node
	var lrev uint64
	began := time.Now()
	changed := began // when lrev was first seen
	for {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		e, err := c.kv.Get(actx, lkey)
		cancel()
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			return nil
		case err != nil:
			return err
		case leaseIncarnation(e.Value()) != inc:
			return nil // renewed as another incarnation, or fenced: over
		case lrev == 0:
			lrev = e.Revision()
			// The registry's watch may have delivered this renewal
			// earlier: it was sent before then, so the wait may count
			// from then (a node killed seconds ago is over sooner).
			if at, ok := c.reg.leaseSince(node, lrev); ok && at.Before(changed) {
				changed = at
			}
		case e.Revision() != lrev:
			if time.Since(began) >= aliveAfter {
				return ErrHolderAlive
			}
			lrev, changed = e.Revision(), time.Now()
		case time.Since(changed) >= c.Outlast:
			// Unchanged for longer than the lease lasts: end it.
			if _, err := c.kv.Update(ctx, lkey, []byte(fencedValue+" "+inc), lrev); err != nil {
				if c.endedMeanwhile(ctx, lkey, inc, lrev) {
					return nil
				}
				return ErrHolderAlive
			}
			c.fenced.Add(1)
			c.log.Info("fenced the lease of a node that stopped renewing it, to take its business over", "holder", holder, "owner", key)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
		actx, cancel = context.WithTimeout(ctx, attemptTimeout)
		o, err := c.kv.Get(actx, key)
		cancel()
		if err == nil && o.Revision() != rev {
			return nil // released or taken meanwhile
		}
	}
}

// endedMeanwhile reports whether the lease key lkey no longer names
// incarnation inc: after a fence of it failed, another node may have
// fenced it first — two survivors taking a silent node's businesses over
// at once race to fence its lease, and the loser's claim is as good as
// the winner's. (Told "alive" instead, it waited for the next try of its
// activation: a second at least, in the soak often the sweep's ten.)
//
// The failed fence proves the key moved past revision after, but a read
// may be served by a replica that has not applied that move yet (KV gets
// are direct gets, answered by any replica): it reads again until it sees
// a later revision, for at most one attempt's time.
func (c *Claims) endedMeanwhile(ctx context.Context, lkey, inc string, after uint64) bool {
	actx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	for {
		e, err := c.kv.Get(actx, lkey)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			return true
		case err == nil && e.Revision() > after:
			return leaseIncarnation(e.Value()) != inc
		}
		select {
		case <-actx.Done():
			return err == nil && leaseIncarnation(e.Value()) != inc
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Release marks biz's record, claimed by holder at revision rev, as free
// — unless it moved since (this node claimed it again, or another took
// it). The caller has stopped serving biz. It retries in the background:
// until it lands, a node taking biz over waits for this node's lease.
func (c *Claims) Release(biz uuid.UUID, holder string, rev uint64) {
	c.releasing.Add(1)
	go func() {
		defer c.releasing.Done()
		key := ownerPrefix + biz.String()
		for wait := 50 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
			ctx, cancel := context.WithTimeout(context.Background(), attemptTimeout)
			_, err := c.kv.Update(ctx, key, []byte(released+holder), rev)
			cancel()
			if err == nil {
				c.released.Add(1)
			}
			if err == nil || errors.Is(err, jetstream.ErrKeyRevisionMismatch) || c.lease.Holder() != holder {
				return // released; or moved on; or the incarnation is over anyway
			}
			time.Sleep(wait)
		}
	}()
}

// Flush waits, for at most d, until every release made so far has landed
// (or given up): a node that drains lets the others take its businesses
// at once, rather than after its lease ran out.
func (c *Claims) Flush(d time.Duration) {
	done := make(chan struct{})
	go func() { c.releasing.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}
