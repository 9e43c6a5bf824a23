package business

import (
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
)

// addOutbox puts what the change still has to send into the batch that
// journals it. Each event becomes a pending first delivery attempt on every
// endpoint that delivers its type at this moment (switched on, not
// auto-disabled, subscribed): the delivery log is the webhook outbox, so
// nothing is backfilled to an endpoint that was off, and a delivery exists
// exactly when its event does. The envelope of api-v1 §6.2 is rendered once
// (model/wire), its data as GET would render the subject at that moment,
// so a later delivery (or replay) sends what happened, not what is true by
// then. Each e-mail becomes a record.MailRow with what the mailer needs.
// It returns the new deliveries by endpoint, for their couriers once the
// batch is durable.
func (a *businessActor) addOutbox(b *storage.Batch, st *ledger.State, ch *record.Change) (map[uuid.UUID][]model.Delivery, []MailRow, error) {
	var fresh map[uuid.UUID][]model.Delivery
	var mails []MailRow
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
				env = a.envelope(st, ch, ev)
			}
			d := courier.First(ep.ID, ev.ID, ev.Type, env, ev.CreatedAt)
			enc, err := record.EncodeDelivery(&d)
			if err != nil {
				return nil, nil, err
			}
			b.PutDelivery(st.Business.ID, ep.ID, d.ID, true, enc)
			if fresh == nil {
				fresh = map[uuid.UUID][]model.Delivery{}
			}
			fresh[ep.ID] = append(fresh[ep.ID], d)
		}
	}
	for i := range ch.Mails {
		mr := mailRow(st, ch, &ch.Mails[i])
		row, err := record.EncodeMailRow(mr)
		if err != nil {
			return nil, nil, err
		}
		b.PutOutbox(st.Business.ID, storage.OutboxMail, ch.Mails[i].ID, row)
		if a.env.MailQueued != nil {
			mails = append(mails, MailRow{ID: ch.Mails[i].ID, Row: row, Decoded: mr})
		}
	}
	for _, id := range ch.Removed {
		b.DeleteDeliveries(st.Business.ID, id)
	}
	if len(ch.Payments) > 0 || len(ch.Checkouts) > 0 || len(ch.Closed) > 0 || len(ch.Holds) > 0 || len(ch.Entries) > 0 ||
		len(st.Business.Reminders) > 0 && (len(ch.Appointments) > 0 || !ch.Reminded.IsZero()) {
		markTimed(b, st)
	}
	return fresh, mails, nil
}

// markTimed keeps the business's storage.OutboxTimed row as st says:
// start-up wakes its actor when it has timed work.
func markTimed(b *storage.Batch, st *ledger.State) {
	if st.HasTimedWork() {
		b.PutOutbox(st.Business.ID, storage.OutboxTimed, "", nil)
	} else {
		b.DeleteOutbox(st.Business.ID, storage.OutboxTimed, "")
	}
}

// envelope renders event ev; its subject is an appointment (with its
// customer) or a customer, as of the state after ch.
func (a *businessActor) envelope(st *ledger.State, ch *record.Change, ev *record.Event) []byte {
	if strings.HasPrefix(ev.Type, "waitlist.") {
		return wire.AppendEntryEvent(make([]byte, 0, 512), ev.ID, ev.Type, ev.CreatedAt, entryOf(st, ch, ev.Subject))
	}
	if strings.HasPrefix(ev.Type, "payment.") {
		p := ledger.PaymentIn(ch, ev.Subject)
		if p == nil {
			p = st.Payment(ev.Subject)
		}
		return wire.AppendPaymentEvent(make([]byte, 0, 512), ev.ID, ev.Type, ev.CreatedAt, p)
	}
	appt := appointmentOf(st, ch, ev.Subject)
	var link string
	if appt != nil && a.env.ManageURL != nil {
		link = a.env.ManageURL(st.Business.ID, appt.ID)
	}
	if ev.Reminder != 0 && appt != nil {
		cu := ledger.CustomerIn(st, ch, appt.CustomerID)
		return wire.AppendReminderEvent(make([]byte, 0, 1700), ev.ID, ev.CreatedAt, appt, cu, ev.Reminder, link)
	}
	var cu *model.Customer
	if appt != nil {
		cu = ledger.CustomerIn(st, ch, appt.CustomerID)
	} else {
		cu = ledger.CustomerIn(st, ch, ev.Subject)
	}
	return wire.AppendEvent(make([]byte, 0, 1640), ev.ID, ev.Type, ev.CreatedAt, appt, cu, ev.ByCustomer, link)
}

func appointmentOf(st *ledger.State, ch *record.Change, id uuid.UUID) *model.Appointment {
	for i := range ch.Appointments {
		if ch.Appointments[i].ID == id {
			return &ch.Appointments[i]
		}
	}
	return st.Appointment(id)
}

// mailRow is the outbox row of e-mail m, as of the state after ch.
func mailRow(st *ledger.State, ch *record.Change, m *record.Mail) *record.MailRow {
	r := &record.MailRow{ID: m.ID, Kind: m.Kind, To: m.To, At: m.At,
		Business: record.MailBusiness{ID: st.Business.ID.String(), Name: st.Business.Name, Timezone: st.Business.Timezone}}
	if m.Endpoint != nil {
		if ep := endpointOf(st, ch, *m.Endpoint); ep != nil {
			r.Endpoint = &record.MailEndpoint{ID: ep.ID.String(), URL: ep.URL, ConsecutiveFailures: ep.ConsecutiveFailures}
		}
		return r
	}
	if m.Kind == model.MailWaitlistOffer {
		offerMail(st, ch, m, r)
		return r
	}
	if appt := appointmentOf(st, ch, m.Appointment); appt != nil {
		r.Appointment = mailAppointment(appt, ledger.CustomerIn(st, ch, appt.CustomerID))
		switch m.Kind {
		case model.MailSeriesConfirmation, model.MailSeriesCancelled:
			for i := range ch.Appointments {
				if x := &ch.Appointments[i]; x.RecurringSeriesID != nil && appt.RecurringSeriesID != nil && *x.RecurringSeriesID == *appt.RecurringSeriesID {
					r.Dates = append(r.Dates, record.MailDate{ID: x.ID.String(), StartTime: x.StartTime, EndTime: x.EndTime})
				}
			}
		case model.MailBasketConfirmation, model.MailBasketCancelled:
			for i := range ch.Appointments {
				if x := &ch.Appointments[i]; x.BasketID != nil && appt.BasketID != nil && *x.BasketID == *appt.BasketID {
					d := record.MailDate{ID: x.ID.String(), StartTime: x.StartTime, EndTime: x.EndTime, Service: x.Service.Name}
					if x.Staff != nil {
						d.Staff = x.Staff.Name
					}
					r.Dates = append(r.Dates, d)
				}
			}
		}
		if p := ledger.PaymentIn(ch, appt.ID); p != nil && appt.Status == model.PendingPayment && p.Status == model.PaymentPending {
			r.Payment = &record.MailPayment{AmountCents: p.AmountCents, Currency: p.Currency, CheckoutURL: p.CheckoutURL}
		}
	}
	return r
}

func mailAppointment(a *model.Appointment, cu *model.Customer) *record.MailAppointment {
	m := &record.MailAppointment{ID: a.ID.String(), Status: string(a.Status), StartTime: a.StartTime, EndTime: a.EndTime,
		Service:        record.MailService{Name: a.Service.Name, DurationMinutes: a.Service.DurationMinutes, PriceCents: a.Service.PriceCents},
		BasePriceCents: a.BasePriceCents, TotalPriceCents: a.TotalPriceCents, DepositCents: a.DepositCents, Currency: a.Currency}
	if a.BookingReference != nil {
		m.BookingReference = quote(*a.BookingReference)
	}
	if cu != nil {
		m.Customer = record.MailPerson{FirstName: cu.FirstName, LastName: cu.LastName}
	}
	if a.Staff != nil {
		m.StaffMember = &record.MailStaff{Name: a.Staff.Name}
	}
	return m
}

// quote is s as a JSON string.
func quote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func endpointOf(st *ledger.State, ch *record.Change, id uuid.UUID) *model.Endpoint {
	for i := range ch.Endpoints {
		if ch.Endpoints[i].ID == id {
			return &ch.Endpoints[i]
		}
	}
	return st.Endpoint(id)
}

// entryOf is waitlist entry id as ch leaves it.
func entryOf(st *ledger.State, ch *record.Change, id uuid.UUID) *model.WaitlistEntry {
	for i := range ch.Entries {
		if ch.Entries[i].ID == id {
			return &ch.Entries[i]
		}
	}
	return st.Entry(id)
}

// offerMail fills r, a waitlist offer (m.Appointment is the offer's hold),
// with the time held, as an appointment of the entry's customer would show
// it, and the offer.
func offerMail(st *ledger.State, ch *record.Change, m *record.Mail, r *record.MailRow) {
	var h *model.Hold
	for i := range ch.Holds {
		if ch.Holds[i].ID == m.Appointment {
			h = &ch.Holds[i]
		}
	}
	if h == nil {
		h = st.Hold(m.Appointment)
	}
	if h == nil || h.Entry == nil {
		return
	}
	e := entryOf(st, ch, *h.Entry)
	svc := st.Service(h.ServiceID)
	if e == nil || svc == nil {
		return
	}
	r.Appointment = &record.MailAppointment{ID: h.ID.String(), StartTime: h.Start, EndTime: h.End,
		Customer: record.MailPerson{FirstName: e.Customer.FirstName, LastName: e.Customer.LastName},
		Service:  record.MailService{Name: svc.Name, DurationMinutes: svc.DurationMinutes, PriceCents: svc.PriceCents},
		Currency: st.Business.Currency}
	if staff := st.StaffMember(h.StaffID); staff != nil {
		r.Appointment.StaffMember = &record.MailStaff{Name: staff.Name}
	}
	r.Offer = &record.MailOffer{HoldID: h.ID.String(), ExpiresAt: h.ExpiresAt, EntryID: e.ID.String()}
}
