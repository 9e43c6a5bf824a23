package record

import (
	"maps"
	"slices"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
)

// The tagged sections that end a change or snapshot of format version 3:
// what only some writes touch. Each is a tag byte and its body, written
// only when it has something, in ascending tag order; a decoder refuses an
// unknown tag, a repeated one or one out of order. A booking that touches
// none of them encodes to the same bytes as if they did not exist.
const (
	tagPayments    byte = 1 + iota // payments, checkouts reserved, checkouts closed
	tagHolds                       // holds created or changed
	tagEntries                     // waitlist entries created or changed
	tagMetadata                    // the metadata of the record's appointments that have any
	tagByCustomer                  // the record's events the customer's change caused
	tagReschedules                 // the customers' reschedules of the record's appointments that have any
)

// parts is what the sections carry, for a change or a snapshot (which
// has no closed checkouts).
type parts struct {
	payments  []model.Payment
	checkouts []Checkout
	closed    []uuid.UUID
	holds     []model.Hold
	entries   []model.WaitlistEntry
	// events are a change's events (written before the sections): the
	// by-customer section lists those whose change was the customer's.
	events []Event
	// appts are the record's appointments (written before the sections):
	// the metadata section carries what those that have any hold, by
	// their index in the list, and decoding puts it back into them.
	appts []model.Appointment
}

func (e *w) sections(p *parts) {
	if len(p.payments) > 0 || len(p.checkouts) > 0 || len(p.closed) > 0 {
		e.byte1(tagPayments)
		e.payments(p.payments)
		e.checkouts(p.checkouts)
		e.ids(p.closed)
	}
	if len(p.holds) > 0 {
		e.byte1(tagHolds)
		putList(e, p.holds, (*w).hold)
	}
	if len(p.entries) > 0 {
		e.byte1(tagEntries)
		putList(e, p.entries, (*w).entry)
	}
	e.metadata(p.appts)
	e.byCustomer(p.events)
	e.reschedules(p.appts)
}

// reschedules writes the reschedules section: how many of the record's
// appointments their customer has moved, then per appointment its index in
// the record's list and the count.
func (e *w) reschedules(appts []model.Appointment) {
	n := 0
	for i := range appts {
		if appts[i].CustomerReschedules > 0 {
			n++
		}
	}
	if n == 0 {
		return
	}
	e.byte1(tagReschedules)
	e.u(uint64(n))
	for i := range appts {
		if k := appts[i].CustomerReschedules; k > 0 {
			e.u(uint64(i))
			e.u(uint64(k))
		}
	}
}

// reschedules reads the reschedules section into appts, refusing an index
// out of the list or out of order and a count of zero.
func (d *r) reschedules(appts []model.Appointment) {
	n := d.n(2)
	if n == 0 {
		d.fail() // written only when some appointment was moved
		return
	}
	last := -1
	for range n {
		i, k := int(d.u()), d.u()
		if d.err != nil {
			return
		}
		if i <= last || i >= len(appts) || k == 0 || k > 1<<20 {
			d.fail()
			return
		}
		last = i
		appts[i].CustomerReschedules = int(k)
	}
}

// byCustomer writes the by-customer section: how many of the record's
// events the customer's change caused, then their indexes, ascending.
func (e *w) byCustomer(events []Event) {
	n := 0
	for i := range events {
		if events[i].ByCustomer {
			n++
		}
	}
	if n == 0 {
		return
	}
	e.byte1(tagByCustomer)
	e.u(uint64(n))
	for i := range events {
		if events[i].ByCustomer {
			e.u(uint64(i))
		}
	}
}

// byCustomer reads the by-customer section into p.events, refusing an
// index out of the list or out of order.
func (d *r) byCustomer(events []Event) {
	n := d.n(1)
	if n == 0 {
		d.fail() // written only when some event was the customer's
		return
	}
	last := -1
	for range n {
		i := int(d.u())
		if d.err != nil {
			return
		}
		if i <= last || i >= len(events) {
			d.fail()
			return
		}
		last = i
		events[i].ByCustomer = true
	}
}

// metadata writes the metadata section: how many appointments have any,
// then per appointment its index in the record's list and its pairs,
// sorted by key (the same metadata encodes to the same bytes).
func (e *w) metadata(appts []model.Appointment) {
	n := 0
	for i := range appts {
		if len(appts[i].Metadata) > 0 {
			n++
		}
	}
	if n == 0 {
		return
	}
	e.byte1(tagMetadata)
	e.u(uint64(n))
	for i := range appts {
		m := appts[i].Metadata
		if len(m) == 0 {
			continue
		}
		e.u(uint64(i))
		e.u(uint64(len(m)))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			e.str(k)
			e.str(m[k])
		}
	}
}

// metadata reads the metadata section into p.appts, refusing an index out
// of the list, one out of order and a key given twice.
func (d *r) metadata(appts []model.Appointment) {
	n := d.n(3)
	if n == 0 {
		d.fail() // written only when some appointment has metadata
		return
	}
	last := -1
	for range n {
		i, pairs := int(d.u()), d.n(2)
		if d.err != nil {
			return
		}
		if i <= last || i >= len(appts) || pairs == 0 {
			d.fail()
			return
		}
		last = i
		m := make(map[string]string, pairs)
		for range pairs {
			k, v := d.str(), d.str()
			if _, dup := m[k]; dup {
				d.fail()
				return
			}
			m[k] = v
		}
		appts[i].Metadata = m
	}
}

func (d *r) sections(p *parts) {
	last := byte(0)
	for len(d.b) > 0 && d.err == nil {
		tag := d.byte1()
		if tag <= last {
			d.fail()
			return
		}
		last = tag
		switch tag {
		case tagPayments:
			p.payments, p.checkouts, p.closed = d.payments(), d.checkouts(), d.ids()
		case tagHolds:
			p.holds = getList(d, 60, (*r).hold)
		case tagEntries:
			p.entries = getList(d, 48, (*r).entry)
		case tagMetadata:
			d.metadata(p.appts)
		case tagByCustomer:
			d.byCustomer(p.events)
		case tagReschedules:
			d.reschedules(p.appts)
		default:
			d.fail()
		}
	}
}

func (e *w) ids(ids []uuid.UUID) {
	e.u(uint64(len(ids)))
	for _, id := range ids {
		e.id(id)
	}
}

func (d *r) ids() []uuid.UUID {
	n := d.n(16)
	if n == 0 {
		return nil
	}
	out := make([]uuid.UUID, n)
	for i := range out {
		out[i] = d.id()
	}
	return out
}

func (e *w) hold(h *model.Hold) {
	e.id(h.ID)
	e.id(h.ServiceID)
	e.id(h.StaffID)
	e.time(h.Start)
	e.time(h.End)
	putList(e, h.Segments, (*w).segment)
	e.time(h.ExpiresAt)
	e.time(h.CreatedAt)
	e.time(h.UpdatedAt)
	putEnum(e, h.Status, model.HoldStatuses)
	e.optID(h.Appointment)
	e.optID(h.Entry)
}

func (d *r) hold(h *model.Hold) {
	*h = model.Hold{ID: d.id(), ServiceID: d.id(), StaffID: d.id(), Start: d.time(), End: d.time(),
		Segments: getList(d, 20, (*r).segment), ExpiresAt: d.time(), CreatedAt: d.time(), UpdatedAt: d.time(),
		Status: getEnum(d, model.HoldStatuses), Appointment: d.optID(), Entry: d.optID()}
}

func (e *w) segment(s *model.Segment) {
	e.id(s.ID)
	e.i(int64(s.Position))
	putEnum(e, s.Kind, model.SegmentKinds)
	e.time(s.StartTime)
	e.time(s.EndTime)
	e.optID(s.StaffMemberID)
	e.optStr(s.Label)
}

func (d *r) segment(s *model.Segment) {
	*s = model.Segment{ID: d.id(), Position: d.int(), Kind: getEnum(d, model.SegmentKinds),
		StartTime: d.time(), EndTime: d.time(), StaffMemberID: d.optID(), Label: d.optStr()}
}

func (e *w) entry(x *model.WaitlistEntry) {
	e.id(x.ID)
	e.id(x.ServiceID)
	e.optID(x.StaffID)
	e.time(x.From)
	e.time(x.To)
	e.str(x.Customer.FirstName)
	e.str(x.Customer.LastName)
	e.str(x.Customer.Email)
	e.str(x.Customer.Phone)
	putEnum(e, x.Status, model.EntryStatuses)
	e.bool(x.Offer != nil)
	if o := x.Offer; o != nil {
		e.id(o.HoldID)
		e.time(o.Start)
		e.id(o.StaffID)
		e.time(o.ExpiresAt)
	}
	e.optID(x.Booked)
	e.time(x.CreatedAt)
	e.time(x.UpdatedAt)
}

func (d *r) entry(x *model.WaitlistEntry) {
	*x = model.WaitlistEntry{ID: d.id(), ServiceID: d.id(), StaffID: d.optID(), From: d.time(), To: d.time(),
		Customer: model.Person{FirstName: d.str(), LastName: d.str(), Email: d.str(), Phone: d.str()},
		Status:   getEnum(d, model.EntryStatuses)}
	if d.bool() {
		x.Offer = &model.Offer{HoldID: d.id(), Start: d.time(), StaffID: d.id(), ExpiresAt: d.time()}
	}
	x.Booked = d.optID()
	x.CreatedAt, x.UpdatedAt = d.time(), d.time()
}
