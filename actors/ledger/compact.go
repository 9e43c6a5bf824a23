package ledger

import (
	"crypto/sha1"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
)

// appt is an appointment as a State holds it: 64 bytes of integers and
// indexes, its id being the key it is stored under. A business holds
// millions of appointments that are written once and rarely read whole, so
// the state keeps only what tells one from another, and builds the
// model.Appointment the API renders when one is read (materialize).
//
// What many appointments share lives once per business in its refs: the
// service and staff member as they were booked, the price snapshot, and
// the shape of the footprint relative to the start (segment kinds, offsets
// and labels). Segment ids are not stored: they are derived from the
// appointment id (Appointment), as every segment slotd makes is. Rare
// fields (notes, a booking reference, a recurring series) sit behind one
// pointer; an appointment the compact form cannot hold exactly (segment ids
// from elsewhere, times finer than the form keeps, a full refs table) is
// kept whole behind it instead, so nothing is ever approximated.
type appt struct {
	customer uuid.UUID
	start    int64  // Unix ms
	created  int64  // Unix ns
	updated  int64  // Unix ns
	svc      uint16 // refs.services
	staff    uint16 // refs.staff + 1; 0: none
	price    uint16 // refs.prices
	shape    uint16 // refs.shapes
	status   uint8  // the status's code in model.Statuses
	flags    uint8
	version  uint32 // in what was padding: the struct stays 64 bytes
	extra    *apptExtra
}

const (
	flagStaffLocked = 1 << iota
	flagRecurring
	flagSeat // a seat of a class session (model.Appointment.Session)
)

// apptExtra holds an appointment's rare fields, or the whole appointment.
type apptExtra struct {
	notes, ref *string
	series     *uuid.UUID
	basket     *uuid.UUID
	meta       map[string]string  // never changed in place (model.Appointment.Metadata)
	moves      int                // model.Appointment.CustomerReschedules
	remindFrom time.Time          // model.Appointment.RemindFrom
	whole      *model.Appointment // when set, the only thing that counts
}

// maxRefs bounds each refs table: interning searches it linearly, and an
// appointment whose value would not fit is kept whole.
const maxRefs = 1024

// refs are the values a business's appointments share, each table
// append-only and copied on write, so every State sees a fixed prefix.
type refs struct {
	services []model.ServiceRef
	staff    []model.StaffRef
	prices   []price
	shapes   []shape
}

// price is an appointment's price snapshot.
type price struct {
	base, total, deposit int
	has                  uint8 // 1: base, 2: total, 4: deposit
	currency             string
}

// shape is an appointment's footprint relative to its start, with its
// buffers and the resources it takes (decisions §10): what the bookings of
// one service share, so they cost an appointment nothing.
type shape struct {
	end     int64 // EndTime - StartTime, ms
	segs    []segShape
	buffers model.Buffers
	res     []model.ResourceNeed // never changed in place
}

type segShape struct {
	position int
	kind     model.SegmentKind
	from, to int64 // ms after the start
	label    *string
	staffed  bool // StaffMemberID is the appointment's staff member (else null)
}

func (a segShape) equal(b segShape) bool {
	return a.position == b.position && a.kind == b.kind && a.from == b.from && a.to == b.to &&
		a.staffed == b.staffed && equalPtr(a.label, b.label)
}

func (a *shape) equal(b *shape) bool {
	return a.end == b.end && a.buffers == b.buffers && slices.EqualFunc(a.segs, b.segs, segShape.equal) &&
		slices.Equal(a.res, b.res)
}

// intern returns the index of v in table (appending it to a copy when it
// is new) and the table to keep, false when the table is full.
func intern[T any](table []T, v T, eq func(*T, *T) bool) (uint16, []T, bool) {
	for i := range table {
		if eq(&table[i], &v) {
			return uint16(i), table, true
		}
	}
	if len(table) >= maxRefs {
		return 0, table, false
	}
	out := make([]T, len(table), len(table)+1)
	copy(out, table)
	return uint16(len(table)), append(out, v), true
}

func eq[T comparable](a, b *T) bool { return *a == *b }

// compact returns a in compact form and the refs to keep (r itself is never
// modified).
func compact(r *refs, a *model.Appointment) (appt, *refs) {
	c, next, ok := tryCompact(r, a)
	if !ok {
		whole := *a
		whole.Segments = slices.Clone(a.Segments)
		return appt{start: a.StartTime.UnixMilli(), extra: &apptExtra{whole: &whole}}, r
	}
	return c, next
}

func tryCompact(r *refs, a *model.Appointment) (appt, *refs, bool) {
	c := appt{customer: a.CustomerID, start: a.StartTime.UnixMilli(), created: a.CreatedAt.UnixNano(), updated: a.UpdatedAt.UnixNano(),
		version: uint32(a.Version)}
	if !time.UnixMilli(c.start).Equal(a.StartTime) || !time.Unix(0, c.created).Equal(a.CreatedAt) ||
		!time.Unix(0, c.updated).Equal(a.UpdatedAt) || int(c.version) != a.Version {
		return c, r, false
	}
	st, ok := model.Statuses.Code(a.Status)
	if !ok {
		return c, r, false
	}
	c.status = st
	sh, ok := shapeOf(a)
	if !ok {
		return c, r, false
	}
	n := *r
	if c.svc, n.services, ok = intern(n.services, a.Service, eq); !ok {
		return c, r, false
	}
	if a.Staff != nil {
		if c.staff, n.staff, ok = intern(n.staff, *a.Staff, eq); !ok {
			return c, r, false
		}
		c.staff++
	}
	if c.price, n.prices, ok = intern(n.prices, priceOf(a), eq); !ok {
		return c, r, false
	}
	if c.shape, n.shapes, ok = intern(n.shapes, sh, (*shape).equal); !ok {
		return c, r, false
	}
	if a.StaffLocked {
		c.flags |= flagStaffLocked
	}
	if a.IsRecurringOccurrence {
		c.flags |= flagRecurring
	}
	if a.Session != nil {
		c.flags |= flagSeat
	}
	if a.Notes != nil || a.BookingReference != nil || a.RecurringSeriesID != nil || a.BasketID != nil || len(a.Metadata) > 0 || a.CustomerReschedules != 0 ||
		!a.RemindFrom.IsZero() {
		c.extra = &apptExtra{notes: a.Notes, ref: a.BookingReference, series: a.RecurringSeriesID, basket: a.BasketID, meta: a.Metadata,
			moves: a.CustomerReschedules, remindFrom: a.RemindFrom}
	}
	if len(n.services) == len(r.services) && len(n.staff) == len(r.staff) &&
		len(n.prices) == len(r.prices) && len(n.shapes) == len(r.shapes) {
		return c, r, true // nothing new: keep sharing r
	}
	return c, &n, true
}

func priceOf(a *model.Appointment) price {
	p := price{currency: a.Currency}
	if a.BasePriceCents != nil {
		p.base, p.has = *a.BasePriceCents, p.has|1
	}
	if a.TotalPriceCents != nil {
		p.total, p.has = *a.TotalPriceCents, p.has|2
	}
	if a.DepositCents != nil {
		p.deposit, p.has = *a.DepositCents, p.has|4
	}
	return p
}

// shapeOf returns a's footprint relative to its start, false when it holds
// something a shape cannot: segment ids not derived from the appointment's,
// a segment staffed by someone else, times finer than a millisecond.
func shapeOf(a *model.Appointment) (shape, bool) {
	start := a.StartTime.UnixMilli()
	sh := shape{end: a.EndTime.UnixMilli() - start, segs: make([]segShape, len(a.Segments)), buffers: a.Buffers, res: a.Resources}
	if !time.UnixMilli(start + sh.end).Equal(a.EndTime) {
		return sh, false
	}
	for i := range a.Segments {
		sg := &a.Segments[i]
		s := segShape{position: sg.Position, kind: sg.Kind, from: sg.StartTime.UnixMilli() - start,
			to: sg.EndTime.UnixMilli() - start, label: sg.Label, staffed: sg.StaffMemberID != nil}
		if s.staffed && (a.Staff == nil || *sg.StaffMemberID != a.Staff.ID) ||
			!time.UnixMilli(start+s.from).Equal(sg.StartTime) || !time.UnixMilli(start+s.to).Equal(sg.EndTime) ||
			sg.ID != segmentID(a.ID, i) {
			return sh, false
		}
		sh.segs[i] = s
	}
	return sh, true
}

// segmentID is the id of an appointment's i-th segment: the name-based
// (version 5) UUID of the byte i in the appointment's id, as
// uuid.NewSHA1(appt, []byte{byte(i)}) makes it, without its hash object's
// allocation (every appointment read or loaded derives its segments' ids:
// uuid.NewSHA1 was 6 % of loading a world, 2026-11-27).
func segmentID(appt uuid.UUID, i int) uuid.UUID {
	var name [17]byte
	copy(name[:16], appt[:])
	name[16] = byte(i)
	return hashedID(name[:])
}

// hashedID is the SHA-1 name-based (version 5) UUID of name, whose first
// 16 bytes are its namespace, as uuid.NewSHA1 makes it without its hash
// object's allocation.
func hashedID(name []byte) uuid.UUID {
	sum := sha1.Sum(name)
	var u uuid.UUID
	copy(u[:], sum[:16])
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u
}

// view is a materialized appointment with room for what its pointers point
// to, so that building one costs one allocation, or none when reused.
type view struct {
	a                    model.Appointment
	staff                model.StaffRef
	base, total, deposit int
	segs                 [2]model.Segment
	sess                 model.Session
}

// materialize fills v with appointment id in form c.
func (r *refs) materialize(id uuid.UUID, c *appt, v *view) *model.Appointment {
	if c.extra != nil && c.extra.whole != nil {
		v.a = *c.extra.whole
		v.a.Segments = append(v.segs[:0], c.extra.whole.Segments...)
		return &v.a
	}
	start := time.UnixMilli(c.start).UTC()
	sh := &r.shapes[c.shape]
	v.a = model.Appointment{ID: id, Status: statusOf(c.status), StartTime: start,
		EndTime: time.UnixMilli(c.start + sh.end).UTC(), CustomerID: c.customer, Service: r.services[c.svc], Buffers: sh.buffers, Resources: sh.res,
		StaffLocked: c.flags&flagStaffLocked != 0, IsRecurringOccurrence: c.flags&flagRecurring != 0,
		CreatedAt: time.Unix(0, c.created).UTC(), UpdatedAt: time.Unix(0, c.updated).UTC(), Version: int(c.version)}
	if c.flags&flagSeat != 0 {
		v.sess = model.Session{} // a state fills it in (State.live)
		v.a.Session = &v.sess
	}
	var staffID *uuid.UUID
	if c.staff > 0 {
		v.staff = r.staff[c.staff-1]
		v.a.Staff, staffID = &v.staff, &v.staff.ID
	}
	p := &r.prices[c.price]
	v.a.Currency = p.currency
	v.base, v.total, v.deposit = p.base, p.total, p.deposit
	if p.has&1 != 0 {
		v.a.BasePriceCents = &v.base
	}
	if p.has&2 != 0 {
		v.a.TotalPriceCents = &v.total
	}
	if p.has&4 != 0 {
		v.a.DepositCents = &v.deposit
	}
	if x := c.extra; x != nil {
		v.a.Notes, v.a.BookingReference, v.a.RecurringSeriesID, v.a.Metadata = x.notes, x.ref, x.series, x.meta
		v.a.CustomerReschedules, v.a.RemindFrom, v.a.BasketID = x.moves, x.remindFrom, x.basket
	}
	v.a.Segments = v.segs[:0]
	for i, s := range sh.segs {
		sg := model.Segment{ID: segmentID(id, i), Position: s.position, Kind: s.kind,
			StartTime: time.UnixMilli(c.start + s.from).UTC(), EndTime: time.UnixMilli(c.start + s.to).UTC(), Label: s.label}
		if s.staffed {
			sg.StaffMemberID = staffID
		}
		v.a.Segments = append(v.a.Segments, sg)
	}
	return &v.a
}

// statusOf is the status of a compact appointment's code.
func statusOf(code uint8) model.Status {
	s, _ := model.Statuses.Value(code)
	return s
}
