package record

import (
	"encoding/json"
	"fmt"
	"time"
)

// MailRow is an e-mail waiting in the outbox table: everything the sender
// needs to write the message, as it was at the write that queued it. The
// business actor puts it in the batch of that write (so no e-mail exists
// for a write that did not happen); package mail reads it, renders it and
// deletes it once sent. Writer and sender share this one type, so they
// cannot disagree about the format.
//
// Rows are JSON. The member names are those of the API's resources (an
// appointment row reads like a trimmed GET /appointments/{id}), which is
// also what rows written before this type existed hold, so those still
// decode. Unknown members are ignored.
type MailRow struct {
	ID   string    `json:"id"` // ULID: a file name and the Message-ID
	Kind string    `json:"kind"`
	To   string    `json:"to"`
	At   time.Time `json:"at"`
	// Locale selects the message's language; empty means the default.
	Locale      string           `json:"locale,omitempty"`
	Business    MailBusiness     `json:"business"`
	Appointment *MailAppointment `json:"appointment,omitempty"`
	// Endpoint is the webhook endpoint an endpoint_disabled notice is about.
	Endpoint *MailEndpoint `json:"endpoint,omitempty"`
}

// MailBusiness is who the message comes from.
type MailBusiness struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Timezone string `json:"timezone"`
}

// MailAppointment is the part of an appointment a message shows.
type MailAppointment struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	StartTime time.Time `json:"startTime"`
	EndTime   time.Time `json:"endTime"`
	// BookingReference is raw JSON: the API does not fix the type of a
	// non-null reference, so the sender shows it only when it is a string
	// or a number.
	BookingReference json.RawMessage `json:"bookingReference,omitempty"`
	Customer         MailPerson      `json:"customer"`
	Service          MailService     `json:"service"`
	StaffMember      *MailStaff      `json:"staffMember,omitempty"`
	BasePriceCents   *int            `json:"basePriceCents,omitempty"`
	TotalPriceCents  *int            `json:"totalPriceCents,omitempty"`
	DepositCents     *int            `json:"depositCents,omitempty"`
	Currency         string          `json:"currency"`
}

// MailPerson is the customer a message addresses.
type MailPerson struct {
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
}

// MailService is the booked service as the appointment recorded it.
type MailService struct {
	Name            string `json:"name"`
	DurationMinutes int    `json:"durationMinutes"`
	PriceCents      int    `json:"priceCents"`
}

// MailStaff is the staff member a message names.
type MailStaff struct {
	Name string `json:"name"`
}

// MailEndpoint is the endpoint of an endpoint_disabled notice.
type MailEndpoint struct {
	ID                  string `json:"id"`
	URL                 string `json:"url"`
	ConsecutiveFailures int    `json:"consecutiveFailures"`
}

// EncodeMailRow returns the stored form of m.
func EncodeMailRow(m *MailRow) ([]byte, error) { return json.Marshal(m) }

// DecodeMailRow decodes an outbox mail row. It never panics on bad input.
func DecodeMailRow(b []byte) (*MailRow, error) {
	m := new(MailRow)
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%w: mail row: %v", ErrCorrupt, err)
	}
	return m, nil
}
