package business

import (
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/tenant"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/catalog"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/transport/wire"
)

// addOutbox puts what the change still has to send into the batch that
// journals it. Each event becomes a pending first delivery attempt on every
// endpoint that delivers its type at this moment (switched on, not
// auto-disabled, subscribed): the delivery log is the webhook outbox, so
// nothing is backfilled to an endpoint that was off, and a delivery exists
// exactly when its event does. The envelope of api-v1 §6.2 is rendered once,
// its data as GET would render the subject at that moment, so a later
// delivery (or replay) sends what happened, not what is true by then. Mail
// rows hold what the mailer needs to write the message. It returns the new
// deliveries by endpoint, for their couriers once the batch is durable.
func addOutbox(b *storage.Batch, st *tenant.State, ch *record.Change) (map[uuid.UUID][]catalog.Delivery, error) {
	var fresh map[uuid.UUID][]catalog.Delivery
	eps := st.Endpoints()
	for i := range ch.Events {
		ev := &ch.Events[i]
		var env []byte
		for j := range eps {
			ep := &eps[j]
			if !ep.Delivers(ev.Type) {
				continue
			}
			if env == nil {
				env = envelope(st, ch, ev)
			}
			d := courier.First(ep.ID, ev.ID, ev.Type, env, ev.CreatedAt)
			enc, err := record.EncodeDelivery(&d)
			if err != nil {
				return nil, err
			}
			b.PutDelivery(st.Business.ID, ep.ID, d.ID, true, enc)
			if fresh == nil {
				fresh = map[uuid.UUID][]catalog.Delivery{}
			}
			fresh[ep.ID] = append(fresh[ep.ID], d)
		}
	}
	for _, m := range ch.Mails {
		b.PutOutbox(st.Business.ID, storage.OutboxMail, m.ID, mail(st, ch, &m))
	}
	for _, id := range ch.Removed {
		b.DeleteDeliveries(st.Business.ID, id)
	}
	return fresh, nil
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
	b = append(b, '}')
	if m.Endpoint != nil {
		if ep := endpointOf(st, ch, *m.Endpoint); ep != nil {
			b = append(b, `,"endpoint":{"id":`...)
			b = wire.AppendUUID(b, ep.ID)
			b = append(b, `,"url":`...)
			b = wire.AppendString(b, ep.URL)
			b = append(b, `,"consecutiveFailures":`...)
			b = wire.AppendInt(b, ep.ConsecutiveFailures)
			b = append(b, '}')
		}
		return append(b, '}')
	}
	b = append(b, `,"appointment":`...)
	b = appendSubject(b, st, ch, m.Appointment)
	return append(b, '}')
}

func endpointOf(st *tenant.State, ch *record.Change, id uuid.UUID) *catalog.Endpoint {
	for i := range ch.Endpoints {
		if ch.Endpoints[i].ID == id {
			return &ch.Endpoints[i]
		}
	}
	return st.Endpoint(id)
}
