package ledger

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// The prepayment decisions of decisions §5. A booking that needs payment
// is first reserved (a record.Checkout holding its time) while the actor
// asks the provider for a checkout outside its mailbox; the provider's
// answer completes the reservation into a pending_payment appointment
// with its Payment, or releases it. Everything after that — paid,
// expired, refunded, cancelled — is a decision on the Payment, made here
// against the state and journalled like any other write; what slotd still
// owes the provider (a cancel, a refund) is part of the Payment, so a
// restart finds it and carries it out.

// DefaultHoldMinutes is how long an unpaid booking holds its time when the
// business does not say (decisions §5).
const DefaultHoldMinutes = 15

// needsPayment reports whether a booking of svc needs prepayment, and
// the payment it needs: the deposit when the service has one, else the
// appointment's total price, in the business's currency. A booking whose
// amount is zero (a free service) needs none: there is nothing to pay.
func needsPayment(s *State, svc *model.Service, a *model.Appointment) (model.Payment, bool) {
	if !s.Business.Payments.RequiresPayment && !svc.PaymentRequired {
		return model.Payment{}, false
	}
	p := model.Payment{AppointmentID: a.ID, Provider: s.Business.Payments.Provider, Currency: s.Business.Currency,
		Status: model.PaymentPending}
	switch {
	case a.DepositCents != nil && *a.DepositCents > 0:
		p.AmountCents, p.AmountKind = *a.DepositCents, model.AmountDeposit
	case a.TotalPriceCents != nil:
		p.AmountCents, p.AmountKind = *a.TotalPriceCents, model.AmountFull
	default:
		p.AmountCents, p.AmountKind = a.Service.PriceCents, model.AmountFull
	}
	return p, p.AmountCents > 0
}

// reserve turns a decided booking that needs payment p into a reservation:
// the change that holds its time while the checkout is created. cu is a
// customer to create on completion, nil when the customer is on file.
func reserve(ch *record.Change, a model.Appointment, cu *model.Customer, p model.Payment, now time.Time, ids IDs) {
	a.Status = model.PendingPayment
	p.ID, p.CreatedAt, p.UpdatedAt = ids.UUID(), now, now
	ch.Checkouts = []record.Checkout{{Appointment: a, Customer: cu, Payment: p}}
}

// Checkout returns the open reservation of appointment id, or nil. It is
// shared: never modify it.
func (s *State) Checkout(id uuid.UUID) *record.Checkout {
	co, _ := s.checkouts.Get(id)
	return co
}

// CheckoutByKey returns the open reservation made by the request with
// Idempotency-Key key, or nil.
func (s *State) CheckoutByKey(key string) *record.Checkout {
	if id, ok := s.checkoutKeys.Get(key); ok {
		return s.Checkout(id)
	}
	return nil
}

// Checkouts returns the open reservations, by appointment id.
func (s *State) Checkouts() []record.Checkout {
	out := make([]record.Checkout, 0, s.checkouts.Len())
	s.checkouts.Ascend(nil, func(_ uuid.UUID, co *record.Checkout) bool {
		out = append(out, *co)
		return true
	})
	return out
}

// Payment returns the payment of appointment id, or nil. It is shared:
// never modify it.
func (s *State) Payment(id uuid.UUID) *model.Payment {
	p, _ := s.payments.Get(id)
	return p
}

// PaymentByProviderID returns the payment the provider knows as pid, or nil.
func (s *State) PaymentByProviderID(pid string) *model.Payment {
	if id, ok := s.providerIDs.Get(pid); ok {
		return s.Payment(id)
	}
	return nil
}

// PaymentWork returns the appointments whose payment still waits for
// something (to be paid, cancelled or refunded) and the open
// reservations: what the actor must drive after a restart.
func (s *State) PaymentWork() []uuid.UUID {
	var out []uuid.UUID
	s.openPay.Ascend(nil, func(id uuid.UUID, _ struct{}) bool {
		out = append(out, id)
		return true
	})
	s.checkouts.Ascend(nil, func(id uuid.UUID, _ *record.Checkout) bool {
		out = append(out, id)
		return true
	})
	return out
}

// HasPaymentWork reports whether PaymentWork is not empty.
func (s *State) HasPaymentWork() bool { return s.openPay.Len() > 0 || s.checkouts.Len() > 0 }

// HasTimedWork reports whether something of the business waits for a
// deadline or a provider with no request to wake it: payment work, an
// active hold, a waiting entry, a calendar source to pull, a reminder to
// send. Its actor is started at boot.
func (s *State) HasTimedWork() bool {
	if s.HasPaymentWork() || s.liveHolds.Len() > 0 || s.waiting.Len() > 0 {
		return true
	}
	if _, pulls := s.NextPull(); pulls {
		return true
	}
	_, owed := s.NextReminder(time.Time{})
	return owed
}

// CheckoutCreated is what the provider answered for a reservation's
// checkout.
type CheckoutCreated struct {
	ProviderPaymentID, CheckoutURL, ClientSecret string
}

// DecideCheckoutDone completes reservation id once its checkout exists
// (decisions §5): the pending_payment appointment, its customer (found by
// e-mail again, in case another booking created it meanwhile), the Payment
// expiring holdMinutes after the reservation, appointment.created and the
// payment request e-mail. nil when the reservation is no longer open.
func DecideCheckoutDone(s *State, id uuid.UUID, c CheckoutCreated, now time.Time, ids IDs) (*record.Change, *model.Appointment, *model.Payment) {
	co := s.Checkout(id)
	if co == nil {
		return nil, nil, nil
	}
	ch := &record.Change{At: now, Closed: []uuid.UUID{id}}
	a := co.Appointment
	if co.Customer != nil {
		if on := s.CustomerByEmail(co.Customer.Email); on != nil {
			a.CustomerID = on.ID
		} else {
			ch.Customers = []model.Customer{*co.Customer}
			ch.Events = append(ch.Events, record.Event{ID: ids.Event(now), Type: model.EventCustomerCreated, CreatedAt: now, Subject: co.Customer.ID})
		}
	}
	p := co.Payment
	p.ProviderPaymentID, p.CheckoutURL, p.ClientSecret = c.ProviderPaymentID, c.CheckoutURL, c.ClientSecret
	p.ExpiresAt = p.CreatedAt.Add(time.Duration(holdMinutes(s)) * time.Minute)
	p.UpdatedAt = now
	ch.Appointments = []model.Appointment{a}
	ch.Payments = []model.Payment{p}
	ch.Events = append(ch.Events, record.Event{ID: ids.Event(now), Type: model.EventAppointmentCreated, CreatedAt: now, Subject: a.ID})
	if cu := CustomerIn(s, ch, a.CustomerID); cu != nil && cu.Email != "" {
		ch.Mails = []record.Mail{{ID: ids.Mail(now), Kind: model.MailConfirmation, To: cu.Email, Appointment: a.ID, At: now}}
	}
	return ch, &ch.Appointments[0], &ch.Payments[0]
}

// DecideCheckoutFailed releases reservation id: its time is free again
// and nothing else remains of it. nil when it is no longer open.
func DecideCheckoutFailed(s *State, id uuid.UUID, now time.Time) *record.Change {
	if s.Checkout(id) == nil {
		return nil
	}
	ch := &record.Change{At: now, Closed: []uuid.UUID{id}}
	restoreHold(s, ch, id, now)
	return ch
}

// DecidePaid decides the provider's word that the payment of appointment
// id succeeded (event is its event id, "" when the provider has none).
// A pending payment confirms the appointment: payment.succeeded, then
// appointment.confirmed and the confirmation e-mail. Money that arrives
// after the appointment stopped waiting for it (expired, or moved on by
// the status endpoint) is owed back in full: payment.succeeded now, the
// refund and payment.refunded once the provider has made it. A payment
// that already succeeded, or an event seen before, changes nothing.
func DecidePaid(s *State, id uuid.UUID, event string, now time.Time, ids IDs) *record.Change {
	p := s.Payment(id)
	if p == nil || seen(p, event) {
		return nil
	}
	np := *p
	np.Seen, np.UpdatedAt = remember(p.Seen, event), now
	ch := &record.Change{At: now}
	switch p.Status {
	case model.PaymentPending:
		np.Status = model.PaymentSucceeded
		ch.Events = []record.Event{{ID: ids.Event(now), Type: model.EventPaymentSucceeded, CreatedAt: now, Subject: id}}
		if a := s.Appointment(id); a != nil && a.Status == model.PendingPayment {
			a.Status, a.RemindFrom = model.Confirmed, now // reminders due while it waited are not sent late
			a.Touch(now)
			ch.Appointments = []model.Appointment{*a}
			ch.Events = append(ch.Events, record.Event{ID: ids.Event(now), Type: model.EventAppointmentConfirmed, CreatedAt: now, Subject: id})
			if cu := s.Customer(a.CustomerID); cu != nil && cu.Email != "" {
				ch.Mails = []record.Mail{{ID: ids.Mail(now), Kind: model.MailConfirmation, To: cu.Email, Appointment: id, At: now}}
			}
		}
	case model.PaymentExpiredStatus, model.PaymentCancelled:
		np.Status, np.CancelOwed, np.RefundOwed = model.PaymentSucceeded, false, p.AmountCents
		ch.Events = []record.Event{{ID: ids.Event(now), Type: model.EventPaymentSucceeded, CreatedAt: now, Subject: id}}
	default: // paid before
		return nil
	}
	ch.Payments = []model.Payment{np}
	return ch
}

// DecideRefunded decides the provider's word that refunded cents of the
// payment of appointment id have been returned in all: payment.refunded
// when that is more than slotd knew of. The appointment's status does not
// change.
func DecideRefunded(s *State, id uuid.UUID, event string, refunded int, now time.Time, ids IDs) *record.Change {
	p := s.Payment(id)
	if p == nil || seen(p, event) || refunded <= p.RefundedCents || p.Status == model.PaymentPending {
		return nil
	}
	np := *p
	np.Seen, np.UpdatedAt = remember(p.Seen, event), now
	np.RefundedCents = min(refunded, p.AmountCents)
	np.Status = model.PaymentPartiallyRefunded
	if np.RefundedCents >= p.AmountCents {
		np.Status = model.PaymentRefunded
	}
	np.RefundOwed = max(0, p.RefundOwed-(np.RefundedCents-p.RefundedCents))
	return &record.Change{At: now, Payments: []model.Payment{np},
		Events: []record.Event{{ID: ids.Event(now), Type: model.EventPaymentRefunded, CreatedAt: now, Subject: id}}}
}

// DecideRefundIssued records that slotd's own refund of what it owed on
// the payment of appointment id went through.
func DecideRefundIssued(s *State, id uuid.UUID, now time.Time, ids IDs) *record.Change {
	p := s.Payment(id)
	if p == nil || p.RefundOwed == 0 {
		return nil
	}
	return DecideRefunded(s, id, "", p.RefundedCents+p.RefundOwed, now, ids)
}

// DecideExpire expires the payment of appointment id when it is still
// unpaid at its deadline: the appointment becomes payment_expired (its
// time is free), the provider payment is owed a cancel, and
// appointment.updated and a status e-mail go out. nil when there is
// nothing to expire (yet).
func DecideExpire(s *State, id uuid.UUID, now time.Time, ids IDs) *record.Change {
	p := s.Payment(id)
	if p == nil || p.Status != model.PaymentPending || now.Before(p.ExpiresAt) {
		return nil
	}
	np := *p
	np.Status, np.CancelOwed, np.UpdatedAt = model.PaymentExpiredStatus, true, now
	ch := &record.Change{At: now, Payments: []model.Payment{np}}
	if a := s.Appointment(id); a != nil && a.Status == model.PendingPayment {
		a.Status = model.PaymentExpired
		a.Touch(now)
		ch.Appointments = []model.Appointment{*a}
		ch.Events = []record.Event{{ID: ids.Event(now), Type: model.EventAppointmentUpdated, CreatedAt: now, Subject: id}}
		if cu := s.Customer(a.CustomerID); cu != nil && cu.Email != "" {
			ch.Mails = []record.Mail{{ID: ids.Mail(now), Kind: model.MailStatus, To: cu.Email, Appointment: id, At: now}}
		}
	}
	return ch
}

// DecideCancelDone records that the provider payment of appointment id is
// cancelled at the provider.
func DecideCancelDone(s *State, id uuid.UUID, now time.Time) *record.Change {
	p := s.Payment(id)
	if p == nil || !p.CancelOwed {
		return nil
	}
	np := *p
	np.CancelOwed, np.UpdatedAt = false, now
	return &record.Change{At: now, Payments: []model.Payment{np}}
}

// leaving returns the payment of appointment a as it becomes when a
// leaves pending_payment through the status endpoint (decisions §5):
// cancelled, and owed a cancel at the provider. nil when a has no
// pending payment.
func leaving(s *State, a *model.Appointment, now time.Time) []model.Payment {
	p := s.Payment(a.ID)
	if a.Status != model.PendingPayment || p == nil || p.Status != model.PaymentPending {
		return nil
	}
	np := *p
	np.Status, np.CancelOwed, np.UpdatedAt = model.PaymentCancelled, true, now
	return []model.Payment{np}
}

func holdMinutes(s *State) int {
	if m := s.Business.Payments.HoldMinutes; m > 0 {
		return m
	}
	return DefaultHoldMinutes
}

func seen(p *model.Payment, event string) bool {
	return event != "" && slices.Contains(p.Seen, event)
}

// remember returns seen with event added, the oldest dropped beyond
// model.MaxSeenEvents. seen itself is not modified.
func remember(seen []string, event string) []string {
	if event == "" {
		return seen
	}
	out := append(slices.Clone(seen), event)
	if len(out) > model.MaxSeenEvents {
		out = out[len(out)-model.MaxSeenEvents:]
	}
	return out
}

// PaymentIn is the payment of appointment id that ch writes, or nil.
func PaymentIn(ch *record.Change, id uuid.UUID) *model.Payment {
	for i := range ch.Payments {
		if ch.Payments[i].AppointmentID == id {
			return &ch.Payments[i]
		}
	}
	return nil
}

// CustomerIn finds customer id among those change ch (being decided
// against s; nil for none) creates, or in s.
func CustomerIn(s *State, ch *record.Change, id uuid.UUID) *model.Customer {
	if ch != nil {
		for i := range ch.Customers {
			if ch.Customers[i].ID == id {
				return &ch.Customers[i]
			}
		}
	}
	return s.Customer(id)
}
