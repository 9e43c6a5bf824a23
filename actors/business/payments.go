package business

import (
	"context"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/webhook/payment"
)

// Prepayment (decisions §5), the actor's side. The decisions are the
// ledger's; here is what waits on the provider, which the actor never
// does: every provider call is made by the business's payer (payer.go), a
// child actor, and reported back as a message (payDone), so the business's
// other writes go on meanwhile.
//
// A call starts only once the write it follows is durable (a commit's
// then sends payDue), and what slotd owes the provider is state, so the
// same step serves a fresh booking and a restart: drive looks at one
// appointment's reservation or payment and does the next thing due — ask
// for the checkout, arm the expiry timer, expire, hand a cancel or refund
// owed to the payer, which retries it until the provider takes it.

// Payments is the provider client (payment.Client).
type Payments interface {
	Create(ctx context.Context, cfg payment.Config, c payment.Checkout) (payment.Created, error)
	Cancel(ctx context.Context, cfg payment.Config, id string) error
	Refund(ctx context.Context, cfg payment.Config, id string, amountCents int64, currency string) error
	Get(ctx context.Context, cfg payment.Config, id string) (payment.State, error)
}

// payOp is a provider call.
type payOp uint8

const (
	opCreate payOp = iota
	opCancel
	opRefund
	opRead
)

func (op payOp) String() string { return [...]string{"create", "cancel", "refund", "read"}[op] }

// Messages the actor sends itself about payments.
type (
	// payDue: look at what appointment id's payment needs now.
	payDue struct{ id uuid.UUID }
	// payDone: a provider call ended.
	payDone struct {
		id      uuid.UUID
		op      payOp
		created payment.Created
		state   payment.State
		err     error
		reply   *actor.PID // opRead: the hook request waiting for it
	}
)

// payState is the actor's memory of its provider calls; the journal holds
// everything else.
type payState struct {
	waiting map[uuid.UUID]*actor.PID // reservation -> the booking request waiting for its answer
	timers  map[uuid.UUID]clock.Timer
	owing   map[uuid.UUID]payOp // cancels and refunds handed to the payer
}

// handle does the next thing due about the payment.
func (m *payDue) handle(a *businessActor, ctx actor.Context) { a.drive(ctx, m.id) }

// handle decides what the ended call says.
func (m *payDone) handle(a *businessActor, ctx actor.Context) { a.payDone(ctx, m) }

func newPayState() payState {
	return payState{waiting: map[uuid.UUID]*actor.PID{}, timers: map[uuid.UUID]clock.Timer{}, owing: map[uuid.UUID]payOp{}}
}

// startPayments resumes every payment that waits for something: after a
// restart, a reservation gets its checkout (the provider's
// Idempotency-Key makes that the same checkout if the call was made
// before), a deadline its timer, a cancel or refund owed its call.
func (a *businessActor) startPayments(ctx actor.Context) {
	if a.state == nil {
		return
	}

	for _, id := range a.state.PaymentWork() {
		a.drive(ctx, id)
	}
}

// stopPayments stops the timers; the payer, a child, stops with the actor
// and cancels the calls in flight.
func (a *businessActor) stopPayments() {
	for id, t := range a.pay.timers {
		t.Stop()
		delete(a.pay.timers, id)
	}
	clear(a.pay.owing)
}

// reserve journals the reservation of a booking that needs prepayment;
// the request is answered once its checkout is created (checkoutDone).
func (a *businessActor) reserve(ctx actor.Context, ch *record.Change, idem *IdemKey, now time.Time) {
	co := &ch.Checkouts[0]
	co.Idem = record.Idem{Key: idem.Key, Op: idem.op, BodyHash: idem.BodyHash, At: now}
	id, sender := co.Appointment.ID, ctx.Sender()
	if sender != nil {
		a.pay.waiting[id] = sender
	}
	root, self := ctx.ActorSystem().Root, ctx.Self()
	a.commitThen(ctx, ch, func(err error) {
		if err != nil {
			if sender != nil {
				root.Send(sender, &Reply[*Answer]{Err: problem.Wrap(err)})
			}
			return
		}
		root.Send(self, &payDue{id: id})
	})
}

// commitPay journals a payment decision (commitThen then looks at what
// the payment needs next); reply, if set, is answered once it is durable.
func (a *businessActor) commitPay(ctx actor.Context, ch *record.Change, reply *actor.PID) {
	root := ctx.ActorSystem().Root
	a.env.Metrics.decided(ch)
	a.commitThen(ctx, ch, func(err error) {
		if reply == nil {
			return
		}
		var rep any = &Reply[Done]{}
		if err != nil {
			rep = &Reply[Done]{Err: problem.Wrap(err)}
		}
		root.Send(reply, rep)
	})
}

// drive does the next thing appointment id's reservation or payment needs.
func (a *businessActor) drive(ctx actor.Context, id uuid.UUID) {
	if a.state == nil {
		return
	}
	if co := a.state.Checkout(id); co != nil {
		a.call(ctx, id, opCreate, nil)
		return
	}
	p := a.state.Payment(id)
	if p == nil || !p.Open() {
		a.disarm(ctx, id)
		return
	}
	now := a.now()
	switch {
	case p.Status == model.PaymentPending && now.Before(p.ExpiresAt):
		a.arm(ctx, id, p.ExpiresAt.Sub(now))
	case p.Status == model.PaymentPending:
		if ch := ledger.DecideExpire(a.state, id, now, a.ids); ch != nil {
			a.commitPay(ctx, ch, nil)
		}
	case p.RefundOwed > 0:
		a.call(ctx, id, opRefund, nil)
	case p.CancelOwed:
		a.call(ctx, id, opCancel, nil)
	}
}

// arm sets appointment id's timer to look again after d.
func (a *businessActor) arm(ctx actor.Context, id uuid.UUID, d time.Duration) {
	if t := a.pay.timers[id]; t != nil {
		t.Stop()
	}
	root, self := ctx.ActorSystem().Root, ctx.Self()
	a.pay.timers[id] = a.env.Clock.AfterFunc(d, func() { root.Send(self, &payDue{id: id}) })
}

// disarm forgets appointment id's timer and any call owed about it: its
// payment needs nothing more.
func (a *businessActor) disarm(ctx actor.Context, id uuid.UUID) {
	if t := a.pay.timers[id]; t != nil {
		t.Stop()
		delete(a.pay.timers, id)
	}
	if _, ok := a.pay.owing[id]; ok {
		delete(a.pay.owing, id)
		ctx.Send(a.kids.payer, &payForget{id: id})
	}
}

// call asks the payer for provider call op about appointment id; the
// outcome comes back as payDone (for a cancel or refund, once the
// provider took it or refused it for good).
func (a *businessActor) call(ctx actor.Context, id uuid.UUID, op payOp, reply *actor.PID) {
	if a.env.Payments == nil {
		return
	}
	if a.kids.payer == nil {
		a.kids.payer = ctx.Spawn(payerProps(a.env, a.h.ID))
	}
	pays := a.state.Business.Payments
	c := &payCall{id: id, op: op, reply: reply,
		cfg: payment.Config{Provider: pays.Provider, BaseURL: pays.BaseURL, APIKey: pays.APIKey, ReturnURL: pays.ReturnURL}}
	switch op {
	case opCreate:
		co := a.state.Checkout(id)
		c.checkout = payment.Checkout{AppointmentID: id, BusinessID: a.h.ID, AmountCents: int64(co.Payment.AmountCents),
			Currency: co.Payment.Currency, Description: co.Appointment.Service.Name + ", " + a.state.Business.Name,
			WebhookURL: a.env.PublicURL + "/hooks/payments/" + a.h.ID.String()}
	case opCancel, opRefund, opRead:
		p := a.state.Payment(id)
		c.pid, c.amount, c.currency, c.since = p.ProviderPaymentID, int64(p.RefundOwed), p.Currency, p.UpdatedAt
		if op != opRead {
			a.pay.owing[id] = op
		}
	}
	ctx.Send(a.kids.payer, c)
}

// payDone handles the end of a provider call.
func (a *businessActor) payDone(ctx actor.Context, m *payDone) {
	if a.state == nil {
		return
	}
	switch m.op {
	case opCreate:
		a.checkoutDone(ctx, m)
	case opRead:
		a.readDone(ctx, m)
	case opCancel, opRefund:
		a.ownedSettled(ctx, m)
	}
}

// checkoutDone completes or releases a reservation and answers the
// booking request (decisions §5): the 201 with its payment; 422
// PAYMENTS_UNAVAILABLE when the provider did not answer, stored under the
// Idempotency-Key; 500 PAYMENT_ERROR when it refused, not stored.
func (a *businessActor) checkoutDone(ctx actor.Context, m *payDone) {
	sender := a.pay.waiting[m.id]
	delete(a.pay.waiting, m.id)
	co := a.state.Checkout(m.id)
	if co == nil {
		return
	}
	idem, now, provider := co.Idem, a.now(), co.Payment.Provider
	if m.err == nil {
		created := ledger.CheckoutCreated{ProviderPaymentID: m.created.ProviderPaymentID,
			CheckoutURL: m.created.CheckoutURL, ClientSecret: m.created.ClientSecret}
		ch, appt, p := ledger.DecideCheckoutDone(a.state, m.id, created, now, a.ids)
		ans := ledger.Booked(a.state, ch, appt, p)
		idem.Answer = record.AnswerBooked
		ch.Idempotency = &idem
		a.env.Metrics.checkout(provider, "created")
		a.answerPay(ctx, ch, sender, ans, nil)
		return
	}
	ch := ledger.DecideCheckoutFailed(a.state, m.id, now)
	var refusal *problem.Error
	if errors.Is(m.err, payment.ErrUnreachable) {
		a.env.Log.Warn("payment provider unreachable; booking refused", "business", a.h.ID, "provider", provider, "err", m.err)
		a.env.Metrics.checkout(provider, "unreachable")
		refusal = problem.New(problem.PaymentsUnavailable, "This booking requires prepayment and the payment provider could not be reached.")
		idem.Answer, idem.Refused = record.AnswerRefused, refusal
		ch.Idempotency = &idem
	} else {
		a.env.Log.Error("payment provider refused the checkout; booking refused", "business", a.h.ID, "provider", provider, "err", m.err)
		a.env.Metrics.checkout(provider, "refused")
		refusal = problem.New(problem.PaymentError, "The payment provider could not create the checkout; nothing was booked. Retry with the same Idempotency-Key.")
	}
	a.answerPay(ctx, ch, sender, nil, refusal)
}

// answerPay journals the end of a reservation and answers the booking
// request once that is durable.
func (a *businessActor) answerPay(ctx actor.Context, ch *record.Change, sender *actor.PID, ans *Answer, refusal error) {
	if ch.Idempotency != nil {
		a.unsynced[ch.Idempotency.Key] = true
	}
	root := ctx.ActorSystem().Root
	a.commitThen(ctx, ch, func(err error) {
		if sender == nil {
			return
		}
		rep := &Reply[*Answer]{Value: ans, Err: refusal}
		if err != nil {
			rep = &Reply[*Answer]{Err: problem.Wrap(err)}
		}
		root.Send(sender, rep)
	})
}

// ownedSettled journals a cancel or refund the payer settled: the
// provider took it, or (a cancel) refused it for good or no longer knows
// the payment (payer.go: settled).
func (a *businessActor) ownedSettled(ctx actor.Context, m *payDone) {
	if a.pay.owing[m.id] == m.op {
		delete(a.pay.owing, m.id)
	}
	var ch *record.Change
	if m.op == opCancel {
		ch = ledger.DecideCancelDone(a.state, m.id, a.now())
	} else {
		ch = ledger.DecideRefundIssued(a.state, m.id, a.now(), a.ids)
	}
	if ch != nil {
		a.commitPay(ctx, ch, nil)
	}
}

// PaymentEvent is a client_secret provider's event, its signature already
// verified against the business's webhookSecret (decisions §5).
type PaymentEvent struct {
	request[Done]
	Event payment.Event
}

// PaymentNotice is a redirect provider's word that the payment it knows as
// ProviderPaymentID changed; the actor reads the payment from the provider.
type PaymentNotice struct {
	request[Done]
	ProviderPaymentID string
}

// WaitsForProvider: the notice is answered once the payment is read.
func (m *PaymentNotice) WaitsForProvider() bool { return true }

// run acts on a client_secret provider event whose signature the
// transport verified. An event about a payment this business does not
// have changes nothing.
func (m *PaymentEvent) run(a *businessActor, ctx actor.Context) {
	if a.state == nil {
		respondNow(ctx, Done{}, errNoBusiness)
		return
	}
	p := a.state.PaymentByProviderID(m.Event.ProviderPaymentID)
	if p == nil || a.state.Business.Payments.Provider != model.ProviderClientSecret {
		respondNow(ctx, Done{}, nil)
		return
	}
	var ch *record.Change
	switch m.Event.Kind {
	case payment.EventPaid:
		ch = ledger.DecidePaid(a.state, p.AppointmentID, m.Event.ID, a.now(), a.ids)
	case payment.EventRefunded:
		ch = ledger.DecideRefunded(a.state, p.AppointmentID, m.Event.ID, int(m.Event.RefundedCents), a.now(), a.ids)
	}
	if ch == nil {
		respondAfter(a, ctx, Done{}, nil)
		return
	}
	a.commitPay(ctx, ch, ctx.Sender())
}

// run acts on a redirect provider's notice: it trusts nothing
// but the id, and reads the payment from the provider before it decides.
func (m *PaymentNotice) run(a *businessActor, ctx actor.Context) {
	if a.state == nil {
		respondNow(ctx, Done{}, errNoBusiness)
		return
	}
	p := a.state.PaymentByProviderID(m.ProviderPaymentID)
	if p == nil || a.state.Business.Payments.Provider != model.ProviderRedirect || a.env.Payments == nil {
		respondNow(ctx, Done{}, nil)
		return
	}
	// The payer refuses the read while another call about the payment is
	// in flight (errPayBusy); the provider repeats its notice until it is
	// answered 200.
	a.call(ctx, p.AppointmentID, opRead, ctx.Sender())
}

var (
	errPayBusy        = problem.New(problem.Unavailable, "The payment is being updated; retry shortly.")
	errPayUnreachable = problem.New(problem.Unavailable, "The payment provider could not be reached to read the payment; retry shortly.")
)

// readDone decides what a redirect provider's read of a payment says:
// paid, and refunded beyond what slotd knew. The notice is answered once
// that is durable.
func (a *businessActor) readDone(ctx actor.Context, m *payDone) {
	reply := func(err error) {
		if m.reply != nil {
			ctx.Send(m.reply, &Reply[Done]{Err: err})
		}
	}
	if m.err != nil {
		a.env.Log.Warn("payment provider read failed", "business", a.h.ID, "appointment", m.id, "err", m.err)
		reply(errPayUnreachable)
		a.drive(ctx, m.id)
		return
	}
	now := a.now()
	var chs []*record.Change
	st := a.state
	if m.state.Paid {
		if ch := ledger.DecidePaid(st, m.id, "", now, a.ids); ch != nil {
			chs = append(chs, ch)
			st, _ = ledger.Apply(st, st.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
		}
	}
	if st != nil {
		if ch := ledger.DecideRefunded(st, m.id, "", int(m.state.RefundedCents), now, a.ids); ch != nil {
			chs = append(chs, ch)
		}
	}
	if len(chs) == 0 {
		respondAfterTo(a, ctx, m.reply)
		a.drive(ctx, m.id)
		return
	}
	for i, ch := range chs {
		var to *actor.PID
		if i == len(chs)-1 {
			to = m.reply
		}
		a.commitPay(ctx, ch, to)
	}
}

// respondAfterTo answers Done to pid once every write in flight is durable.
func respondAfterTo(a *businessActor, ctx actor.Context, pid *actor.PID) {
	if pid == nil {
		return
	}
	root := ctx.ActorSystem().Root
	a.after(func(err error) {
		if err != nil {
			err = problem.Wrap(err)
		}
		root.Send(pid, &Reply[Done]{Err: err})
	})
}
