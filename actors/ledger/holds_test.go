package ledger

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// Holds and offers next to prepayment, through the decisions and the
// journal's codec.

// openState is payState's business with its staff member working round
// the clock, so that holds (which always judge the booking rules) fit.
func openState(t *testing.T, pay model.Payments) *State {
	t.Helper()
	sp := spec()
	sp.Business.Payments = pay
	dep := 2000
	sp.Services[1].DepositCents = &dep
	sp.Services = append(sp.Services, model.Service{ID: uuid.New(), Name: "Free", DurationMinutes: 30, IsActive: true, CategoryID: sp.Categories[0].ID})
	for i := range sp.Services {
		sp.Staff[0].AssignedServiceIDs = append(sp.Staff[0].AssignedServiceIDs, sp.Services[i].ID)
	}
	for d := range sp.Staff[0].Hours {
		sp.Staff[0].Hours[d] = []model.Span{{From: 0, To: 24 * 60}}
	}
	s, _ := put(t, nil, sp, t0)
	return s
}

func holdIn(s *State, name string, start time.Time, ttl time.Duration) *HoldInput {
	in := &HoldInput{Start: start, TTL: ttl}
	for _, svc := range s.Services {
		if svc.Name == name {
			in.ServiceID = svc.ID
		}
	}
	staff := s.Staff[0].ID
	in.StaffID = &staff
	return in
}

// TestPrepaymentWithoutProviderRefusesHoldsAndChecks: a booking that
// needs prepayment the business cannot take is PAYMENTS_UNAVAILABLE, so a
// hold and a check say so too, not "bookable".
func TestPrepaymentWithoutProviderRefusesHoldsAndChecks(t *testing.T) {
	s := openState(t, model.Payments{RequiresPayment: true})
	ids := &fixedIDs{}
	_, _, err := DecideHold(s, holdIn(s, "Cut", slotA, 5*time.Minute), t0, ids)
	require.Equal(t, problem.PaymentsUnavailable, problem.As(err).Code)
	vs, err := Check(s, &CheckInput{ServiceID: holdIn(s, "Cut", slotA, 0).ServiceID, Starts: []time.Time{slotA}}, t0)
	require.NoError(t, err)
	require.Equal(t, problem.PaymentsUnavailable, vs[0].Code)
	require.Equal(t, problem.PaymentsUnavailable, vs[0].Staff[0].Code)
	_, _, err = DecideHold(s, holdIn(s, "Free", slotA, 5*time.Minute), t0, ids)
	require.NoError(t, err, "nothing to pay: no provider needed")
}

// TestReleasedReservationGivesTheHoldBack: a booking with a hold that
// needs prepayment consumes the hold; if its checkout fails, the booking
// never happened and the hold is the client's again until it expires.
func TestReleasedReservationGivesTheHoldBack(t *testing.T) {
	s := openState(t, paid)
	ids := &fixedIDs{}
	ch, h, err := DecideHold(s, holdIn(s, "Colour", slotA, 5*time.Minute), t0, ids)
	require.NoError(t, err)
	s = step(t, s, ch)
	hold := h.ID
	ch, a, err := DecideCreate(s, &CreateInput{HoldID: &hold, Enforce: true, Customer: model.Customer{FirstName: "N", Email: "n@example.com"}}, t0, ids)
	require.NoError(t, err)
	require.Len(t, ch.Checkouts, 1, "a reservation")
	s = step(t, s, ch)
	require.Equal(t, model.HoldBooked, s.Hold(hold).Status)

	s = step(t, s, DecideCheckoutFailed(s, a.ID, t0.Add(time.Second)))
	back := s.Hold(hold)
	require.Equal(t, model.HoldActive, back.Status)
	require.Nil(t, back.Appointment)
	_, _, err = DecideHold(s, holdIn(s, "Colour", slotA, 5*time.Minute), t0, ids)
	require.Equal(t, problem.SlotTaken, problem.As(err).Code, "the time is held again")
	next, ok := s.NextHoldExpiry()
	require.True(t, ok)
	require.Equal(t, t0.Add(5*time.Minute), next)
}

// TestExtendingAnOfferMovesItsDeadline: the entry shows when its offer
// lapses, so extending the offer's hold moves the entry's offer too.
func TestExtendingAnOfferMovesItsDeadline(t *testing.T) {
	s := openState(t, model.Payments{})
	ids := &fixedIDs{}
	ch, a, err := create(t, s, "Cut", slotA, "a@example.com", ids)
	require.NoError(t, err)
	s = step(t, s, ch)
	in := holdIn(s, "Cut", slotA, 0)
	ch, e, err := DecideEntry(s, &EntryInput{ServiceID: in.ServiceID, StaffID: in.StaffID, From: slotA, To: slotA,
		Customer: model.Person{FirstName: "W", Email: "w@example.com"}}, t0, ids)
	require.NoError(t, err)
	s = step(t, s, ch)
	require.True(t, s.Waiting())

	ch, _, err = DecideStatus(s, a.ID, model.Cancelled, nil, t0, ids)
	require.NoError(t, err)
	AddOffers(s, ch, t0, ids)
	require.Len(t, ch.Holds, 1, "the freed start is offered")
	require.Equal(t, []string{"appointment.cancelled", model.EventWaitlistOffered}, eventTypes(ch))
	s = step(t, s, ch)
	got := s.Entry(e.ID)
	require.Equal(t, model.EntryOffered, got.Status)
	require.Equal(t, t0.Add(model.OfferTTL), got.Offer.ExpiresAt)

	ch, _, err = DecideExtend(s, got.Offer.HoldID, 20*time.Minute, t0.Add(time.Minute))
	require.NoError(t, err)
	s = step(t, s, ch)
	require.Equal(t, t0.Add(21*time.Minute), s.Entry(e.ID).Offer.ExpiresAt)
	require.Equal(t, t0.Add(21*time.Minute), s.Hold(got.Offer.HoldID).ExpiresAt)

	// The lapse returns it to waiting; with nobody else waiting, nothing
	// is offered, and the entry is not offered its own lapsed start again.
	ch = DecideExpiries(s, t0.Add(21*time.Minute), ids)
	require.NotNil(t, ch)
	AddOffers(s, ch, t0.Add(21*time.Minute), ids)
	s = step(t, s, ch)
	require.Equal(t, model.EntryWaiting, s.Entry(e.ID).Status)
	require.Len(t, ch.Holds, 1)

	// Past its window it expires.
	require.Nil(t, DecideExpiries(s, slotA, ids))
	ex := DecideExpiries(s, slotA.Add(time.Millisecond), ids)
	require.Equal(t, []model.EntryStatus{model.EntryExpired}, []model.EntryStatus{ex.Entries[0].Status})
	s = step(t, s, ex)
	require.False(t, s.Waiting())
	_, ok := s.NextEntryExpiry()
	require.False(t, ok)
}
