package courier

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/webhook/channel"
	"github.com/slotd/slotd/webhook/deliver"
	"github.com/slotd/slotd/webhook/retry"
)

// entry is one open delivery: its latest record, and whether an attempt is
// waiting for its timer, queued for a sending slot, or in flight.
type entry struct {
	d       model.Delivery
	timer   clock.Timer
	queued  bool
	sending bool
	// then is the next delivery of the same write, whose first attempt
	// waits until this one's has ended; behind marks such a delivery
	// while it waits.
	then   *entry
	behind bool
	// since is when the delivery's event was written (backlog.go).
	since time.Time
}

// replay reports whether the delivery is a replay, which gets one attempt
// and is sent even to a disabled endpoint.
func (e *entry) replay() bool { return e.d.Attempt > retry.MaxAttempts }

// courier is the actor. Its fields are touched only from Receive.
type courier struct {
	env  *Env
	biz  uuid.UUID
	ep   model.Endpoint
	open map[uuid.UUID]*entry // by the id of the entry's latest record
	// loaded holds the ids load found open. A Fresh hand-over can arrive
	// after load already read the same records from the log (the courier
	// started while the write was being synced), even after they were
	// sent and closed; those must not go out twice.
	loaded map[uuid.UUID]bool

	queue    []*entry
	inFlight int
	sweep    clock.Timer
	// counted is this courier's share of the open-deliveries gauge: the
	// size of open when last counted, 0 once stopped.
	counted int
	stopped bool
	// src and byAge report the open deliveries to the outbox metrics.
	src   *channel.Source
	byAge entryHeap

	root   *actor.RootContext
	self   *actor.PID
	parent *actor.PID
	ctx    context.Context // cancelled when the courier stops
	cancel context.CancelFunc
}

// Messages the courier sends itself.
type (
	due      struct{ e *entry }
	sweepDue struct{}
	sent     struct {
		e   *entry
		d   model.Delivery // the attempt's record, before its outcome
		res deliver.Result
	}
)

// Receive implements actor.Actor.
func (c *courier) Receive(ctx actor.Context) {
	defer c.countOpen()
	switch m := ctx.Message().(type) {
	case *actor.Started:
		c.root, c.self, c.parent = ctx.ActorSystem().Root, ctx.Self(), ctx.Parent()
		c.ctx, c.cancel = context.WithCancel(context.Background())
		c.src = c.env.Outbox.Source()
		c.load()
		c.armSweep(time.Minute)
	case *actor.Stopping, *actor.Restarting:
		c.stop()
	case *Configure:
		c.configure(m.Endpoint)
	case *Fresh:
		// The deliveries of one write go out one after another, in the
		// order its events were journalled: a consumer never gets the
		// waitlist.offered before the appointment.cancelled that freed
		// its time. Different writes' deliveries go out side by side.
		var last *entry
		for _, d := range m.Deliveries {
			if c.open[d.ID] != nil || c.loaded[d.ID] {
				continue // already loaded from the log
			}
			e := &entry{d: d}
			c.open[d.ID] = e
			c.track(e)
			if last != nil {
				last.then, e.behind = e, true
			} else {
				c.enqueue(e)
			}
			last = e
		}
	case *due:
		if c.open[m.e.d.ID] == m.e {
			m.e.timer = nil
			c.enqueue(m.e)
		}
	case *sent:
		c.finish(m)
	case *Replay:
		ctx.Respond(m.Reply(c.replay(m.DeliveryID)))
	case *sweepDue:
		c.sweepLog()
		c.armSweep(sweepEvery)
	case *Retire:
		c.retire()
		ctx.Stop(c.self)
	}
}

// load re-arms the open deliveries of the log: a pending record was in
// flight when the last courier stopped, so it is sent again now; a failed
// one waits for its nextRetryAt.
func (c *courier) load() {
	var ids []uuid.UUID
	err := c.env.Store.OpenDeliveries(c.biz, c.ep.ID, func(id [16]byte) error {
		ids = append(ids, id)
		return nil
	})
	if err == nil && len(ids) > 0 {
		// A courier started while its business's writes are syncing could
		// read deliveries a crash would undo; it sends only durable ones.
		err = c.env.Store.SyncWAL()
	}
	for _, id := range ids {
		if err != nil {
			break
		}
		var raw []byte
		var ok bool
		raw, ok, err = c.env.Store.Delivery(c.biz, c.ep.ID, id)
		if !ok || err != nil {
			continue
		}
		var d *model.Delivery
		if d, err = record.DecodeDelivery(raw); err != nil {
			break
		}
		e := &entry{d: *d}
		c.open[id] = e
		c.track(e)
		c.loaded[id] = true
		if d.Status == model.DeliveryFailed {
			c.arm(e, d.NextRetryAt)
		} else {
			c.enqueue(e)
		}
	}
	if err != nil {
		c.env.Log.Error("webhook delivery log unreadable; open deliveries not re-armed",
			"business", c.biz, "endpoint", c.ep.ID, "err", err)
	}
}

// countOpen brings the open-deliveries gauge up to date with open.
func (c *courier) countOpen() {
	n := len(c.open)
	if c.stopped {
		n = 0
	}
	c.env.Metrics.addOpen(n - c.counted)
	c.counted = n
	if c.stopped {
		c.src.Close()
		c.src = nil
	}
	c.report()
}

func (c *courier) stop() {
	c.stopped = true
	if c.cancel != nil {
		c.cancel()
	}
	for _, e := range c.open {
		if e.timer != nil {
			e.timer.Stop()
		}
	}
	if c.sweep != nil {
		c.sweep.Stop()
	}
}

// configure takes the endpoint's new state. Deliveries that came due while
// it was switched off were parked; they go out once it is back on.
func (c *courier) configure(ep model.Endpoint) {
	was := c.active()
	c.ep = ep
	if was || !c.active() {
		return
	}
	for _, e := range c.open {
		// A delivery behind another of its write goes when that one's
		// attempt ends, not now: the write's order holds.
		if e.timer == nil && !e.queued && !e.sending && !e.behind {
			c.enqueue(e)
		}
	}
}

// active reports whether ladder deliveries may be sent.
func (c *courier) active() bool { return c.ep.IsActive && c.ep.Status == model.EndpointActive }

// arm sets e's timer for at.
func (c *courier) arm(e *entry, at time.Time) {
	root, self := c.root, c.self
	e.timer = c.env.Clock.AfterFunc(at.Sub(c.env.Clock.Now()), func() { root.Send(self, &due{e: e}) })
}

func (c *courier) armSweep(after time.Duration) {
	root, self := c.root, c.self
	c.sweep = c.env.Clock.AfterFunc(after, func() { root.Send(self, &sweepDue{}) })
}

// enqueue sends e when a slot is free, or queues it. A ladder delivery of
// a switched-off endpoint is parked instead until configure wakes it.
func (c *courier) enqueue(e *entry) {
	if !e.replay() && !c.active() {
		return
	}
	if c.inFlight >= c.maxInFlight() {
		e.queued = true
		c.queue = append(c.queue, e)
		return
	}
	c.send(e)
}

func (c *courier) maxInFlight() int {
	if c.env.MaxInFlight > 0 {
		return c.env.MaxInFlight
	}
	return DefaultMaxInFlight
}

// send starts an attempt of e on its own goroutine. A failed record's
// retry is a new record, the next attempt, created now.
func (c *courier) send(e *entry) {
	e.queued, e.sending = false, true
	c.inFlight++
	d := e.d
	if d.Status == model.DeliveryFailed {
		now := c.now()
		d = model.Delivery{ID: NewID(d.EndpointID, now), EndpointID: d.EndpointID, EventID: d.EventID, EventType: d.EventType,
			Status: model.DeliveryPending, Attempt: d.Attempt + 1, Payload: d.Payload, CreatedAt: now}
	}
	req := deliver.Request{URL: c.ep.URL, ID: d.EventID, Timestamp: c.env.Clock.Now(), Body: d.Payload, Secret: c.ep.Secret}
	ctx, root, self, sender := c.ctx, c.root, c.self, c.env.Sender
	go func() {
		res := sender.Send(ctx, req)
		root.Send(self, &sent{e: e, d: d, res: res})
	}()
}

// pump starts queued attempts while slots are free.
func (c *courier) pump() {
	for len(c.queue) > 0 && c.inFlight < c.maxInFlight() {
		e := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		if c.open[e.d.ID] == e && e.queued {
			if !e.replay() && !c.active() {
				e.queued = false // parked
				continue
			}
			c.send(e)
		}
	}
}

func (c *courier) now() time.Time { return c.env.Clock.Now().UTC().Truncate(time.Millisecond) }
