package ledger

import (
	"fmt"
	"time"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// An Op is one write of a business: the command and its decision in one
// type. The business's actor decides it against its state in one step
// (business.Do) and journals the change; R is what the caller gets back.
// A new write is a type beside its decision, here in ledger, and the
// handler that sends it (directory.Do): nothing in between names it.
//
// Decide must not change s: it returns the change, which the actor
// applies once it is journalled. A nil change with a nil error is a
// write that changes nothing (answered at once, after any write in
// flight).
type Op[R any] interface {
	Decide(s *State, now time.Time, ids IDs) (*record.Change, R, error)
}

// An IdempotentOp is an Op whose answer is kept under the request's
// idempotency key (api-v1 §4.1), for 24 hours: a repeat gets the same
// answer, refusals included. Operation names it in the key's record.
type IdempotentOp interface {
	Op[*Answer]
	Operation() model.Operation
}

// Answer is the outcome of an idempotent request, as facts: what the
// write created, or the refusal it stored. The engine renders nothing and
// chooses no status; the transport renders the facts with its one
// renderer, so a repeat of the request within 24 hours, answered from the
// same facts (Replayed set), gets the same status and the same bytes.
type Answer struct {
	Kind        record.AnswerKind
	Appointment *model.Appointment       // AnswerBooked
	Customer    *model.Customer          // AnswerBooked (the appointment's customer), AnswerCustomer
	Payment     *model.Payment           // AnswerBooked, when the booking needs prepayment
	Hold        *model.Hold              // AnswerHold
	Entry       *model.WaitlistEntry     // AnswerEntry
	Series      *model.AppointmentSeries // AnswerSeries, with its occurrences in Occurrences
	Basket      *model.Basket            // AnswerBasket, with its appointments in Occurrences
	Occurrences []model.Appointment
	Refused     *problem.Error // AnswerRefused
	// Status and Body are an answer journalled as its bytes, by a version
	// from before the facts (AnswerBody).
	Status   int
	Body     []byte
	Replayed bool
}

// AnswerOf is the answer of kind k that change ch (decided against s)
// gives: its first appointment, customer, hold or entry, which is what
// the write created. An idempotent write's Decide answers with it, and a
// repeat of its key answers with it again from the journalled record
// (business's stored answers), so the first answer and its replay are
// made by one function and cannot drift apart.
func AnswerOf(s *State, ch *record.Change, k record.AnswerKind) (*Answer, error) {
	switch {
	case k == record.AnswerBooked && len(ch.Appointments) > 0:
		appt := &ch.Appointments[0]
		return Booked(s, ch, appt, PaymentIn(ch, appt.ID)), nil
	case k == record.AnswerCustomer && len(ch.Customers) > 0:
		return &Answer{Kind: k, Customer: &ch.Customers[0]}, nil
	case k == record.AnswerHold && len(ch.Holds) > 0:
		return &Answer{Kind: k, Hold: &ch.Holds[0]}, nil
	case k == record.AnswerEntry && len(ch.Entries) > 0:
		return &Answer{Kind: k, Entry: &ch.Entries[0]}, nil
	case k == record.AnswerSeries && len(ch.Series) > 0:
		x := &ch.Series[0]
		return &Answer{Kind: k, Series: x, Occurrences: ch.Appointments, Customer: CustomerIn(s, ch, x.CustomerID)}, nil
	case k == record.AnswerBasket && len(ch.Baskets) > 0:
		x := &ch.Baskets[0]
		return &Answer{Kind: k, Basket: x, Occurrences: ch.Appointments, Customer: CustomerIn(s, ch, x.CustomerID)}, nil
	}
	return nil, fmt.Errorf("ledger: the change has no subject for answer kind %d", k)
}

// answered is the end of an idempotent write's Decide: ch and its answer
// of kind k. A change without its subject is a broken decision, an
// internal error.
func answered(s *State, ch *record.Change, k record.AnswerKind) (*record.Change, *Answer, error) {
	ans, err := AnswerOf(s, ch, k)
	if err != nil {
		return nil, nil, problem.Wrap(err)
	}
	return ch, ans, nil
}

// Done is the answer of an Op that has nothing to return.
type Done struct{}

// deref is *p, or R's zero value when p is nil (a refused decision).
func deref[R any](p *R) R {
	var v R
	if p != nil {
		v = *p
	}
	return v
}
