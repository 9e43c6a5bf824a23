package record

import (
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// The binary form of a Change (format version 2), the record of every
// booking-side write. A booking's record was 3.3 KB of JSON holding the
// stored 201 answer in base64; here it holds facts only, about 500 bytes:
// the answer is rendered again from them on the rare replay (Idem).
//
// Layout, in order: At; the appointments; the customers; the idempotent
// request (optional); the events; the e-mails; the last auto-assigned
// staff member (optional); the endpoints; the removed endpoints; and the
// tagged sections of what only some writes touch (sections.go): payments,
// holds, waitlist entries. Lists are
// a uvarint count and their items. Values drawn from a small known set
// (statuses, segment kinds, event and mail kinds, operations) are
// one byte, with the text itself as the fallback for anything else.

// The domain's enumerations are written by their frozen codes
// (model.Enum: putEnum, getEnum).

// putEnum writes v as its frozen code in t, or as 0 and the text when t
// does not know it (a value from a later version, read back as it was).
func putEnum[T ~string](e *w, v T, t model.Enum[T]) {
	if c, ok := t.Code(v); ok {
		e.u(uint64(c))
		return
	}
	e.u(0)
	e.str(string(v))
}

// getEnum reads what putEnum wrote.
func getEnum[T ~string](d *r, t model.Enum[T]) T {
	x := d.u()
	if x == 0 {
		return T(d.str())
	}
	if x < 256 {
		if v, ok := t.Value(byte(x)); ok {
			return v
		}
	}
	d.fail()
	var zero T
	return zero
}

func (e *w) enum(s string, known []string) {
	for i, k := range known {
		if k == s {
			e.u(uint64(i + 1))
			return
		}
	}
	e.u(0)
	e.str(s)
}

func (d *r) enum(known []string) string {
	x := d.u()
	switch {
	case x == 0:
		return d.str()
	case x <= uint64(len(known)):
		return known[x-1]
	}
	d.fail()
	return ""
}

func encodeChange(e *w, c *Change) {
	e.time(c.At)
	e.appointments(c.Appointments)
	e.customers(c.Customers)
	e.bool(c.Idempotency != nil)
	if c.Idempotency != nil {
		e.idem(c.Idempotency)
	}
	e.u(uint64(len(c.Events)))
	for _, ev := range c.Events {
		e.ulidText(ev.ID, "evt_")
		putEnum(e, ev.Type, model.EventTypes)
		e.time(ev.CreatedAt)
		e.id(ev.Subject)
	}
	e.u(uint64(len(c.Mails)))
	for _, m := range c.Mails {
		e.ulidText(m.ID, "")
		putEnum(e, m.Kind, model.MailKinds)
		e.str(m.To)
		e.id(m.Appointment)
		e.time(m.At)
		e.optID(m.Endpoint)
	}
	e.optID(c.LastAssigned)
	e.u(uint64(len(c.Endpoints)))
	for i := range c.Endpoints {
		e.endpoint(&c.Endpoints[i])
	}
	e.u(uint64(len(c.Removed)))
	for _, id := range c.Removed {
		e.id(id)
	}
	e.sections(&parts{payments: c.Payments, checkouts: c.Checkouts, closed: c.Closed, holds: c.Holds, entries: c.Entries, appts: c.Appointments,
		events: c.Events, feeds: c.Feeds, revoked: c.Revoked, busy: c.Busy, sources: c.Sources, dropped: c.Dropped,
		reminded: c.Reminded, series: c.Series, idems: idemList(c.Idempotency), baskets: c.Baskets})
}

func decodeChange(d *r) *Change {
	c := &Change{At: d.time()}
	c.Appointments = d.appointments()
	c.Customers = d.customers()
	if d.bool() {
		c.Idempotency = d.idem()
	}
	if n := d.n(20); n > 0 {
		c.Events = make([]Event, n)
		for i := range c.Events {
			c.Events[i] = Event{ID: d.ulidText("evt_"), Type: getEnum(d, model.EventTypes), CreatedAt: d.time(), Subject: d.id()}
		}
	}
	if n := d.n(20); n > 0 {
		c.Mails = make([]Mail, n)
		for i := range c.Mails {
			c.Mails[i] = Mail{ID: d.ulidText(""), Kind: getEnum(d, model.MailKinds), To: d.str(), Appointment: d.id(),
				At: d.time(), Endpoint: d.optID()}
		}
	}
	c.LastAssigned = d.optID()
	if n := d.n(20); n > 0 {
		c.Endpoints = make([]model.Endpoint, n)
		for i := range c.Endpoints {
			d.endpoint(&c.Endpoints[i])
		}
	}
	if n := d.n(16); n > 0 {
		c.Removed = make([]uuid.UUID, n)
		for i := range c.Removed {
			c.Removed[i] = d.id()
		}
	}
	p := parts{appts: c.Appointments, events: c.Events, idems: idemList(c.Idempotency)}
	if d.tagged {
		d.sections(&p)
	} else {
		decodePaymentPart(d, &p)
	}
	c.Payments, c.Checkouts, c.Closed, c.Holds, c.Entries = p.payments, p.checkouts, p.closed, p.holds, p.entries
	c.Feeds, c.Revoked, c.Busy = p.feeds, p.revoked, p.busy
	c.Sources, c.Dropped, c.Reminded = p.sources, p.dropped, p.reminded
	c.Series, c.Baskets = p.series, p.baskets
	return c
}

// idemList is a change's stored answer as the sections index it.
func idemList(x *Idem) []*Idem {
	if x == nil {
		return nil
	}
	return []*Idem{x}
}

// The entity lists of the binary form: a count, then each item
// (putList, getList). The minimum sizes bound what a damaged count can make
// a decoder allocate.

func (e *w) appointments(as []model.Appointment) { putList(e, as, (*w).appointment) }
func (d *r) appointments() []model.Appointment   { return getList(d, 40, (*r).appointment) }
func (e *w) customers(cs []model.Customer)       { putList(e, cs, (*w).customer) }
func (d *r) customers() []model.Customer         { return getList(d, 20, (*r).customer) }

func (e *w) appointment(a *model.Appointment) {
	e.id(a.ID)
	putEnum(e, a.Status, model.Statuses)
	e.time(a.StartTime)
	e.time(a.EndTime)
	e.optStr(a.Notes)
	e.optStr(a.BookingReference)
	e.id(a.CustomerID)
	e.id(a.Service.ID)
	e.str(a.Service.Name)
	e.i(int64(a.Service.DurationMinutes))
	e.i(int64(a.Service.PriceCents))
	e.bool(a.Staff != nil)
	if a.Staff != nil {
		e.id(a.Staff.ID)
		e.str(a.Staff.Name)
	}
	e.bool(a.StaffLocked)
	e.optInt(a.BasePriceCents)
	e.optInt(a.TotalPriceCents)
	e.optInt(a.DepositCents)
	e.str(a.Currency)
	e.optID(a.RecurringSeriesID)
	e.bool(a.IsRecurringOccurrence)
	putList(e, a.Segments, (*w).segment)
	e.time(a.CreatedAt)
	e.time(a.UpdatedAt)
	e.i(int64(a.Version))
}

func (d *r) appointment(a *model.Appointment) {
	a.ID = d.id()
	a.Status = getEnum(d, model.Statuses)
	a.StartTime, a.EndTime = d.time(), d.time()
	a.Notes, a.BookingReference = d.optStr(), d.optStr()
	a.CustomerID = d.id()
	a.Service = model.ServiceRef{ID: d.id(), Name: d.str(), DurationMinutes: d.int(), PriceCents: d.int()}
	if d.bool() {
		a.Staff = &model.StaffRef{ID: d.id(), Name: d.str()}
	}
	a.StaffLocked = d.bool()
	a.BasePriceCents, a.TotalPriceCents, a.DepositCents = d.optInt(), d.optInt(), d.optInt()
	a.Currency = d.str()
	a.RecurringSeriesID = d.optID()
	a.IsRecurringOccurrence = d.bool()
	a.Segments = getList(d, 20, (*r).segment)
	a.CreatedAt, a.UpdatedAt = d.time(), d.time()
	a.Version = 1 // written before versions: its history is unknown
	if d.tagged {
		a.Version = d.int()
	}
}

func (e *w) customer(c *model.Customer) {
	e.id(c.ID)
	e.str(c.FirstName)
	e.str(c.LastName)
	e.str(c.Email)
	e.str(c.Phone)
	e.time(c.CreatedAt)
	e.time(c.UpdatedAt)
}

func (d *r) customer(c *model.Customer) {
	*c = model.Customer{ID: d.id(), FirstName: d.str(), LastName: d.str(), Email: d.str(), Phone: d.str(),
		CreatedAt: d.time(), UpdatedAt: d.time()}
}

func (e *w) idem(x *Idem) {
	e.str(x.Key)
	e.op(x.Op)
	e.id16(x.BodyHash[:16])
	e.id16(x.BodyHash[16:])
	e.i(int64(x.Status))
	e.time(x.At)
	e.byte1(byte(x.Answer))
	e.bytes(x.Body)
	e.bool(x.Refused != nil)
	if x.Refused != nil {
		e.problem(x.Refused)
	}
}

func (e *w) id16(p []byte) { e.b = append(e.b, p...) }

func (d *r) idem() *Idem {
	// The key is whatever bytes the client sent in its header: not
	// necessarily UTF-8, and a record holding one must still decode.
	x := &Idem{Key: string(d.take(d.n(1))), Op: d.op()}
	copy(x.BodyHash[:], d.take(32))
	x.Status, x.At = d.int(), d.time()
	x.Answer = AnswerKind(d.byte1())
	if x.Answer > AnswerBasket {
		d.fail()
	}
	if b := d.bytes(); len(b) > 0 {
		x.Body = b
	}
	if d.bool() {
		x.Refused = d.problem()
	}
	return x
}

func (e *w) problem(p *problem.Error) {
	e.str(string(p.Code))
	e.str(p.Message)
	e.u(uint64(len(p.Fields)))
	for _, f := range p.Fields {
		e.str(f.Path)
		e.str(string(f.Reason))
		e.str(f.Message)
		e.bool(f.Limit != nil)
		if f.Limit != nil {
			e.i(*f.Limit)
		}
	}
	e.str(p.Scope)
	e.str(p.RequiredPlan)
}

func (d *r) problem() *problem.Error {
	p := &problem.Error{Code: problem.Code(d.str()), Message: d.str()}
	if n := d.n(4); n > 0 {
		p.Fields = make([]problem.Field, n)
		for i := range p.Fields {
			f := problem.Field{Path: d.str(), Reason: problem.Reason(d.str()), Message: d.str()}
			if d.bool() {
				lim := d.i()
				f.Limit = &lim
			}
			p.Fields[i] = f
		}
	}
	p.Scope, p.RequiredPlan = d.str(), d.str()
	return p
}

func (e *w) endpoint(x *model.Endpoint) {
	e.id(x.ID)
	e.str(x.URL)
	e.u(uint64(len(x.EventTypes)))
	for _, t := range x.EventTypes {
		e.str(t)
	}
	e.str(x.Description)
	e.bool(x.IsActive)
	putEnum(e, x.Status, model.EndpointStatuses)
	e.str(x.PayloadStyle)
	e.i(int64(x.ConsecutiveFailures))
	e.str(x.Secret)
	e.time(x.CreatedAt)
	e.time(x.UpdatedAt)
}

func (d *r) endpoint(x *model.Endpoint) {
	x.ID, x.URL = d.id(), d.str()
	if n := d.n(1); n > 0 {
		x.EventTypes = make([]string, n)
	}
	for i := range x.EventTypes {
		x.EventTypes[i] = d.str()
	}
	x.Description, x.IsActive, x.Status, x.PayloadStyle = d.str(), d.bool(), getEnum(d, model.EndpointStatuses), d.str()
	x.ConsecutiveFailures, x.Secret = d.int(), d.str()
	x.CreatedAt, x.UpdatedAt = d.time(), d.time()
}
