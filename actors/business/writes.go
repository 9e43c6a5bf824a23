package business

import (
	"crypto/rand"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"

	"github.com/slotd/slotd/actors/tenant"
	"github.com/slotd/slotd/storage/catalog"
	"github.com/slotd/slotd/storage/problem"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/transport/wire"
)

// The booking-side protocol. Each request is answered with an *Answer: the
// HTTP status and the exact body bytes, so that an idempotent answer can be
// stored and replayed byte for byte.
//
//	Create{In, Idem}          -> Answer   POST /appointments
//	CreateCustomer{In, Idem}  -> Answer   POST /customers
//	Patch{ID, In}             -> Answer   PATCH /appointments/{id}
//	SetStatus{ID, Status}     -> Answer   POST /appointments/{id}/status
//	RegisterEndpoint{In, Secret} -> Answer  POST /webhooks (after its ping)
//	PatchEndpoint{ID, In}     -> Answer   PATCH /webhooks/{id}
//	DeleteEndpoint{ID}        -> Answer   DELETE /webhooks/{id}

// IdemKey identifies an idempotent request (api-v1 §4.1).
type IdemKey struct {
	Key, Method, Path string
	BodyHash          [32]byte
}

// Create books an appointment.
type Create struct {
	In   tenant.CreateInput
	Idem *IdemKey
}

// CreateCustomer creates a customer.
type CreateCustomer struct {
	In   catalog.Customer
	Idem *IdemKey
}

// Patch edits an appointment's fields.
type Patch struct {
	ID uuid.UUID
	In tenant.PatchInput
}

// SetStatus moves an appointment to another status.
type SetStatus struct {
	ID     uuid.UUID
	Status catalog.Status
}

// RegisterEndpoint stores a webhook endpoint whose test ping succeeded.
type RegisterEndpoint struct {
	In     tenant.EndpointInput
	Secret string
}

// PatchEndpoint edits a webhook endpoint.
type PatchEndpoint struct {
	ID uuid.UUID
	In tenant.EndpointPatch
}

// DeleteEndpoint removes a webhook endpoint.
type DeleteEndpoint struct{ ID uuid.UUID }

// Answer is the reply to a booking-side request.
type Answer struct {
	Status   int
	Body     []byte
	Replayed bool
}

// synced tells the actor that the write carrying an idempotency key is
// durable, so the key no longer answers IDEMPOTENCY_IN_PROGRESS.
type synced struct{ key string }

// idemRetention is how long an idempotent answer is kept (decisions §3).
const idemRetention = 24 * time.Hour

var (
	errReused     = problem.New(problem.IdempotencyKeyReused, "The Idempotency-Key was used with another request.")
	errInProgress = problem.New(problem.IdempotencyInProgress, "A request with this Idempotency-Key is still being processed; retry with the same key.")
)

// decision is what a booking-side command decided: a change to journal and
// the answer to give, or a refusal.
type decision func() (ch *record.Change, status int, body []byte, err error)

// write runs one booking-side command: replay or refuse a known idempotency
// key, decide, journal the change (with the answer when the request is
// idempotent) and answer once the journal is durable.
func (a *businessActor) write(ctx actor.Context, idem *IdemKey, decide decision) {
	if a.state == nil {
		ctx.Respond(errorAnswer(problem.New(problem.NotFound, "No such business.")))
		return
	}
	now := a.now()
	if idem != nil {
		if ans := a.known(idem, now); ans != nil {
			ctx.Respond(ans)
			return
		}
	}
	ch, status, body, err := decide()
	if err != nil {
		pe := problem.As(err)
		ans := errorAnswer(pe)
		if idem == nil || ans.Status == 400 || pe.Code == problem.Internal {
			ctx.Respond(ans) // validation failures are not stored: the key stays free
			return
		}
		ch, status, body = &record.Change{At: now}, ans.Status, ans.Body
	}
	if ch == nil { // nothing changed: answer without writing
		ctx.Respond(&Answer{Status: status, Body: body})
		return
	}
	if idem != nil {
		ch.Idempotency = &record.Idem{Key: idem.Key, Method: idem.Method, Path: idem.Path, BodyHash: idem.BodyHash,
			Status: status, Body: body, At: now}
	}
	a.commitAsync(ctx, ch, &Answer{Status: status, Body: body})
}

// known answers a request whose key was seen in the last 24 hours.
func (a *businessActor) known(idem *IdemKey, now time.Time) *Answer {
	e := a.state.Idempotency(idem.Key)
	if e == nil || now.Sub(e.At) >= idemRetention {
		return nil
	}
	switch {
	case e.Method != idem.Method || e.Path != idem.Path || e.BodyHash != idem.BodyHash:
		return errorAnswer(errReused)
	case a.unsynced[idem.Key]:
		return errorAnswer(errInProgress)
	}
	return &Answer{Status: e.Status, Body: e.Body, Replayed: true}
}

func errorAnswer(e *problem.Error) *Answer {
	return &Answer{Status: wire.Status(e.Code), Body: wire.AppendError(nil, e)}
}

// ids mints the identifiers of one actor's decisions. ULIDs come from a
// monotonic source, so event ids sort in creation order even within one
// millisecond; the actor is single-threaded, which that source needs.
type ids struct{ entropy *ulid.MonotonicEntropy }

func newIDs() *ids { return &ids{entropy: ulid.Monotonic(rand.Reader, 0)} }

func (x *ids) UUID() uuid.UUID { return uuid.New() }

func (x *ids) Event(at time.Time) string { return "evt_" + x.ulid(at) }

func (x *ids) Mail(at time.Time) string { return x.ulid(at) }

func (x *ids) ulid(at time.Time) string {
	return ulid.MustNew(ulid.Timestamp(at), x.entropy).String()
}
