package ledger

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// The prepayment lifecycle of decisions §5, through the public decisions
// and Apply (each change replayed through the journal's codec).

var (
	slotA = t0.Add(48 * time.Hour) // Monday 10:00 in Amsterdam
	slotB = slotA.Add(3 * time.Hour)
	paid  = model.Payments{Provider: "client_secret", RequiresPayment: true, HoldMinutes: 15}
)

// payState returns a business taking payment as pay, with services Cut
// (3500, 3000 on Monday mornings), Colour (8500, deposit 2000), Free (0)
// and Zero (4000, deposit 0), all performed by its one staff member;
// perService: every service requires payment.
func payState(t *testing.T, pay model.Payments, perService bool) *State {
	t.Helper()
	sp := spec()
	sp.Business.Payments = pay
	dep, zero := 2000, 0
	sp.Services[0].PricingRules = []model.PricingRule{{Days: []time.Weekday{time.Monday}, From: 9 * 60, To: 12 * 60, PriceCents: 3000}}
	sp.Services[1].DepositCents = &dep
	sp.Services = append(sp.Services,
		model.Service{ID: uuid.New(), Name: "Free", DurationMinutes: 30, IsActive: true, CategoryID: sp.Categories[0].ID},
		model.Service{ID: uuid.New(), Name: "Zero", DurationMinutes: 30, PriceCents: 4000, DepositCents: &zero, IsActive: true, CategoryID: sp.Categories[0].ID})
	for i := range sp.Services {
		sp.Services[i].PaymentRequired = perService
		sp.Staff[0].AssignedServiceIDs = append(sp.Staff[0].AssignedServiceIDs, sp.Services[i].ID)
	}
	s, _ := put(t, nil, sp, t0)
	return s
}

// create books service name at start with the staff member pinned.
func create(t *testing.T, s *State, name string, start time.Time, email string, ids IDs) (*record.Change, *model.Appointment, error) {
	staff := s.Staff[0].ID
	in := &CreateInput{Start: start, StaffID: &staff, Customer: model.Customer{FirstName: "Noor", Email: email}}
	for _, svc := range s.Services {
		if svc.Name == name {
			in.ServiceID = svc.ID
		}
	}
	return DecideCreate(s, in, t0, ids)
}

// step applies a change that must exist, as the journal holds it.
func step(t *testing.T, s *State, ch *record.Change) *State {
	t.Helper()
	require.NotNil(t, ch, "a change is decided")
	return replayed(t, s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
}

func eventTypes(ch *record.Change) []string {
	var out []string
	for _, e := range ch.Events {
		out = append(out, e.Type)
	}
	return out
}

func TestCreateNeedsPayment(t *testing.T) {
	noProvider := paid
	noProvider.Provider = ""
	for _, tc := range []struct {
		name, service, email string
		pay                  model.Payments
		perService           bool         // the service, not the business, requires payment
		want                 problem.Code // a refusal
		amount               int          // 0: no payment needed
		kind                 string
	}{
		{"full price is the total", "Cut", "noor@example.com", paid, false, "", 3000, model.AmountFull},
		{"deposit", "Colour", "noor@example.com", paid, false, "", 2000, model.AmountDeposit},
		{"zero deposit is the full price", "Zero", "noor@example.com", paid, false, "", 4000, model.AmountFull},
		{"customer on file", "Cut", "eva@example.com", paid, false, "", 3000, model.AmountFull},
		{"service requires payment", "Colour", "noor@example.com", model.Payments{Provider: "redirect"}, true, "", 2000, model.AmountDeposit},
		{"no provider", "Cut", "noor@example.com", noProvider, false, problem.PaymentsUnavailable, 0, ""},
		{"free service", "Free", "noor@example.com", paid, false, "", 0, ""},
		{"payment not required", "Cut", "noor@example.com", model.Payments{Provider: "redirect"}, false, "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := payState(t, tc.pay, tc.perService)
			ch, a, err := create(t, s, tc.service, slotA, tc.email, &fixedIDs{})
			if tc.want != "" {
				require.Equal(t, tc.want, code(err))
				require.Nil(t, ch)
				return
			}
			require.NoError(t, err)
			if tc.amount == 0 {
				require.Empty(t, ch.Checkouts)
				require.Len(t, ch.Appointments, 1)
				require.Equal(t, model.Confirmed, a.Status)
				require.Contains(t, eventTypes(ch), model.EventAppointmentCreated)
				return
			}
			require.Len(t, ch.Checkouts, 1)
			require.Empty(t, ch.Appointments, "a reservation is not an appointment yet")
			require.Empty(t, ch.Events, "no event or e-mail yet")
			require.Empty(t, ch.Mails)
			require.Empty(t, ch.Customers, "a new customer waits inside the reservation")
			co := ch.Checkouts[0]
			require.Equal(t, model.PendingPayment, co.Appointment.Status)
			require.Equal(t, co.Appointment, *a)
			if tc.email == "eva@example.com" { // on file
				require.Nil(t, co.Customer)
				require.Equal(t, s.CustomerByEmail(tc.email).ID, co.Appointment.CustomerID)
			} else {
				require.NotNil(t, co.Customer)
				require.Equal(t, tc.email, co.Customer.Email)
				require.Equal(t, co.Customer.ID, co.Appointment.CustomerID)
			}
			p := co.Payment
			p.ID, p.CreatedAt, p.UpdatedAt = uuid.Nil, time.Time{}, time.Time{}
			require.Equal(t, model.Payment{AppointmentID: a.ID, Provider: tc.pay.Provider, AmountCents: tc.amount,
				Currency: "EUR", AmountKind: tc.kind, Status: model.PaymentPending}, p)
		})
	}
}

// reserved returns a state holding a reservation: a Cut at slotA for Noor.
func reserved(t *testing.T, ids IDs) (*State, uuid.UUID) {
	s := payState(t, paid, false)
	ch, a, err := create(t, s, "Cut", slotA, "noor@example.com", ids)
	require.NoError(t, err)
	return step(t, s, ch), a.ID
}

// pending returns a state holding a pending_payment appointment, paid by pi_1.
func pending(t *testing.T, ids IDs) (*State, uuid.UUID) {
	s, id := reserved(t, ids)
	ch, _, _ := DecideCheckoutDone(s, id, CheckoutCreated{ProviderPaymentID: "pi_1", ClientSecret: "pi_1_secret"}, t0.Add(20*time.Second), ids)
	return step(t, s, ch), id
}

// The payment refusal comes after every booking rule; the hold is the
// business's holdMinutes, 15 when unset.
func TestNoProviderAndHoldMinutes(t *testing.T) {
	s := payState(t, model.Payments{RequiresPayment: true}, false)
	ch, _, err := create(t, s, "Free", slotA, "noor@example.com", &fixedIDs{})
	require.NoError(t, err, "a free booking needs no provider")
	s = step(t, s, ch)
	_, _, err = create(t, s, "Cut", slotA, "kim@example.com", &fixedIDs{})
	require.Equal(t, problem.SlotTaken, code(err))

	for hold, want := range map[int]time.Duration{0: 15 * time.Minute, 40: 40 * time.Minute} {
		pay := paid
		pay.HoldMinutes = hold
		s := payState(t, pay, false)
		ids := &fixedIDs{}
		ch, a, err := create(t, s, "Cut", slotA, "noor@example.com", ids)
		require.NoError(t, err)
		s = step(t, s, ch)
		_, _, p := DecideCheckoutDone(s, a.ID, CheckoutCreated{ProviderPaymentID: "pi_1"}, t0.Add(time.Minute), ids)
		require.Equal(t, t0.Add(want), p.ExpiresAt, "holdMinutes %d", hold)
	}
}

func TestReservationThenCheckoutDone(t *testing.T) {
	ids := &fixedIDs{}
	s, id := reserved(t, ids)
	require.Nil(t, s.Appointment(id), "no read shows a reservation")
	require.NotNil(t, s.Checkout(id))
	require.Nil(t, s.Payment(id))
	require.True(t, s.HasPaymentWork())
	require.Equal(t, []uuid.UUID{id}, s.PaymentWork())
	_, _, err := create(t, s, "Cut", slotA, "other@example.com", ids)
	require.Equal(t, problem.SlotTaken, code(err), "the reservation holds its time")

	done := t0.Add(20 * time.Second)
	ch, a, p := DecideCheckoutDone(s, id, CheckoutCreated{ProviderPaymentID: "pi_1", ClientSecret: "pi_1_secret"}, done, ids)
	require.ElementsMatch(t, []string{model.EventAppointmentCreated, model.EventCustomerCreated}, eventTypes(ch))
	require.Len(t, ch.Mails, 1)
	require.Equal(t, model.MailConfirmation, ch.Mails[0].Kind)
	require.Equal(t, "noor@example.com", ch.Mails[0].To)
	require.Equal(t, model.PendingPayment, a.Status)
	require.Equal(t, t0.Add(15*time.Minute), p.ExpiresAt, "createdAt + holdMinutes")
	require.Equal(t, "pi_1_secret", p.ClientSecret)

	s = step(t, s, ch)
	require.Nil(t, s.Checkout(id))
	got := s.Appointment(id)
	require.Equal(t, model.PendingPayment, got.Status)
	require.Equal(t, s.CustomerByEmail("noor@example.com").ID, got.CustomerID, "the customer is created")
	require.Equal(t, model.PaymentPending, s.Payment(id).Status)
	require.Equal(t, 3000, s.Payment(id).AmountCents)
	require.Equal(t, s.Payment(id), s.PaymentByProviderID("pi_1"))
	require.Nil(t, s.PaymentByProviderID("pi_2"))
	require.Equal(t, []uuid.UUID{id}, s.PaymentWork(), "a pending payment is open work")
	_, _, err = create(t, s, "Cut", slotA, "other@example.com", ids)
	require.Equal(t, problem.SlotTaken, code(err), "the appointment holds its time")

	again, _, _ := DecideCheckoutDone(s, id, CheckoutCreated{ProviderPaymentID: "pi_x"}, done, ids)
	require.Nil(t, again, "a closed reservation completes once")
}

// A customer created by another write while the checkout was made is
// used, not created twice.
func TestCheckoutDoneFindsCustomerCreatedMeanwhile(t *testing.T) {
	ids := &fixedIDs{}
	s, id := reserved(t, ids)
	cch, cu, err := DecideCustomer(s, model.Customer{FirstName: "Noor", Email: "Noor@Example.com"}, t0, ids)
	require.NoError(t, err)
	s = step(t, s, cch)
	ch, a, _ := DecideCheckoutDone(s, id, CheckoutCreated{ProviderPaymentID: "pi_1"}, t0, ids)
	require.Equal(t, []string{model.EventAppointmentCreated}, eventTypes(ch))
	require.Empty(t, ch.Customers)
	require.Equal(t, cu.ID, a.CustomerID)
	s = step(t, s, ch)
	require.Equal(t, 2, s.CustomerCount())
}

func TestCheckoutFailedReleases(t *testing.T) {
	ids := &fixedIDs{}
	s := payState(t, paid, false)
	rch, a, err := create(t, s, "Cut", slotA, "noor@example.com", ids)
	require.NoError(t, err)
	s, id := step(t, step(t, s, rch), rch), a.ID // a replay may see a record twice
	s = step(t, s, DecideCheckoutFailed(s, id, t0.Add(time.Second)))
	require.Nil(t, s.Checkout(id))
	require.Nil(t, s.Appointment(id))
	require.Nil(t, s.Payment(id))
	require.Nil(t, s.CustomerByEmail("noor@example.com"), "nothing remains of the reservation")
	require.False(t, s.HasPaymentWork())
	require.Empty(t, s.PaymentWork())
	require.Nil(t, DecideCheckoutFailed(s, id, t0))
	ch, _, err := create(t, s, "Cut", slotA, "other@example.com", ids)
	require.NoError(t, err, "the time is free again")
	require.Len(t, ch.Checkouts, 1)
}

func TestPaidConfirms(t *testing.T) {
	ids := &fixedIDs{}
	s, id := pending(t, ids)
	now := t0.Add(5 * time.Minute)
	ch := DecidePaid(s, id, "evt_pay_1", now, ids)
	require.Equal(t, []string{model.EventPaymentSucceeded, "appointment.confirmed"}, eventTypes(ch), "in that order")
	require.Len(t, ch.Mails, 1)
	require.Equal(t, model.MailConfirmation, ch.Mails[0].Kind)
	s = step(t, s, ch)
	require.Equal(t, model.Confirmed, s.Appointment(id).Status)
	require.Equal(t, now, s.Appointment(id).ArmedAt(), "reminders due while it waited for the payment are not sent late")
	require.Equal(t, model.PaymentSucceeded, s.Payment(id).Status)
	require.False(t, s.HasPaymentWork())
	require.Nil(t, DecidePaid(s, id, "evt_pay_1", now, ids), "the same event again")
	require.Nil(t, DecidePaid(s, id, "evt_pay_2", now, ids), "paid twice")
	require.Nil(t, DecideExpire(s, id, now.Add(time.Hour), ids), "a paid payment never expires")
	require.Nil(t, DecidePaid(s, uuid.New(), "evt_pay_3", now, ids), "unknown appointment")

	// The provider reports refunds; the appointment keeps its status.
	ch = DecideRefunded(s, id, "evt_ref_1", 1000, now, ids)
	require.Equal(t, []string{model.EventPaymentRefunded}, eventTypes(ch))
	s = step(t, s, ch)
	require.Equal(t, model.PaymentPartiallyRefunded, s.Payment(id).Status)
	require.Equal(t, 1000, s.Payment(id).RefundedCents)
	require.Nil(t, DecideRefunded(s, id, "evt_ref_2", 1000, now, ids), "the same total again")
	require.Nil(t, DecideRefunded(s, id, "evt_ref_1", 3000, now, ids), "an event seen before")
	s = step(t, s, DecideRefunded(s, id, "evt_ref_3", 3000, now, ids))
	require.Equal(t, model.PaymentRefunded, s.Payment(id).Status)
	require.Equal(t, 3000, s.Payment(id).RefundedCents)
	require.Equal(t, model.Confirmed, s.Appointment(id).Status)
	require.False(t, s.HasPaymentWork())
}

func TestExpiryThenLatePayment(t *testing.T) {
	ids := &fixedIDs{}
	s, id := pending(t, ids)
	deadline := t0.Add(15 * time.Minute)
	require.Nil(t, DecideExpire(s, id, deadline.Add(-time.Millisecond), ids), "not before the deadline")
	require.Nil(t, DecideRefunded(s, id, "evt_r", 100, deadline, ids), "nothing to refund while pending")
	ch := DecideExpire(s, id, deadline, ids)
	require.Equal(t, []string{model.EventAppointmentUpdated}, eventTypes(ch))
	s = step(t, s, ch)
	require.Equal(t, model.PaymentExpired, s.Appointment(id).Status)
	p := s.Payment(id)
	require.Equal(t, model.PaymentExpiredStatus, p.Status)
	require.True(t, p.CancelOwed)
	require.Equal(t, []uuid.UUID{id}, s.PaymentWork(), "the cancel is owed")
	require.Nil(t, DecideExpire(s, id, deadline.Add(time.Minute), ids), "expires once")
	free, _, err := create(t, s, "Cut", slotA, "other@example.com", ids)
	require.NoError(t, err, "the slot is free again")
	require.Len(t, free.Checkouts, 1)

	// Paid after all: owed back in full, the appointment stays expired.
	late := deadline.Add(2 * time.Minute)
	ch = DecidePaid(s, id, "evt_late", late, ids)
	require.Equal(t, []string{model.EventPaymentSucceeded}, eventTypes(ch))
	s = step(t, s, ch)
	p = s.Payment(id)
	require.Equal(t, model.PaymentSucceeded, p.Status)
	require.Equal(t, 3000, p.RefundOwed)
	require.Equal(t, model.PaymentExpired, s.Appointment(id).Status)
	require.True(t, s.HasPaymentWork())
	require.Equal(t, []uuid.UUID{id}, s.PaymentWork())
	require.Nil(t, DecidePaid(s, id, "evt_late", late, ids))

	ch = DecideRefundIssued(s, id, late.Add(time.Second), ids)
	require.Equal(t, []string{model.EventPaymentRefunded}, eventTypes(ch))
	s = step(t, s, ch)
	p = s.Payment(id)
	require.Equal(t, model.PaymentRefunded, p.Status)
	require.Equal(t, 0, p.RefundOwed)
	require.Equal(t, 3000, p.RefundedCents)
	require.Equal(t, model.PaymentExpired, s.Appointment(id).Status)
	require.False(t, s.HasPaymentWork())
	require.Nil(t, DecideRefundIssued(s, id, late, ids), "nothing owed any more")
}

func TestStatusCancelCancelsPayment(t *testing.T) {
	ids := &fixedIDs{}
	s, id := pending(t, ids)
	now := t0.Add(time.Minute)
	ch, a, err := DecideStatus(s, id, model.Cancelled, nil, now, ids)
	require.NoError(t, err)
	require.Equal(t, model.Cancelled, a.Status)
	require.Len(t, ch.Payments, 1)
	s = step(t, s, ch)
	p := s.Payment(id)
	require.Equal(t, model.PaymentCancelled, p.Status)
	require.True(t, p.CancelOwed)
	require.Equal(t, []uuid.UUID{id}, s.PaymentWork())
	require.Nil(t, DecideExpire(s, id, now.Add(time.Hour), ids), "a cancelled payment does not expire")

	s = step(t, s, DecideCancelDone(s, id, now.Add(time.Second)))
	require.False(t, s.Payment(id).CancelOwed)
	require.Equal(t, model.PaymentCancelled, s.Payment(id).Status)
	require.False(t, s.HasPaymentWork())
	require.Empty(t, s.PaymentWork())
	require.Nil(t, DecideCancelDone(s, id, now), "cancelled once")
	_, _, err = create(t, s, "Cut", slotA, "other@example.com", ids)
	require.NoError(t, err, "a cancelled appointment frees its time")
}

func TestSnapshotKeepsPayments(t *testing.T) {
	ids := &fixedIDs{}
	s, paidID := pending(t, ids) // pending payment pi_1 at slotA
	ch, a, err := create(t, s, "Colour", slotB, "kim@example.com", ids)
	require.NoError(t, err)
	s, openID := step(t, s, ch), a.ID // an open reservation at slotB

	b, err := record.EncodeSnapshot(Snapshot(s))
	require.NoError(t, err)
	snap, err := record.DecodeSnapshot(b)
	require.NoError(t, err)
	r, err := FromSnapshot(s.Seq, snap)
	require.NoError(t, err)
	require.Equal(t, *s.Checkout(openID), *r.Checkout(openID))
	require.Equal(t, *s.Payment(paidID), *r.Payment(paidID))
	require.Equal(t, paidID, r.PaymentByProviderID("pi_1").AppointmentID)
	require.ElementsMatch(t, []uuid.UUID{paidID, openID}, r.PaymentWork())
	require.Nil(t, r.Appointment(openID))
	for _, at := range []time.Time{slotA, slotB} {
		_, _, err = create(t, r, "Cut", at, "other@example.com", ids)
		require.Equal(t, problem.SlotTaken, code(err), "time held at %s", at)
	}

	// The restored reservation completes; the restored payment is paid.
	done, _, _ := DecideCheckoutDone(r, openID, CheckoutCreated{ProviderPaymentID: "pi_2"}, t0, ids)
	r = step(t, r, done)
	require.Equal(t, model.PendingPayment, r.Appointment(openID).Status)
	require.Equal(t, 2000, r.PaymentByProviderID("pi_2").AmountCents)
	r = step(t, r, DecidePaid(r, paidID, "evt_1", t0, ids))
	require.Equal(t, model.Confirmed, r.Appointment(paidID).Status)
}
