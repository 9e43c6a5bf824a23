// Package courier owns the delivery of one webhook endpoint's events: a
// child actor of the business actor, one per endpoint, that sends each
// delivery with package deliver, decides what follows with package retry,
// writes every attempt to the delivery log (package storage) and keeps a
// timer for each retry that is due later.
//
// The log is the truth. A delivery's first attempt is written, pending, by
// the business actor in the same batch that journals the event, so no
// event is lost between the write and its courier; the courier rewrites
// that record with the outcome, and writes each later attempt as a record
// of its own once it has an outcome. Records still open (pending, or failed
// with a retry due) are marked in the log, so a courier that starts, after
// a restart or a crash, re-arms their timers and re-sends what was in
// flight. Delivery is therefore at-least-once, as api-v1 §6 promises.
//
// Protocol:
//
//	Configure{Endpoint}   from the parent whenever the endpoint changes
//	Fresh{Deliveries}     from the parent: new first attempts, durable
//	Replay{...}           answered with Replay.Reply's message (to the original sender)
//	Retire{}              the endpoint was deleted: drop the log and stop
//
// and to the parent, once durable, an *Outcome for every ladder delivery
// that ended (delivered or exhausted) and every replay that succeeded.
package courier

import (
	"context"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/webhook/channel"
	"github.com/slotd/slotd/webhook/deliver"
)

// Sender makes one delivery attempt; *deliver.Client is one.
type Sender interface {
	Send(ctx context.Context, r deliver.Request) deliver.Result
}

// Env is what couriers need from the rest of the server.
type Env struct {
	Store  *storage.Store
	Clock  clock.Clock
	Sender Sender
	// Scale multiplies every wait of the retry ladder
	// (--webhook-retry-scale); 0 means 1.
	Scale float64
	Log   *slog.Logger
	// MaxInFlight bounds the attempts one endpoint has in flight at once;
	// 0 means DefaultMaxInFlight.
	MaxInFlight int
	// Metrics counts deliveries; nil counts nothing.
	Metrics *Metrics
	// Outbox is the webhook channel's outbox metrics; nil counts nothing.
	Outbox *channel.Meter
}

// DefaultMaxInFlight is how many attempts an endpoint has in flight at once
// by default: enough to keep a fast consumer busy, few enough that a slow
// one holds at most this many goroutines and connections.
const DefaultMaxInFlight = 16

// Retention is how long delivery records are kept (api-v1 §8).
const Retention = 30 * 24 * time.Hour

// sweepEvery is how often a courier deletes records past Retention.
const sweepEvery = time.Hour

// Configure tells a courier the endpoint's current state.
type Configure struct{ Endpoint model.Endpoint }

// Fresh hands a courier first attempts that are already durable in the log.
type Fresh struct{ Deliveries []model.Delivery }

// Replay asks for the stored envelope of delivery DeliveryID to be sent
// again to the courier's endpoint (the business actor forwards it to that
// endpoint's courier). It is answered with what Reply makes of the new,
// pending delivery record or the error: the asker's own reply type, so
// the courier needs to know nothing of the asker's protocol.
type Replay struct {
	DeliveryID uuid.UUID
	Reply      func(*model.Delivery, error) any
}

// Retire tells a courier its endpoint was deleted: it deletes the
// endpoint's delivery log and stops.
type Retire struct{}

// Outcome tells the parent how a delivery ended, once that is durable: a
// ladder delivery that was delivered or exhausted, or a replay that was
// delivered. The parent keeps consecutiveFailures from these.
type Outcome struct {
	EndpointID uuid.UUID
	Delivered  bool
}

// Props returns the props of the courier of endpoint ep of business biz.
func Props(env *Env, biz uuid.UUID, ep model.Endpoint) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &courier{env: env, biz: biz, ep: ep, open: map[uuid.UUID]*entry{}, loaded: map[uuid.UUID]bool{}}
	})
}
