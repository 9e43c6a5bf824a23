package model

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Business is a tenant's profile and rules: everything about it except its
// catalogue, staff, keys and customers.
type Business struct {
	ID          uuid.UUID    `json:"id"`
	Name        string       `json:"name"`
	Timezone    string       `json:"timezone"`
	Currency    string       `json:"currency"`
	Plan        Plan         `json:"plan"`
	Modules     []Module     `json:"modules"`
	OwnerEmail  string       `json:"ownerEmail"`
	Assignment  Assignment   `json:"assignment"`
	ClosedDates []Date       `json:"closedDates"`
	Rules       BookingRules `json:"bookingRules"`
	Payments    Payments     `json:"payments"`
	// Changes is what customers may change through their manage links
	// (decisions §7); nil means the defaults (Business.CustomerChanges).
	Changes *CustomerChanges `json:"customerChanges,omitempty"`
	// Limits caps each staff member's bookings of any service per local
	// day and week (decisions §9); nil: none.
	Limits *StaffLimits `json:"bookingLimits,omitempty"`
	// Reminders are sent before each confirmed appointment (decisions
	// §9); at most MaxReminders, no offset and channel twice.
	Reminders []Reminder `json:"reminders,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
}

// Reminder is one of a business's reminders: OffsetMinutes before each
// confirmed appointment's start, an e-mail to its customer or an
// appointment.reminder event (decisions §9).
type Reminder struct {
	OffsetMinutes int             `json:"offsetMinutes"`
	Channel       ReminderChannel `json:"channel"`
	// Since is when the business gained this reminder (the ledger sets it
	// from the catalogue that added it, and keeps it while the reminder
	// stays): one whose time had passed by then is not sent, as for an
	// appointment booked inside the offset.
	Since time.Time `json:"since,omitzero"`
}

// ReminderChannel is how a reminder reaches its recipient.
type ReminderChannel = string

// The reminder channels.
const (
	ReminderEmail   ReminderChannel = "email"
	ReminderWebhook ReminderChannel = "webhook"
)

// The bounds of a business's reminders (decisions §9).
const (
	MaxReminders      = 3
	MinReminderOffset = 10
	MaxReminderOffset = 7 * 24 * 60
)

// Offset is the reminder's offset as a duration.
func (r Reminder) Offset() time.Duration { return time.Duration(r.OffsetMinutes) * time.Minute }

// StaffLimits is a business's booking limits per staff member, over all
// services (decisions §9); a nil count is no limit.
type StaffLimits struct {
	PerStaffPerDay  *int `json:"perStaffPerDay"`
	PerStaffPerWeek *int `json:"perStaffPerWeek"`
}

// BookingLimits is a service's booking limits per staff member, of that
// service (decisions §9); a nil count is no limit.
type BookingLimits struct {
	PerDay  *int `json:"perDay"`
	PerWeek *int `json:"perWeek"`
}

// MaxBookingLimit bounds a booking limit's count.
const MaxBookingLimit = 1000

// CustomerChanges is what a customer may change of their own booking
// through its manage link (decisions §7). The notices are measured back
// from the appointment's current start. The business's own API calls are
// not bound by it.
type CustomerChanges struct {
	AllowCancel                bool `json:"allowCancel"`
	AllowReschedule            bool `json:"allowReschedule"`
	CancelMinNoticeMinutes     int  `json:"cancelMinNoticeMinutes"`
	RescheduleMinNoticeMinutes int  `json:"rescheduleMinNoticeMinutes"`
	MaxReschedules             *int `json:"maxReschedules"` // nil: no limit
}

// DefaultCustomerChanges is the setting of a business whose world entry
// names none: cancel and reschedule until the start, as often as wanted.
func DefaultCustomerChanges() CustomerChanges {
	return CustomerChanges{AllowCancel: true, AllowReschedule: true}
}

// CustomerChanges returns the business's setting, the defaults when it
// has none.
func (b *Business) CustomerChanges() CustomerChanges {
	if b.Changes == nil {
		return DefaultCustomerChanges()
	}
	return *b.Changes
}

// HasModule reports whether the business subscribes to m.
func (b *Business) HasModule(m Module) bool {
	for _, x := range b.Modules {
		if x == m {
			return true
		}
	}
	return false
}

// Assignment is the strategy that picks a staff member when a booking names none.
type Assignment string

// The assignment strategies.
const (
	LeastBusy      Assignment = "least_busy"
	RoundRobin     Assignment = "round_robin"
	FirstAvailable Assignment = "first_available"
)

// BookingRules are the business's online booking rules (api-v1 §7.3).
type BookingRules struct {
	MinNoticeMinutes        int      `json:"minNoticeMinutes"`
	MaxAdvanceDays          int      `json:"maxAdvanceDays"`
	SlotIntervalMinutes     int      `json:"slotIntervalMinutes"`
	RequireExistingCustomer bool     `json:"requireExistingCustomer"`
	RestrictedPeriods       []Period `json:"restrictedPeriods"`
	PreventGaps             bool     `json:"preventGaps"`
	MinGapMinutes           int      `json:"minGapMinutes"`
}

// DefaultRules are the rules of a business whose world entry names none.
func DefaultRules() BookingRules {
	return BookingRules{MaxAdvanceDays: 365, SlotIntervalMinutes: 15, MinGapMinutes: 30}
}

// Period is a half-open UTC interval [From, To).
type Period struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Payments is how a business takes prepayment. Provider is empty when it
// has no provider connected.
// APIKey and WebhookSecret are secrets: they are journalled (the business
// actor needs them after a restart) but never rendered in an answer,
// logged or written anywhere else.
type Payments struct {
	Provider        string `json:"provider"`
	RequiresPayment bool   `json:"requiresPayment"`
	HoldMinutes     int    `json:"holdMinutes"`
	BaseURL         string `json:"baseUrl"`
	APIKey          string `json:"apiKey"`
	WebhookSecret   string `json:"webhookSecret,omitempty"`
	ReturnURL       string `json:"returnUrl,omitempty"`
}

// Category is a node of the service category tree.
type Category struct {
	ID        uuid.UUID  `json:"id"`
	Name      string     `json:"name"`
	ParentID  *uuid.UUID `json:"parentId"`
	Position  int        `json:"position"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
}

// Resource is something of the business that bookings share besides its
// staff (decisions §10): a treatment room, a chair, a machine, of which
// it has Quantity units.
type Resource struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Quantity  int       `json:"quantity"`
	IsActive  bool      `json:"isActive"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// MaxResourceQuantity bounds a resource's units.
const MaxResourceQuantity = 100

// ResourceNeed is units of a resource a booking of a service takes over
// the stretch its staff member is occupied, buffers included. Name is the
// resource's as the service was put: an appointment keeps it, as it keeps
// its service's name.
type ResourceNeed struct {
	ResourceID uuid.UUID `json:"resourceId"`
	Quantity   int       `json:"quantity"`
	Name       string    `json:"name,omitempty"`
}

// MaxServiceResources bounds the resources one service needs.
const MaxServiceResources = 5

// Service is a bookable service. A deleted service stays in the catalogue
// (appointments keep pointing at it) but is never shown or bookable.
type Service struct {
	ID              uuid.UUID         `json:"id"`
	Name            string            `json:"name"`
	Description     *string           `json:"description"`
	DurationMinutes int               `json:"durationMinutes"`
	PriceCents      int               `json:"priceCents"`
	IsActive        bool              `json:"isActive"`
	CategoryID      uuid.UUID         `json:"categoryId"`
	PaymentRequired bool              `json:"paymentRequired"`
	DepositCents    *int              `json:"depositCents"`
	ImageURL        *string           `json:"imageUrl"`
	Deleted         bool              `json:"deleted"`
	Segments        []SegmentTemplate `json:"segments"`
	PricingRules    []PricingRule     `json:"pricingRules"`
	// BufferBeforeMinutes and BufferAfterMinutes are time the staff
	// member needs before and after the service (decisions §9): to
	// prepare, to clean up. A booking snapshots them.
	BufferBeforeMinutes int `json:"bufferBeforeMinutes,omitempty"`
	BufferAfterMinutes  int `json:"bufferAfterMinutes,omitempty"`
	// Limits caps each staff member's bookings of this service per local
	// day and week (decisions §9); nil: none.
	Limits *BookingLimits `json:"bookingLimits,omitempty"`
	// Timetable, when set, is the only starts the service is offered at
	// (decisions §10): local wall-clock times per weekday, in place of
	// the business's slot grid. nil: the grid.
	Timetable *Timetable `json:"timetable,omitempty"`
	// Resources are the units of the business's resources a booking of
	// the service takes (decisions §10); none: only its staff member.
	Resources []ResourceNeed `json:"resources,omitempty"`
	// Capacity is the seats of one session of the service (decisions
	// §10); above 1 the service is a class. 0 (absent) means 1.
	Capacity int `json:"capacity,omitempty"`
	// RepeatWeeks, above 1, lets the booking page offer "repeat weekly"
	// for the service (decisions §11): a series in fail mode of at most
	// that many weeks. 0: not offered.
	RepeatWeeks int       `json:"repeatWeeks,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// MaxCapacity bounds a class's seats per session.
const MaxCapacity = 500

// MaxRepeatWeeks bounds a service's repeatWeeks: a series has at most 52
// occurrences.
const MaxRepeatWeeks = 52

// Seats is the seats of one session of s: its capacity, 1 for a service
// that is not a class.
func (s *Service) Seats() int { return max(s.Capacity, 1) }

// IsClass reports whether s is a class: more than one seat per session
// (decisions §10).
func (s *Service) IsClass() bool { return s.Capacity > 1 }

// Timetable lists a service's start times per weekday, indexed by
// time.Weekday, each day's ascending and distinct. The times are local:
// a class at 18:00 stays at 18:00 across a change of the clocks.
type Timetable [7][]Clock

// MaxTimetableTimes bounds one day of a timetable.
const MaxTimetableTimes = 48

// Offers reports whether the timetable has a start at wall-clock time c
// on weekday d.
func (t *Timetable) Offers(d time.Weekday, c Clock) bool {
	_, ok := slices.BinarySearch(t[d], c)
	return ok
}

// Buffers is the service's buffers, as a booking of it snapshots them.
func (s *Service) Buffers() Buffers {
	return Buffers{Before: s.BufferBeforeMinutes, After: s.BufferAfterMinutes}
}

// Buffers are the minutes a booking occupies its staff member before its
// first active segment and after its last (decisions §9).
type Buffers struct{ Before, After int }

// MaxBufferMinutes bounds a buffer.
const MaxBufferMinutes = 240

// SegmentKind says whether a segment occupies the staff member.
type SegmentKind string

// The segment kinds: only active segments occupy the staff member.
const (
	Active SegmentKind = "active"
	Gap    SegmentKind = "gap"
)

// SegmentTemplate is one part of a service's footprint.
type SegmentTemplate struct {
	Kind            SegmentKind `json:"kind"`
	DurationMinutes int         `json:"durationMinutes"`
	Label           *string     `json:"label"`
}

// PricingRule sets the price of a booking whose local start falls on one of
// Days within [From, To).
type PricingRule struct {
	Days       []time.Weekday `json:"days"`
	From       Clock          `json:"from"`
	To         Clock          `json:"to"`
	PriceCents int            `json:"priceCents"`
}

// Staff is a staff member with their weekly working time.
type Staff struct {
	ID                 uuid.UUID   `json:"id"`
	Name               string      `json:"name"`
	IsActive           bool        `json:"isActive"`
	IsBookable         bool        `json:"isBookable"`
	AssignedServiceIDs []uuid.UUID `json:"assignedServiceIds"`
	Hours              WeekHours   `json:"hours"`
	Exceptions         []Exception `json:"exceptions"`
	CreatedAt          time.Time   `json:"createdAt"`
	UpdatedAt          time.Time   `json:"updatedAt"`
}

// Performs reports whether the staff member is assigned service id.
func (s *Staff) Performs(id uuid.UUID) bool {
	for _, x := range s.AssignedServiceIDs {
		if x == id {
			return true
		}
	}
	return false
}

// WeekHours holds working spans per weekday, indexed by time.Weekday.
type WeekHours [7][]Span

// Span is a stretch of local wall-clock time [From, To) within one day.
type Span struct {
	From Clock `json:"from"`
	To   Clock `json:"to"`
}

// Exception replaces the weekly hours on one local date; empty Hours means off.
type Exception struct {
	Date  Date   `json:"date"`
	Hours []Span `json:"hours"`
}

// Customer is a person who books with a business.
type Customer struct {
	ID        uuid.UUID `json:"id"`
	FirstName string    `json:"firstName"`
	LastName  string    `json:"lastName"`
	Email     string    `json:"email"`
	Phone     string    `json:"phone"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Key is an API key as stored: only its SHA-256 hash is kept.
type Key struct {
	ID        uuid.UUID  `json:"id"`
	Hash      KeyHash    `json:"hash"`
	Scopes    []string   `json:"scopes"`
	Revoked   bool       `json:"revoked"`
	ExpiresAt *time.Time `json:"expiresAt"`
	Limits    *Limits    `json:"limits,omitempty"`
	// Kind is secret (the default, also when empty) or publishable
	// (decisions §7): a key meant to sit in web pages, limited to the
	// booking flow's endpoints and to requests from AllowedOrigins.
	Kind KeyKind `json:"kind,omitempty"`
	// AllowedOrigins are the exact web origins ("https://salon.example")
	// a publishable key may be used from; nil for a secret key.
	AllowedOrigins []string `json:"allowedOrigins,omitempty"`
	// Origin says whom the key belongs to, and so what a world reload
	// does to it. Records journalled before keys had an origin lack it
	// (empty); OriginIn says what it was.
	Origin    KeyOrigin `json:"origin,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// KeyOrigin is where a key came from.
type KeyOrigin string

// The key origins.
const (
	// FromWorld: declared by a world file (or a business put in its
	// format). The file owns it: a reload replaces it, and a key the file
	// no longer declares stops working.
	FromWorld KeyOrigin = "world"
	// FromAdmin: issued through the admin API. The operator owns it: a
	// world reload keeps it; only a revoke ends it.
	FromAdmin KeyOrigin = "admin"
)

// WorldKeyID is the id of a key a world file declares for business biz:
// derived from the business and the key's hash, so loading the same file
// again yields the same id without storing any state.
func WorldKeyID(biz uuid.UUID, h KeyHash) uuid.UUID { return uuid.NewSHA1(biz, h[:]) }

// OriginIn returns the origin of k, a key of business biz. A key journalled
// before keys recorded their origin is told by its id, which is exact for
// every key slotd has made: a world file's keys have the derived
// WorldKeyID (a version 5 UUID), keys issued through the admin API a
// random one (version 4). Reading every old key as the file's would have
// let the next reload silently revoke the operator's keys, the bug the
// origin exists to fix.
func (k *Key) OriginIn(biz uuid.UUID) KeyOrigin {
	switch {
	case k.Origin != "":
		return k.Origin
	case k.ID == WorldKeyID(biz, k.Hash):
		return FromWorld
	default:
		return FromAdmin
	}
}

// KeyKind is what a key is for.
type KeyKind string

// The key kinds.
const (
	SecretKey      KeyKind = "secret"
	PublishableKey KeyKind = "publishable"
)

// PublishablePrefix starts the text of every publishable key.
const PublishablePrefix = "pk_live_"

// SecretPrefix starts the text of every secret key slotd makes (a world
// file may give a secret key any other text).
const SecretPrefix = "sk_live_"

// Publishable reports whether k is a publishable key.
func (k *Key) Publishable() bool { return k.Kind == PublishableKey }

// AllowsOrigin reports whether a publishable key may be used from origin,
// one of its AllowedOrigins exactly.
func (k *Key) AllowsOrigin(origin []byte) bool {
	for _, o := range k.AllowedOrigins {
		if o == string(origin) {
			return true
		}
	}
	return false
}

// OriginOf is the web origin of the absolute http or https URL raw as a
// browser sends it in the Origin header: the scheme, the host in lower
// case and the port only when it is not the scheme's own, nothing after
// it. ok is false for anything else. A publishable key's allowed origins
// are compared with what browsers send exactly, so an origin slotd
// derives from a URL (its own, from --public-url) must be written this way.
func OriginOf(raw string) (origin string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" && port != map[string]string{"http": "80", "https": "443"}[u.Scheme] {
		host += ":" + port
	}
	return u.Scheme + "://" + host, true
}

// HasScope reports whether the key was granted scope.
func (k *Key) HasScope(scope string) bool {
	for _, s := range k.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// Limits overrides a plan's request quotas for one key.
type Limits struct {
	PerMinute          int `json:"perMinute"`
	PerHour            int `json:"perHour"`
	MutationsPerMinute int `json:"mutationsPerMinute"`
}

// WorldAppointment is an appointment declared in a world file (the
// dashboard's side). It is materialized by the calendar.
type WorldAppointment struct {
	ID                    uuid.UUID  `json:"id"`
	CustomerID            uuid.UUID  `json:"customerId"`
	ServiceID             uuid.UUID  `json:"serviceId"`
	StaffMemberID         *uuid.UUID `json:"staffMemberId"`
	StartTime             time.Time  `json:"startTime"`
	Status                string     `json:"status"`
	Notes                 *string    `json:"notes"`
	RecurringSeriesID     *uuid.UUID `json:"recurringSeriesId"`
	IsRecurringOccurrence bool       `json:"isRecurringOccurrence"`
}

// Series is a recurring booking rule declared in a world file.
type Series struct {
	ID            uuid.UUID  `json:"id"`
	CustomerID    uuid.UUID  `json:"customerId"`
	ServiceID     uuid.UUID  `json:"serviceId"`
	StaffMemberID *uuid.UUID `json:"staffMemberId"`
	Rule          string     `json:"rule"`
	FirstStart    time.Time  `json:"firstStart"`
}

// Spec is everything a world file (or the admin API) declares about one
// business. Timestamps in it are zero: the business actor stamps them.
type Spec struct {
	Business     Business           `json:"business"`
	Keys         []Key              `json:"keys"`
	Categories   []Category         `json:"categories"`
	Services     []Service          `json:"services"`
	Resources    []Resource         `json:"resources"`
	Staff        []Staff            `json:"staff"`
	Customers    []Customer         `json:"customers"`
	Appointments []WorldAppointment `json:"appointments"`
	Series       []Series           `json:"recurringSeries"`
}
