package model

// Enum is one enumeration of the domain model: its values, each with the
// code it has in the journal, snapshots and outbox rows. The table is the
// only list of the enumeration's values; the validators, the OpenAPI
// document's tests, the binary formats and the webhook catalogue read it.
//
// Codes are frozen: a value keeps its code forever, a new value takes the
// next unused code, and no code is reused (TestEnumCodesAreFrozen holds
// every table to testdata/enums.golden). Code 0 is never a value's: the
// binary formats write 0 and then the text for a value the table does not
// know.
type Enum[T ~string] struct {
	name    string
	entries []EnumEntry[T]
}

// EnumEntry is one value of an Enum and its frozen code.
type EnumEntry[T ~string] struct {
	Value T
	Code  byte
}

func newEnum[T ~string](name string, entries ...EnumEntry[T]) Enum[T] {
	seen := map[byte]bool{0: true}
	for _, e := range entries {
		if seen[e.Code] {
			panic("model: enum " + name + " reuses code of " + string(e.Value))
		}
		seen[e.Code] = true
	}
	return Enum[T]{name: name, entries: entries}
}

// Name is the enumeration's name, as the golden file of frozen codes
// spells it.
func (e Enum[T]) Name() string { return e.name }

// Entries returns the table, in the order values are shown.
func (e Enum[T]) Entries() []EnumEntry[T] { return e.entries }

// Values returns the values, in the order they are shown (in error
// messages and documentation).
func (e Enum[T]) Values() []T {
	out := make([]T, len(e.entries))
	for i, x := range e.entries {
		out[i] = x.Value
	}
	return out
}

// Strings returns the values as strings.
func (e Enum[T]) Strings() []string {
	out := make([]string, len(e.entries))
	for i, x := range e.entries {
		out[i] = string(x.Value)
	}
	return out
}

// Has reports whether v is a value of the enumeration.
func (e Enum[T]) Has(v T) bool {
	_, ok := e.Code(v)
	return ok
}

// Code returns v's frozen code.
func (e Enum[T]) Code(v T) (byte, bool) {
	for _, x := range e.entries {
		if x.Value == v {
			return x.Code, true
		}
	}
	return 0, false
}

// Value returns the value of a frozen code.
func (e Enum[T]) Value(code byte) (T, bool) {
	for _, x := range e.entries {
		if x.Code == code && code != 0 {
			return x.Value, true
		}
	}
	var zero T
	return zero, false
}

// Statuses is the appointment lifecycle (api-v1 §2.4, decisions §5).
var Statuses = newEnum("appointment status",
	EnumEntry[Status]{PendingPayment, 1},
	EnumEntry[Status]{Confirmed, 2},
	EnumEntry[Status]{Cancelled, 3},
	EnumEntry[Status]{Completed, 4},
	EnumEntry[Status]{NoShow, 5},
	EnumEntry[Status]{PaymentExpired, 6},
)

// SegmentKinds are the kinds of an appointment's segments.
var SegmentKinds = newEnum("segment kind",
	EnumEntry[SegmentKind]{Active, 1},
	EnumEntry[SegmentKind]{Gap, 2},
)

// EventType names a webhook event (api-v1 §6.1, decisions §5 and §6).
type EventType = string

// The event types slotd emits. webhook.test, sent on demand to one
// endpoint and never journalled, is not one of them.
const (
	EventAppointmentCreated   EventType = "appointment.created"
	EventAppointmentUpdated   EventType = "appointment.updated"
	EventAppointmentConfirmed EventType = "appointment.confirmed"
	EventAppointmentCancelled EventType = "appointment.cancelled"
	EventAppointmentCompleted EventType = "appointment.completed"
	EventAppointmentNoShow    EventType = "appointment.no_show"
	EventCustomerCreated      EventType = "customer.created"
	EventPaymentSucceeded     EventType = "payment.succeeded"
	EventPaymentRefunded      EventType = "payment.refunded"
	EventWaitlistOffered      EventType = "waitlist.offered"
	EventAppointmentReminder  EventType = "appointment.reminder"
)

// EventTypes is the event catalogue: every type is journalled with its
// code, and is what an endpoint may subscribe to. Every type is delivered
// only to the endpoints that name it, so a type added here reaches nobody
// who did not ask for it.
var EventTypes = newEnum("event type",
	EnumEntry[EventType]{EventAppointmentCreated, 1},
	EnumEntry[EventType]{EventAppointmentUpdated, 2},
	EnumEntry[EventType]{EventAppointmentConfirmed, 3},
	EnumEntry[EventType]{EventAppointmentCancelled, 4},
	EnumEntry[EventType]{EventAppointmentCompleted, 5},
	EnumEntry[EventType]{EventAppointmentNoShow, 6},
	EnumEntry[EventType]{EventCustomerCreated, 7},
	EnumEntry[EventType]{EventPaymentSucceeded, 8},
	EnumEntry[EventType]{EventPaymentRefunded, 9},
	EnumEntry[EventType]{EventWaitlistOffered, 10},
	EnumEntry[EventType]{EventAppointmentReminder, 11},
)

// MailKind says which e-mail an outbox row asks for.
type MailKind = string

// The e-mails slotd sends.
const (
	// MailConfirmation confirms a booking (or asks for its prepayment).
	MailConfirmation MailKind = "booking_confirmation"
	// MailStatus tells the customer of a status change.
	MailStatus MailKind = "status_changed"
	// MailEndpointDisabled tells the owner a webhook endpoint was
	// auto-disabled.
	MailEndpointDisabled MailKind = "endpoint_disabled"
	// MailWaitlistOffer offers the customer of a waitlist entry the time
	// held for them (decisions §6).
	MailWaitlistOffer MailKind = "waitlist_offer"
	// MailReminder reminds the customer of a confirmed appointment
	// (decisions §9).
	MailReminder MailKind = "appointment_reminder"
	// MailSeriesConfirmation confirms a series (decisions §11): one
	// e-mail listing every date booked.
	MailSeriesConfirmation MailKind = "series_confirmation"
	// MailSeriesCancelled tells the customer which occurrences of a
	// series were cancelled, in one e-mail.
	MailSeriesCancelled MailKind = "series_cancelled"
	// MailBasketConfirmation confirms a basket (decisions §11): one
	// e-mail listing every service booked, each with its time.
	MailBasketConfirmation MailKind = "basket_confirmation"
	// MailBasketCancelled tells the customer which appointments of a
	// basket were cancelled, in one e-mail.
	MailBasketCancelled MailKind = "basket_cancelled"
)

// MailKinds are the kinds of e-mail.
var MailKinds = newEnum("mail kind",
	EnumEntry[MailKind]{MailConfirmation, 1},
	EnumEntry[MailKind]{MailStatus, 2},
	EnumEntry[MailKind]{MailEndpointDisabled, 3},
	EnumEntry[MailKind]{MailWaitlistOffer, 4},
	EnumEntry[MailKind]{MailReminder, 5},
	EnumEntry[MailKind]{MailSeriesConfirmation, 6},
	EnumEntry[MailKind]{MailSeriesCancelled, 7},
	EnumEntry[MailKind]{MailBasketConfirmation, 8},
	EnumEntry[MailKind]{MailBasketCancelled, 9},
)

// Operation is a write that takes an Idempotency-Key (api-v1 §4.1). A
// stored answer is replayed only to a repeat of the same operation with
// the same key and body; the journal records the operation, not the
// method and path it arrived by.
type Operation string

// The idempotent operations.
const (
	OpBook        Operation = "appointment.book"
	OpAddCustomer Operation = "customer.add"
	OpCreateHold  Operation = "hold.create"
	OpAddEntry    Operation = "waitlist_entry.add"
	OpBookSeries  Operation = "appointment_series.book"
	OpBookBasket  Operation = "basket.book"
)

// Operations are the idempotent operations. Their codes are the codes the
// journal gave their API paths before it recorded operations, so records
// of either age read back as the same operation.
var Operations = newEnum("operation",
	EnumEntry[Operation]{OpBook, 1},
	EnumEntry[Operation]{OpAddCustomer, 2},
	EnumEntry[Operation]{OpCreateHold, 3},
	EnumEntry[Operation]{OpAddEntry, 4},
	EnumEntry[Operation]{OpBookSeries, 5},
	EnumEntry[Operation]{OpBookBasket, 6},
)

// EndpointStatus is a webhook endpoint's delivery status.
type EndpointStatus = string

// EndpointStatuses are the statuses of a webhook endpoint.
var EndpointStatuses = newEnum("endpoint status",
	EnumEntry[EndpointStatus]{EndpointActive, 1},
	EnumEntry[EndpointStatus]{EndpointAutoDisabled, 2},
)

// DeliveryStatuses are the statuses of a webhook delivery record (api-v1
// §3.3).
var DeliveryStatuses = newEnum("delivery status",
	EnumEntry[string]{DeliveryPending, 1},
	EnumEntry[string]{DeliveryDelivered, 2},
	EnumEntry[string]{DeliveryFailed, 3},
	EnumEntry[string]{DeliveryExhausted, 4},
)

// PaymentStatuses are where a prepayment stands (decisions §5).
var PaymentStatuses = newEnum("payment status",
	EnumEntry[PaymentStatus]{PaymentPending, 1},
	EnumEntry[PaymentStatus]{PaymentSucceeded, 2},
	EnumEntry[PaymentStatus]{PaymentCancelled, 3},
	EnumEntry[PaymentStatus]{PaymentExpiredStatus, 4},
	EnumEntry[PaymentStatus]{PaymentRefunded, 5},
	EnumEntry[PaymentStatus]{PaymentPartiallyRefunded, 6},
)

// The payment providers of decisions §5 (the world file's
// payments.provider).
const (
	ProviderRedirect     = "redirect"
	ProviderClientSecret = "client_secret"
)

// Providers are the kinds of payment provider.
var Providers = newEnum("payment provider",
	EnumEntry[string]{ProviderRedirect, 1},
	EnumEntry[string]{ProviderClientSecret, 2},
)

// AmountKinds are what a payment asks for: a deposit or the whole price.
var AmountKinds = newEnum("payment amount kind",
	EnumEntry[string]{AmountDeposit, 1},
	EnumEntry[string]{AmountFull, 2},
)

// StatusEvent is the event type of a change to status s
// (appointment.confirmed, appointment.cancelled, …).
func StatusEvent(s Status) EventType { return "appointment." + string(s) }

// HoldStatuses are the states of a hold (decisions §6).
var HoldStatuses = newEnum("hold status",
	EnumEntry[HoldStatus]{HoldActive, 1},
	EnumEntry[HoldStatus]{HoldBooked, 2},
	EnumEntry[HoldStatus]{HoldReleased, 3},
	EnumEntry[HoldStatus]{HoldExpired, 4},
)

// EntryStatuses are the states of a waitlist entry (decisions §6).
var EntryStatuses = newEnum("waitlist entry status",
	EnumEntry[EntryStatus]{EntryWaiting, 1},
	EnumEntry[EntryStatus]{EntryOffered, 2},
	EnumEntry[EntryStatus]{EntryBooked, 3},
	EnumEntry[EntryStatus]{EntryExpired, 4},
	EnumEntry[EntryStatus]{EntryDeleted, 5},
)
