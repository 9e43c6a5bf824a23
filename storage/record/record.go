// Package record owns the encoding of slotd's journal records: the facts a
// business actor appends to its journal before it answers, and the
// snapshots that let a restart skip replaying old history.
//
// A record is one format-version byte, one kind byte and a JSON payload. The
// version byte lets a later release decode records written by this one; the
// JSON payload keeps records readable with a hex dump and tolerant of added
// fields. Records carry whole entity states ("the catalogue is now X", "key K
// is now Y") rather than deltas, so applying one is a replacement and a
// replay that sees a record twice ends in the same state.
package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// Version is the format version of the JSON records: catalogue, key and
// customer records, snapshots and delivery records, and every record
// written before VersionBinary.
const Version = 1

// VersionBinary is the format version of the binary records (bin.go)
// written before appointments had a version: changes, catalogue puts and
// snapshots, and the mail rows, which still use it unless they carry a
// waitlist offer (then VersionTagged).
const VersionBinary = 2

// VersionTagged is the format version of the binary records written now:
// VersionBinary's layout, with each appointment's version after it, and
// the optional parts of a change or snapshot (payments, holds, the
// waitlist) as tagged sections at the end, so a part can be added without
// another format version.
const VersionTagged = 3

// Kind says what a record's payload is.
type Kind uint8

// The record kinds. Numbers are part of the on-disk format: never reuse one.
const (
	KindCatalog   Kind = 1 // *Catalog: a business put (world file or admin API)
	KindKey       Kind = 2 // *KeyState: a key issued or revoked
	KindCustomers Kind = 3 // *Customers: customers added
	KindChange    Kind = 4 // *Change: a booking-side write (appointments, customers, events, outbox)
)

// Record is one decoded journal entry. Exactly one payload field is set,
// the one matching Kind.
type Record struct {
	Kind      Kind
	Catalog   *Catalog
	Key       *KeyState
	Customers *Customers
	Change    *Change
}

// Catalog replaces a business's profile, rules, keys, catalogue and staff.
// Customers lists customers the put added (existing ones are never touched).
type Catalog struct {
	At         time.Time        `json:"at"`
	Business   model.Business   `json:"business"`
	Keys       []model.Key      `json:"keys"`
	Categories []model.Category `json:"categories"`
	Services   []model.Service  `json:"services"`
	Resources  []model.Resource `json:"resources,omitempty"` // decisions §10; absent before them
	Staff      []model.Staff    `json:"staff"`
	Customers  []model.Customer `json:"customers,omitempty"`
	// Appointments lists appointments the put added (world appointments and
	// recurring occurrences whose ids are new), materialized.
	Appointments []model.Appointment `json:"appointments,omitempty"`
}

// KeyState is the whole new state of one API key.
type KeyState struct {
	At  time.Time `json:"at"`
	Key model.Key `json:"key"`
}

// Customers adds customers to a business.
type Customers struct {
	At        time.Time        `json:"at"`
	Customers []model.Customer `json:"customers"`
}

// ErrCorrupt is wrapped by every decoding failure.
var ErrCorrupt = errors.New("record: corrupt")

// Encode appends the encoding of r to dst: a Change in the binary form,
// the rest as JSON.
func Encode(dst []byte, r *Record) ([]byte, error) {
	if r.Kind == KindChange {
		if r.Change == nil {
			return nil, fmt.Errorf("record: change record without a change")
		}
		if dst == nil {
			dst = make([]byte, 0, 768) // a booking's record, with room to spare
		}
		e := w{b: append(dst, VersionTagged, byte(KindChange))}
		encodeChange(&e, r.Change)
		return e.b, nil
	}
	if r.Kind == KindCatalog && r.Catalog != nil {
		return encodeCatalog(dst, r.Catalog)
	}
	var payload any
	switch r.Kind {
	case KindKey:
		payload = r.Key
	case KindCustomers:
		payload = r.Customers
	case KindChange:
		payload = r.Change
	default:
		return nil, fmt.Errorf("record: cannot encode kind %d", r.Kind)
	}
	js, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	dst = append(dst, Version, byte(r.Kind))
	return append(dst, js...), nil
}

// Decode decodes one record. It never panics on bad input.
func Decode(b []byte) (*Record, error) {
	if len(b) < 2 {
		return nil, fmt.Errorf("%w: %d bytes", ErrCorrupt, len(b))
	}
	if b[0] == VersionBinary || b[0] == VersionTagged {
		return decodeBinary(b)
	}
	if b[0] != Version {
		return nil, fmt.Errorf("%w: unknown format version %d", ErrCorrupt, b[0])
	}
	r := &Record{Kind: Kind(b[1])}
	var target any
	switch r.Kind {
	case KindCatalog:
		r.Catalog = new(Catalog)
		target = r.Catalog
	case KindKey:
		r.Key = new(KeyState)
		target = r.Key
	case KindCustomers:
		r.Customers = new(Customers)
		target = r.Customers
	case KindChange:
		r.Change = new(Change)
		target = r.Change
	default:
		return nil, fmt.Errorf("%w: unknown kind %d", ErrCorrupt, b[1])
	}
	if err := json.Unmarshal(b[2:], target); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if r.Change != nil && r.Change.Idempotency != nil && r.Change.Idempotency.Answer > AnswerBasket {
		// The binary forms refuse it too: what one form accepts, the
		// other must (FuzzDecodeSnapshot found a JSON snapshot that did not).
		return nil, fmt.Errorf("%w: unknown answer kind", ErrCorrupt)
	}
	return r, nil
}

// decodeBinary decodes a record of format version 2 or 3.
func decodeBinary(b []byte) (*Record, error) {
	d := r{b: b[2:], tagged: b[0] == VersionTagged}
	rec := &Record{Kind: Kind(b[1])}
	switch rec.Kind {
	case KindChange:
		rec.Change = decodeChange(&d)
	case KindCatalog:
		rec.Catalog = decodeCatalog(&d)
	default:
		return nil, fmt.Errorf("%w: binary record of kind %d", ErrCorrupt, b[1])
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%d bytes after the record", len(d.b))
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, d.err)
	}
	return rec, nil
}

// encodeCatalog appends a catalogue put in the binary form: the catalogue
// proper as JSON (small, and rarely written), then the customers and
// appointments it adds with the journal's codecs. A world file's business
// brings thousands of appointments in this one record; as JSON they were
// 1.9 MB per 2,000 and most of a world load's encoding time.
func encodeCatalog(dst []byte, c *Catalog) ([]byte, error) {
	proper := *c
	proper.Customers, proper.Appointments = nil, nil
	js, err := json.Marshal(&proper)
	if err != nil {
		return nil, err
	}
	if dst == nil {
		dst = make([]byte, 0, 16+len(js)+len(c.Customers)*80+len(c.Appointments)*220)
	}
	e := w{b: append(dst, VersionTagged, byte(KindCatalog))}
	e.bytes(js)
	e.customers(c.Customers)
	e.appointments(c.Appointments)
	// What only some appointments have (buffers, resources, a seat's
	// session) follows in the tagged sections, as in a change; a
	// catalogue written before had none, and decodes as it did.
	e.sections(&parts{appts: c.Appointments})
	return e.b, nil
}

func decodeCatalog(d *r) *Catalog {
	c := new(Catalog)
	if js := d.take(d.n(1)); d.err == nil {
		if err := json.Unmarshal(js, c); err != nil {
			d.fail()
			return c
		}
	}
	c.Customers = d.customers()
	c.Appointments = d.appointments()
	var p parts
	p.appts = c.Appointments
	d.sections(&p)
	if p.payments != nil || p.checkouts != nil || p.closed != nil || p.holds != nil || p.entries != nil || p.feeds != nil ||
		p.revoked != nil || p.busy != nil || p.sources != nil || p.dropped != nil || !p.reminded.IsZero() {
		d.fail() // a catalogue carries its appointments' sections only
	}
	return c
}

// Change is one write of the booking side, everything it causes in one
// record: the new whole state of each appointment it created or changed,
// customers it created, the idempotent answer it stored, the events it
// emitted and the e-mails it queued. Because they share a record they share
// a synced batch, so no event or e-mail exists for a write that did not
// happen, and none is lost for one that did.
type Change struct {
	At           time.Time           `json:"at"`
	Appointments []model.Appointment `json:"appointments,omitempty"`
	Customers    []model.Customer    `json:"customers,omitempty"`
	Idempotency  *Idem               `json:"idempotency,omitempty"`
	Events       []Event             `json:"events,omitempty"`
	Mails        []Mail              `json:"mails,omitempty"`
	// LastAssigned is the staff member the write auto-assigned, remembered
	// for round-robin assignment.
	LastAssigned *uuid.UUID `json:"lastAssigned,omitempty"`
	// Endpoints holds the new whole state of each webhook endpoint the write
	// registered or changed; Removed lists endpoints it deleted.
	Endpoints []model.Endpoint `json:"endpoints,omitempty"`
	Removed   []uuid.UUID      `json:"removedEndpoints,omitempty"`
	// Payments holds the new whole state of each payment the write created
	// or changed. Checkouts lists bookings it reserved while their checkout
	// is created at the provider; Closed lists reservations it completed
	// or released, by appointment id (Checkout).
	Payments  []model.Payment `json:"payments,omitempty"`
	Checkouts []Checkout      `json:"checkouts,omitempty"`
	Closed    []uuid.UUID     `json:"closed,omitempty"`
	// Holds and Entries hold the new whole state of each hold and waitlist
	// entry the write created or changed (decisions §6).
	Holds   []model.Hold          `json:"holds,omitempty"`
	Entries []model.WaitlistEntry `json:"entries,omitempty"`
	// Feeds are the calendar feeds the write made; Revoked lists those it
	// deleted (decisions §8).
	Feeds   []model.Feed `json:"feeds,omitempty"`
	Revoked []uuid.UUID  `json:"revokedFeeds,omitempty"`
	// Busy holds the external busy time the write replaced (decisions §8).
	Busy []BusyChange `json:"busy,omitempty"`
	// Sources holds the new whole state of each calendar source the write
	// made or changed (a fetch's outcome); Dropped lists those it deleted.
	Sources []model.CalendarSource `json:"sources,omitempty"`
	Dropped []uuid.UUID            `json:"droppedSources,omitempty"`
	// Reminded is when the write sent the reminders that were due
	// (decisions §9): every reminder due by then has been sent or passed
	// over, so none is sent twice. Zero: the write sent none.
	Reminded time.Time `json:"reminded,omitzero"`
	// Series are the appointment series the write made (decisions §11).
	Series []model.AppointmentSeries `json:"series,omitempty"`
	// Baskets are the baskets the write made (decisions §11).
	Baskets []model.Basket `json:"baskets,omitempty"`
}

// BusyChange replaces a staff member's busy time of one source: within
// [From, To) by Intervals, or, when From and To are zero, all of it (a
// snapshot's form); Clear drops the source whole. The intervals' Source
// is the change's.
type BusyChange struct {
	Staff     uuid.UUID        `json:"staff"`
	Source    string           `json:"source"`
	From      time.Time        `json:"from,omitzero"`
	To        time.Time        `json:"to,omitzero"`
	Clear     bool             `json:"clear,omitempty"`
	Intervals []model.BusyTime `json:"intervals,omitempty"`
}

// Idem is a stored answer to an idempotent request (api-v1 §4.1): the key
// covers the operation and the exact body bytes (by hash).
//
// The answer itself is not kept: it is rendered again, byte for byte, from
// facts (Answer says which). A booking's answer comes from the appointment
// and customer in the journal record at Seq, which the journal keeps while
// the answer may be replayed (24 hours); a stored refusal from Refused.
// Records written before version 2 kept the rendered Body and its Status
// instead (AnswerBody). The status of any other answer is the
// transport's to choose from the facts: it is not journalled (0).
type Idem struct {
	Key      string          `json:"key"`
	Op       model.Operation `json:"op"`
	BodyHash [32]byte        `json:"bodyHash"`
	Status   int             `json:"status"` // AnswerBody only
	Body     []byte          `json:"body,omitempty"`
	At       time.Time       `json:"at"`
	// Answer says what the answer is rendered from.
	Answer AnswerKind `json:"answer,omitempty"`
	// Refused is the refusal of an AnswerRefused answer.
	Refused *problem.Error `json:"refused,omitempty"`
	// Seq is the journal position of the record that made the answer. It
	// is not part of that record (the record's own position); the state
	// sets it, and snapshots keep it.
	Seq uint64 `json:"seq,omitempty"`
}

// AnswerKind says what an idempotent answer is rendered from.
type AnswerKind byte

// The answer kinds. Numbers are part of the format.
const (
	AnswerBody     AnswerKind = iota // Body holds it (records before version 2)
	AnswerBooked                     // the appointment (and customer) of the record at Seq
	AnswerCustomer                   // the customer created by the record at Seq
	AnswerRefused                    // Refused
	AnswerHold                       // the hold created by the record at Seq
	AnswerEntry                      // the waitlist entry created by the record at Seq
	AnswerSeries                     // the appointment series created by the record at Seq
	AnswerBasket                     // the basket created by the record at Seq
)

// FromRecord reports whether answers of kind k are rendered from the
// journal record at their Seq, which must then be kept while they may be
// replayed.
func (k AnswerKind) FromRecord() bool {
	return k == AnswerBooked || k == AnswerCustomer || k == AnswerHold || k == AnswerEntry || k == AnswerSeries || k == AnswerBasket
}

// Event is one entry of the business's event log (api-v1 §6). Its data is
// the state of Subject (an appointment or a customer) in the same record.
type Event struct {
	ID        string    `json:"id"` // evt_ + ULID: sorts in time order
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"createdAt"`
	Subject   uuid.UUID `json:"subject"`
	// ByCustomer: the change was the customer's (a booking with a
	// publishable key, a change through a manage link; decisions §7),
	// else the business's. Its envelope's changedBy says which.
	ByCustomer bool `json:"byCustomer,omitempty"`
	// Reminder is the offset in minutes of an appointment.reminder
	// event's reminder (decisions §9); 0 for every other event.
	Reminder int `json:"reminder,omitempty"`
}

// Mail is an e-mail queued in the outbox: what happened to which
// appointment, rendered and sent by the mailer.
type Mail struct {
	ID          string    `json:"id"` // ULID
	Kind        string    `json:"kind"`
	To          string    `json:"to"`
	Appointment uuid.UUID `json:"appointment"`
	At          time.Time `json:"at"`
	// Endpoint is the webhook endpoint an endpoint_disabled notice is about.
	Endpoint *uuid.UUID `json:"endpoint,omitempty"`
}

// Snapshot is the whole state of a business at a journal position; it lets
// start-up skip the records it covers.
type Snapshot struct {
	Catalog      Catalog                `json:"catalog"`
	Customers    []model.Customer       `json:"customers"`
	Appointments []model.Appointment    `json:"appointments,omitempty"`
	Idempotency  []Idem                 `json:"idempotency,omitempty"`
	LastAssigned *uuid.UUID             `json:"lastAssigned,omitempty"`
	Endpoints    []model.Endpoint       `json:"endpoints,omitempty"`
	Payments     []model.Payment        `json:"payments,omitempty"`
	Checkouts    []Checkout             `json:"checkouts,omitempty"`
	Holds        []model.Hold           `json:"holds,omitempty"`
	Entries      []model.WaitlistEntry  `json:"entries,omitempty"`
	Feeds        []model.Feed           `json:"feeds,omitempty"`
	Busy         []BusyChange           `json:"busy,omitempty"`
	Sources      []model.CalendarSource `json:"sources,omitempty"`
	Reminded     time.Time              `json:"reminded,omitzero"`
	// Series are the appointment series booked through the API
	// (decisions §11).
	Series []model.AppointmentSeries `json:"series,omitempty"`
	// Baskets are the baskets booked (decisions §11).
	Baskets []model.Basket `json:"baskets,omitempty"`
}

// EncodeSnapshot returns the encoding of s, in the binary form: the
// catalogue (small, and rarely written) as JSON inside it, and the
// customers, appointments and idempotent answers, which are nearly all of
// a large business, with the journal's codecs: a business with 2,000
// appointments snapshots in about 400 KB instead of 1.9 MB of JSON.
func EncodeSnapshot(s *Snapshot) ([]byte, error) {
	cat, err := json.Marshal(&s.Catalog)
	if err != nil {
		return nil, err
	}
	e := w{b: make([]byte, 0, 64+len(cat)+len(s.Customers)*80+len(s.Appointments)*220+len(s.Idempotency)*96)}
	e.byte1(VersionTagged)
	e.bytes(cat)
	e.customers(s.Customers)
	e.appointments(s.Appointments)
	e.u(uint64(len(s.Idempotency)))
	for i := range s.Idempotency {
		e.idem(&s.Idempotency[i])
		e.u(s.Idempotency[i].Seq)
	}
	e.optID(s.LastAssigned)
	e.u(uint64(len(s.Endpoints)))
	for i := range s.Endpoints {
		e.endpoint(&s.Endpoints[i])
	}
	e.sections(&parts{payments: s.Payments, checkouts: s.Checkouts, holds: s.Holds, entries: s.Entries, appts: s.Appointments, feeds: s.Feeds, busy: s.Busy,
		sources: s.Sources, reminded: s.Reminded, series: s.Series, idems: snapshotIdems(s.Idempotency), baskets: s.Baskets})
	return e.b, nil
}

// DecodeSnapshot decodes a snapshot, binary or (written before the binary
// form) JSON.
func DecodeSnapshot(b []byte) (*Snapshot, error) {
	if len(b) >= 1 && (b[0] == VersionBinary || b[0] == VersionTagged) {
		d := r{b: b[1:], tagged: b[0] == VersionTagged}
		s := decodeSnapshot(&d)
		if d.err == nil && len(d.b) != 0 {
			d.err = errShort
		}
		if d.err != nil {
			return nil, fmt.Errorf("%w: snapshot: %v", ErrCorrupt, d.err)
		}
		return s, nil
	}
	if len(b) < 1 || b[0] != Version {
		return nil, fmt.Errorf("%w: snapshot version", ErrCorrupt)
	}
	s := new(Snapshot)
	if err := json.Unmarshal(b[1:], s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	for i := range s.Idempotency {
		if s.Idempotency[i].Answer > AnswerBasket {
			return nil, fmt.Errorf("%w: snapshot: unknown answer kind", ErrCorrupt)
		}
	}
	return s, nil
}

func decodeSnapshot(d *r) *Snapshot {
	s := new(Snapshot)
	if cat := d.take(d.n(1)); d.err == nil {
		if err := json.Unmarshal(cat, &s.Catalog); err != nil {
			d.fail()
		}
	}
	s.Customers = d.customers()
	s.Appointments = d.appointments()
	if n := d.n(40); n > 0 {
		s.Idempotency = make([]Idem, n)
		for i := range s.Idempotency {
			s.Idempotency[i] = *d.idem()
			s.Idempotency[i].Seq = d.u()
		}
	}
	s.LastAssigned = d.optID()
	if n := d.n(20); n > 0 {
		s.Endpoints = make([]model.Endpoint, n)
		for i := range s.Endpoints {
			d.endpoint(&s.Endpoints[i])
		}
	}
	p := parts{appts: s.Appointments, idems: snapshotIdems(s.Idempotency)}
	if d.tagged {
		d.sections(&p)
	} else if len(d.b) > 0 && d.err == nil { // version 2: payments, untagged
		p.payments, p.checkouts = d.payments(), d.checkouts()
	}
	s.Payments, s.Checkouts, s.Holds, s.Entries, s.Feeds, s.Busy = p.payments, p.checkouts, p.holds, p.entries, p.feeds, p.busy
	s.Sources, s.Reminded, s.Series, s.Baskets = p.sources, p.reminded, p.series, p.baskets
	if len(p.revoked) > 0 || len(p.dropped) > 0 { // a snapshot holds the feeds and sources there are
		d.fail()
	}
	return s
}

// snapshotIdems is a snapshot's stored answers as the sections index
// them.
func snapshotIdems(xs []Idem) []*Idem {
	out := make([]*Idem, len(xs))
	for i := range xs {
		out[i] = &xs[i]
	}
	return out
}

// EncodeDelivery returns the encoding of a webhook delivery record. Delivery
// records live in a table of their own (package storage), outside the
// journal: they are written by the endpoint's courier, not by the business
// actor's decisions, and they are swept after 30 days.
func EncodeDelivery(d *model.Delivery) ([]byte, error) {
	js, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	return append([]byte{Version}, js...), nil
}

// DecodeDelivery decodes a delivery record.
func DecodeDelivery(b []byte) (*model.Delivery, error) {
	if len(b) < 1 || b[0] != Version {
		return nil, fmt.Errorf("%w: delivery version", ErrCorrupt)
	}
	d := new(model.Delivery)
	if err := json.Unmarshal(b[1:], d); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return d, nil
}
