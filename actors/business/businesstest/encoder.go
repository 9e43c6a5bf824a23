// Package businesstest owns test support for code that runs business
// actors without the HTTP front end: an Encoder of event envelopes, so
// that tests and benchmarks under actors/ need nothing from transport/.
package businesstest

import (
	"encoding/json"
	"time"

	"github.com/slotd/slotd/actors/model"
)

// Encoder renders events as plain encoding/json envelopes with the same
// members as the API's.
type Encoder struct{}

// AppendEvent implements business.Encoder.
func (Encoder) AppendEvent(b []byte, id, typ string, at time.Time, a *model.Appointment, cu *model.Customer) []byte {
	ev := Event{ID: id, Type: typ, CreatedAt: at, APIVersion: "v1"}
	if a != nil {
		ev.Data = Booked{Appointment: a, Customer: cu}
	} else if cu != nil {
		ev.Data = cu
	}
	return append(b, mustJSON(ev)...)
}

// AppendPaymentEvent implements business.Encoder.
func (Encoder) AppendPaymentEvent(b []byte, id, typ string, at time.Time, p *model.Payment) []byte {
	return append(b, mustJSON(Event{ID: id, Type: typ, CreatedAt: at, APIVersion: "v1", Data: p})...)
}

// AppendEntryEvent implements business.Encoder.
func (Encoder) AppendEntryEvent(b []byte, id, typ string, at time.Time, e *model.WaitlistEntry) []byte {
	return append(b, mustJSON(Event{ID: id, Type: typ, CreatedAt: at, APIVersion: "v1", Data: e})...)
}

// Booked is the data of an appointment's event.
type Booked struct {
	Appointment *model.Appointment `json:"appointment"`
	Customer    *model.Customer    `json:"customer"`
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
