package business

import (
	"github.com/google/uuid"
	"github.com/slotd/slotd/actors/catalog"
	"github.com/slotd/slotd/actors/tenant"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/transport/wire"
)

// addOutbox puts the change's events and e-mails into the store's outbox in
// the batch that journals the change. An event row holds the whole envelope
// of api-v1 §6.2, its data rendered as GET would render the subject at that
// moment, so a later delivery (or replay) sends what happened, not what is
// true by then. A mail row holds what the mailer needs to write the message.
func addOutbox(b *storage.Batch, st *tenant.State, ch *record.Change) {
	for _, ev := range ch.Events {
		b.PutOutbox(st.Business.ID, storage.OutboxEvent, ev.ID, envelope(st, ch, &ev))
	}
	for _, m := range ch.Mails {
		b.PutOutbox(st.Business.ID, storage.OutboxMail, m.ID, mail(st, ch, &m))
	}
}

func envelope(st *tenant.State, ch *record.Change, ev *record.Event) []byte {
	b := append([]byte(nil), `{"id":`...)
	b = wire.AppendString(b, ev.ID)
	b = append(b, `,"type":`...)
	b = wire.AppendString(b, ev.Type)
	b = append(b, `,"createdAt":`...)
	b = wire.AppendTime(b, ev.CreatedAt)
	b = append(b, `,"apiVersion":"v1","data":`...)
	b = appendSubject(b, st, ch, ev.Subject)
	return append(b, '}')
}

// appendSubject renders the appointment or customer id names, as of the
// state after ch.
func appendSubject(b []byte, st *tenant.State, ch *record.Change, id uuid.UUID) []byte {
	if a := appointmentOf(st, ch, id); a != nil {
		return wire.AppendAppointment(b, a, customerOf(st, ch, a.CustomerID))
	}
	if c := customerOf(st, ch, id); c != nil {
		return wire.AppendCustomer(b, c)
	}
	return append(b, "null"...)
}

func appointmentOf(st *tenant.State, ch *record.Change, id uuid.UUID) *catalog.Appointment {
	for i := range ch.Appointments {
		if ch.Appointments[i].ID == id {
			return &ch.Appointments[i]
		}
	}
	return st.Appointment(id)
}

func mail(st *tenant.State, ch *record.Change, m *record.Mail) []byte {
	b := append([]byte(nil), `{"id":`...)
	b = wire.AppendString(b, m.ID)
	b = append(b, `,"kind":`...)
	b = wire.AppendString(b, m.Kind)
	b = append(b, `,"to":`...)
	b = wire.AppendString(b, m.To)
	b = append(b, `,"at":`...)
	b = wire.AppendTime(b, m.At)
	b = append(b, `,"business":{"id":`...)
	b = wire.AppendUUID(b, st.Business.ID)
	b = append(b, `,"name":`...)
	b = wire.AppendString(b, st.Business.Name)
	b = append(b, `,"timezone":`...)
	b = wire.AppendString(b, st.Business.Timezone)
	b = append(b, `},"appointment":`...)
	b = appendSubject(b, st, ch, m.Appointment)
	return append(b, '}')
}
