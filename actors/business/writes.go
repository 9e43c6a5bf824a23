package business

import (
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"

	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
)

// synced tells the actor that the write carrying an idempotency key is
// durable, so the key no longer answers IDEMPOTENCY_IN_PROGRESS.
type synced struct{ key string }

func (m *synced) handle(a *businessActor, _ actor.Context) { delete(a.unsynced, m.key) }

// idemRetention is how long an idempotent answer is kept (decisions §3).
const idemRetention = 24 * time.Hour

var (
	errReused     = problem.New(problem.IdempotencyKeyReused, "The Idempotency-Key was used with another request.")
	errInProgress = problem.New(problem.IdempotencyInProgress, "A request with this Idempotency-Key is still being processed; retry with the same key.")
)

// idempotent runs a creating request (api-v1 §4.1): a key seen in the last
// 24 hours is replayed or refused; otherwise decide runs, and its answer —
// the facts of what was created, or a refusal once the request has passed
// validation — is journalled under the key with the write, and sent once
// that is durable. Validation failures and internal errors are not stored:
// the key stays free (decisions §4).
func (a *businessActor) idempotent(ctx actor.Context, op model.Operation, idem IdemKey, decide func() (*record.Change, *Answer, error)) {
	idem.op = op
	if a.state == nil {
		respondNow(ctx, (*Answer)(nil), errNoBusiness)
		return
	}
	now := a.now()
	if ans, err := a.known(&idem, now); ans != nil || err != nil {
		// A replay repeats an answer that is durable; a conflict reveals
		// nothing but the key's own use. Neither waits.
		respondNow(ctx, ans, err)
		return
	}
	ch, ans, err := decide()
	if err == nil && len(ch.Checkouts) > 0 {
		a.reserve(ctx, ch, &idem, now)
		return
	}
	if err != nil {
		pe := problem.As(err)
		if pe.Code == problem.Validation || pe.Code == problem.Internal {
			respondAfter(a, ctx, (*Answer)(nil), pe)
			return
		}
		ch = &record.Change{At: now}
		ans = refusedAnswer(pe)
	}
	// The answer is journalled as the facts it is rendered from, not as
	// its bytes or status (record.Idem): the record stays small, and so
	// does the state that keeps the key for 24 hours.
	ch.Idempotency = &record.Idem{Key: idem.Key, Op: idem.op, BodyHash: idem.BodyHash,
		At: now, Answer: ans.Kind, Refused: ans.Refused}
	a.unsynced[idem.Key] = true
	commitChange(a, ctx, ch, ans)
}

// refusedAnswer is the stored answer of a refusal: its code, message and
// fields (what the transport renders), without its cause.
func refusedAnswer(pe *problem.Error) *Answer {
	return &Answer{Kind: record.AnswerRefused, Refused: &problem.Error{Code: pe.Code, Message: pe.Message, Fields: pe.Fields,
		Scope: pe.Scope, RequiredPlan: pe.RequiredPlan, Conflicts: pe.Conflicts}}
}

// known answers a request whose key was seen in the last 24 hours: a
// replay of the stored answer, or a conflict. Both nil: the key is new.
func (a *businessActor) known(idem *IdemKey, now time.Time) (*Answer, error) {
	if co := a.state.CheckoutByKey(idem.Key); co != nil {
		// A booking waiting for its checkout: its answer is not decided.
		if co.Idem.Op != idem.op || co.Idem.BodyHash != idem.BodyHash {
			return nil, errReused
		}
		return nil, errInProgress
	}
	e := a.state.Idempotency(idem.Key)
	if e == nil || now.Sub(e.At) >= idemRetention {
		return nil, nil
	}
	switch {
	case e.Op != idem.op || e.BodyHash != idem.BodyHash:
		return nil, errReused
	case a.unsynced[idem.Key]:
		return nil, errInProgress
	}
	ans, err := a.stored(e)
	if err != nil {
		return nil, problem.Wrap(fmt.Errorf("replaying the answer to idempotency key at record %d: %w", e.Seq, err))
	}
	ans.Replayed = true
	return ans, nil
}

// stored reads a stored idempotent answer's facts back: from the journal
// record that made it, or the stored refusal, or (records from before the
// facts) the stored bytes. Rendered by the same renderer, they give the
// bytes of the first answer.
func (a *businessActor) stored(e *record.Idem) (*Answer, error) {
	switch e.Answer {
	case record.AnswerBody:
		return &Answer{Kind: record.AnswerBody, Status: e.Status, Body: e.Body}, nil
	case record.AnswerRefused:
		if e.Refused == nil {
			return nil, errors.New("refusal missing")
		}
		return refusedAnswer(e.Refused), nil
	}
	raw, ok, err := a.env.Store.JournalRecord(a.h.ID, e.Seq)
	if err == nil && !ok {
		err = errors.New("the journal no longer holds the record")
	}
	var rec *record.Record
	if err == nil {
		rec, err = record.Decode(raw)
	}
	if err != nil {
		return nil, err
	}
	if rec.Change == nil {
		return nil, errors.New("not a change record")
	}
	return ledger.AnswerOf(a.state, rec.Change, e.Answer)
}

// apply finishes a request that is not idempotent: it journals ch (when
// the decision changed anything) and answers v, or answers the refusal.
func apply[R any](a *businessActor, ctx actor.Context, ch *record.Change, v R, err error) {
	switch {
	case a.state == nil:
		respondNow(ctx, v, errNoBusiness)
	case err != nil:
		respondAfter(a, ctx, v, err)
	case ch == nil: // nothing changed
		respondAfter(a, ctx, v, nil)
	default:
		commitChange(a, ctx, ch, v)
	}
}

// respondAfter answers the request being handled once every write in
// flight is durable: the answer was decided against state that may hold
// them (commit.go).
func respondAfter[R any](a *businessActor, ctx actor.Context, v R, err error) {
	root, sender := ctx.ActorSystem().Root, ctx.Sender()
	a.after(func(failed error) {
		if failed != nil {
			err = problem.Wrap(failed)
		}
		if sender != nil {
			root.Send(sender, &Reply[R]{Value: v, Err: err})
		}
	})
}

// commitChange journals a booking-side change with its outbox rows and
// answers the sender with v once it is durable.
func commitChange[R any](a *businessActor, ctx actor.Context, ch *record.Change, v R) {
	sender, root, log := ctx.Sender(), ctx.ActorSystem().Root, a.env.Log
	a.commitThen(ctx, ch, func(err error) {
		if sender == nil {
			if err != nil {
				log.Error("journal commit failed", "err", err)
			}
			return
		}
		rep := &Reply[R]{Value: v}
		if err != nil {
			rep = &Reply[R]{Err: problem.Wrap(err)}
		}
		root.Send(sender, rep)
	})
}

// commitThen journals a booking-side change with its outbox rows; once
// it is durable, new webhook deliveries and endpoint changes reach the
// couriers, the mailer is woken, each payment it changed is looked at
// again (drive), and then runs (on the publisher: it must
// not touch the actor's fields). then gets the error that failed the
// write, if one did.
func (a *businessActor) commitThen(ctx actor.Context, ch *record.Change, then func(err error)) {
	// Time this write frees goes to the waitlist in the same record, so
	// no crash can free it without offering it (a no-op without entries).
	ledger.Complete(a.state, ch, a.ids)
	var (
		fresh map[uuid.UUID][]model.Delivery
		mails []MailRow
	)
	rows := func(b *storage.Batch, next *ledger.State) (err error) {
		fresh, mails, err = a.addOutbox(b, next, ch)
		return err
	}
	key := ""
	if ch.Idempotency != nil {
		key = ch.Idempotency.Key
	}
	s, err := a.journal(&record.Record{Kind: record.KindChange, Change: ch}, rows)
	if err != nil {
		delete(a.unsynced, key)
		a.after(func(error) { then(err) })
		return
	}
	handOver := a.handOver(ctx, ch, fresh, mails)
	if len(ch.Holds) > 0 || len(ch.Entries) > 0 || len(ch.Appointments) > 0 || !ch.Reminded.IsZero() {
		a.schedule(ctx)
	}
	root, self, metrics := ctx.ActorSystem().Root, ctx.Self(), a.env.Metrics
	s.then = func(err error) {
		if key != "" {
			root.Send(self, &synced{key: key})
		}
		if err == nil {
			handOver()
			metrics.holdsChanged(ch)
			// A payment the write changed may now need its next step
			// (payments.go): only once the write is durable.
			for i := range ch.Payments {
				root.Send(self, &payDue{id: ch.Payments[i].AppointmentID})
			}
		}
		then(err)
	}
	a.h.pub.push(s)
}

// handOver returns what must happen once ch is durable: couriers learn of
// changed endpoints and get the new deliveries, the mailer gets the new
// mail rows. The PIDs are looked up now, in the actor, so the publisher
// that runs it touches no actor state.
func (a *businessActor) handOver(ctx actor.Context, ch *record.Change, fresh map[uuid.UUID][]model.Delivery, mails []MailRow) func() {
	tell := a.courierMessages(ctx, ch, fresh)
	root, biz, queued := ctx.ActorSystem().Root, a.h.ID, a.env.MailQueued
	return func() {
		for _, t := range tell {
			root.Send(t.pid, t.msg)
		}
		if len(mails) > 0 {
			queued(biz, mails)
		}
	}
}

// ids mints the identifiers of one actor's decisions. ULIDs come from a
// monotonic source, so event ids sort in creation order even within one
// millisecond; the actor is single-threaded, which that source needs.
//
// The source is made at the first ULID: it buffers 4 KiB of entropy,
// which was a third of the memory of a business that is only read (the
// tenancy phase of issue 23 touches thousands of them).
type ids struct{ entropy *ulid.MonotonicEntropy }

func newIDs() *ids { return &ids{} }

func (x *ids) UUID() uuid.UUID { return uuid.New() }

func (x *ids) Event(at time.Time) string { return "evt_" + x.ulid(at) }

func (x *ids) Mail(at time.Time) string { return x.ulid(at) }

func (x *ids) ulid(at time.Time) string {
	if x.entropy == nil {
		x.entropy = ulid.Monotonic(rand.Reader, 0)
	}
	return ulid.MustNew(ulid.Timestamp(at), x.entropy).String()
}
