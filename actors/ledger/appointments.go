package ledger

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/sorted"
	"github.com/slotd/slotd/storage/record"
)

// book is the booking side of a State: customers, appointments, the occupancy index
// built from them, and stored idempotent answers. All of it is persistent,
// so a new State shares everything a write did not touch. Appointments and
// answers are held in compact form (appt, idem) and materialized on read.
type book struct {
	customers    sorted.Map[uuid.UUID, *model.Customer]
	emails       sorted.Map[string, uuid.UUID] // lower-cased e-mail -> customer id
	appts        sorted.Map[uuid.UUID, appt]
	byStart      sorted.Map[StartKey, struct{}]
	refs         *refs
	index        interval.Index
	idem         sorted.Map[string, idem]
	lastAssigned uuid.UUID
	endpoints    []model.Endpoint       // at most five: copied on write
	feeds        []model.Feed           // calendar feeds (feeds.go), in creation order: copied on write
	busy         busyBook               // external busy time (busy.go); its union is in index
	sources      []model.CalendarSource // calendar sources (sources.go), in creation order: copied on write
	// tally counts each staff member's bookings by local day in the
	// zone loc (tally.go).
	tally    []staffRuns // sorted by staff member
	tallySvc []uuid.UUID // the services the tally names, by place
	loc      *time.Location
	// reminded is when the last write that sent reminders ran
	// (reminders.go).
	reminded time.Time

	// The prepayments (payments.go): each payment by appointment id, the
	// provider's ids of them, the appointments whose payment still waits
	// for something, and the open reservations by appointment id and by
	// Idempotency-Key (their time is in index like an appointment's).
	payments     sorted.Map[uuid.UUID, *model.Payment]
	providerIDs  sorted.Map[string, uuid.UUID]
	openPay      sorted.Map[uuid.UUID, struct{}]
	checkouts    sorted.Map[uuid.UUID, *record.Checkout]
	checkoutKeys sorted.Map[string, uuid.UUID]

	// Holds and the waitlist (holds.go, waitlist.go): every hold by id
	// (ended ones until pruned), the active ones, every entry by id, the
	// entries in creation order, and the waiting ones in creation order.
	holds      sorted.Map[uuid.UUID, *model.Hold]
	liveHolds  sorted.Map[CreationKey, struct{}] // by expiresAt, then id
	entries    sorted.Map[uuid.UUID, *model.WaitlistEntry]
	entryOrder sorted.Map[CreationKey, struct{}]
	waiting    sorted.Map[CreationKey, struct{}] // by createdAt, then id
	windowEnds sorted.Map[CreationKey, struct{}] // the waiting ones by to, then id

	// sessions are the open class sessions (sessions.go).
	sessions sorted.Map[SessionKey, *session]
	// series are the appointment series booked through the API
	// (series.go), by id.
	series sorted.Map[uuid.UUID, *model.AppointmentSeries]
	// baskets are the baskets booked (baskets.go), by id.
	baskets sorted.Map[uuid.UUID, *model.Basket]
}

// StartKey orders appointments by start time, then id: the order of the
// appointment list (read backwards for startTime desc, id desc).
type StartKey struct {
	Start int64 // Unix milliseconds
	ID    uuid.UUID
}

func compareStart(a, b StartKey) int {
	if c := cmp.Compare(a.Start, b.Start); c != 0 {
		return c
	}
	return bytes.Compare(a.ID[:], b.ID[:])
}

func compareID(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }

func newBook() book {
	return book{
		customers: sorted.New[uuid.UUID, *model.Customer](compareID),
		emails:    sorted.New[string, uuid.UUID](strings.Compare),
		appts:     sorted.New[uuid.UUID, appt](compareID),
		byStart:   sorted.New[StartKey, struct{}](compareStart),
		refs:      &refs{},
		idem:      sorted.New[string, idem](strings.Compare),

		payments:    sorted.New[uuid.UUID, *model.Payment](compareID),
		providerIDs: sorted.New[string, uuid.UUID](strings.Compare),
		openPay:     sorted.New[uuid.UUID, struct{}](compareID),

		checkouts:    sorted.New[uuid.UUID, *record.Checkout](compareID),
		checkoutKeys: sorted.New[string, uuid.UUID](strings.Compare),

		holds:      sorted.New[uuid.UUID, *model.Hold](compareID),
		liveHolds:  sorted.New[CreationKey, struct{}](compareCreation),
		entries:    sorted.New[uuid.UUID, *model.WaitlistEntry](compareID),
		entryOrder: sorted.New[CreationKey, struct{}](compareCreation),
		waiting:    sorted.New[CreationKey, struct{}](compareCreation),
		windowEnds: sorted.New[CreationKey, struct{}](compareCreation),
		sessions:   sorted.New[SessionKey, *session](compareSessionKey),
		series:     sorted.New[uuid.UUID, *model.AppointmentSeries](compareID),
		baskets:    sorted.New[uuid.UUID, *model.Basket](compareID),
	}
}

// Appointment returns the appointment with id, or nil. The appointment is
// built for the caller, who may keep it.
func (s *State) Appointment(id uuid.UUID) *model.Appointment {
	c, ok := s.appts.Get(id)
	if !ok {
		return nil
	}
	v := new(view)
	a := s.refs.materialize(id, &c, v)
	s.live(a, &v.sess)
	return a
}

// Appointments calls fn for appointments in (startTime, id) descending
// order, starting strictly below from (from nil: the latest), until fn
// returns false. The appointment fn gets is valid only during the call:
// the next one is built in the same place.
func (s *State) Appointments(from *StartKey, fn func(*model.Appointment) bool) {
	var v view
	s.byStart.Descend(from, func(k StartKey, _ struct{}) bool {
		c, _ := s.appts.Get(k.ID)
		a := s.refs.materialize(k.ID, &c, &v)
		s.live(a, &v.sess)
		return fn(a)
	})
}

// Index is the occupancy of every staff member.
func (s *State) Index() interval.Index { return s.index }

// LastAssigned is the staff member of the latest auto-assigned booking.
func (s *State) LastAssigned() uuid.UUID { return s.lastAssigned }

// Idempotency returns the stored answer under key, or nil.
func (s *State) Idempotency(key string) *record.Idem {
	e, ok := s.idem.Get(key)
	if !ok {
		return nil
	}
	return e.materialize(key)
}

// KeyOf returns the list key of a.
func KeyOf(a *model.Appointment) StartKey {
	return StartKey{Start: a.StartTime.UnixMilli(), ID: a.ID}
}

// Items returns the index items of a: its active segments, the first
// and last stretched by its buffers (decisions §9), when it has a staff
// member and a status that occupies time.
func Items(a *model.Appointment) (uuid.UUID, []interval.Item) {
	if a.Staff == nil || !a.Status.Occupies() {
		return uuid.Nil, nil
	}
	var items []interval.Item
	for _, sg := range a.Segments {
		if sg.Kind != model.Active {
			continue
		}
		items = append(items, interval.Item{
			Span:  interval.Span{Start: sg.StartTime.UnixMilli(), End: sg.EndTime.UnixMilli()},
			Owner: a.ID, Seg: int32(sg.Position),
		})
	}
	return a.Staff.ID, buffered(items, a.Buffers)
}

// take returns x with the time of items (owner's, its staff member's)
// taken: from staff, and units of each resource of needs (decisions §10).
func take(x interval.Index, staff uuid.UUID, items []interval.Item, needs []model.ResourceNeed) interval.Index {
	if len(items) == 0 {
		return x
	}
	return takeUnits(x.Add(staff, items...), items, needs)
}

// takeUnits returns x with the units of needs taken over items.
func takeUnits(x interval.Index, items []interval.Item, needs []model.ResourceNeed) interval.Index {
	for _, n := range needs {
		x = x.Take(n.ResourceID, withUnits(items, n.Quantity)...)
	}
	return x
}

// give returns x with what take took given back.
func give(x interval.Index, staff uuid.UUID, items []interval.Item, needs []model.ResourceNeed) interval.Index {
	if len(items) == 0 {
		return x
	}
	x = x.Delete(staff, items...)
	for _, n := range needs {
		x = x.Give(n.ResourceID, withUnits(items, n.Quantity)...)
	}
	return x
}

// withUnits returns copies of items carrying units.
func withUnits(items []interval.Item, units int) []interval.Item {
	out := slices.Clone(items)
	for i := range out {
		out[i].Units = int32(units)
	}
	return out
}

// Without returns s's index without appointment a's time: what judging a
// move of it sees. A seat frees its session's time only when it is the
// session's last (decisions §10).
func Without(s *State, a *model.Appointment) interval.Index {
	return s.book.vacate(apptOccupant(a)).index
}

// buffered stretches the first of items back by b.Before and the last on
// by b.After: the staff member is busy then, as in the segments.
func buffered(items []interval.Item, b model.Buffers) []interval.Item {
	if len(items) > 0 {
		items[0].Start -= int64(b.Before) * int64(time.Minute/time.Millisecond)
		items[len(items)-1].End += int64(b.After) * int64(time.Minute/time.Millisecond)
	}
	return items
}

// putAppointment returns b with a stored, replacing any older version.
func (b book) putAppointment(a *model.Appointment) book {
	// The appointment goes in and the version it replaces (if any) comes
	// out in one walk down the map: a new appointment's lookup alone was
	// a tenth of applying a booking, most of it cache misses.
	var c, prev appt
	var had bool
	c, b.refs = compact(b.refs, a)
	b.appts, prev, had = b.appts.Swap(a.ID, c)
	if had {
		var v view
		old := b.refs.materialize(a.ID, &prev, &v)
		b.byStart = b.byStart.Delete(KeyOf(old))
		b = b.vacate(apptOccupant(old))
	}
	b.byStart = b.byStart.Set(KeyOf(a), struct{}{})
	return b.occupy(apptOccupant(a))
}

// putAppointments returns b with as stored. The new ones go into each
// map in that map's key order: a map's rightmost leaf splits off only what
// overflows it, so keys added in ascending order leave full leaves behind,
// and a world's appointments take a third less memory than in file order.
func (b book) putAppointments(as []model.Appointment) book {
	var fresh []int
	for i := range as {
		if _, ok := b.appts.Get(as[i].ID); ok {
			b = b.putAppointment(&as[i])
		} else {
			fresh = append(fresh, i)
		}
	}
	if len(fresh) == 0 {
		return b
	}
	slices.SortFunc(fresh, func(i, j int) int { return compareID(as[i].ID, as[j].ID) })
	for k := 1; k < len(fresh); k++ {
		if as[fresh[k]].ID == as[fresh[k-1]].ID { // one id twice: put them in order
			for i := range as {
				b = b.putAppointment(&as[i])
			}
			return b
		}
	}
	// The maps and the trees are built in bulk: into an empty book (a
	// business loaded or created from a world file) each in one O(n) pass.
	cs := make([]appt, len(as))
	var held []staffItem
	for _, i := range fresh {
		cs[i], b.refs = compact(b.refs, &as[i])
		if as[i].Session != nil {
			continue // a seat: below
		}
		if staff, items := Items(&as[i]); len(items) > 0 {
			for _, it := range items {
				held = append(held, staffItem{staff, it})
			}
		}
	}
	b.index = addHeld(b.index, held)
	for _, i := range fresh { // resources and seats: few bookings have them, so one by one
		if a := &as[i]; a.Session != nil {
			b = b.occupy(apptOccupant(a))
		} else if len(a.Resources) > 0 {
			_, items := Items(a)
			b.index = takeUnits(b.index, items, a.Resources)
		}
	}
	b.appts = b.appts.SetAscending(len(fresh), func(k int) (uuid.UUID, appt) {
		i := fresh[k]
		return as[i].ID, cs[i]
	})
	slices.SortFunc(fresh, func(i, j int) int { return compareStart(KeyOf(&as[i]), KeyOf(&as[j])) })
	b.byStart = b.byStart.SetAscending(len(fresh), func(k int) (StartKey, struct{}) {
		return KeyOf(&as[fresh[k]]), struct{}{}
	})
	tally := make([]counted, 0, len(fresh))
	for _, i := range fresh {
		if x, ok := apptCounted(&as[i]); ok && as[i].Session == nil {
			tally = append(tally, x)
		}
	}
	return b.talliedAll(tally)
}

// staffItem is an active segment and the staff member it occupies.
type staffItem struct {
	staff uuid.UUID
	item  interval.Item
}

// compareHeld orders held items by staff member, then in tree order.
func compareHeld(a, b staffItem) int {
	if c := compareID(a.staff, b.staff); c != 0 {
		return c
	}
	return interval.Compare(a.item, b.item)
}

// addHeld returns x with the items added, staff member by staff member in
// tree order (Index.AddSorted).
func addHeld(x interval.Index, held []staffItem) interval.Index {
	slices.SortFunc(held, compareHeld)
	items := make([]interval.Item, 0, len(held))
	for lo := 0; lo < len(held); {
		hi := lo
		for hi < len(held) && held[hi].staff == held[lo].staff {
			hi++
		}
		items = items[:0]
		for _, h := range held[lo:hi] {
			items = append(items, h.item)
		}
		x = x.AddSorted(held[lo].staff, items)
		lo = hi
	}
	return x
}

// addCustomers returns b with cs added.
func (b book) addCustomers(cs []model.Customer) book {
	for i := range cs {
		c := cs[i]
		b.customers = b.customers.Set(c.ID, &c)
		b.emails = b.emails.Set(EmailKey(c.Email), c.ID)
	}
	return b
}

// applyChange returns b after c, the record at seq.
func (b book) applyChange(seq uint64, c *record.Change) book {
	if len(c.Closed) > 0 {
		b = b.closeCheckouts(c.Closed)
	}
	// Time is freed before it is taken, so that the index never holds
	// two items over the same time even between two steps of one record
	// (the invariants build checks every step): a hold that ends frees
	// its time before the appointment that consumes it takes it, and an
	// appointment that is cancelled frees its time before the waitlist
	// offer's hold that the same record places there.
	for i := range c.Holds {
		if c.Holds[i].Status != model.HoldActive {
			b = b.putHold(c.Holds[i])
		}
	}
	for i := range c.Entries {
		b = b.putEntry(c.Entries[i])
	}
	b = b.addCustomers(c.Customers)
	for i := range c.Appointments {
		a := c.Appointments[i]
		b = b.putAppointment(&a)
	}
	for i := range c.Holds {
		if c.Holds[i].Status == model.HoldActive {
			b = b.putHold(c.Holds[i])
		}
	}
	if c.Idempotency != nil {
		b.idem = b.idem.Set(c.Idempotency.Key, compactIdem(c.Idempotency, seq))
	}
	if c.LastAssigned != nil {
		b.lastAssigned = *c.LastAssigned
	}
	if len(c.Endpoints) > 0 || len(c.Removed) > 0 {
		b.endpoints = upsert(b.endpoints, c.Endpoints, c.Removed, func(e *model.Endpoint) uuid.UUID { return e.ID })
	}
	if len(c.Feeds) > 0 || len(c.Revoked) > 0 {
		b.feeds = upsert(b.feeds, c.Feeds, c.Revoked, func(f *model.Feed) uuid.UUID { return f.ID })
	}
	b = b.applyBusy(c.Busy)
	if !c.Reminded.IsZero() {
		b.reminded = c.Reminded
	}
	if len(c.Sources) > 0 || len(c.Dropped) > 0 {
		b.sources = upsert(b.sources, c.Sources, c.Dropped, func(x *model.CalendarSource) uuid.UUID { return x.ID })
	}
	for i := range c.Payments {
		b = b.putPayment(c.Payments[i])
	}
	if len(c.Checkouts) > 0 {
		b = b.openCheckouts(c.Checkouts)
	}
	for i := range c.Series {
		x := c.Series[i]
		b.series = b.series.Set(x.ID, &x)
	}
	for i := range c.Baskets {
		x := c.Baskets[i]
		b.baskets = b.baskets.Set(x.ID, &x)
	}
	return b
}

// putPayment returns b with p stored, replacing any older version.
func (b book) putPayment(p model.Payment) book {
	b.payments = b.payments.Set(p.AppointmentID, &p)
	if p.ProviderPaymentID != "" {
		b.providerIDs = b.providerIDs.Set(p.ProviderPaymentID, p.AppointmentID)
	}
	if p.Open() {
		b.openPay = b.openPay.Set(p.AppointmentID, struct{}{})
	} else {
		b.openPay = b.openPay.Delete(p.AppointmentID)
	}
	return b
}

// openCheckouts returns b with the reservations cs added, their time held.
func (b book) openCheckouts(cs []record.Checkout) book {
	for i := range cs {
		co := cs[i]
		b.checkouts = b.checkouts.Set(co.Appointment.ID, &co)
		if co.Idem.Key != "" {
			b.checkoutKeys = b.checkoutKeys.Set(co.Idem.Key, co.Appointment.ID)
		}
		b = b.occupy(reservation(&co.Appointment))
	}
	return b
}

// closeCheckouts returns b without the reservations of appointments ids,
// their time freed (a completed one is put back as its appointment).
func (b book) closeCheckouts(ids []uuid.UUID) book {
	for _, id := range ids {
		co, ok := b.checkouts.Get(id)
		if !ok {
			continue
		}
		b.checkouts = b.checkouts.Delete(id)
		if owner, ok := b.checkoutKeys.Get(co.Idem.Key); ok && owner == id {
			b.checkoutKeys = b.checkoutKeys.Delete(co.Idem.Key)
		}
		b = b.vacate(reservation(&co.Appointment))
	}
	return b
}

// Endpoints returns the business's webhook endpoints in registration order.
// The slice must not be modified.
func (s *State) Endpoints() []model.Endpoint { return s.endpoints }

// Endpoint returns the endpoint with id, or nil.
func (s *State) Endpoint(id uuid.UUID) *model.Endpoint {
	for i := range s.endpoints {
		if s.endpoints[i].ID == id {
			return &s.endpoints[i]
		}
	}
	return nil
}

// OldestAnswerRecord returns the lowest journal position whose record an
// idempotent answer is rendered from (record.Idem), 0 when none is: the
// journal must keep that record and those after it while such answers may
// be replayed, even where a snapshot covers them.
func (s *State) OldestAnswerRecord() uint64 {
	var oldest uint64
	s.idem.Ascend(nil, func(_ string, e idem) bool {
		if e.whole == nil && e.answer.FromRecord() && (oldest == 0 || e.seq < oldest) {
			oldest = e.seq
		}
		return true
	})
	return oldest
}

// Prune returns s without the idempotent answers stored before cutoff and
// the holds that ended before it. Expired answers are already ignored on
// lookup, and an ended hold only tells a late booking HOLD_EXPIRED from
// an unknown id; pruning bounds the memory and snapshots they take. It is
// not journalled: replay may bring them back, and the next prune drops
// them again.
func Prune(s *State, cutoff time.Time) *State { return Drop(s, FindExpired(s, cutoff)) }

// Expired is what Prune drops: the keys of the idempotent answers and the
// ids of the ended holds older than Cutoff.
type Expired struct {
	Cutoff  time.Time
	Answers []string
	Holds   []uuid.UUID
}

// FindExpired is Prune's scan, a walk of every answer and hold. It only
// reads s, which never changes, so a business actor runs it off its turn
// (with the snapshot) and applies what it found with Drop.
func FindExpired(s *State, cutoff time.Time) Expired {
	x := Expired{Cutoff: cutoff}
	s.idem.Ascend(nil, func(k string, e idem) bool {
		if e.time().Before(cutoff) {
			x.Answers = append(x.Answers, k)
		}
		return true
	})
	s.holds.Ascend(nil, func(id uuid.UUID, h *model.Hold) bool {
		if h.Status != model.HoldActive && h.UpdatedAt.Before(x.Cutoff) {
			x.Holds = append(x.Holds, id)
		}
		return true
	})
	return x
}

// Drop returns s without what x lists, each only if it is still older
// than x.Cutoff: s may be later than the state x was found in, and a key
// used again since holds a new answer.
func Drop(s *State, x Expired) *State {
	if len(x.Answers) == 0 && len(x.Holds) == 0 {
		return s
	}
	n := *s
	for _, k := range x.Answers {
		if e, ok := n.idem.Get(k); ok && e.time().Before(x.Cutoff) {
			n.idem = n.idem.Delete(k)
		}
	}
	for _, id := range x.Holds {
		if h, ok := n.holds.Get(id); ok && h.Status != model.HoldActive && h.UpdatedAt.Before(x.Cutoff) {
			n.holds = n.holds.Delete(id)
		}
	}
	return &n
}
