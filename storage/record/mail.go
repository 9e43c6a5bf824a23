package record

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/slotd/slotd/actors/model"
)

// MailRow is an e-mail waiting in the outbox table: everything the sender
// needs to write the message, as it was at the write that queued it. The
// business actor puts it in the batch of that write (so no e-mail exists
// for a write that did not happen); package mail reads it, renders it and
// deletes it once sent. Writer and sender share this one type, so they
// cannot disagree about the format.
//
// Rows are written in the binary form of the journal (a VersionBinary
// byte, then the fields in order: about 200 bytes for a confirmation). A
// row with an Offer starts with VersionTagged instead: the same fields,
// then the payment behind a presence byte, then the offer (see
// EncodeMailRow); every other row keeps exactly the VersionBinary bytes.
// Rows written before were JSON, with the member names of the API's
// resources (an appointment row read like a trimmed GET
// /appointments/{id}); those still decode, unknown members ignored.
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
	// Payment is the prepayment a payment request asks for.
	Payment *MailPayment `json:"payment,omitempty"`
	// Offer is the hold a waitlist_offer e-mail offers the customer of a
	// waitlist entry (decisions §6); Appointment then describes the held
	// slot (its ID is the hold's, its status means nothing).
	Offer *MailOffer `json:"offer,omitempty"`
	// ManageURL is the customer's manage link (decisions §7), shown in a
	// confirmation. The writer leaves it empty: the mailer fills it when it
	// renders the row, so the link follows the server's --public-url and
	// its secret, and no link is ever stored in the outbox.
	ManageURL string `json:"manageUrl,omitempty"`
	// Dates are the occurrences a series confirmation lists, or the
	// appointments of a basket (decisions §11), in order; Appointment is
	// then the first of them.
	Dates []MailDate `json:"dates,omitempty"`
}

// MailDate is one occurrence of a series: its appointment and times, and
// (filled by the mailer, as ManageURL is) its own manage link.
type MailDate struct {
	ID        string    `json:"id,omitempty"`
	StartTime time.Time `json:"startTime"`
	EndTime   time.Time `json:"endTime"`
	ManageURL string    `json:"manageUrl,omitempty"`
	// Service and Staff name a basket's appointment: its service, and
	// who does it.
	Service string `json:"service,omitempty"`
	Staff   string `json:"staff,omitempty"`
}

// MailOffer is what a waitlist offer is about: the hold slotd placed for
// the waitlist entry, and when it lapses (after which the time is offered
// to the next entry).
type MailOffer struct {
	HoldID    string    `json:"holdId"`
	ExpiresAt time.Time `json:"expiresAt"`
	EntryID   string    `json:"entryId"`
}

// MailPayment is what a payment request shows: the amount, and the
// checkout link of a redirect provider ("" for a client-secret provider,
// whose payment form is the integrator's own page).
type MailPayment struct {
	AmountCents int    `json:"amountCents"`
	Currency    string `json:"currency"`
	CheckoutURL string `json:"checkoutUrl,omitempty"`
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
func EncodeMailRow(m *MailRow) ([]byte, error) {
	if m.Appointment != nil && len(m.Appointment.BookingReference) > 0 && !json.Valid(m.Appointment.BookingReference) {
		return nil, fmt.Errorf("record: mail row %s: bookingReference is not JSON", m.ID)
	}
	e := w{b: make([]byte, 0, 256)}
	if m.Offer != nil {
		e.byte1(VersionTagged)
	} else {
		e.byte1(VersionBinary)
	}
	e.ulidText(m.ID, "")
	putEnum(&e, m.Kind, model.MailKinds)
	e.str(m.To)
	e.time(m.At)
	e.str(m.Locale)
	e.str(m.Business.ID)
	e.str(m.Business.Name)
	e.str(m.Business.Timezone)
	e.bool(m.Appointment != nil)
	if a := m.Appointment; a != nil {
		e.str(a.ID)
		putEnum(&e, model.Status(a.Status), model.Statuses)
		e.time(a.StartTime)
		e.time(a.EndTime)
		e.bytes(a.BookingReference)
		e.str(a.Customer.FirstName)
		e.str(a.Customer.LastName)
		e.str(a.Service.Name)
		e.i(int64(a.Service.DurationMinutes))
		e.i(int64(a.Service.PriceCents))
		e.bool(a.StaffMember != nil)
		if a.StaffMember != nil {
			e.str(a.StaffMember.Name)
		}
		e.optInt(a.BasePriceCents)
		e.optInt(a.TotalPriceCents)
		e.optInt(a.DepositCents)
		e.str(a.Currency)
	}
	e.bool(m.Endpoint != nil)
	if ep := m.Endpoint; ep != nil {
		e.str(ep.ID)
		e.str(ep.URL)
		e.i(int64(ep.ConsecutiveFailures))
	}
	if o := m.Offer; o != nil {
		// VersionTagged: a payment part that simply ends the row could
		// not be told from an offer after it, so here it has a presence
		// byte, and the offer is always last.
		e.bool(m.Payment != nil)
		if m.Payment != nil {
			e.mailPayment(m.Payment)
		}
		e.str(o.HoldID)
		e.time(o.ExpiresAt)
		e.str(o.EntryID)
	} else if m.Payment != nil { // VersionBinary: last and optional, older rows end before it
		e.mailPayment(m.Payment)
	}
	return e.b, nil
}

func (e *w) mailPayment(p *MailPayment) {
	e.i(int64(p.AmountCents))
	e.str(p.Currency)
	e.str(p.CheckoutURL)
}

func (d *r) mailPayment() *MailPayment {
	return &MailPayment{AmountCents: d.int(), Currency: d.str(), CheckoutURL: d.str()}
}

// DecodeMailRow decodes an outbox mail row, binary (VersionBinary, or
// VersionTagged for a row with an offer) or (written before the binary
// form) JSON. It never panics on bad input.
func DecodeMailRow(b []byte) (*MailRow, error) {
	if len(b) > 0 && (b[0] == VersionBinary || b[0] == VersionTagged) {
		d := r{b: b[1:], tagged: b[0] == VersionTagged}
		m := decodeMailRow(&d)
		if d.err == nil && len(d.b) != 0 {
			d.err = errShort
		}
		if d.err != nil {
			return nil, fmt.Errorf("%w: mail row: %v", ErrCorrupt, d.err)
		}
		return m, nil
	}
	m := new(MailRow)
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%w: mail row: %v", ErrCorrupt, err)
	}
	return m, nil
}

func decodeMailRow(d *r) *MailRow {
	m := &MailRow{ID: d.ulidText(""), Kind: getEnum(d, model.MailKinds), To: d.str(), At: d.time(), Locale: d.str(),
		Business: MailBusiness{ID: d.str(), Name: d.str(), Timezone: d.str()}}
	if d.bool() {
		a := &MailAppointment{ID: d.str(), Status: string(getEnum(d, model.Statuses)), StartTime: d.time(), EndTime: d.time()}
		if ref := d.bytes(); len(ref) > 0 {
			if !json.Valid(ref) {
				d.fail()
			}
			a.BookingReference = ref
		}
		a.Customer = MailPerson{FirstName: d.str(), LastName: d.str()}
		a.Service = MailService{Name: d.str(), DurationMinutes: d.int(), PriceCents: d.int()}
		if d.bool() {
			a.StaffMember = &MailStaff{Name: d.str()}
		}
		a.BasePriceCents, a.TotalPriceCents, a.DepositCents = d.optInt(), d.optInt(), d.optInt()
		a.Currency = d.str()
		m.Appointment = a
	}
	if d.bool() {
		m.Endpoint = &MailEndpoint{ID: d.str(), URL: d.str(), ConsecutiveFailures: d.int()}
	}
	if d.tagged {
		if d.bool() {
			m.Payment = d.mailPayment()
		}
		m.Offer = &MailOffer{HoldID: d.str(), ExpiresAt: d.time(), EntryID: d.str()}
	} else if len(d.b) > 0 && d.err == nil {
		m.Payment = d.mailPayment()
	}
	return m
}
