package directory

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/ical"
)

// View is one business as its actor last published it: only state the
// journal has synced, immutable, read on the caller's goroutine without a
// message to the actor. Every read of the API is answered from a View, so
// a read never waits behind a write, and one answer never mixes two
// versions of the business. The zero View is no business.
type View struct{ st *ledger.State }

// View returns the current view of business id, starting its actor and
// waiting for its state (at most the directory's timeout) only on the
// first request after start-up; ok is false when the business does not
// exist. A loaded business answers without allocating: the hot path of
// every authenticated request.
func (d *Directory) View(id uuid.UUID) (v View, ok bool, err error) {
	h, loaded := d.Loaded(id)
	if !loaded {
		ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
		defer cancel()
		if h, err = d.Business(ctx, id); err != nil {
			return View{}, false, err
		}
	}
	d.touch(h)
	v = View{h.State()}
	return v, v.st != nil, nil
}

// ExistingView is View for a business that may not exist: it starts no
// actor for an id that was never put (Existing).
func (d *Directory) ExistingView(ctx context.Context, id uuid.UUID) (View, bool, error) {
	h, err := d.Existing(ctx, id)
	if err != nil || h == nil {
		return View{}, false, err
	}
	v := View{h.State()}
	return v, v.st != nil, nil
}

// ViewOf returns the view a business handle publishes (tests and the
// engine's own callers).
func ViewOf(h *business.Handle) View { return View{h.State()} }

// Seq is the journal position the view is as of: two views of one
// business with the same Seq are the same.
func (v View) Seq() uint64 { return v.st.Seq }

// ID is the business's id.
func (v View) ID() uuid.UUID { return v.st.Business.ID }

// Business is the business's settings.
func (v View) Business() *model.Business { return &v.st.Business }

// Loc is the business's time zone.
func (v View) Loc() *time.Location { return v.st.Loc }

// Keys are the business's API keys, in creation order.
func (v View) Keys() []model.Key { return v.st.Keys }

// Key returns the key with hash h, or nil.
func (v View) Key(h model.KeyHash) *model.Key { return v.st.Key(h) }

// Categories are the service categories, oldest first.
func (v View) Categories() []model.Category { return v.st.Categories }

// Services are the services, oldest first, deleted ones included.
func (v View) Services() []model.Service { return v.st.Services }

// Service returns the service with id, deleted ones included, or nil.
func (v View) Service(id uuid.UUID) *model.Service { return v.st.Service(id) }

// Resources are the resources (decisions §10), oldest first.
func (v View) Resources() []model.Resource { return v.st.Resources }

// Resource returns the resource with id, or nil.
func (v View) Resource(id uuid.UUID) *model.Resource { return v.st.Resource(id) }

// Staff is the staff, oldest first.
func (v View) Staff() []model.Staff { return v.st.Staff }

// StaffMember returns the staff member with id, or nil.
func (v View) StaffMember(id uuid.UUID) *model.Staff { return v.st.StaffMember(id) }

// StaffIDText returns the id of Staff()[i] as a JSON string, formatted
// once per staff list (ledger.State.StaffIDText).
func (v View) StaffIDText(i int) []byte { return v.st.StaffIDText(i) }

// StaffIDTextLen is the length of StaffIDText.
const StaffIDTextLen = ledger.StaffIDTextLen

// Customer returns the customer with id, or nil.
func (v View) Customer(id uuid.UUID) *model.Customer { return v.st.Customer(id) }

// Appointment returns the appointment with id, or nil.
func (v View) Appointment(id uuid.UUID) *model.Appointment { return v.st.Appointment(id) }

// Appointments calls fn with each appointment below from (all when nil)
// in descending (start, id) order until fn returns false. The appointment
// fn gets is only valid during the call.
func (v View) Appointments(below *StartKey, fn func(*model.Appointment) bool) {
	v.st.Appointments(below, fn)
}

// Payment returns the payment with id, or nil.
func (v View) Payment(id uuid.UUID) *model.Payment { return v.st.Payment(id) }

// Hold returns the hold with id, or nil.
func (v View) Hold(id uuid.UUID) *model.Hold { return v.st.Hold(id) }

// Entry returns the waitlist entry with id, or nil.
func (v View) Entry(id uuid.UUID) *model.WaitlistEntry { return v.st.Entry(id) }

// Entries calls fn with each waitlist entry after from (all when nil) in
// creation order until fn returns false.
func (v View) Entries(after *CreationKey, fn func(*model.WaitlistEntry) bool) {
	v.st.Entries(after, fn)
}

// Endpoints are the webhook endpoints.
func (v View) Endpoints() []model.Endpoint { return v.st.Endpoints() }

// Endpoint returns the webhook endpoint with id, or nil.
func (v View) Endpoint(id uuid.UUID) *model.Endpoint { return v.st.Endpoint(id) }

// CheckRegister refuses, before its test ping, an endpoint whose URL
// another endpoint of the business already has. The actor judges again
// when it stores the endpoint.
func (v View) CheckRegister(url string) error { return ledger.CheckRegister(v.st, url) }

// CheckURLChange is CheckRegister for endpoint id's new URL.
func (v View) CheckURLChange(id uuid.UUID, url string) error {
	return ledger.CheckURLChange(v.st, id, url)
}

// Check judges, per start and staff member, what a booking would get at
// now (POST /availability/check): the same judgement a booking makes.
func (v View) Check(in *CheckInput, now time.Time) ([]Verdict, error) {
	return ledger.Check(v.st, in, now)
}

// Series returns the appointment series with id, or nil.
func (v View) Series(id uuid.UUID) *model.AppointmentSeries { return v.st.Series(id) }

// PreviewSeries judges every occurrence of a series as booking it now
// would (POST /appointment-series/preview), booking nothing.
func (v View) PreviewSeries(in *SeriesInput, now time.Time) ([]Occurrence, error) {
	return ledger.PreviewSeries(v.st, in, now)
}

// Basket returns the basket with id, or nil.
func (v View) Basket(id uuid.UUID) *model.Basket { return v.st.Basket(id) }

// Chains returns the starts on offer for a basket of services (GET
// /availability/slots?serviceIds=…), each with every item's slot; the
// slots and their staff lists live in w until its next use.
func (v View) Chains(services []*model.Service, only *uuid.UUID, from, to, now time.Time, w *SlotWork) []ChainSlot {
	return ledger.Chains(v.st, &ledger.ChainQuery{Services: services, Only: only, From: from, To: to, Now: now, Scratch: &w.scratch})
}

// SlotQuery asks for the start times on offer for a service (GET
// /availability/slots).
type SlotQuery struct {
	Service  *model.Service
	Only     *uuid.UUID // one staff member's, when set
	From, To time.Time  // both inclusive, on start times
	Now      time.Time
	// Without is a booking being moved (a customer's reschedule): its own
	// time does not count against it, as a PATCH of its start judges it.
	Without *model.Appointment
}

// SlotWork is the reusable working memory of Slots. Reused (from a pool),
// an answer allocates nothing once it has grown; not safe for concurrent
// use.
type SlotWork struct {
	scratch calendar.Scratch
	slots   []Slot
}

// Slots returns the start times on offer for q, with the eligible free
// staff of each as indexes into Staff(). The slice and the staff lists
// live in w until its next use.
func (v View) Slots(q SlotQuery, w *SlotWork) []Slot {
	query := calendar.Query{Business: &v.st.Business, Loc: v.st.Loc, Now: q.Now, Service: q.Service,
		Staff: v.st.Staff, Only: q.Only, Index: v.st.Index(), From: q.From, To: q.To, Scratch: &w.scratch, Tally: v.st,
		Resources: v.st.Resources, Sessions: v.st}
	if q.Without != nil {
		query.Index = ledger.Without(v.st, q.Without)
		query.Tally = ledger.TallyExcept(v.st, q.Without)
		if q.Without.Service.ID == q.Service.ID {
			// Its own buffers and resources, as the move judges it.
			query.Buffers, query.Needs = &q.Without.Buffers, &q.Without.Resources
		}
	}
	w.slots = calendar.Slots(&query, w.slots[:0])
	return w.slots
}

// Feeds are the business's calendar feeds, in creation order.
func (v View) Feeds() []model.Feed { return v.st.Feeds() }

// Feed returns calendar feed id, or nil.
func (v View) Feed(id uuid.UUID) *model.Feed { return v.st.Feed(id) }

// FeedCalendar is feed f as of now (decisions §8).
func (v View) FeedCalendar(f *model.Feed, now time.Time) *ical.Calendar {
	return ledger.FeedCalendar(v.st, f, now)
}

// StaffSources are staff member staff's calendar sources, in creation
// order.
func (v View) StaffSources(staff uuid.UUID) []model.CalendarSource { return v.st.StaffSources(staff) }

// BusyTimes is staff member staff's busy time intersecting [from, to), of
// source only when it is not "", by start.
func (v View) BusyTimes(staff uuid.UUID, from, to time.Time, source string) []model.BusyTime {
	return v.st.BusyTimes(staff, from, to, source)
}
