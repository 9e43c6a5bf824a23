package business

import (
	"bytes"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
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
	couriers map[uuid.UUID]*actor.PID // by endpoint
	pay      payState
	timer    deadline // expiry of holds and waitlist entries, reminders (timers.go)
	// remindScan is how far the actor has looked for reminders due; the
	// journal's Reminded may be behind it (timers.go).
	remindScan time.Time
	puller     *actor.PID // the calendar sources' worker (pull.go), once there are any
	// release lets the business go in cluster mode (storage.Store.Own).
	release func()
}

// Receive implements actor.Actor.
func (a *businessActor) Receive(ctx actor.Context) {
	if r, ok := ctx.Message().(interface{ fail(error) any }); ok {
		defer a.guard(ctx, r.fail)
	}
	switch m := ctx.Message().(type) {
	case operation:
		m.run(a, ctx)
	case *actor.Started:
		a.load()
		a.startCouriers(ctx)
		a.startPayments(ctx)
		a.schedule(ctx)
		a.planPulls(ctx)
	case *actor.Stopping, *actor.Restarting:
		a.stopPayments()
		a.puller = nil // a child: it stops with the actor
		a.stopTimer()
		if a.release != nil {
			a.release()
			a.release = nil
		}
	case *Put:
		r, err := a.put(m)
		respondNow(ctx, r, err)
		a.schedule(ctx) // the reminders may have changed
	case *Issue:
		k, err := a.issue(m)
		respondNow(ctx, k, err)
	case *Revoke:
		k, err := a.revoke(m)
		respondNow(ctx, k, err)
	case *sourceFetched:
		defer a.guard(ctx, nil)
		a.fetched(ctx, m)
	case *tick:
		defer a.guard(ctx, nil)
		a.expire(ctx)
	case *PaymentEvent:
		a.paymentEvent(ctx, m)
	case *PaymentNotice:
		a.paymentNotice(ctx, m)
	case *payDue:
		a.drive(ctx, m.id)
	case *payDone:
		defer a.guard(ctx, nil)
		a.payDone(ctx, m)
	case *synced:
		delete(a.unsynced, m.key)
	case *courier.Outcome:
		defer a.guard(ctx, nil)
		a.outcome(ctx, m)
	case *courier.Replay:
		a.forwardReplay(ctx, m)
	}
}

// operation is a Do[R] of any R: Receive runs them all in one case.
type operation interface {
	run(a *businessActor, ctx actor.Context)
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

func (a *businessActor) put(m *Put) (PutResult, error) {
	rec, err := ledger.DecidePut(a.state, m.Spec, a.now())
	if err != nil || rec == nil {
		return PutResult{}, err
	}
	created := a.state == nil
	added, removed := keyDiff(a.state, rec.Catalog.Keys)
	for _, h := range added {
		if owner, ok := a.env.Keys.Owner(h); ok && owner != a.h.ID {
			return PutResult{}, problem.FieldError("apiKeys", problem.Invalid, "An API key is already in use by another business.")
		}
	}
	err = a.commitSync(rec, func(b *storage.Batch, next *ledger.State) error {
		b.PutBusiness(a.h.ID, []byte(rec.Catalog.Business.Name))
		markTimed(b, next) // the reminders may have changed
		for _, h := range added {
			b.PutKey(h, a.h.ID[:])
		}
		for _, h := range removed {
			b.DeleteKey(h)
		}
		return nil
	})
	if err != nil {
		return PutResult{}, err
	}
	a.env.Keys.Changed(a.h.ID, rec.Catalog.Business.Name, added, removed)
	return PutResult{Created: created, Changed: true}, nil
}

func (a *businessActor) issue(m *Issue) (model.Key, error) {
	if a.state == nil {
		return model.Key{}, errNoBusiness
	}
	if _, taken := a.env.Keys.Owner(m.Key.Hash); taken {
		return model.Key{}, problem.New(problem.Conflict, "The key is already in use.")
	}
	rec := ledger.DecideIssue(m.Key, a.now())
	err := a.commitSync(rec, func(b *storage.Batch, _ *ledger.State) error {
		b.PutKey(m.Key.Hash, a.h.ID[:])
		return nil
	})
	if err != nil {
		return model.Key{}, err
	}
	a.env.Keys.Changed(a.h.ID, a.state.Business.Name, []model.KeyHash{m.Key.Hash}, nil)
	return rec.Key.Key, nil
}

func (a *businessActor) revoke(m *Revoke) (model.Key, error) {
	if a.state == nil {
		return model.Key{}, errNoBusiness
	}
	rec, err := ledger.DecideRevoke(a.state, m.KeyID, a.now())
	if err != nil {
		return model.Key{}, err
	}
	if rec == nil { // already revoked
		for _, k := range a.state.Keys {
			if k.ID == m.KeyID {
				return k, nil
			}
		}
	}
	if err := a.commitSync(rec, nil); err != nil {
		return model.Key{}, err
	}
	return rec.Key.Key, nil
}

// keyDiff returns the key hashes next adds to and removes from s.
func keyDiff(s *ledger.State, next []model.Key) (added, removed []model.KeyHash) {
	seen := make(map[model.KeyHash]bool, len(next))
	for _, k := range next {
		seen[k.Hash] = true
		if s == nil || s.Key(k.Hash) == nil {
			added = append(added, k.Hash)
		}
	}
	if s != nil {
		for _, k := range s.Keys {
			if !seen[k.Hash] {
				removed = append(removed, k.Hash)
			}
		}
	}
	return added, removed
}
