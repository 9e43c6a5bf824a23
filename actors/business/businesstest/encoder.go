// Package businesstest owns test support for code that runs business
// actors without the HTTP front end: an Encoder, so that tests and
// benchmarks under actors/ need nothing from transport/.
package businesstest

import (
	"encoding/json"
	"time"

	"github.com/slotd/slotd/storage/catalog"
	"github.com/slotd/slotd/storage/problem"
)

// The statuses Encoder renders. They only tell success from refusal: which
// HTTP status a refusal gets is the transport's business (wire.Status),
// and tests here assert on the code in the body.
const (
	StatusCreated = 201
	StatusRefused = 422
)

// Encoder renders answers and events as plain encoding/json documents:
// {"appointment": …, "customer": …}, a customer, {"code": …, "error": …},
// and an envelope with the same members as the API's.
type Encoder struct{}

// Booked implements business.Encoder.
func (Encoder) Booked(a *catalog.Appointment, cu *catalog.Customer, p *catalog.Payment) (int, []byte) {
	return StatusCreated, mustJSON(Booked{Appointment: a, Customer: cu, Payment: p})
}

// CustomerCreated implements business.Encoder.
func (Encoder) CustomerCreated(cu *catalog.Customer) (int, []byte) {
	return StatusCreated, mustJSON(cu)
}

// Refused implements business.Encoder.
func (Encoder) Refused(e *problem.Error) (int, []byte) {
	return StatusRefused, mustJSON(Refusal{Code: string(e.Code), Error: e.Message})
}

// AppendEvent implements business.Encoder.
func (Encoder) AppendEvent(b []byte, id, typ string, at time.Time, a *catalog.Appointment, cu *catalog.Customer) []byte {
	ev := Event{ID: id, Type: typ, CreatedAt: at, APIVersion: "v1"}
	if a != nil {
		ev.Data = Booked{Appointment: a, Customer: cu}
	} else if cu != nil {
		ev.Data = cu
	}
	return append(b, mustJSON(ev)...)
}

// AppendPaymentEvent implements business.Encoder.
func (Encoder) AppendPaymentEvent(b []byte, id, typ string, at time.Time, p *catalog.Payment) []byte {
	return append(b, mustJSON(Event{ID: id, Type: typ, CreatedAt: at, APIVersion: "v1", Data: p})...)
}

// HoldCreated implements business.Encoder.
func (Encoder) HoldCreated(h *catalog.Hold) (int, []byte) { return StatusCreated, mustJSON(h) }

// EntryCreated implements business.Encoder.
func (Encoder) EntryCreated(e *catalog.WaitlistEntry) (int, []byte) {
	return StatusCreated, mustJSON(e)
}

// AppendEntryEvent implements business.Encoder.
func (Encoder) AppendEntryEvent(b []byte, id, typ string, at time.Time, e *catalog.WaitlistEntry) []byte {
	return append(b, mustJSON(Event{ID: id, Type: typ, CreatedAt: at, APIVersion: "v1", Data: e})...)
}

// Booked is the body of a booking's answer.
type Booked struct {
	Appointment *catalog.Appointment `json:"appointment"`
	Customer    *catalog.Customer    `json:"customer"`
	Payment     *catalog.Payment     `json:"payment,omitempty"`
}

// Refusal is the body of a stored refusal.
type Refusal struct {
	Code  string `json:"code"`
	Error string `json:"error"`
}

// Event is an event envelope.
type Event struct {
	ID         string    `json:"id"`
	Type       string    `json:"type"`
	CreatedAt  time.Time `json:"createdAt"`
	APIVersion string    `json:"apiVersion"`
	Data       any       `json:"data"`
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
