package model

import (
	"time"

	"github.com/google/uuid"
)

// PaymentStatus is where a prepayment stands (decisions §5).
type PaymentStatus string

// The payment statuses the Payment resource shows.
const (
	PaymentPending           PaymentStatus = "pending"
	PaymentSucceeded         PaymentStatus = "succeeded"
	PaymentCancelled         PaymentStatus = "cancelled"
	PaymentExpiredStatus     PaymentStatus = "expired"
	PaymentRefunded          PaymentStatus = "refunded"
	PaymentPartiallyRefunded PaymentStatus = "partially_refunded"
)

// The amount kinds of a payment: a deposit, or the whole price.
const (
	AmountDeposit = "deposit"
	AmountFull    = "full"
)

// Payment is the prepayment of one appointment: the resource of decisions
// §5, and what slotd still owes the provider for it. An appointment has at
// most one.
type Payment struct {
	ID                uuid.UUID     `json:"id"`
	AppointmentID     uuid.UUID     `json:"appointmentId"`
	Provider          string        `json:"provider"`
	ProviderPaymentID string        `json:"providerPaymentId"`
	AmountCents       int           `json:"amountCents"`
	Currency          string        `json:"currency"`
	AmountKind        string        `json:"amountKind"`
	Status            PaymentStatus `json:"status"`
	RefundedCents     int           `json:"refundedCents"`
	CreatedAt         time.Time     `json:"createdAt"`
	UpdatedAt         time.Time     `json:"updatedAt"`

	// CheckoutURL (redirect) or ClientSecret (client_secret) is what the
	// customer pays with; the 201 of the booking shows it, and an
	// idempotent replay shows it again.
	CheckoutURL  string `json:"-"`
	ClientSecret string `json:"-"`
	// ExpiresAt is when an unpaid payment expires (creation + holdMinutes).
	ExpiresAt time.Time `json:"-"`
	// CancelOwed: the provider payment must still be cancelled (expired,
	// or the appointment left pending_payment another way).
	CancelOwed bool `json:"-"`
	// RefundOwed is what must still be refunded at the provider: money
	// that arrived after the appointment stopped waiting for it.
	RefundOwed int `json:"-"`
	// Seen holds the latest provider event ids acted on, so a repeated
	// event changes nothing (decisions §5); at most MaxSeenEvents.
	Seen []string `json:"-"`
}

// MaxSeenEvents bounds Payment.Seen: providers repeat an event for days,
// but a payment has only a handful of distinct ones.
const MaxSeenEvents = 16

// Open reports whether the payment still waits for something: to be
// paid, cancelled or refunded at the provider.
func (p *Payment) Open() bool {
	return p.Status == PaymentPending || p.CancelOwed || p.RefundOwed > 0
}
