package wire

import (
	"time"

	"github.com/slotd/slotd/actors/model"
)

// AppendBooked appends the body of the 201 of POST /appointments (api-v1
// §4.2); p is the payment of a booking that needs prepayment, nil for most;
// manageURL is the appointment's manage link.
func AppendBooked(b []byte, a *model.Appointment, cu *model.Customer, p *model.Payment, manageURL string) []byte {
	b = append(b, `{"appointment":`...)
	b = AppendAppointmentLinked(b, a, cu, manageURL)
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
	b = appendEnvelopeHead(b, id, typ, at, "")
	return append(AppendPayment(b, p), '}')
}

// The changedBy of appointment events' envelopes (decisions §7).
const (
	ChangedByCustomer = "customer"
	ChangedByBusiness = "business"
)

// appendEnvelopeHead appends an envelope up to its data; changedBy goes
// in when it is not "".
func appendEnvelopeHead(b []byte, id, typ string, at time.Time, changedBy string) []byte {
	b = append(b, `{"id":`...)
	b = AppendString(b, id)
	b = append(b, `,"type":`...)
	b = AppendString(b, typ)
	b = append(b, `,"createdAt":`...)
	b = AppendTime(b, at)
	b = append(b, `,"apiVersion":"v1"`...)
	if changedBy != "" {
		b = append(b, `,"changedBy":`...)
		b = AppendString(b, changedBy)
	}
	return append(b, `,"data":`...)
}

// AppendEvent appends the envelope of api-v1 §6.2. Its data is the
// appointment a with its customer cu and its manage link manageURL (when
// not ""), or, when a is nil, the customer cu; null when both are nil. An
// appointment's event says who changed it (changedBy: the customer when
// byCustomer, else the business).
func AppendEvent(b []byte, id, typ string, at time.Time, a *model.Appointment, cu *model.Customer, byCustomer bool, manageURL string) []byte {
	changedBy := ""
	switch {
	case a != nil && byCustomer:
		changedBy = ChangedByCustomer
	case a != nil:
		changedBy = ChangedByBusiness
	}
	b = appendEnvelopeHead(b, id, typ, at, changedBy)
	switch {
	case a != nil:
		b = AppendAppointmentLinked(b, a, cu, manageURL)
	case cu != nil:
		b = AppendCustomer(b, cu)
	default:
		b = append(b, "null"...)
	}
	return append(b, '}')
}

// AppendReminderEvent appends the envelope of an appointment.reminder
// event (decisions §9): its data is the appointment a with its customer
// cu, as AppendEvent gives it, plus "reminder": {"offsetMinutes": n}. A
// reminder is the business's, so its changedBy is the business.
func AppendReminderEvent(b []byte, id string, at time.Time, a *model.Appointment, cu *model.Customer, offsetMinutes int, manageURL string) []byte {
	b = appendEnvelopeHead(b, id, model.EventAppointmentReminder, at, ChangedByBusiness)
	b = AppendAppointmentLinked(b, a, cu, manageURL)
	b = append(b[:len(b)-1], `,"reminder":{"offsetMinutes":`...) // inside the appointment's object
	b = AppendInt(b, offsetMinutes)
	return append(b, "}}}"...)
}
