package courier

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/webhook/retry"
)

// ErrNoDelivery answers a replay of a delivery the endpoint's log does not
// hold (never made, swept, or another endpoint's).
var ErrNoDelivery = problem.New(problem.NotFound, "No such resource for this business.")

// NewID returns a delivery id: a UUIDv7 whose time is at, so that ids sort
// by creation time first (RFC 9562 §5.7). Ids made in one millisecond carry
// a counter in rand_a (RFC 9562 §6.2, method 1), so they sort in the order
// they were made: a booking's customer.created delivery lists before its
// appointment.created one.
//
// The counter is per endpoint, as the log is: with one process-wide
// counter, a business whose clock reads a later millisecond (another
// actor's now, taken a moment after ours; in tests, another server's fake
// clock) would push ours into the backdated case, where ids get random
// bits and one commit's deliveries could list out of order.
func NewID(ep uuid.UUID, at time.Time) uuid.UUID {
	id := uuid.New() // random, variant already set
	ms, seq := idClockOf(ep).next(at.UnixMilli(), uint16(id[6]&0x0f)<<8|uint16(id[7]))
	putMillis(&id, ms)
	id[6] = 0x70 | byte(seq>>8)
	id[7] = byte(seq)
	return id
}

// putMillis writes ms into the 48-bit time field of a UUIDv7.
func putMillis(id *uuid.UUID, ms int64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(ms))
	copy(id[:6], b[2:])
}

// idClocks holds each endpoint's *idSeq. An entry is dropped when its
// endpoint's courier retires, so there is one per live endpoint.
var idClocks sync.Map

func idClockOf(ep uuid.UUID) *idSeq {
	if c, ok := idClocks.Load(ep); ok {
		return c.(*idSeq)
	}
	c, _ := idClocks.LoadOrStore(ep, new(idSeq))
	return c.(*idSeq)
}

// idSeq hands out (millisecond, counter) pairs that never go backwards.

type idSeq struct {
	mu  sync.Mutex
	ms  int64
	seq uint16
}

// next returns the millisecond and counter of an id made at ms. A time
// before the latest seen (a backdated record, the clock stepping back) keeps
// its own millisecond and gets random bits; such ids sort by time only.
func (c *idSeq) next(ms int64, random uint16) (int64, uint16) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case ms < c.ms:
		return ms, random
	case ms > c.ms:
		c.ms, c.seq = ms, 0
	case c.seq < 0xfff:
		c.seq++
	default: // 4,096 ids in one millisecond: borrow the next one
		c.ms, c.seq = c.ms+1, 0
	}
	return c.ms, c.seq
}

// First returns the pending first attempt of event id to endpoint ep.
func First(ep uuid.UUID, eventID, eventType string, payload []byte, at time.Time) model.Delivery {
	return model.Delivery{ID: NewID(ep, at), EndpointID: ep, EventID: eventID, EventType: eventType,
		Status: model.DeliveryPending, Attempt: 1, Payload: payload, CreatedAt: at}
}

// finish records the outcome of an attempt and decides what follows. The
// record is committed without waiting for its sync, so that completions
// arriving together share one; the parent hears the outcome only once it is
// durable. If the commit fails, the entry is tried again a rung later.
func (c *courier) finish(m *sent) {
	e := m.e
	if c.open[e.d.ID] != e || !e.sending {
		return // retired, or sent by an earlier incarnation of this courier
	}
	c.inFlight--
	defer c.pump()
	e.sending = false
	if next := e.then; next != nil {
		// Its turn: this attempt has ended, whatever its outcome.
		e.then, next.behind = nil, false
		if c.open[next.d.ID] == next && !next.sending && !next.queued && next.timer == nil {
			c.enqueue(next)
		}
	}
	now, d, res := c.now(), m.d, m.res
	dec := retry.Next(d.Attempt, res.Outcome(), now, c.env.Scale)
	d.ResponseStatus, d.ErrorMessage, d.DurationMs = res.Status, res.ErrMessage, res.Duration.Milliseconds()
	if res.Status != 0 {
		d.ResponseBody = &res.Body
	}
	switch {
	case dec.Delivered:
		d.Status, d.DeliveredAt = model.DeliveryDelivered, now
	case dec.Retry:
		d.Status, d.NextRetryAt = model.DeliveryFailed, dec.NextAt
	default:
		d.Status = model.DeliveryExhausted
	}
	enc, err := record.EncodeDelivery(&d)
	if err != nil {
		c.env.Log.Error("webhook delivery record unencodable", "endpoint", c.ep.ID, "err", err)
		return
	}
	b := c.env.Store.NewBatch()
	b.PutDelivery(c.biz, c.ep.ID, d.ID, dec.Retry, enc)
	if d.ID != e.d.ID {
		b.CloseDelivery(c.biz, c.ep.ID, e.d.ID)
	}
	pending, err := b.CommitNoWait()
	if err != nil {
		c.env.Log.Error("webhook delivery log write failed; attempt will be repeated", "endpoint", c.ep.ID, "err", err)
		c.arm(e, now.Add(retry.Scale(retry.Webhook.Wait(1), c.env.Scale)))
		return
	}
	c.env.Outbox.Attempted(outcomeOf(dec.Delivered, dec.Retry))
	switch {
	case dec.Delivered:
		c.env.Metrics.written(e.replay(), outDelivered)
	case dec.Retry:
		c.env.Metrics.written(e.replay(), outFailed)
	default:
		c.env.Metrics.written(e.replay(), outExhausted)
	}
	delete(c.open, e.d.ID)
	if dec.Retry {
		e.d = d
		c.open[d.ID] = e
		c.arm(e, dec.NextAt)
	}
	var out *Outcome
	if dec.Delivered || (dec.Final && d.Attempt <= retry.MaxAttempts) {
		out = &Outcome{EndpointID: c.ep.ID, Delivered: dec.Delivered}
	}
	root, parent, log := c.root, c.parent, c.env.Log
	go func() {
		if err := pending.Wait(); err != nil {
			log.Error("webhook delivery log sync failed", "endpoint", d.EndpointID, "err", err)
			return
		}
		if out != nil && parent != nil {
			root.Send(parent, out)
		}
	}()
}

// replay makes a new pending attempt of the stored envelope of delivery id,
// with the original event id and the next replay attempt number: above the
// ladder (max(7, the event's last attempt + 1), decisions §4). It is
// durable before the answer, and sent even if the endpoint is disabled.
func (c *courier) replay(id uuid.UUID) (*model.Delivery, error) {
	raw, ok, err := c.env.Store.Delivery(c.biz, c.ep.ID, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrNoDelivery
	}
	orig, err := record.DecodeDelivery(raw)
	if err != nil {
		return nil, err
	}
	last, err := c.env.Store.LastReplayAttempt(c.biz, c.ep.ID, orig.EventID)
	if err != nil {
		return nil, err
	}
	now := c.now()
	d := model.Delivery{ID: NewID(c.ep.ID, now), EndpointID: c.ep.ID, EventID: orig.EventID, EventType: orig.EventType,
		Status: model.DeliveryPending, Attempt: max(retry.MaxAttempts+1, last+1, orig.Attempt+1),
		Payload: orig.Payload, CreatedAt: now}
	enc, err := record.EncodeDelivery(&d)
	if err != nil {
		return nil, err
	}
	b := c.env.Store.NewBatch()
	b.PutDelivery(c.biz, c.ep.ID, d.ID, true, enc)
	b.PutReplayAttempt(c.biz, c.ep.ID, d.EventID, d.Attempt)
	if err := b.Commit(); err != nil {
		return nil, err
	}
	e := &entry{d: d}
	c.open[d.ID] = e
	c.track(e)
	c.enqueue(e)
	return &d, nil
}

// sweepLog deletes records older than Retention, and the replay counters of
// events that old. An open delivery's records are never swept: the horizon
// stops at the oldest open record.
func (c *courier) sweepLog() {
	cutoff := c.now().Add(-Retention)
	for _, e := range c.open {
		if e.d.CreatedAt.Before(cutoff) {
			cutoff = e.d.CreatedAt
		}
	}
	var floor uuid.UUID // sorts before every id made at cutoff or later
	putMillis(&floor, cutoff.UnixMilli())
	var u ulid.ULID
	_ = u.SetTime(ulid.Timestamp(cutoff))
	b := c.env.Store.NewBatch()
	b.SweepDeliveries(c.biz, c.ep.ID, floor, "evt_"+u.String())
	if err := b.Commit(); err != nil {
		c.env.Log.Error("webhook delivery log sweep failed", "endpoint", c.ep.ID, "err", err)
	}
}

// retire deletes the endpoint's log once its courier has let go of it.
func (c *courier) retire() {
	c.stop()
	clear(c.open)
	c.queue = nil
	b := c.env.Store.NewBatch()
	b.DeleteDeliveries(c.biz, c.ep.ID)
	idClocks.Delete(c.ep.ID)
	if err := b.Commit(); err != nil {
		c.env.Log.Error("webhook delivery log of a deleted endpoint not deleted", "endpoint", c.ep.ID, "err", err)
	}
}
