package business

import (
	"bytes"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
)

// businessActor is the actor. Its fields are touched only from Receive.
type businessActor struct {
	env *Env
	h   *Handle
	// state is the actor's own state: the published (durable) state plus
	// the writes whose sync is still running. The actor decides against
	// it; readers never see it (commit.go).
	state   *ledger.State
	snapSeq uint64 // journal position of the latest snapshot

	// unsynced holds the idempotency keys whose writes are applied but not
	// yet durable: a repeat of one is IDEMPOTENCY_IN_PROGRESS.
	unsynced map[string]bool
	ids      *ids
	kids     children // couriers, payer, puller (children.go)
	pay      payState
	timer    deadline // expiry of holds and waitlist entries, reminders (timers.go)
	// remindScan is how far the actor has looked for reminders due; the
	// journal's Reminded may be behind it (timers.go).
	remindScan time.Time
	// release lets the business go in cluster mode (storage.Store.Own).
	release func()
	// root and self send the actor what its goroutines found (a
	// snapshot's prune).
	root *actor.RootContext
	self *actor.PID
}

// Receive implements actor.Actor. A business actor answers requests,
// each of which carries what it does (operation), hears from its own
// timers and children (signal, and its couriers' outcomes), and starts
// and stops; it has no case per operation.
func (a *businessActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case operation:
		defer a.guard(ctx, m.fail)
		m.run(a, ctx)
	case signal:
		defer a.guard(ctx, nil)
		m.handle(a, ctx)
	case *courier.Outcome:
		defer a.guard(ctx, nil)
		a.outcome(ctx, m)
	case *actor.Started:
		a.start(ctx)
	case *actor.Stopping, *actor.Restarting:
		a.stop()
	}
}

// start loads the business and resumes its timed work and its children.
func (a *businessActor) start(ctx actor.Context) {
	a.root, a.self = ctx.ActorSystem().Root, ctx.Self()
	a.load()
	a.startChildren(ctx)
	a.schedule(ctx)
}

// stop stops the timers and lets the business go; the children stop with
// the actor.
func (a *businessActor) stop() {
	a.stopChildren()
	a.stopTimer()
	if a.release != nil {
		a.release()
		a.release = nil
	}
}

// operation is a request of any R (Request[R]) that carries what the
// actor does with it: Receive runs them all in one case.
type operation interface {
	run(a *businessActor, ctx actor.Context)
	fail(err error) any
}

// signal is a message the actor sends itself, from a timer or a child
// (a fetch, a provider call, a sync that ended), with what it does.
type signal interface {
	handle(a *businessActor, ctx actor.Context)
}

// run decides m's idempotent operation, or answers a repeat of its key
// as the first time.
func (m *DoOnce) run(a *businessActor, ctx actor.Context) {
	a.idempotent(ctx, m.Op.Operation(), m.Idem, func() (*record.Change, *Answer, error) {
		return m.Op.Decide(a.state, a.now(), a.ids)
	})
}

// run decides m's operation against the actor's state and journals what
// it changes; the answer goes out once the change is durable.
func (m *Do[R]) run(a *businessActor, ctx actor.Context) {
	if a.state == nil {
		var zero R
		respondNow(ctx, zero, errNoBusiness)
		return
	}
	ch, v, err := m.Op.Decide(a.state, a.now(), a.ids)
	apply(a, ctx, ch, v, err)
	if err == nil && ch != nil && (len(ch.Sources) > 0 || len(ch.Dropped) > 0) {
		a.planPulls(ctx) // the calendar sources changed: the puller hears of it
	}
}

// respondNow answers a request the actor finished before its next message.
func respondNow[R any](ctx actor.Context, v R, err error) {
	ctx.Respond(&Reply[R]{Value: v, Err: err})
}

// guard answers a request whose handling panicked with an INTERNAL_ERROR
// carrying the panic, then re-panics so the supervisor restarts the actor,
// which reloads its state from the journal: whatever the panic left
// half-done in memory is discarded, and nothing half-done was journalled.
func (a *businessActor) guard(ctx actor.Context, reply func(error) any) {
	if r := recover(); r != nil {
		err := fmt.Errorf("business actor panicked: %v", r)
		a.env.Log.Error("business actor panicked", "business", a.h.ID, "panic", fmt.Sprint(r))
		if reply != nil {
			ctx.Respond(reply(problem.Wrap(err)))
		}
		panic(r)
	}
}

// errNoBusiness answers a request for a business that does not exist.
var errNoBusiness = problem.New(problem.NotFound, "No such business.")

// load rebuilds the state from the snapshot and the journal after it, and
// publishes it (after any write a previous incarnation left in flight).
func (a *businessActor) load() {
	// In cluster mode the store holds the business's rows only once this
	// node has taken it over from the replicated journal.
	release, err := a.env.Store.Own(a.h.ID)
	if err != nil {
		a.env.Log.Warn("business could not be taken over", "business", a.h.ID, "err", err)
		a.h.loaded(err)
		return
	}
	a.release = release
	st, snapSeq, err := a.replay()
	if err != nil {
		a.env.Log.Error("business state could not be rebuilt", "business", a.h.ID, "err", err)
		a.h.loaded(err)
		return
	}
	a.state, a.snapSeq = st, snapSeq
	a.h.pub.push(step{state: st})
	a.h.loaded(nil)
	a.queueUnsentMail()
}

// queueUnsentMail hands the mailer the business's unsent mail when this
// node has just taken it over from the replicated journal: another node
// wrote those rows, and this node's mailer walked its table before they
// were here. (On one node the mailer's walk at start finds them.)
func (a *businessActor) queueUnsentMail() {
	if a.env.MailQueued == nil || !a.env.Store.Replicated() {
		return
	}
	var rows []MailRow
	err := a.env.Store.OutboxOf(a.h.ID, storage.OutboxMail, func(id string, row []byte) error {
		rows = append(rows, MailRow{ID: id, Row: bytes.Clone(row)})
		return nil
	})
	if err != nil {
		// The mailer's next walk finds them.
		a.env.Log.Warn("unsent mail of a business taken over could not be listed", "business", a.h.ID, "err", err)
		return
	}
	if len(rows) > 0 {
		a.env.MailQueued(a.h.ID, rows)
	}
}

func (a *businessActor) replay() (*ledger.State, uint64, error) {
	var st *ledger.State
	seq, raw, ok, err := a.env.Store.Snapshot(a.h.ID)
	if err != nil {
		return nil, 0, err
	}
	if ok {
		snap, err := record.DecodeSnapshot(raw)
		if err != nil {
			return nil, 0, err
		}
		if st, err = ledger.FromSnapshot(seq, snap); err != nil {
			return nil, 0, err
		}
	}
	err = a.env.Store.Replay(a.h.ID, seq, func(n uint64, b []byte) error {
		r, err := record.Decode(b)
		if err != nil {
			return fmt.Errorf("journal record %d: %w", n, err)
		}
		st, err = ledger.Apply(st, n, r)
		return err
	})
	return st, seq, err
}
