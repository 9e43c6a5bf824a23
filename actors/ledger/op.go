package ledger

import (
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
	Appointment *model.Appointment   // AnswerBooked
	Customer    *model.Customer      // AnswerBooked (the appointment's customer), AnswerCustomer
	Payment     *model.Payment       // AnswerBooked, when the booking needs prepayment
	Hold        *model.Hold          // AnswerHold
	Entry       *model.WaitlistEntry // AnswerEntry
	Refused     *problem.Error       // AnswerRefused
	// Status and Body are an answer journalled as its bytes, by a version
	// from before the facts (AnswerBody).
	Status   int
	Body     []byte
	Replayed bool
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
