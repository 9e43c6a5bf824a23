// Package directory owns the set of running business actors and the
// server-wide API-key index, behind a typed Go API: callers book, patch,
// put and issue through methods that take and return domain values and
// typed problems (*problem.Error), and never see a message or a PID.
//
// Actors are spawned on first use and rebuild their state from the journal.
// The key index (hash -> business) is loaded from the store at start, so a
// request can be routed to its business before that business's actor exists.
// Writes that claim the same keys are serialized (keyLocks) so that the
// check "this key belongs to nobody else" and the commit that claims it
// cannot interleave.
package directory

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/dispatch"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/webhook/channel"
)

// Directory finds and starts business actors.
type Directory struct {
	sys     *actor.ActorSystem
	env     *business.Env
	timeout time.Duration

	mu      sync.Mutex   // serializes spawning; handles is read without it
	handles sync.Map     // uuid.UUID -> *business.Handle
	live    atomic.Int64 // business actors running: one per id in handles

	keys     keyTable // the key index (keys.go)
	keyLocks keyLocks // serializes writes that claim the same keys
	// index replaces keys in cluster mode: the cluster-wide registry.
	index business.KeyIndex
	admit func(id uuid.UUID) bool
	res   *resident // residency.go
}

// Config configures a Directory.
type Config struct {
	Store   *storage.Store
	Clock   clock.Clock
	Log     *slog.Logger
	Timeout time.Duration // how long a write may wait for its actor (0: 10 s)
	// MailQueued is handed mail rows once they are durable
	// (business.Env.MailQueued).
	MailQueued func(biz uuid.UUID, rows []business.MailRow)
	// Couriers is the environment of the webhook couriers; nil means
	// deliveries are logged but never sent.
	Couriers *courier.Env
	// SnapshotEvery is the least number of records between snapshots of a
	// business (0: 1000; see business.Env).
	SnapshotEvery uint64
	// Payments calls payment providers (payment.Client); nil calls none.
	// PublicURL is where providers reach slotd; Metrics may be nil.
	Payments  business.Payments
	PublicURL string
	Metrics   *business.Metrics
	// ManageURL makes an appointment's manage link for webhook payloads
	// (business.Env.ManageURL); nil leaves it out.
	ManageURL func(biz, appt uuid.UUID) string
	// PaymentOutbox is the payment channel's outbox metrics; nil counts
	// nothing.
	PaymentOutbox *channel.Meter
	// Calendars fetches calendar sources; nil fetches none.
	Calendars *business.Calendars
	// Keys is the key index in cluster mode (the cluster-wide registry,
	// stream.Registry); nil keeps it in memory, loaded from the store.
	Keys business.KeyIndex
	// Admit, in cluster mode, says whether a business may run here (its
	// grain is on this node); an actor is started only when it does.
	Admit func(id uuid.UUID) bool
	// Residency bounds the businesses in memory (residency.go); the zero
	// value keeps every business touched resident.
	Residency Residency
}

// actorThroughput is protoactor's default: messages a mailbox run
// processes before it yields.
const actorThroughput = 300

// Open loads the key index and returns a directory with no actors running.
func Open(c Config) (*Directory, error) {
	if c.Timeout == 0 {
		c.Timeout = 10 * time.Second
	}
	d := &Directory{
		sys:     actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return c.Log })),
		timeout: c.Timeout,
	}
	d.env = &business.Env{Store: c.Store, Clock: c.Clock, Keys: (*keyIndex)(d), Log: c.Log, MailQueued: c.MailQueued,
		Couriers: c.Couriers, SnapshotEvery: c.SnapshotEvery,
		Payments: c.Payments, PublicURL: c.PublicURL, ManageURL: c.ManageURL, Metrics: c.Metrics, PaymentOutbox: c.PaymentOutbox,
		Calendars: c.Calendars,
		// Mailbox runs on warm goroutines: see package dispatch. Its
		// workers' idle time is not behaviour anyone observes, so it is
		// measured on the real clock, not c.Clock (a test's fake clock
		// would count its timers).
		Dispatcher: dispatch.New(actorThroughput, dispatch.DefaultMaxIdle, nil)}
	d.admit = c.Admit
	d.startResidency(c.Residency, c.Clock)
	if c.Keys != nil {
		d.index, d.env.Keys = c.Keys, c.Keys
		return d, nil
	}
	idx := map[model.KeyHash]uuid.UUID{}
	err := c.Store.Keys(func(h [32]byte, v []byte) error {
		id, err := uuid.FromBytes(v)
		idx[h] = id
		return err
	})
	if err != nil {
		return nil, err
	}
	d.keys.set(idx)
	return d, nil
}

// Business returns the handle of business id with its state loaded,
// starting its actor if needed. The state is nil when the business does not
// exist.
func (d *Directory) Business(ctx context.Context, id uuid.UUID) (*business.Handle, error) {
	h := d.handle(id)
	if h == nil {
		return nil, errNotHere
	}
	if err := h.Wait(ctx); err != nil {
		return nil, err
	}
	d.touch(h)
	return h, nil
}

// Existing is Business for a business that may not exist: it returns nil,
// and starts no actor, when business id was never put. Reads by id from
// outside (the admin API) use it, so that asking about unknown ids cannot
// fill the server with idle actors.
func (d *Directory) Existing(ctx context.Context, id uuid.UUID) (*business.Handle, error) {
	if _, running := d.handles.Load(id); !running {
		ok, err := d.env.Store.HasBusiness(id)
		if err != nil || !ok {
			return nil, err
		}
	}
	return d.Business(ctx, id)
}

// Loaded returns the handle of business id when its actor runs and its
// state is loaded, without waiting or allocating: the hot path of every
// authenticated request.
func (d *Directory) Loaded(id uuid.UUID) (*business.Handle, bool) {
	v, ok := d.handles.Load(id)
	if !ok {
		return nil, false
	}
	h := v.(*business.Handle)
	return h, h.Ready()
}

func (d *Directory) handle(id uuid.UUID) *business.Handle {
	if v, ok := d.handles.Load(id); ok && usable(v.(*business.Handle)) {
		return v.(*business.Handle)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.admit != nil && !d.admit(id) {
		return nil // decided under mu: Drop, which takes mu, cannot miss an actor started here
	}
	if v, ok := d.handles.Load(id); ok {
		switch h := v.(*business.Handle); {
		case usable(h):
			return h
		case h.Failed():
			d.sys.Root.Stop(h.PID)
		} // a handle let go: its actor stopped itself (business.LetGo)
	} else {
		d.live.Add(1)
	}
	h := business.NewHandle(id)
	h.PID = d.sys.Root.Spawn(business.Props(d.env, h))
	d.handles.Store(id, h)
	d.res.wakes.forget(id)
	d.touch(h) // loaded now: not the least recently used
	d.kick()
	return h
}

// usable reports whether h may take requests: it neither failed nor was
// let go.
func usable(h *business.Handle) bool { return !h.Failed() && !h.Retired() }

// Drop stops business id's actor, if it runs, letting it finish the
// message it is handling; in cluster mode the business's rows leave this
// node with it. The next request for id starts a new actor.
func (d *Directory) Drop(id uuid.UUID) {
	d.mu.Lock()
	v, ok := d.handles.LoadAndDelete(id)
	if ok {
		d.live.Add(-1)
	}
	d.mu.Unlock()
	if ok {
		_ = d.sys.Root.PoisonFuture(v.(*business.Handle).PID).Wait()
	}
}

// errNotHere refuses to start a business that does not live on this node
// (cluster mode): it moved while the request was on its way.
var errNotHere = problem.Moving(nil)

// errNoAnswer answers a request its business did not answer in time.
var errNoAnswer = &problem.Error{Code: problem.Unavailable, RetryAfter: 2,
	Message: "The business did not answer in time; retry the request (with the same Idempotency-Key)."}

// KeyOwner returns the business that key hash h belongs to.
func (d *Directory) KeyOwner(h model.KeyHash) (uuid.UUID, bool) {
	if d.index != nil {
		return d.index.Owner(h)
	}
	return d.keys.owner(h)
}

// askWithin sends msg to business id and waits for its reply, at most
// timeout (or ctx's deadline, if sooner).
func (d *Directory) askWithin(ctx context.Context, id uuid.UUID, msg any, timeout time.Duration) (any, error) {
	h, err := d.entered(ctx, id)
	if err != nil {
		return nil, err
	}
	defer h.Exit()
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < timeout {
		timeout = time.Until(dl)
	}
	r, err := d.sys.Root.RequestFuture(h.PID, msg, timeout).Result()
	if err != nil {
		// Most likely a journal sync slower than the timeout (a slow or
		// failing disk): the write may still become durable, so the
		// client is told to retry (with its Idempotency-Key, which
		// answers IDEMPOTENCY_IN_PROGRESS until it settles).
		e := *errNoAnswer
		e.Cause = fmt.Errorf("business %s did not answer %T: %w", id, msg, err)
		return nil, &e
	}
	return r, nil
}

// entered returns business id's handle with a request counted on its
// way to the actor (business.Handle.Enter), so that the business is not
// let go under it; a handle let go meanwhile is replaced by a new one.
func (d *Directory) entered(ctx context.Context, id uuid.UUID) (*business.Handle, error) {
	for {
		h, err := d.Business(ctx, id)
		if err != nil {
			return nil, err
		}
		if h.Enter() {
			return h, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// callWithin sends request msg to business biz and returns its typed
// answer, waiting at most timeout. The reply's type is fixed by the
// request's (business.Request[R]), so the one assertion here cannot fail
// unless the actor breaks its protocol.
func callWithin[R any](ctx context.Context, d *Directory, biz uuid.UUID, msg business.Request[R], timeout time.Duration) (R, error) {
	var zero R
	r, err := d.askWithin(ctx, biz, msg, timeout)
	if err != nil {
		return zero, err
	}
	rep, ok := r.(*business.Reply[R])
	if !ok {
		return zero, fmt.Errorf("directory: business %s answered %T with %T", biz, msg, r)
	}
	return rep.Value, rep.Err
}

// Close stops every actor, letting each finish the message it is handling.
func (d *Directory) Close() {
	d.res.close()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.handles.Range(func(_, v any) bool {
		_ = d.sys.Root.PoisonFuture(v.(*business.Handle).PID).Wait()
		return true
	})
	d.live.Store(0)
	d.env.Wait()
	d.sys.Shutdown()
}

// Collectors returns the directory's metrics: the business actors
// running (slotd_business_actors, and slotd_businesses_resident, the name
// decisions §1 gives it), the businesses let go (residency.go) and those
// waiting to be woken for a deadline. Actors are spawned on first use and
// run until they are let go or leave the node, or until shutdown (a
// --world load stops those it put); a failed actor is replaced, not
// added.
func (d *Directory) Collectors() []prometheus.Collector {
	live := func() float64 { return float64(d.live.Load()) }
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "slotd_business_actors",
			Help: "Business actors running, each with its business's state in memory (also slotd_businesses_resident)."}, live),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "slotd_businesses_resident",
			Help: "Businesses in memory: their actor running and their state loaded (--idle-after and --max-resident let others go)."}, live),
		d.res.gone,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "slotd_businesses_waiting_to_wake",
			Help: "Businesses let go with a deadline ahead (a hold or waitlist entry expiring, a reminder, a calendar pull), which will be loaded on time."},
			func() float64 { return float64(d.res.wakes.len()) }),
	}
}

// keyIndex adapts the directory to business.KeyIndex.
type keyIndex Directory

func (k *keyIndex) Owner(h model.KeyHash) (uuid.UUID, bool) { return (*Directory)(k).KeyOwner(h) }

func (k *keyIndex) Changed(biz uuid.UUID, _ string, added, removed []model.KeyHash) {
	k.keys.change(biz, added, removed)
}
