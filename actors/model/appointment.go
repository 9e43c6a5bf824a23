package model

import (
	"time"

	"github.com/google/uuid"
)

// Status is an appointment's lifecycle state.
type Status string

// The statuses. Only Occupies statuses hold the staff member's time.
const (
	PendingPayment Status = "pending_payment"
	Confirmed      Status = "confirmed"
	Cancelled      Status = "cancelled"
	Completed      Status = "completed"
	NoShow         Status = "no_show"
	PaymentExpired Status = "payment_expired"
)

// Occupies reports whether an appointment in status s holds its time
// (decisions §3): pending_payment, confirmed and completed do.
func (s Status) Occupies() bool {
	return s == PendingPayment || s == Confirmed || s == Completed
}

// ServiceRef is the service as it was when the appointment was written; it
// stays on the appointment even if the service is later changed or deleted.
type ServiceRef struct {
	ID              uuid.UUID `json:"id"`
	Name            string    `json:"name"`
	DurationMinutes int       `json:"durationMinutes"`
	PriceCents      int       `json:"priceCents"`
}

// StaffRef is the staff member assigned to an appointment.
type StaffRef struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
}

// Segment is one materialized part of an appointment's footprint.
type Segment struct {
	ID            uuid.UUID   `json:"id"`
	Position      int         `json:"position"`
	Kind          SegmentKind `json:"kind"`
	StartTime     time.Time   `json:"startTime"`
	EndTime       time.Time   `json:"endTime"`
	StaffMemberID *uuid.UUID  `json:"staffMemberId"`
	Label         *string     `json:"label"`
}

// Appointment is one booking.
type Appointment struct {
	ID                    uuid.UUID  `json:"id"`
	Status                Status     `json:"status"`
	StartTime             time.Time  `json:"startTime"`
	EndTime               time.Time  `json:"endTime"`
	Notes                 *string    `json:"notes"`
	BookingReference      *string    `json:"bookingReference"`
	CustomerID            uuid.UUID  `json:"customerId"`
	Service               ServiceRef `json:"service"`
	Staff                 *StaffRef  `json:"staff"`
	StaffLocked           bool       `json:"staffLocked"`
	BasePriceCents        *int       `json:"basePriceCents"`
	TotalPriceCents       *int       `json:"totalPriceCents"`
	DepositCents          *int       `json:"depositCents"`
	Currency              string     `json:"currency"`
	RecurringSeriesID     *uuid.UUID `json:"recurringSeriesId"`
	IsRecurringOccurrence bool       `json:"isRecurringOccurrence"`
	// BasketID is the basket it was booked in (decisions §11), or nil.
	BasketID  *uuid.UUID `json:"basketId,omitempty"`
	Segments  []Segment  `json:"segments"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
	// Version is 1 at creation and grows by one with every change of any
	// field (decisions §6): consumers order at-least-once events by it,
	// and If-Match refuses an edit made against an older one.
	Version int `json:"version"`
	// Metadata is the integrator's own key-value pairs (decisions §7):
	// at most 20, never rule-checked, replaced whole by a PATCH. Nil when
	// there are none. Shared between copies of the appointment: replaced,
	// never changed in place.
	Metadata map[string]string `json:"metadata,omitempty"`
	// CustomerReschedules counts the moves its customer made through the
	// manage link (decisions §7: maxReschedules). Not shown by the API.
	CustomerReschedules int `json:"customerReschedules,omitempty"`
	// Buffers are the service's buffers as they were when it was booked
	// (or its service changed): the staff member is occupied from the
	// first active segment's start less Before to the last one's end
	// plus After (decisions §9).
	Buffers Buffers `json:"buffers,omitzero"`
	// Resources are the units of the business's resources it takes
	// (decisions §10), as its service needed them when it was booked: kept
	// like its buffers when it is moved with the same service.
	Resources []ResourceNeed `json:"resources,omitempty"`
	// RemindFrom is when its reminders were last armed (decisions §9):
	// the last move, or the last time it became confirmed; zero means
	// CreatedAt. A reminder is due only if its time is after it, so a
	// booking or move made inside an offset gets none for it, and one
	// whose time passed while the appointment was not confirmed is not
	// sent late. Not shown by the API.
	RemindFrom time.Time `json:"remindFrom,omitzero"`
	// Session is set on a seat of a class session (decisions §10): the
	// appointment shares its staff member's time, and its resources,
	// with the session's other seats. Read from a state it is live (the
	// service's capacity and the seats taken now); in a record, as they
	// were once the write was made, which is what its answer and events
	// show. nil: not a seat.
	Session *Session `json:"session,omitempty"`
}

// Session is what a seat shows of its class session: the service's
// capacity and the seats taken, live holds included.
type Session struct {
	Capacity   int `json:"capacity"`
	SeatsTaken int `json:"seatsTaken"`
}

// ArmedAt is when the appointment's reminders were last armed.
func (a *Appointment) ArmedAt() time.Time {
	if a.RemindFrom.IsZero() {
		return a.CreatedAt
	}
	return a.RemindFrom
}

// Rearm arms a's reminders again at now when its start or status changed
// since before (the appointment as it was): a move, or becoming confirmed.
func (a *Appointment) Rearm(before *Appointment, now time.Time) {
	if a.Status != Confirmed {
		return
	}
	if before.Status != Confirmed || !before.StartTime.Equal(a.StartTime) {
		a.RemindFrom = now
	}
}

// Touch records a change of a made at now: updatedAt moves and the
// version grows. Every decision that changes an appointment calls it.
func (a *Appointment) Touch(now time.Time) {
	a.UpdatedAt = now
	a.Version = max(a.Version, 1) + 1
}

// AppointmentSeries is a series booked through the API (decisions §11):
// its rule, its occurrences as booked (their ids, in order) and the
// starts it skipped, each with the code it would have got.
type AppointmentSeries struct {
	ID          uuid.UUID
	Rule        string
	ServiceID   uuid.UUID
	CustomerID  uuid.UUID
	Occurrences []uuid.UUID
	Skipped     []SkippedStart
	CreatedAt   time.Time
}

// SkippedStart is an occurrence a series in skip mode did not book.
type SkippedStart struct {
	StartTime time.Time
	Code      string
}

// Basket is several services booked back to back in one write (decisions
// §11): its appointments, in the order of the items.
type Basket struct {
	ID           uuid.UUID
	CustomerID   uuid.UUID
	Appointments []uuid.UUID
	CreatedAt    time.Time
}
