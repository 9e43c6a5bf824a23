package business

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/webhook/channel"
	"github.com/slotd/slotd/webhook/payment"
	"github.com/slotd/slotd/webhook/retry"
)

// The payer is a business's worker for its payment provider, a child of
// the business actor as a courier is for a webhook endpoint. It makes
// every provider call on a goroutine of its own. The checkout of a booking
// and the read a redirect provider's notice asks for are made once and
// reported back (payDone). The cancels and refunds slotd owes are the
// payment channel's outbox rows: what is owed is the business's state,
// and the payer tries each until the provider takes it, waiting
// retry.Payment between failures. Their failures and next due time are
// kept beside the row (storage.OutboxPaymentRetry, record.Attempt), so a
// restart or a cluster take-over, which hands the owed calls over again
// from the journal, goes on with the backoff where it was. Only a settled
// call (taken, or refused for good) is reported to the parent, which
// journals it.
//
// One call about an appointment is in flight at a time; another waits
// behind it, and a read asked for meanwhile is refused as busy (the
// provider repeats its notice).

// payCall asks the payer for one provider call about appointment id.
type payCall struct {
	id  uuid.UUID
	op  payOp
	cfg payment.Config
	// opCreate
	checkout payment.Checkout
	// opCancel, opRefund, opRead: the provider's payment id
	pid string
	// opRefund
	amount   int64
	currency string
	// opCancel, opRefund: when the call became owed
	since time.Time
	// opRead: the notice waiting for the answer
	reply *actor.PID
}

// payForget tells the payer that appointment id's payment owes nothing
// any more.
type payForget struct{ id uuid.UUID }

// payEnded is a provider call's end, on the payer's mailbox.
type payEnded struct {
	call    *payCall
	created payment.Created
	state   payment.State
	err     error
}

// payRetryDue: an owed call's wait is over.
type payRetryDue struct{ row *payRow }

// payRow is an owed cancel or refund.
type payRow struct {
	call     *payCall
	failures int
	timer    clock.Timer
}

type payer struct {
	env  *Env
	biz  uuid.UUID
	owed map[uuid.UUID]*payRow
	// busy is the call in flight about an appointment; after, the calls
	// waiting behind it.
	busy  map[uuid.UUID]payOp
	after map[uuid.UUID][]*payCall
	src   *channel.Source

	root   *actor.RootContext
	self   *actor.PID
	parent *actor.PID
	ctx    context.Context
	cancel context.CancelFunc
}

func payerProps(env *Env, biz uuid.UUID) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &payer{env: env, biz: biz, owed: map[uuid.UUID]*payRow{}, busy: map[uuid.UUID]payOp{},
			after: map[uuid.UUID][]*payCall{}}
	}, env.dispatcher()...)
}

// Receive implements actor.Actor.
func (p *payer) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		p.root, p.self, p.parent = ctx.ActorSystem().Root, ctx.Self(), ctx.Parent()
		p.ctx, p.cancel = context.WithCancel(context.Background())
		p.src = p.env.PaymentOutbox.Source()
	case *actor.Stopping, *actor.Restarting:
		p.stop()
		return
	case *payCall:
		p.take(m)
	case *payForget:
		p.forget(m.id)
	case *payRetryDue:
		if p.owed[m.row.call.id] == m.row {
			m.row.timer = nil
			p.start(m.row.call)
		}
	case *payEnded:
		p.ended(m)
	}
	p.report()
}

func (p *payer) stop() {
	if p.cancel != nil {
		p.cancel()
	}
	for _, r := range p.owed {
		if r.timer != nil {
			r.timer.Stop()
		}
	}
	p.src.Close()
	p.src = nil
}

// take handles a call the parent asks for. An owed call already held is
// brought up to date (a refund owed can grow); a create or read already
// in flight or waiting is not made twice.
func (p *payer) take(c *payCall) {
	if c.op == opCancel || c.op == opRefund {
		if r := p.owed[c.id]; r != nil && r.call.op == c.op {
			r.call = c
			return
		}
		p.forget(c.id)
		r := &payRow{call: c}
		p.owed[c.id] = r
		if a, ok := p.kept(c); ok && a.Failures > 0 {
			r.failures = a.Failures
			if wait := a.Next.Sub(p.env.Clock.Now()); wait > 0 {
				p.arm(r, wait)
				return
			}
		}
	}
	p.start(c)
}

// start makes call c now, or after the call in flight about its
// appointment. A read that would wait is refused instead.
func (p *payer) start(c *payCall) {
	if op, busy := p.busy[c.id]; busy {
		switch {
		case c.op == opRead:
			p.answerRead(c, errPayBusy)
		case op == c.op:
		default:
			for _, w := range p.after[c.id] {
				if w.op == c.op {
					return
				}
			}
			p.after[c.id] = append(p.after[c.id], c)
		}
		return
	}
	cl := p.env.Payments
	done := &payEnded{call: c}
	var work func(context.Context)
	switch c.op {
	case opCreate:
		work = func(ctx context.Context) { done.created, done.err = cl.Create(ctx, c.cfg, c.checkout) }
	case opCancel:
		work = func(ctx context.Context) { done.err = cl.Cancel(ctx, c.cfg, c.pid) }
	case opRefund:
		work = func(ctx context.Context) { done.err = cl.Refund(ctx, c.cfg, c.pid, c.amount, c.currency) }
	case opRead:
		work = func(ctx context.Context) { done.state, done.err = cl.Get(ctx, c.cfg, c.pid) }
	}
	p.busy[c.id] = c.op
	root, self, parent := p.root, p.self, p.ctx
	p.env.bg.Add(1)
	go func() {
		defer p.env.bg.Done()
		work(parent)
		root.Send(self, done)
	}()
}

// ended handles the end of a call: a create or read goes to the parent;
// an owed call is settled or waits for its next attempt.
func (p *payer) ended(m *payEnded) {
	c := m.call
	delete(p.busy, c.id)
	defer p.next(c.id)
	if c.op == opCreate || c.op == opRead {
		p.root.Send(p.parent, &payDone{id: c.id, op: c.op, created: m.created, state: m.state, err: m.err, reply: c.reply})
		return
	}
	r := p.owed[c.id]
	if r == nil || r.call.op != c.op {
		return // forgotten meanwhile
	}
	if settled(c.op, m.err) {
		delete(p.owed, c.id)
		p.dropKept(c.id)
		outcome := channel.Delivered
		if m.err != nil {
			outcome = channel.GivenUp
		}
		p.env.PaymentOutbox.Attempted(outcome)
		p.root.Send(p.parent, &payDone{id: c.id, op: c.op, err: m.err})
		return
	}
	r.failures++
	wait := retry.Payment.Wait(r.failures)
	p.env.Log.Warn("payment provider call failed; retrying", "business", p.biz, "appointment", c.id,
		"call", c.op.String(), "attempt", r.failures, "retry_in", wait, "err", m.err)
	p.keep(r, p.env.Clock.Now().Add(wait))
	p.arm(r, wait)
	p.env.PaymentOutbox.Attempted(channel.Retry)
}

// settled reports whether an owed call that ended with err needs nothing
// more: the provider took it, or (a cancel) refused it for good (4xx:
// already cancelled, or paid, which the paid event then reports) or no
// longer knows the payment. A refund is tried until it is taken.
func settled(op payOp, err error) bool {
	if err == nil {
		return true
	}
	var refused *payment.RefusedError
	final := errors.As(err, &refused) && refused.Status < http.StatusInternalServerError
	return op == opCancel && (final || errors.Is(err, payment.ErrNotFound))
}

// next starts the call waiting behind appointment id's, if any.
func (p *payer) next(id uuid.UUID) {
	w := p.after[id]
	if len(w) == 0 {
		return
	}
	c := w[0]
	if len(w) == 1 {
		delete(p.after, id)
	} else {
		p.after[id] = w[1:]
	}
	if c.op == opCancel || c.op == opRefund {
		r := p.owed[id]
		if r == nil || r.call.op != c.op || r.timer != nil {
			p.next(id) // forgotten or replaced while it waited, or its timer will start it
			return
		}
		c = r.call // as the parent last asked: a refund owed can grow meanwhile
	}
	p.start(c)
}

func (p *payer) forget(id uuid.UUID) {
	r := p.owed[id]
	if r == nil {
		return
	}
	if r.timer != nil {
		r.timer.Stop()
	}
	delete(p.owed, id)
	p.dropKept(id)
}

func (p *payer) arm(r *payRow, wait time.Duration) {
	if r.timer != nil {
		r.timer.Stop()
	}
	root, self := p.root, p.self
	r.timer = p.env.Clock.AfterFunc(wait, func() { root.Send(self, &payRetryDue{row: r}) })
}

func (p *payer) answerRead(c *payCall, err error) {
	if c.reply != nil {
		p.root.Send(c.reply, &Reply[Done]{Err: err})
	}
}

// report brings the payer's share of the payment channel's backlog up to
// date: the calls owed, and since when the oldest has been.
func (p *payer) report() {
	if p.src == nil {
		return
	}
	var oldest time.Time
	for _, r := range p.owed {
		if s := r.call.since; oldest.IsZero() || s.Before(oldest) {
			oldest = s
		}
	}
	p.src.Set(len(p.owed), oldest)
}

// The retry state of an owed call, beside it in the outbox. It is written
// without waiting for the sync: losing it in a crash only shortens one
// wait.

func retryID(id uuid.UUID, op payOp) string { return id.String() + "/" + op.String() }

func (p *payer) kept(c *payCall) (record.Attempt, bool) {
	v, ok, err := p.env.Store.OutboxRow(p.biz, storage.OutboxPaymentRetry, retryID(c.id, c.op))
	if err != nil || !ok {
		return record.Attempt{}, false
	}
	return record.DecodeAttempt(v)
}

func (p *payer) keep(r *payRow, next time.Time) {
	b := p.env.Store.NewBatch()
	b.PutOutbox(p.biz, storage.OutboxPaymentRetry, retryID(r.call.id, r.call.op),
		record.AppendAttempt(nil, record.Attempt{Failures: r.failures, Next: next}))
	p.commit(b)
}

func (p *payer) dropKept(id uuid.UUID) {
	b := p.env.Store.NewBatch()
	b.DeleteOutbox(p.biz, storage.OutboxPaymentRetry, retryID(id, opCancel))
	b.DeleteOutbox(p.biz, storage.OutboxPaymentRetry, retryID(id, opRefund))
	p.commit(b)
}

func (p *payer) commit(b *storage.Batch) {
	pending, err := b.CommitNoWait()
	if err != nil {
		p.env.Log.Warn("payment retry state not kept", "business", p.biz, "err", err)
		return
	}
	p.env.bg.Add(1)
	go func() {
		defer p.env.bg.Done()
		_ = pending.Wait() // a failed sync fails the store, which says so
	}()
}
