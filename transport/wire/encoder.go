package wire

import (
	"time"

	"github.com/slotd/slotd/storage/catalog"
	"github.com/slotd/slotd/storage/problem"
)

// Encoder renders what the business actor stores beside a write: the
// answer of an idempotent request (so that a replay sends the same bytes)
// and the envelope of an event (so that a delivery sends what GET showed at
// that moment). The transport hands it to the engine at start-up; the
// engine never imports this package and never chooses an HTTP status
// itself. It implements business.Encoder.
type Encoder struct{}

// Booked renders the 201 of POST /appointments (api-v1 §4.2); p is the
// payment of a booking that needs prepayment, nil for most.
func (Encoder) Booked(a *catalog.Appointment, cu *catalog.Customer, p *catalog.Payment) (int, []byte) {
	b := make([]byte, 0, 1536)
	b = append(b, `{"appointment":`...)
	b = AppendAppointment(b, a, cu)
	if p == nil {
		return 201, append(b, `,"requiresPayment":false}`...)
	}
	b = append(b, `,"requiresPayment":true,"payment":`...)
	b = appendCheckout(b, p)
	return 201, append(b, '}')
}

// CustomerCreated renders the 201 of POST /customers.
func (Encoder) CustomerCreated(cu *catalog.Customer) (int, []byte) {
	return 201, AppendCustomer(make([]byte, 0, 256), cu)
}

// Refused renders a refusal the engine stores under an idempotency key: its
// status (the one mapping, Status) and the §7.1 body.
func (Encoder) Refused(e *problem.Error) (int, []byte) {
	return Status(e.Code), AppendError(make([]byte, 0, 256), e)
}

// AppendPaymentEvent appends the envelope of a payment event: its data is
// the Payment resource (decisions §5).
func (Encoder) AppendPaymentEvent(b []byte, id, typ string, at time.Time, p *catalog.Payment) []byte {
	b = appendEnvelopeHead(b, id, typ, at)
	return append(AppendPayment(b, p), '}')
}

func appendEnvelopeHead(b []byte, id, typ string, at time.Time) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, id)
	b = append(b, `,"type":`...)
	b = AppendString(b, typ)
	b = append(b, `,"createdAt":`...)
	b = AppendTime(b, at)
	return append(b, `,"apiVersion":"v1","data":`...)
}

// AppendEvent appends the envelope of api-v1 §6.2. Its data is the
// appointment a with its customer cu, or, when a is nil, the customer cu;
// null when both are nil.
func (Encoder) AppendEvent(b []byte, id, typ string, at time.Time, a *catalog.Appointment, cu *catalog.Customer) []byte {
	b = appendEnvelopeHead(b, id, typ, at)
	switch {
	case a != nil:
		b = AppendAppointment(b, a, cu)
	case cu != nil:
		b = AppendCustomer(b, cu)
	default:
		b = append(b, "null"...)
	}
	return append(b, '}')
}
