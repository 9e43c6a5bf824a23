package record

import (
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// The tagged sections that end a change or snapshot of format version 3:
// what only some writes touch. Each is a tag byte and its body, written
// only when it has something, in ascending tag order; a decoder refuses an
// unknown tag, a repeated one or one out of order. A booking that touches
// none of them encodes to the same bytes as if they did not exist.
const (
	tagPayments         byte = 1 + iota // payments, checkouts reserved, checkouts closed
	tagHolds                            // holds created or changed
	tagEntries                          // waitlist entries created or changed
	tagMetadata                         // the metadata of the record's appointments that have any
	tagByCustomer                       // the record's events the customer's change caused
	tagReschedules                      // the customers' reschedules of the record's appointments that have any
	tagFeeds                            // calendar feeds made, and revoked
	tagBusy                             // external busy time replaced
	tagSources                          // calendar sources made or changed, and deleted
	tagBuffers                          // the buffers of the record's appointments that have any
	tagHoldBuffers                      // the buffers of the record's holds that have any
	tagRemindFrom                       // when the reminders of the record's appointments that have it were armed
	tagReminders                        // the offsets of the record's reminder events
	tagReminded                         // when the record's write sent the reminders due
	tagResources                        // the resources the record's appointments that need any take
	tagHoldResources                    // the resources the record's holds that need any take
	tagCheckoutExtras                   // the buffers and resources of the record's reservations that have any
	tagFeedResources                    // the resource each of the record's feeds of a resource shows
	tagSessions                         // the class session of each of the record's appointments that is a seat
	tagHoldSeats                        // the record's holds that keep a seat of a class session
	tagCheckoutSessions                 // the class session of each of the record's reservations that is a seat
	tagSeries                           // appointment series made (decisions §11)
	tagRefusalConflicts                 // the occurrences a stored SERIES_CONFLICT names
	tagBaskets                          // baskets made (decisions §11)
	tagApptBaskets                      // the basket of each of the record's appointments booked in one
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
	// feeds are calendar feeds made (a change) or there (a snapshot);
	// revoked, feeds a change deleted.
	feeds   []model.Feed
	revoked []uuid.UUID
	busy    []BusyChange
	// sources are calendar sources made or changed (a change) or there
	// (a snapshot); dropped, sources a change deleted.
	sources []model.CalendarSource
	dropped []uuid.UUID
	// reminded is Change.Reminded, or a snapshot's: when the reminders
	// due were last sent.
	reminded time.Time
	// series are the appointment series a change made or a snapshot
	// holds; idems, the stored answers whose refusals name conflicts.
	series []model.AppointmentSeries
	idems  []*Idem
	// baskets are the baskets a change made or a snapshot holds.
	baskets []model.Basket
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
	if len(p.feeds) > 0 || len(p.revoked) > 0 {
		e.byte1(tagFeeds)
		putList(e, p.feeds, (*w).feed)
		e.ids(p.revoked)
	}
	if len(p.busy) > 0 {
		e.byte1(tagBusy)
		putList(e, p.busy, (*w).busyChange)
	}
	if len(p.sources) > 0 || len(p.dropped) > 0 {
		e.byte1(tagSources)
		putList(e, p.sources, (*w).source)
		e.ids(p.dropped)
	}
	putIndexed(e, tagBuffers, p.appts, func(a *model.Appointment) bool { return a.Buffers != (model.Buffers{}) },
		func(e *w, a *model.Appointment) { e.buffers(a.Buffers) })
	putIndexed(e, tagHoldBuffers, p.holds, func(h *model.Hold) bool { return h.Buffers != (model.Buffers{}) },
		func(e *w, h *model.Hold) { e.buffers(h.Buffers) })
	putIndexed(e, tagRemindFrom, p.appts, func(a *model.Appointment) bool { return !a.RemindFrom.IsZero() },
		func(e *w, a *model.Appointment) { e.time(a.RemindFrom) })
	putIndexed(e, tagReminders, p.events, func(ev *Event) bool { return ev.Reminder != 0 },
		func(e *w, ev *Event) { e.u(uint64(ev.Reminder)) })
	if !p.reminded.IsZero() {
		e.byte1(tagReminded)
		e.time(p.reminded)
	}
	putIndexed(e, tagResources, p.appts, func(a *model.Appointment) bool { return len(a.Resources) > 0 },
		func(e *w, a *model.Appointment) { e.needs(a.Resources) })
	putIndexed(e, tagHoldResources, p.holds, func(h *model.Hold) bool { return len(h.Resources) > 0 },
		func(e *w, h *model.Hold) { e.needs(h.Resources) })
	putIndexed(e, tagCheckoutExtras, p.checkouts, func(c *Checkout) bool {
		return len(c.Appointment.Resources) > 0 || c.Appointment.Buffers != (model.Buffers{})
	}, func(e *w, c *Checkout) {
		e.u(uint64(c.Appointment.Buffers.Before))
		e.u(uint64(c.Appointment.Buffers.After))
		e.needs(c.Appointment.Resources)
	})
	putIndexed(e, tagFeedResources, p.feeds, func(f *model.Feed) bool { return f.ResourceID != nil },
		func(e *w, f *model.Feed) { e.id(*f.ResourceID) })
	putIndexed(e, tagSessions, p.appts, func(a *model.Appointment) bool { return a.Session != nil },
		func(e *w, a *model.Appointment) { e.session(a.Session) })
	putIndexed(e, tagHoldSeats, p.holds, func(h *model.Hold) bool { return h.Seat }, func(*w, *model.Hold) {})
	putIndexed(e, tagCheckoutSessions, p.checkouts, func(c *Checkout) bool { return c.Appointment.Session != nil },
		func(e *w, c *Checkout) { e.session(c.Appointment.Session) })
	if len(p.series) > 0 {
		e.byte1(tagSeries)
		putList(e, p.series, (*w).series)
	}
	if len(p.baskets) > 0 {
		e.byte1(tagBaskets)
		putList(e, p.baskets, (*w).basket)
	}
	putIndexed(e, tagApptBaskets, p.appts, func(a *model.Appointment) bool { return a.BasketID != nil },
		func(e *w, a *model.Appointment) { e.id(*a.BasketID) })
	putIndexed(e, tagRefusalConflicts, p.idems, func(x **Idem) bool { return (*x).Refused != nil && len((*x).Refused.Conflicts) > 0 },
		func(e *w, x **Idem) {
			e.u(uint64(len((*x).Refused.Conflicts)))
			for _, c := range (*x).Refused.Conflicts {
				e.time(c.StartTime)
				e.str(string(c.Code))
			}
		})
}

// A basket: its customer, its appointments in the items' order, and
// when it was made.
func (e *w) basket(b *model.Basket) {
	e.id(b.ID)
	e.id(b.CustomerID)
	e.ids(b.Appointments)
	e.time(b.CreatedAt)
}

func (d *r) basket(b *model.Basket) {
	*b = model.Basket{ID: d.id(), CustomerID: d.id(), Appointments: d.ids(), CreatedAt: d.time()}
	if len(b.Appointments) == 0 {
		d.fail()
	}
}

// An appointment series: its rule, service, customer, occurrences and
// skipped starts.
func (e *w) series(s *model.AppointmentSeries) {
	e.id(s.ID)
	e.str(s.Rule)
	e.id(s.ServiceID)
	e.id(s.CustomerID)
	e.ids(s.Occurrences)
	e.u(uint64(len(s.Skipped)))
	for _, k := range s.Skipped {
		e.time(k.StartTime)
		e.str(k.Code)
	}
	e.time(s.CreatedAt)
}

func (d *r) series(s *model.AppointmentSeries) {
	*s = model.AppointmentSeries{ID: d.id(), Rule: d.str(), ServiceID: d.id(), CustomerID: d.id(), Occurrences: d.ids()}
	if n := d.n(9); n > 0 {
		s.Skipped = make([]model.SkippedStart, n)
		for i := range s.Skipped {
			s.Skipped[i] = model.SkippedStart{StartTime: d.time(), Code: d.str()}
		}
	}
	s.CreatedAt = d.time()
}

// The sessions sections (decisions §10): a seat's session as the write
// left it, its capacity and the seats taken.
func (e *w) session(s *model.Session) {
	e.u(uint64(s.Capacity))
	e.u(uint64(s.SeatsTaken))
}

func (d *r) session(s **model.Session) bool {
	c, n := d.u(), d.u()
	*s = &model.Session{Capacity: int(c), SeatsTaken: int(n)}
	// A capacity lowered below the seats taken keeps them: the seats are
	// bounded by the most a session ever held, not by the capacity.
	return d.err == nil && c <= model.MaxCapacity && n <= 1<<20
}

// The resources sections (decisions §10): each resource a booking takes,
// and how many units.
func (e *w) needs(ns []model.ResourceNeed) {
	e.u(uint64(len(ns)))
	for _, n := range ns {
		e.id(n.ResourceID)
		e.u(uint64(n.Quantity))
		e.str(n.Name)
	}
}

func (d *r) needs(ns *[]model.ResourceNeed) bool {
	n := d.u()
	if d.err != nil || n > model.MaxServiceResources {
		return false
	}
	if n == 0 {
		*ns = nil
		return true
	}
	out := make([]model.ResourceNeed, n)
	for i := range out {
		out[i] = model.ResourceNeed{ResourceID: d.id(), Quantity: int(d.u()), Name: d.str()}
		if out[i].Quantity < 1 || out[i].Quantity > model.MaxResourceQuantity {
			return false
		}
	}
	*ns = out
	return d.err == nil
}

// reminder reads an event's reminder offset: one a business may have.
func (d *r) reminder(ev *Event) bool {
	m := d.u()
	ev.Reminder = int(m)
	return d.err == nil && m >= model.MinReminderOffset && m <= model.MaxReminderOffset
}

// The buffers sections (decisions §9): before and after, in minutes, of
// each appointment or hold that has any; never both zero.
func (e *w) buffers(b model.Buffers) {
	e.u(uint64(b.Before))
	e.u(uint64(b.After))
}

func (d *r) buffers(b *model.Buffers) bool {
	before, after := d.u(), d.u()
	*b = model.Buffers{Before: int(before), After: int(after)}
	return d.err == nil && before <= model.MaxBufferMinutes && after <= model.MaxBufferMinutes && before+after > 0
}

func (e *w) source(c *model.CalendarSource) {
	e.id(c.ID)
	e.id(c.StaffID)
	e.str(c.URL)
	e.i(int64(c.RefreshMinutes))
	e.time(c.CreatedAt)
	e.optTime(c.LastSyncAt)
	e.str(c.LastError)
	e.optTime(c.TriedAt)
	e.str(c.ETag)
	e.optTime(c.Horizon)
}

func (d *r) source(c *model.CalendarSource) {
	*c = model.CalendarSource{ID: d.id(), StaffID: d.id(), URL: d.str(), RefreshMinutes: d.int(), CreatedAt: d.time(),
		LastSyncAt: d.optTime(), LastError: d.str(), TriedAt: d.optTime(), ETag: d.str(), Horizon: d.optTime()}
}

// optTime is a time that may be zero (never).
func (e *w) optTime(t time.Time) {
	e.bool(!t.IsZero())
	if !t.IsZero() {
		e.time(t)
	}
}

func (d *r) optTime() time.Time {
	if !d.bool() {
		return time.Time{}
	}
	return d.time()
}

func (e *w) busyChange(c *BusyChange) {
	e.id(c.Staff)
	e.str(c.Source)
	e.time(c.From)
	e.time(c.To)
	e.bool(c.Clear)
	putList(e, c.Intervals, (*w).busyTime)
}

func (d *r) busyChange(c *BusyChange) {
	*c = BusyChange{Staff: d.id(), Source: d.str(), From: d.time(), To: d.time(), Clear: d.bool()}
	c.Intervals = getList(d, 4, (*r).busyTime)
	for i := range c.Intervals {
		c.Intervals[i].Source = c.Source
	}
}

// An interval's start, then its length in milliseconds (an end is never
// before its start), then the integrator's id and title.
func (e *w) busyTime(b *model.BusyTime) {
	e.time(b.Start)
	e.u(uint64(b.End.Sub(b.Start).Milliseconds()))
	e.str(b.ExternalID)
	e.str(b.Title)
}

func (d *r) busyTime(b *model.BusyTime) {
	b.Start = d.time()
	b.End = b.Start.Add(time.Duration(d.u()) * time.Millisecond)
	b.ExternalID, b.Title = d.str(), d.str()
}

func (e *w) feed(f *model.Feed) {
	e.id(f.ID)
	e.optID(f.StaffID)
	e.bool(f.IncludeCustomerNames)
	e.time(f.CreatedAt)
}

func (d *r) feed(f *model.Feed) {
	*f = model.Feed{ID: d.id(), StaffID: d.optID(), IncludeCustomerNames: d.bool(), CreatedAt: d.time()}
}

// The indexed sections name items of the record's lists (appointments,
// events) by index: a section holds how many, then, ascending, each
// one's index and what belongs to it. A decoder refuses a section of none
// (only a list with some is written), an index out of the list or not
// after the one before, and a damaged value.

// putIndexed writes the section tag of the items of list that has picks,
// each one's part written by put.
func putIndexed[T any](e *w, tag byte, list []T, has func(*T) bool, put func(*w, *T)) {
	n := 0
	for i := range list {
		if has(&list[i]) {
			n++
		}
	}
	if n == 0 {
		return
	}
	e.byte1(tag)
	e.u(uint64(n))
	for i := range list {
		if has(&list[i]) {
			e.u(uint64(i))
			put(e, &list[i])
		}
	}
}

// getIndexed reads an indexed section into list, each item's part read by
// get (false: damaged); min bounds an item's bytes, index included.
func getIndexed[T any](d *r, min int, list []T, get func(*r, *T) bool) {
	n := d.n(min)
	if n == 0 {
		d.fail()
		return
	}
	last := -1
	for range n {
		i := int(d.u())
		if d.err != nil || i <= last || i >= len(list) {
			d.fail()
			return
		}
		last = i
		if !get(d, &list[i]) {
			d.fail()
			return
		}
	}
}

// The metadata section: an appointment's pairs, sorted by key (the same
// metadata encodes to the same bytes); at least one, no key twice.
func (e *w) metadata(appts []model.Appointment) {
	putIndexed(e, tagMetadata, appts, func(a *model.Appointment) bool { return len(a.Metadata) > 0 },
		func(e *w, a *model.Appointment) {
			e.u(uint64(len(a.Metadata)))
			for _, k := range slices.Sorted(maps.Keys(a.Metadata)) {
				e.str(k)
				e.str(a.Metadata[k])
			}
		})
}

func (d *r) metadata(appts []model.Appointment) {
	getIndexed(d, 4, appts, func(d *r, a *model.Appointment) bool {
		pairs := d.n(2)
		if d.err != nil || pairs == 0 {
			return false
		}
		m := make(map[string]string, pairs)
		for range pairs {
			k, v := d.str(), d.str()
			if _, dup := m[k]; dup {
				return false
			}
			m[k] = v
		}
		a.Metadata = m
		return d.err == nil
	})
}

// The reschedules section: how often an appointment's customer moved it.
func (e *w) reschedules(appts []model.Appointment) {
	putIndexed(e, tagReschedules, appts, func(a *model.Appointment) bool { return a.CustomerReschedules > 0 },
		func(e *w, a *model.Appointment) { e.u(uint64(a.CustomerReschedules)) })
}

func (d *r) reschedules(appts []model.Appointment) {
	getIndexed(d, 2, appts, func(d *r, a *model.Appointment) bool {
		k := d.u()
		a.CustomerReschedules = int(k)
		return d.err == nil && k > 0 && k <= 1<<20
	})
}

// The by-customer section: the events the customer's change caused.
func (e *w) byCustomer(events []Event) {
	putIndexed(e, tagByCustomer, events, func(ev *Event) bool { return ev.ByCustomer }, func(*w, *Event) {})
}

func (d *r) byCustomer(events []Event) {
	getIndexed(d, 1, events, func(_ *r, ev *Event) bool {
		ev.ByCustomer = true
		return true
	})
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
		case tagBusy:
			p.busy = getList(d, 20, (*r).busyChange)
			if len(p.busy) == 0 {
				d.fail()
			}
		case tagFeeds:
			p.feeds, p.revoked = getList(d, 19, (*r).feed), d.ids()
			if len(p.feeds) == 0 && len(p.revoked) == 0 {
				d.fail() // only a section with something is written
			}
		case tagBuffers:
			getIndexed(d, 3, p.appts, func(d *r, a *model.Appointment) bool { return d.buffers(&a.Buffers) })
		case tagHoldBuffers:
			getIndexed(d, 3, p.holds, func(d *r, h *model.Hold) bool { return d.buffers(&h.Buffers) })
		case tagRemindFrom:
			getIndexed(d, 2, p.appts, func(d *r, a *model.Appointment) bool {
				a.RemindFrom = d.time()
				return d.err == nil && !a.RemindFrom.IsZero()
			})
		case tagReminders:
			getIndexed(d, 2, p.events, (*r).reminder)
		case tagReminded:
			if p.reminded = d.time(); p.reminded.IsZero() {
				d.fail()
			}
		case tagResources:
			getIndexed(d, 2, p.appts, func(d *r, a *model.Appointment) bool { return d.needs(&a.Resources) && len(a.Resources) > 0 })
		case tagHoldResources:
			getIndexed(d, 2, p.holds, func(d *r, h *model.Hold) bool { return d.needs(&h.Resources) && len(h.Resources) > 0 })
		case tagFeedResources:
			getIndexed(d, 17, p.feeds, func(d *r, f *model.Feed) bool {
				id := d.id()
				f.ResourceID = &id
				return d.err == nil && f.StaffID == nil
			})
		case tagCheckoutExtras:
			getIndexed(d, 2, p.checkouts, func(d *r, c *Checkout) bool {
				a := &c.Appointment
				before, after := d.u(), d.u()
				a.Buffers = model.Buffers{Before: int(before), After: int(after)}
				return before <= model.MaxBufferMinutes && after <= model.MaxBufferMinutes && d.needs(&a.Resources)
			})
		case tagSeries:
			if p.series = getList(d, 60, (*r).series); len(p.series) == 0 {
				d.fail()
			}
		case tagRefusalConflicts:
			getIndexed(d, 2, p.idems, func(d *r, x **Idem) bool {
				n := d.n(9)
				if (*x).Refused == nil || n == 0 {
					return false
				}
				cs := make([]problem.Occurrence, n)
				for i := range cs {
					cs[i] = problem.Occurrence{StartTime: d.time(), Code: problem.Code(d.str())}
				}
				(*x).Refused.Conflicts = cs
				return d.err == nil
			})
		case tagBaskets:
			if p.baskets = getList(d, 40, (*r).basket); len(p.baskets) == 0 {
				d.fail()
			}
		case tagApptBaskets:
			getIndexed(d, 17, p.appts, func(d *r, a *model.Appointment) bool {
				id := d.id()
				a.BasketID = &id
				return d.err == nil
			})
		case tagSessions:
			getIndexed(d, 3, p.appts, func(d *r, a *model.Appointment) bool { return d.session(&a.Session) })
		case tagHoldSeats:
			getIndexed(d, 1, p.holds, func(_ *r, h *model.Hold) bool {
				h.Seat = true
				return true
			})
		case tagCheckoutSessions:
			getIndexed(d, 3, p.checkouts, func(d *r, c *Checkout) bool { return d.session(&c.Appointment.Session) })
		case tagSources:
			p.sources, p.dropped = getList(d, 41, (*r).source), d.ids()
			if len(p.sources) == 0 && len(p.dropped) == 0 {
				d.fail()
			}
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
