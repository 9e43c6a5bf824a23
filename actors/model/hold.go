package model

import (
	"time"

	"github.com/google/uuid"
)

// HoldStatus is where a hold stands (decisions §6).
type HoldStatus string

// The hold statuses. Only an active hold occupies time, and only until its
// expiresAt.
const (
	HoldActive   HoldStatus = "active"
	HoldBooked   HoldStatus = "booked"   // consumed by the booking that used it
	HoldReleased HoldStatus = "released" // DELETE, or its waitlist entry was deleted
	HoldExpired  HoldStatus = "expired"
)

// Hold is a slot kept for a customer while they finish checkout: the
// footprint a booking of Service at Start by Staff would have, held in the
// staff member's calendar like an appointment's active segments until
// ExpiresAt, then freed. A booking that names it books exactly that
// footprint.
type Hold struct {
	ID        uuid.UUID
	ServiceID uuid.UUID
	StaffID   uuid.UUID
	Start     time.Time
	End       time.Time // Start + the service's durationMinutes
	Segments  []Segment // the footprint; segment ids derived from the hold id
	ExpiresAt time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    HoldStatus
	// Appointment is the booking that consumed the hold (status booked).
	Appointment *uuid.UUID
	// Entry is the waitlist entry the hold was placed for, when it is an
	// offer (decisions §6, "Waitlist").
	Entry *uuid.UUID
	// Buffers are the service's, as the booking it keeps would have them.
	Buffers Buffers
	// Resources are the service's needs, which the hold takes as the
	// booking it keeps would (decisions §10).
	Resources []ResourceNeed
	// Seat: the hold keeps a seat of a class session (decisions §10),
	// sharing the session's time and resources with its other seats.
	Seat bool
}

// Live reports whether h still holds its time at now.
func (h *Hold) Live(now time.Time) bool {
	return h.Status == HoldActive && now.Before(h.ExpiresAt)
}

// HoldMaxLife is how long after its creation a hold may be kept at most,
// extensions included; HoldMinTTL and HoldDefaultTTL bound and default
// ttlSeconds.
const (
	HoldMinTTL     = 30 * time.Second
	HoldDefaultTTL = 300 * time.Second
	HoldMaxLife    = 1800 * time.Second
)

// EntryStatus is where a waitlist entry stands.
type EntryStatus string

// The waitlist entry statuses. A deleted entry is kept only as long as the
// journal needs it; no read shows it.
const (
	EntryWaiting EntryStatus = "waiting"
	EntryOffered EntryStatus = "offered"
	EntryBooked  EntryStatus = "booked"
	EntryExpired EntryStatus = "expired"
	EntryDeleted EntryStatus = "deleted"
)

// OfferTTL is how long a waitlist offer's hold lives.
const OfferTTL = 900 * time.Second

// Person is the customer a waitlist entry is for: who to e-mail, and who
// the booking will be for. It is not a customer record of the business
// until they book.
type Person struct {
	FirstName string
	LastName  string
	Email     string
	Phone     string
}

// Offer is the start a waitlist entry was offered, held for it.
type Offer struct {
	HoldID    uuid.UUID
	Start     time.Time
	StaffID   uuid.UUID
	ExpiresAt time.Time
}

// WaitlistEntry is a customer waiting for a start of Service (with Staff,
// when given) in [From, To] to become free (decisions §6).
type WaitlistEntry struct {
	ID        uuid.UUID
	ServiceID uuid.UUID
	StaffID   *uuid.UUID
	From, To  time.Time
	Customer  Person
	Status    EntryStatus
	Offer     *Offer     // status offered: the live offer
	Booked    *uuid.UUID // status booked: the appointment
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Open reports whether e still waits or holds an offer.
func (e *WaitlistEntry) Open() bool { return e.Status == EntryWaiting || e.Status == EntryOffered }
