package ledger

import (
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// errNoBusiness is returned when a record other than a catalogue put arrives
// before the business exists: the journal is damaged.
var errNoBusiness = errors.New("ledger: record for a business that does not exist")

// Apply returns the state after the record at seq. s is nil for a business
// that does not exist yet. s itself is never modified.
func Apply(s *State, seq uint64, r *record.Record) (*State, error) {
	switch r.Kind {
	case record.KindCatalog:
		return applyCatalog(s, seq, r.Catalog)
	}
	if s == nil {
		return nil, errNoBusiness
	}
	switch r.Kind {
	case record.KindKey:
		return applyKey(s, seq, r.Key.Key), nil
	case record.KindCustomers:
		return applyCustomers(s, seq, r.Customers.Customers), nil
	case record.KindChange:
		return applyChange(s, seq, r.Change), nil
	}
	return nil, fmt.Errorf("ledger: cannot apply record kind %d", r.Kind)
}

func applyCatalog(s *State, seq uint64, c *record.Catalog) (*State, error) {
	bk := newBook()
	if s != nil {
		bk = s.book
	}
	loc, err := model.Zone(c.Business.Timezone)
	if err != nil {
		return nil, err
	}
	bk = bk.inZone(loc).addCustomers(c.Customers).putAppointments(c.Appointments)
	armed := *c
	var prev []model.Reminder
	if s != nil {
		prev = s.Business.Reminders
	}
	armed.Business.Reminders = armReminders(prev, c.Business.Reminders, c.At)
	return fromCatalog(seq, &armed, bk)
}

func applyChange(s *State, seq uint64, c *record.Change) *State {
	n := *s
	n.Seq = seq
	n.book = s.book.applyChange(seq, c)
	return &n
}

func applyKey(s *State, seq uint64, k model.Key) *State {
	k.Origin = k.OriginIn(s.Business.ID)
	n := *s
	n.Seq = seq
	n.Keys = slices.Clone(s.Keys)
	i := slices.IndexFunc(n.Keys, func(x model.Key) bool { return x.ID == k.ID })
	if i < 0 {
		n.Keys = append(n.Keys, k)
	} else {
		n.Keys[i] = k
	}
	n.keyByHash = make(map[model.KeyHash]int, len(n.Keys))
	for i := range n.Keys {
		n.keyByHash[n.Keys[i].Hash] = i
	}
	return &n
}

func applyCustomers(s *State, seq uint64, cs []model.Customer) *State {
	n := *s
	n.Seq = seq
	n.book = s.book.addCustomers(cs)
	return &n
}

// Snapshot returns the whole of s as a snapshot payload.
func Snapshot(s *State) *record.Snapshot {
	snap := &record.Snapshot{Catalog: s.catalogOf()}
	snap.Customers = make([]model.Customer, 0, s.customers.Len())
	s.customers.Ascend(nil, func(_ uuid.UUID, c *model.Customer) bool {
		snap.Customers = append(snap.Customers, *c)
		return true
	})
	snap.Appointments = make([]model.Appointment, 0, s.appts.Len())
	s.appts.Ascend(nil, func(id uuid.UUID, c appt) bool {
		var v view
		a := s.refs.materialize(id, &c, &v)
		s.live(a, &v.sess)
		a.Segments = slices.Clone(a.Segments)
		snap.Appointments = append(snap.Appointments, *a)
		return true
	})
	s.idem.Ascend(nil, func(k string, e idem) bool {
		snap.Idempotency = append(snap.Idempotency, *e.materialize(k))
		return true
	})
	snap.Endpoints = s.endpoints
	snap.Feeds = s.feeds
	snap.Busy = s.busySnapshot()
	snap.Sources = s.sources
	snap.Reminded = s.reminded
	s.payments.Ascend(nil, func(_ uuid.UUID, p *model.Payment) bool {
		snap.Payments = append(snap.Payments, *p)
		return true
	})
	snap.Checkouts = s.Checkouts()
	s.holds.Ascend(nil, func(_ uuid.UUID, h *model.Hold) bool {
		snap.Holds = append(snap.Holds, *h)
		return true
	})
	s.entries.Ascend(nil, func(_ uuid.UUID, e *model.WaitlistEntry) bool {
		snap.Entries = append(snap.Entries, *e)
		return true
	})
	if s.lastAssigned != uuid.Nil {
		la := s.lastAssigned
		snap.LastAssigned = &la
	}
	s.series.Ascend(nil, func(_ uuid.UUID, x *model.AppointmentSeries) bool {
		snap.Series = append(snap.Series, *x)
		return true
	})
	s.baskets.Ascend(nil, func(_ uuid.UUID, x *model.Basket) bool {
		snap.Baskets = append(snap.Baskets, *x)
		return true
	})
	return snap
}

// FromSnapshot rebuilds the state a snapshot taken at seq describes.
func FromSnapshot(seq uint64, snap *record.Snapshot) (*State, error) {
	c := snap.Catalog
	c.Customers = snap.Customers
	c.Appointments = snap.Appointments
	st, err := applyCatalog(nil, seq, &c)
	if err != nil {
		return nil, err
	}
	for i := range snap.Idempotency {
		e := &snap.Idempotency[i]
		st.idem = st.idem.Set(e.Key, compactIdem(e, e.Seq))
	}
	if snap.LastAssigned != nil {
		st.lastAssigned = *snap.LastAssigned
	}
	st.endpoints = snap.Endpoints
	st.feeds = snap.Feeds
	st.book = st.book.applyBusy(snap.Busy)
	st.sources = snap.Sources
	st.reminded = snap.Reminded
	for i := range snap.Payments {
		st.book = st.book.putPayment(snap.Payments[i])
	}
	if len(snap.Checkouts) > 0 {
		st.book = st.book.openCheckouts(snap.Checkouts)
	}
	for i := range snap.Holds {
		st.book = st.book.putHold(snap.Holds[i])
	}
	for i := range snap.Entries {
		st.book = st.book.putEntry(snap.Entries[i])
	}
	for i := range snap.Series {
		x := snap.Series[i]
		st.series = st.series.Set(x.ID, &x)
	}
	for i := range snap.Baskets {
		x := snap.Baskets[i]
		st.baskets = st.baskets.Set(x.ID, &x)
	}
	return st, nil
}
