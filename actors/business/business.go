// Package business owns the business actor: the one goroutine-at-a-time
// owner of a business's state. Every write for a business is a message to its
// actor (the protocol is in protocol.go), which decides (package ledger),
// journals the resulting record with everything it causes in one Pebble
// batch, and answers once that batch is durable. Readers never enter the
// mailbox: the actor publishes each immutable ledger.State through Handle,
// and only after its journal sync has completed (the commit path's
// contract is in commit.go), so no reader ever sees a write that a crash
// could undo.
//
// On start (and on a supervised restart after a panic) the actor rebuilds its
// state from the latest snapshot plus the journal after it, so a restart
// forgets nothing that was acknowledged and nothing that was not journalled.
package business

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/webhook/channel"
)

// KeyIndex is the server-wide map from key hash to business. The actor
// consults it before adding keys (a key belongs to one business) and tells it
// about every committed change.
type KeyIndex interface {
	Owner(h model.KeyHash) (uuid.UUID, bool)
	// Changed reports business biz's keys added and removed by a write
	// (and its name as the write left it).
	Changed(biz uuid.UUID, name string, added, removed []model.KeyHash)
}

// MailRow is an e-mail row of the outbox, as Env.MailQueued hands it over:
// the row's id and its encoded record.MailRow.
type MailRow struct {
	ID  string
	Row []byte
	// Decoded is the row as the write built it, before Row encoded it;
	// nil for a row read back from the store.
	Decoded *record.MailRow
}

// Env is what a business actor needs from the rest of the server.
type Env struct {
	Store *storage.Store
	Clock clock.Clock
	Keys  KeyIndex
	Log   *slog.Logger
	// SnapshotEvery is how many records accumulate before the actor writes a
	// snapshot and truncates the journal (0 means 1000).
	SnapshotEvery uint64

	// MailQueued, if set, is handed the business's mail rows once they
	// are durable: those of a write once its sync is over, and,
	// in cluster mode, those a take-over finds unsent. The mailer sends
	// them without walking the outbox table.
	MailQueued func(biz uuid.UUID, rows []MailRow)

	// Couriers is the environment of the webhook couriers; nil means
	// webhook events are logged as deliveries but never sent (tests).
	Couriers *courier.Env

	// Payments calls the businesses' payment providers; nil means no
	// provider is ever called (a reservation waits). PublicURL is where
	// providers reach slotd (--public-url), for the webhook URL a
	// redirect provider is given. Metrics may be nil.
	Payments  Payments
	PublicURL string
	Metrics   *Metrics
	// ManageURL is the customer's manage link of an appointment, which
	// webhook payloads carry as the API's answers do (decisions §7); nil
	// leaves it out.
	ManageURL func(biz, appt uuid.UUID) string
	// PaymentOutbox is the payment channel's outbox metrics (the payer's
	// owed cancels and refunds); nil counts nothing.
	PaymentOutbox *channel.Meter
	// Calendars fetches the businesses' calendar sources; nil keeps the
	// sources but fetches none.
	Calendars *Calendars
	// Dispatcher runs the business actors' and their payers' mailboxes;
	// nil means protoactor's default, a new goroutine per run.
	Dispatcher actor.Dispatcher

	bg sync.WaitGroup // background snapshot writers and publishers
}

// Wait blocks until the actors' background work (snapshots, writes waiting
// for their sync) has finished; call it after stopping the actors and
// before closing the store.
func (e *Env) Wait() { e.bg.Wait() }

// Handle is the shared face of one business actor: its PID for writes and its
// latest published state for reads.
type Handle struct {
	ID  uuid.UUID
	PID *actor.PID

	// state is the latest durable state; only the actor's publisher (and
	// its load) stores it.
	state        atomic.Pointer[ledger.State]
	snapshotting atomic.Bool // a snapshot is being written
	ready        chan struct{}
	once         sync.Once
	loadErr      error                 // set before ready is closed
	broken       atomic.Pointer[error] // a journal sync failed: replace the actor
	// pub publishes the actor's durable states. It belongs to the handle,
	// not to one incarnation of the actor, so that a restarted actor's
	// first state is published after the writes its predecessor left in
	// flight.
	pub publisher
	// gate counts the requests on their way to the actor and says, in its
	// top bit, whether the handle was let go (Retire). used is when a
	// request last came (Unix ns on the directory's clock): the
	// directory lets the least recently used idle businesses go first.
	gate atomic.Int64
	used atomic.Int64
}

// retired is the gate's bit of a handle let go.
const retired = int64(1) << 62

// Enter counts a request on its way to the actor; false when the handle
// was let go (the request must find the business's new handle). Exit
// ends it.
func (h *Handle) Enter() bool {
	for {
		g := h.gate.Load()
		if g&retired != 0 {
			return false
		}
		if h.gate.CompareAndSwap(g, g+1) {
			return true
		}
	}
}

// Exit ends a request Enter counted.
func (h *Handle) Exit() { h.gate.Add(-1) }

// Retire lets the handle go, when no request is on its way to the actor:
// from then on Enter fails, so nothing reaches the actor again and a new
// one may load the business from the journal. It reports whether it did.
func (h *Handle) Retire() bool { return h.gate.CompareAndSwap(0, retired) }

// Retired reports whether the handle was let go.
func (h *Handle) Retired() bool { return h.gate.Load()&retired != 0 }

// Touch records a request at now (Unix ns).
func (h *Handle) Touch(now int64) {
	if h.used.Load() != now {
		h.used.Store(now)
	}
}

// Used is when a request last came (Unix ns; zero: none since start).
func (h *Handle) Used() int64 { return h.used.Load() }

// NewHandle returns the handle of a business actor that is not started yet.
func NewHandle(id uuid.UUID) *Handle {
	h := &Handle{ID: id, ready: make(chan struct{})}
	h.pub.h = h
	return h
}

// State returns the latest durable state, nil if the business does not
// exist. Call Wait first.
func (h *Handle) State() *ledger.State { return h.state.Load() }

// Wait blocks until the actor has rebuilt its state from the journal.
func (h *Handle) Wait(ctx context.Context) error {
	select {
	case <-h.ready:
		return h.loadErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Handle) loaded(err error) {
	h.once.Do(func() {
		h.loadErr = err
		close(h.ready)
	})
}

// Ready reports whether the state is loaded and usable.
func (h *Handle) Ready() bool {
	select {
	case <-h.ready:
		return h.loadErr == nil && h.broken.Load() == nil
	default:
		return false
	}
}

// Failed reports whether loading the state failed or a journal sync
// failed since; a failed handle must be replaced by a fresh actor, which
// rebuilds the state from what the journal holds.
func (h *Handle) Failed() bool {
	select {
	case <-h.ready:
		return h.loadErr != nil || h.broken.Load() != nil
	default:
		return false
	}
}

// breakDown marks the handle failed after a journal sync failed.
func (h *Handle) breakDown(err error) { h.broken.CompareAndSwap(nil, &err) }

// Props returns the props of the actor behind h.
func Props(env *Env, h *Handle) *actor.Props {
	h.pub.bg = &env.bg
	return actor.PropsFromProducer(func() actor.Actor {
		return &businessActor{env: env, h: h, unsynced: map[string]bool{}, ids: newIDs(),
			kids: newChildren(), pay: newPayState()}
	}, env.dispatcher()...)
}

// dispatcher is the props option that puts an actor on env.Dispatcher.
func (e *Env) dispatcher() []actor.PropsOption {
	if e.Dispatcher == nil {
		return nil
	}
	return []actor.PropsOption{actor.WithDispatcher(e.Dispatcher)}
}
