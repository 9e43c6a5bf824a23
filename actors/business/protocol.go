package business

import (
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
)

// The actor's protocol. Every request is a message that names the type of
// its answer, R, by embedding request[R], and says what the actor does with
// it (its run method, beside it); the actor answers it with exactly one
// *Reply[R]. The directory's one door (directory.Ask) is built on this, so
// a caller never sees an untyped message or reply:
//
//	Do[R]{Op}                    -> R                  a write: a ledger.Op, which carries
//	                                                   its own decision
//	DoOnce{Op, Idem}             -> *Answer            an idempotent write (ledger.IdempotentOp):
//	                                                   POST /appointments, /customers, /holds,
//	                                                   /waitlist-entries
//	Put{Spec}                    -> PutResult          world file or admin put (catalog.go)
//	Issue{Key}, Revoke{KeyID}    -> model.Key          API keys (catalog.go)
//	PaymentEvent{Event}          -> Done               a verified client_secret provider event
//	PaymentNotice{ProviderPaymentID} -> Done           a redirect provider's notice (payments.go)
//	Replay{EndpointID, DeliveryID} -> *model.Delivery  a webhook delivery sent again (webhooks.go)
//
// A request that waits on the payment provider says so (Patient), and is
// given the provider's timeout on top of the usual wait.
//
// A refusal is a *problem.Error in Reply.Err; an unexpected failure is an
// INTERNAL_ERROR problem that keeps its cause. The actor never speaks HTTP:
// it answers with facts, and the transport chooses the status.

// Request is a message the business actor answers with a *Reply[R].
type Request[R any] interface {
	answers(R)
	fail(err error) any
}

// request marks a message as a Request[R]; embed it.
type request[R any] struct{}

func (request[R]) answers(R) {}

// fail is the reply to the request when its handling failed with err.
func (request[R]) fail(err error) any { return &Reply[R]{Err: err} }

// Reply is the answer to a Request[R]: a value, or the error that refused
// or failed the request.
type Reply[R any] struct {
	Value R
	Err   error
}

// Done is the value of a request that has nothing to return.
type Done = ledger.Done

// Do carries a write to the business's actor: an operation that carries
// its own decision (ledger.Op). The actor decides it against its state and
// journals what it changes; a new write needs no message of its own.
type Do[R any] struct {
	request[R]
	Op ledger.Op[R]
}

// DoOnce carries an idempotent write: its answer is kept under Idem, and
// a repeat within 24 hours gets the same answer (api-v1 §4.1).
type DoOnce struct {
	request[*Answer]
	Op   ledger.IdempotentOp
	Idem IdemKey
}

// Patient is a request that may wait on the payment provider before it
// is answered: a booking that needs prepayment waits for its checkout.
type Patient interface {
	WaitsForProvider() bool
}

// WaitsForProvider reports whether m's write may wait for a checkout.
func (m *DoOnce) WaitsForProvider() bool {
	p, ok := m.Op.(interface{ MayPay() bool })
	return ok && p.MayPay()
}

// IdemKey identifies an idempotent request (api-v1 §4.1): the key and the
// body it was first used with. The operation is the request's own
// (ledger.IdempotentOp's Operation): the actor adds it.
type IdemKey struct {
	Key      string
	BodyHash [32]byte
	op       model.Operation
}

// Answer is the outcome of an idempotent request (ledger.Answer).
type Answer = ledger.Answer

// AppointmentView is an appointment with its customer, as an answer shows
// it (ledger.AppointmentView).
type AppointmentView = ledger.AppointmentView
