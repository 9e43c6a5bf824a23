package directory

import (
	"time"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// The engine's requests and answers, as the directory's callers name
// them. Each is defined beside the code that decides it (ledger,
// calendar, business); callers outside the engine see them only here, so
// the directory stays the one door into the engine and the packages
// behind it can change without a caller noticing.
type (
	// CreateInput is a booking request (POST /appointments).
	CreateInput = ledger.CreateInput
	// PatchInput is an edit of an appointment (PATCH /appointments/{id}).
	PatchInput = ledger.PatchInput
	// HoldInput is a hold request (POST /holds).
	HoldInput = ledger.HoldInput
	// EntryInput is a waitlist request (POST /waitlist-entries).
	EntryInput = ledger.EntryInput
	// FeedInput makes a calendar feed.
	FeedInput = ledger.FeedInput
	// BusyPut replaces busy time of a staff member.
	BusyPut = ledger.BusyPut
	// SourceInput adds a calendar source to a staff member.
	SourceInput = ledger.SourceInput
	// EndpointInput registers a webhook endpoint.
	EndpointInput = ledger.EndpointInput
	// EndpointPatch edits a webhook endpoint.
	EndpointPatch = ledger.EndpointPatch
	// Done is the answer of a write that returns nothing.
	Done = ledger.Done
	// The writes that carry their own decision (ledger.Op), sent with Do.
	RegisterEndpoint = ledger.RegisterEndpoint
	PatchEndpoint    = ledger.PatchEndpoint
	DeleteEndpoint   = ledger.DeleteEndpoint
	CreateFeed       = ledger.CreateFeed
	DeleteFeed       = ledger.DeleteFeed
	PutBusyTime      = ledger.PutBusyTime
	ClearBusyTime    = ledger.ClearBusyTime
	CreateSource     = ledger.CreateSource
	DeleteSource     = ledger.DeleteSource
	ExtendHold       = ledger.ExtendHold
	ReleaseHold      = ledger.ReleaseHold
	DeleteEntry      = ledger.DeleteEntry
	PatchAppointment = ledger.PatchAppointment
	SetStatus        = ledger.SetStatus
	// The requests that are the actor's own (business.Request), sent
	// with Ask: they touch more than the ledger (a provider call, a
	// courier).
	Revoke        = business.Revoke
	PaymentEvent  = business.PaymentEvent
	PaymentNotice = business.PaymentNotice
	Replay        = business.Replay
	// The idempotent writes (ledger.IdempotentOp), sent with DoOnce.
	IdempotentOp = ledger.IdempotentOp
	Book         = ledger.Book
	AddCustomer  = ledger.AddCustomer
	CreateHold   = ledger.CreateHold
	AddEntry     = ledger.AddEntry
	BookSeries   = ledger.BookSeries
	// SeriesInput is a series of bookings (decisions §11), its rule a
	// Rule.
	SeriesInput = ledger.SeriesInput
	Rule        = calendar.Rule
	// CancelSeries cancels a series from a time on; SeriesCancelled is
	// what it did.
	CancelSeries    = ledger.CancelSeries
	SeriesCancelled = ledger.SeriesCancelled
	// Occurrence is one start of a series as judged.
	Occurrence = ledger.Occurrence
	// BookBasket books several services back to back, all or nothing
	// (decisions §11); BasketInput and BasketItem are its body;
	// CancelBasket cancels what of one may be cancelled.
	BookBasket   = ledger.BookBasket
	BasketInput  = ledger.BasketInput
	BasketItem   = ledger.BasketItem
	CancelBasket = ledger.CancelBasket
	// ChainSlot is one start of a basket's chain on offer, each item's
	// slot.
	ChainSlot = calendar.ChainSlot
	// CheckInput asks what bookings would get (POST /availability/check).
	CheckInput = ledger.CheckInput
	// Verdict is Check's answer for one start.
	Verdict = ledger.Verdict
	// StartKey orders appointments by start, then id: a list's position.
	StartKey = ledger.StartKey
	// CreationKey orders waitlist entries by creation: a list's position.
	CreationKey = ledger.CreationKey
	// Slot is one start time on offer.
	Slot = calendar.Slot
	// Changes is what a customer may change of a booking now (decisions §7).
	Changes = ledger.Changes
	// IdemKey identifies an idempotent request: its key and body.
	IdemKey = business.IdemKey
	// Answer is what an idempotent write decided, as facts.
	Answer = business.Answer
	// AppointmentView is an appointment with its customer, as an edit left
	// it.
	AppointmentView = ledger.AppointmentView
	// AnswerKind says what an Answer holds.
	AnswerKind = record.AnswerKind
)

// The kinds of Answer.
const (
	AnswerBody     = record.AnswerBody // journalled as bytes, before answers were facts
	AnswerBooked   = record.AnswerBooked
	AnswerCustomer = record.AnswerCustomer
	AnswerRefused  = record.AnswerRefused
	AnswerHold     = record.AnswerHold
	AnswerEntry    = record.AnswerEntry
	AnswerSeries   = record.AnswerSeries
	AnswerBasket   = record.AnswerBasket
)

// KeyOf is the list position of appointment a.
func KeyOf(a *model.Appointment) StartKey { return ledger.KeyOf(a) }

// RescheduleRefusal is why a customer may not move appointment a now
// (ledger.RescheduleRefusal), nil when they may.
func RescheduleRefusal(a *model.Appointment, set model.CustomerChanges, now time.Time) error {
	return ledger.RescheduleRefusal(a, set, now)
}

// CustomerChanges is what the business's setting lets a customer change
// of appointment a at now (ledger.CustomerChanges).
func CustomerChanges(a *model.Appointment, set model.CustomerChanges, now time.Time) Changes {
	return ledger.CustomerChanges(a, set, now)
}

// Op is a write that carries its own decision (ledger.Op), sent with Do.
type Op[R any] = ledger.Op[R]

// A series' rule (decisions §11): its longest text, its parser, and the
// most occurrences a series has.
const (
	MaxRuleLen           = calendar.MaxRuleLen
	MaxSeriesOccurrences = ledger.MaxSeriesOccurrences
	MinBasketItems       = ledger.MinBasketItems
	MaxBasketItems       = ledger.MaxBasketItems
)

// ParseRule parses a recurrence rule of the supported subset.
func ParseRule(s string) (Rule, error) { return calendar.ParseRule(s) }
