package record

import (
	"github.com/slotd/slotd/actors/model"
)

// Checkout is a booking that needs prepayment, reserved while its
// checkout is created at the provider (decisions §5). The reservation
// holds the appointment's time from the moment it is journalled, so no
// other booking can take it while the provider answers; it is not an
// appointment yet (no read shows it, no event or e-mail exists). A later
// record closes it (Change.Closed): completed into an appointment with
// its payment and stored answer, or released. A reservation found open
// at start-up is completed or released then, with the same provider
// Idempotency-Key, so a crash leaves neither an orphan booking nor a
// second checkout.
type Checkout struct {
	Appointment model.Appointment // status pending_payment
	Customer    *model.Customer   // a customer to create on completion; nil when on file
	Payment     model.Payment     // amount, currency and kind; no provider payment yet
	Idem        Idem              // the request; its answer is stored on completion
}

func (e *w) payment(p *model.Payment) {
	e.id(p.ID)
	e.id(p.AppointmentID)
	putEnum(e, p.Provider, model.Providers)
	e.str(p.ProviderPaymentID)
	e.i(int64(p.AmountCents))
	e.str(p.Currency)
	putEnum(e, p.AmountKind, model.AmountKinds)
	putEnum(e, p.Status, model.PaymentStatuses)
	e.i(int64(p.RefundedCents))
	e.time(p.CreatedAt)
	e.time(p.UpdatedAt)
	e.str(p.CheckoutURL)
	e.str(p.ClientSecret)
	e.time(p.ExpiresAt)
	e.bool(p.CancelOwed)
	e.i(int64(p.RefundOwed))
	e.u(uint64(len(p.Seen)))
	for _, s := range p.Seen {
		e.str(s)
	}
}

func (d *r) payment(p *model.Payment) {
	*p = model.Payment{ID: d.id(), AppointmentID: d.id(), Provider: getEnum(d, model.Providers), ProviderPaymentID: d.str(),
		AmountCents: d.int(), Currency: d.str(), AmountKind: getEnum(d, model.AmountKinds),
		Status: getEnum(d, model.PaymentStatuses), RefundedCents: d.int(),
		CreatedAt: d.time(), UpdatedAt: d.time(), CheckoutURL: d.str(), ClientSecret: d.str(), ExpiresAt: d.time(),
		CancelOwed: d.bool(), RefundOwed: d.int()}
	if n := d.n(1); n > 0 {
		p.Seen = make([]string, n)
		for i := range p.Seen {
			p.Seen[i] = d.str()
		}
	}
}

func (e *w) payments(ps []model.Payment) { putList(e, ps, (*w).payment) }
func (d *r) payments() []model.Payment   { return getList(d, 40, (*r).payment) }
func (e *w) checkouts(cs []Checkout)     { putList(e, cs, (*w).checkout) }
func (d *r) checkouts() []Checkout       { return getList(d, 100, (*r).checkout) }

func (e *w) checkout(c *Checkout) {
	e.appointment(&c.Appointment)
	e.bool(c.Customer != nil)
	if c.Customer != nil {
		e.customer(c.Customer)
	}
	e.payment(&c.Payment)
	e.idem(&c.Idem)
}

func (d *r) checkout(c *Checkout) {
	d.appointment(&c.Appointment)
	if d.bool() {
		c.Customer = new(model.Customer)
		d.customer(c.Customer)
	}
	d.payment(&c.Payment)
	c.Idem = *d.idem()
}

// decodePaymentPart reads the payment part of a version 2 change: it came
// last, untagged, and only when the write touched payments.
func decodePaymentPart(d *r, p *parts) {
	if len(d.b) == 0 || d.err != nil {
		return
	}
	p.payments = d.payments()
	p.checkouts = d.checkouts()
	p.closed = d.ids()
}
