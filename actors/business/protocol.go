package business

import (
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/tenant"
	"github.com/slotd/slotd/storage/catalog"
	"github.com/slotd/slotd/storage/problem"
	"github.com/slotd/slotd/webhook/payment"
)

// The actor's protocol. Every request is a message that names the type of
// its answer, R, by embedding request[R]; the actor answers it with exactly
// one *Reply[R]. The directory's typed methods are built on this, so a
// caller never sees an untyped message or reply:
//
//	Put{Spec}                    -> PutResult          world file or admin put
//	Issue{Key}                   -> catalog.Key        a new API key
//	Revoke{KeyID}                -> catalog.Key        revoke a key
//	Book{In, Idem}               -> *Answer            POST /appointments
//	AddCustomer{In, Idem}        -> *Answer            POST /customers
//	Patch{ID, In}                -> AppointmentView    PATCH /appointments/{id}
//	SetStatus{ID, Status}        -> AppointmentView    POST /appointments/{id}/status
//	RegisterEndpoint{In, Secret} -> catalog.Endpoint   POST /webhooks (after its ping)
//	PatchEndpoint{ID, In}        -> catalog.Endpoint   PATCH /webhooks/{id}
//	DeleteEndpoint{ID}           -> Done               DELETE /webhooks/{id}
//	PaymentEvent{Event}          -> Done               a verified client_secret provider event
//	PaymentNotice{ProviderPaymentID} -> Done           a redirect provider's notice
//	CreateHold{In, Idem}         -> *Answer            POST /holds
//	ExtendHold{ID, TTL}          -> catalog.Hold       PATCH /holds/{id}
//	ReleaseHold{ID}              -> Done               DELETE /holds/{id}
//	AddEntry{In, Idem}           -> *Answer            POST /waitlist-entries
//	DeleteEntry{ID}              -> Done               DELETE /waitlist-entries/{id}
//
// A refusal is a *problem.Error in Reply.Err; an unexpected failure is an
// INTERNAL_ERROR problem that keeps its cause. The actor never speaks HTTP:
// the one status it ever holds is the one the Encoder rendered into a
// stored idempotent answer.

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
type Done struct{}

// Put asks the actor to make the business match Spec.
type Put struct {
	request[PutResult]
	Spec *catalog.Spec
}

// PutResult answers Put.
type PutResult struct {
	Created bool // the business did not exist before
	Changed bool // a record was journalled
}

// Issue asks the actor to add Key (its timestamps are stamped by the actor).
type Issue struct {
	request[catalog.Key]
	Key catalog.Key
}

// Revoke asks the actor to revoke the key with KeyID.
type Revoke struct {
	request[catalog.Key]
	KeyID uuid.UUID
}

// IdemKey identifies an idempotent request (api-v1 §4.1): the key, and the
// method, path and body it was first used with.
type IdemKey struct {
	Key, Method, Path string
	BodyHash          [32]byte
}

// Answer is the answer of an idempotent request as the Encoder rendered
// it. It is stored with the write, so a repeat of the request within 24
// hours gets the same status and the same bytes (Replayed set).
type Answer struct {
	Status   int
	Body     []byte
	Replayed bool
}

// Book books an appointment.
type Book struct {
	request[*Answer]
	In   tenant.CreateInput
	Idem IdemKey
}

// AddCustomer creates a customer.
type AddCustomer struct {
	request[*Answer]
	In   catalog.Customer
	Idem IdemKey
}

// AppointmentView is an appointment with its customer, as an answer shows
// it. Both point into immutable state: share them, never change them.
type AppointmentView struct {
	Appointment *catalog.Appointment
	Customer    *catalog.Customer
}

// Patch edits an appointment's fields.
type Patch struct {
	request[AppointmentView]
	ID uuid.UUID
	In tenant.PatchInput
}

// SetStatus moves an appointment to another status.
type SetStatus struct {
	request[AppointmentView]
	ID      uuid.UUID
	Status  catalog.Status
	IfMatch []int // If-Match versions; nil: any
}

// RegisterEndpoint stores a webhook endpoint whose test ping succeeded.
type RegisterEndpoint struct {
	request[catalog.Endpoint]
	In     tenant.EndpointInput
	Secret string
}

// PatchEndpoint edits a webhook endpoint.
type PatchEndpoint struct {
	request[catalog.Endpoint]
	ID uuid.UUID
	In tenant.EndpointPatch
}

// DeleteEndpoint removes a webhook endpoint.
type DeleteEndpoint struct {
	request[Done]
	ID uuid.UUID
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

// CreateHold places a hold (decisions §6).
type CreateHold struct {
	request[*Answer]
	In   tenant.HoldInput
	Idem IdemKey
}

// ExtendHold sets a live hold's expiry to now + TTL.
type ExtendHold struct {
	request[catalog.Hold]
	ID  uuid.UUID
	TTL time.Duration
}

// ReleaseHold releases a hold.
type ReleaseHold struct {
	request[Done]
	ID uuid.UUID
}

// AddEntry puts a customer on the waitlist.
type AddEntry struct {
	request[*Answer]
	In   tenant.EntryInput
	Idem IdemKey
}

// DeleteEntry takes an entry off the waitlist.
type DeleteEntry struct {
	request[Done]
	ID uuid.UUID
}

// Encoder renders what the actor stores with a write in the API's own
// bytes: the answer of an idempotent request, and the envelope of each
// event (whose data is the subject as GET showed it at that moment). The
// transport supplies it (wire.Encoder); the engine imports no HTTP code
// and chooses no status: it stores the status the Encoder returns.
type Encoder interface {
	// Booked renders the answer of a booking that was made; p is its
	// payment when it needs prepayment, else nil.
	Booked(a *catalog.Appointment, cu *catalog.Customer, p *catalog.Payment) (status int, body []byte)
	// CustomerCreated renders the answer of a customer creation.
	CustomerCreated(cu *catalog.Customer) (status int, body []byte)
	// Refused renders a refusal that is stored under an idempotency key.
	Refused(e *problem.Error) (status int, body []byte)
	// AppendEvent appends an event's envelope; its data is appointment a
	// with customer cu, or customer cu alone when a is nil.
	AppendEvent(b []byte, id, typ string, at time.Time, a *catalog.Appointment, cu *catalog.Customer) []byte
	// AppendPaymentEvent appends a payment event's envelope; its data is
	// payment p.
	AppendPaymentEvent(b []byte, id, typ string, at time.Time, p *catalog.Payment) []byte
	// HoldCreated and EntryCreated render the answers of POST /holds and
	// POST /waitlist-entries.
	HoldCreated(h *catalog.Hold) (status int, body []byte)
	EntryCreated(e *catalog.WaitlistEntry) (status int, body []byte)
	// AppendEntryEvent appends a waitlist event's envelope; its data is
	// entry e.
	AppendEntryEvent(b []byte, id, typ string, at time.Time, e *catalog.WaitlistEntry) []byte
}
