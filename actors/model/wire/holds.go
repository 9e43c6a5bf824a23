package wire

import (
	"time"

	"github.com/slotd/slotd/actors/model"
)

// AppendHold appends a hold (decisions §6): the members the spec names,
// then its status and, once booked, the appointment that used it.
func AppendHold(b []byte, h *model.Hold) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, h.ID)
	b = AppendKey(b, "serviceId")
	b = AppendUUID(b, h.ServiceID)
	b = AppendKey(b, "staffMemberId")
	b = AppendUUID(b, h.StaffID)
	b = AppendKey(b, "startTime")
	b = AppendTime(b, h.Start)
	b = AppendKey(b, "endTime")
	b = AppendTime(b, h.End)
	b = AppendKey(b, "segments")
	b = appendSegments(b, h.Segments)
	b = AppendKey(b, "expiresAt")
	b = AppendTime(b, h.ExpiresAt)
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, h.CreatedAt)
	b = AppendKey(b, "status")
	b = AppendString(b, string(h.Status))
	b = AppendKey(b, "appointmentId")
	b = AppendNullUUID(b, h.Appointment)
	b = AppendKey(b, "waitlistEntryId")
	b = AppendNullUUID(b, h.Entry)
	return append(b, '}')
}

// AppendEntry appends a waitlist entry (decisions §6), with its live offer
// (null unless offered) and, once booked, its appointment.
func AppendEntry(b []byte, e *model.WaitlistEntry) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, e.ID)
	b = AppendKey(b, "serviceId")
	b = AppendUUID(b, e.ServiceID)
	b = AppendKey(b, "staffMemberId")
	b = AppendNullUUID(b, e.StaffID)
	b = AppendKey(b, "from")
	b = AppendTime(b, e.From)
	b = AppendKey(b, "to")
	b = AppendTime(b, e.To)
	b = AppendKey(b, "customer")
	b = append(b, '{')
	b = AppendKey(b, "firstName")
	b = AppendString(b, e.Customer.FirstName)
	b = AppendKey(b, "lastName")
	b = AppendString(b, e.Customer.LastName)
	b = AppendKey(b, "email")
	b = AppendString(b, e.Customer.Email)
	b = AppendKey(b, "phone")
	b = AppendString(b, e.Customer.Phone)
	b = append(b, '}')
	b = AppendKey(b, "status")
	b = AppendString(b, string(e.Status))
	b = AppendKey(b, "offer")
	if o := e.Offer; o != nil && e.Status == model.EntryOffered {
		b = append(b, '{')
		b = AppendKey(b, "holdId")
		b = AppendUUID(b, o.HoldID)
		b = AppendKey(b, "startTime")
		b = AppendTime(b, o.Start)
		b = AppendKey(b, "staffMemberId")
		b = AppendUUID(b, o.StaffID)
		b = AppendKey(b, "expiresAt")
		b = AppendTime(b, o.ExpiresAt)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = AppendKey(b, "appointmentId")
	b = AppendNullUUID(b, e.Booked)
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, e.CreatedAt)
	b = AppendKey(b, "updatedAt")
	b = AppendTime(b, e.UpdatedAt)
	return append(b, '}')
}

// AppendEntryEvent appends the envelope of a waitlist event: its data is
// the entry.
func AppendEntryEvent(b []byte, id, typ string, at time.Time, e *model.WaitlistEntry) []byte {
	b = appendEnvelopeHead(b, id, typ, at, "")
	return append(AppendEntry(b, e), '}')
}
