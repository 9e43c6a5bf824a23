package wire

import (
	"time"

	"github.com/slotd/slotd/actors/model"
)

// AppendBooked appends the body of the 201 of POST /appointments (api-v1
// §4.2); p is the payment of a booking that needs prepayment, nil for most.
func AppendBooked(b []byte, a *model.Appointment, cu *model.Customer, p *model.Payment) []byte {
	b = append(b, `{"appointment":`...)
	b = AppendAppointment(b, a, cu)
	if p == nil {
		return append(b, `,"requiresPayment":false}`...)
	}
	b = append(b, `,"requiresPayment":true,"payment":`...)
	b = appendCheckout(b, p)
	return append(b, '}')
}

// AppendPaymentEvent appends the envelope of a payment event: its data is
// the Payment resource (decisions §5).
func AppendPaymentEvent(b []byte, id, typ string, at time.Time, p *model.Payment) []byte {
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
func AppendEvent(b []byte, id, typ string, at time.Time, a *model.Appointment, cu *model.Customer) []byte {
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
