// Package problem owns slotd's error values: the stable codes of api-v1 §7.2,
// the typed field entries of a VALIDATION_ERROR, and the extra members some
// codes carry. Domain code returns *Error; the transport maps codes to HTTP
// statuses in exactly one place. Messages are fixed sentences written by us
// and never echo client input.
package problem

import (
	"errors"
	"strings"
	"time"
)

// Code is a stable error identifier clients branch on.
type Code string

// The codes of api-v1 §7.2 plus the booking-rule codes of §7.3.
const (
	Validation             Code = "VALIDATION_ERROR"
	IdempotencyKeyRequired Code = "IDEMPOTENCY_KEY_REQUIRED"
	Unauthorized           Code = "UNAUTHORIZED"
	KeyRevoked             Code = "KEY_REVOKED"
	KeyExpired             Code = "KEY_EXPIRED"
	InsufficientScope      Code = "INSUFFICIENT_SCOPE"
	PlanUpgradeRequired    Code = "PLAN_UPGRADE_REQUIRED"
	Forbidden              Code = "FORBIDDEN"
	NotFound               Code = "NOT_FOUND"
	MethodNotAllowed       Code = "METHOD_NOT_ALLOWED"
	SlotTaken              Code = "SLOT_TAKEN"
	NoStaffAvailable       Code = "NO_STAFF_AVAILABLE"
	Conflict               Code = "CONFLICT"
	IdempotencyInProgress  Code = "IDEMPOTENCY_IN_PROGRESS"
	IdempotencyKeyReused   Code = "IDEMPOTENCY_KEY_REUSED"
	RateLimited            Code = "RATE_LIMITED"
	InvalidTransition      Code = "INVALID_STATUS_TRANSITION"
	StaffNotBookable       Code = "STAFF_NOT_BOOKABLE"
	ServiceNotBookable     Code = "SERVICE_NOT_BOOKABLE"
	PaymentsUnavailable    Code = "PAYMENTS_UNAVAILABLE"
	PreconditionFailed     Code = "PRECONDITION_FAILED"
	HoldExpired            Code = "HOLD_EXPIRED"
	PaymentError           Code = "PAYMENT_ERROR"
	ModuleUnavailable      Code = "MODULE_UNAVAILABLE"
	Internal               Code = "INTERNAL_ERROR"
	Unavailable            Code = "SERVICE_UNAVAILABLE"

	// RequestTimeout is ours, not §7.2's: a client that did not send its
	// whole request within the server's read timeout (a code clients may
	// meet, as §7.1 allows, and retry like a 5xx).
	RequestTimeout Code = "REQUEST_TIMEOUT"

	SlotNotOffered          Code = "SLOT_NOT_OFFERED"
	BookingTooSoon          Code = "BOOKING_TOO_SOON"
	BookingTooFarAhead      Code = "BOOKING_TOO_FAR_AHEAD"
	BookingRequiresCustomer Code = "BOOKING_REQUIRES_EXISTING_CUSTOMER"
	BookingPeriodRestricted Code = "BOOKING_PERIOD_RESTRICTED"
	BookingSlotNotConnected Code = "BOOKING_SLOT_NOT_CONNECTED"
	// BookingLimitReached (decisions §9): the staff member has as many
	// bookings that day or week as the service or business allows.
	BookingLimitReached Code = "BOOKING_LIMIT_REACHED"
	// ResourceUnavailable (decisions §10): a staff member is free, but
	// not enough units of a resource the booking needs are. Physical,
	// like SLOT_TAKEN: enforceBookingRules: false does not lift it.
	ResourceUnavailable Code = "RESOURCE_UNAVAILABLE"
	// SessionFull (decisions §10): the class session at that start has
	// no free seat.
	SessionFull Code = "SESSION_FULL"
	// SeriesConflict (decisions §11): an occurrence of a series in
	// onConflict "fail" mode would be refused; Conflicts names each.
	SeriesConflict Code = "SERIES_CONFLICT"

	// OriginNotAllowed (decisions §7): a publishable key used from a web
	// origin its allowedOrigins do not list.
	OriginNotAllowed Code = "ORIGIN_NOT_ALLOWED"
	// OutsideChangeWindow (decisions §7): a change through a manage link
	// the business's customerChanges setting does not allow (now).
	OutsideChangeWindow Code = "OUTSIDE_CHANGE_WINDOW"
)

// Codes is every code, the one list of them. A code is stored as its text
// (a refusal kept for an idempotent replay), so the texts are frozen:
// TestCodesAreFrozen holds the list to testdata/codes.golden, to which a
// new code is appended and from which none is ever removed.
var Codes = []Code{
	Validation, IdempotencyKeyRequired, Unauthorized, KeyRevoked, KeyExpired, InsufficientScope,
	PlanUpgradeRequired, Forbidden, NotFound, MethodNotAllowed, SlotTaken, NoStaffAvailable, Conflict,
	IdempotencyInProgress, IdempotencyKeyReused, RateLimited, InvalidTransition, StaffNotBookable,
	ServiceNotBookable, PaymentsUnavailable, PreconditionFailed, HoldExpired, PaymentError,
	ModuleUnavailable, Internal, Unavailable, RequestTimeout, SlotNotOffered, BookingTooSoon,
	BookingTooFarAhead, BookingRequiresCustomer, BookingPeriodRestricted, BookingSlotNotConnected,
	OriginNotAllowed, OutsideChangeWindow, BookingLimitReached, ResourceUnavailable,
	SessionFull, SeriesConflict,
}

// Reason is why one field was rejected (api-v1 §7.1).
type Reason string

// The reasons of api-v1 §7.1.
const (
	Required      Reason = "required"
	InvalidEmail  Reason = "invalid_email"
	InvalidURL    Reason = "invalid_url"
	InvalidDate   Reason = "invalid_date"
	InvalidFormat Reason = "invalid_format"
	TooShort      Reason = "too_short"
	TooLong       Reason = "too_long"
	TooSmall      Reason = "too_small"
	TooLarge      Reason = "too_large"
	InvalidOption Reason = "invalid_option"
	UnknownField  Reason = "unknown_field"
	Invalid       Reason = "invalid"
)

// Whole-request paths of a field entry.
const (
	PathBody  = "(body)"
	PathQuery = "(query)"
	PathPath  = "(path)"
)

// Field is one rejected parameter or body member. Limit is set for the
// bound-crossing reasons (too_short, too_long, too_small, too_large).
type Field struct {
	Path    string `json:"path"`
	Reason  Reason `json:"reason"`
	Message string `json:"message"`
	Limit   *int64 `json:"limit,omitempty"`
}

// Error is an API error value.
type Error struct {
	Code         Code
	Message      string
	Fields       []Field
	Scope        string
	RequiredPlan string
	// Conflicts, of a SERIES_CONFLICT, are the occurrences that would be
	// refused, each with its own code.
	Conflicts []Occurrence
	// RetryAfter is the Retry-After, in seconds, of a SERVICE_UNAVAILABLE
	// (0: the transport's default of 1).
	RetryAfter int
	// Cause is what made an INTERNAL_ERROR happen (a failed journal sync,
	// a timed-out actor, a panic). It is for the operator's log: the
	// client sees only Code and Message, never the cause.
	Cause error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return string(e.Code) + ": " + e.Cause.Error()
	}
	if len(e.Fields) == 0 {
		return string(e.Code) + ": " + e.Message
	}
	var b strings.Builder
	b.WriteString(string(e.Code))
	for _, f := range e.Fields {
		b.WriteString("; ")
		b.WriteString(f.Path)
		b.WriteString(": ")
		b.WriteString(f.Message)
	}
	return b.String()
}

// New returns an error with code and a fixed human sentence.
func New(code Code, message string) *Error { return &Error{Code: code, Message: message} }

// Fields returns a VALIDATION_ERROR carrying fields.
func Fields(fields ...Field) *Error {
	return &Error{Code: Validation, Message: "The request is invalid; see fields.", Fields: fields}
}

// FieldError is a VALIDATION_ERROR with one entry.
func FieldError(path string, reason Reason, message string) *Error {
	return Fields(Field{Path: path, Reason: reason, Message: message})
}

// Bound returns a field entry for a crossed bound.
func Bound(path string, reason Reason, limit int64, message string) Field {
	return Field{Path: path, Reason: reason, Message: message, Limit: &limit}
}

// Unwrap returns the cause, so errors.Is and errors.As see through an
// INTERNAL_ERROR to what caused it.
func (e *Error) Unwrap() error { return e.Cause }

// Wrap returns an INTERNAL_ERROR caused by err. The client is told only
// that the server failed; err stays attached for the one log line the
// transport writes with the request id.
//
// A SERVICE_UNAVAILABLE is returned as it is: in cluster mode the journal
// refuses a write of a business that is moving between nodes, and the
// client is to retry it, not to report a server fault.
func Wrap(err error) *Error {
	var e *Error
	if errors.As(err, &e) && e.Code == Unavailable {
		return e
	}
	return &Error{Code: Internal, Message: "The server failed to handle the request.", Cause: err}
}

// Moving is the refusal of a request for a business that is moving
// between nodes (cluster mode): 503 SERVICE_UNAVAILABLE, to be retried
// once the business has settled on a node. cause, when not nil, stays
// attached for the log and errors.Is.
func Moving(cause error) *Error {
	return &Error{Code: Unavailable, Message: "The business is moving between nodes; retry shortly.", Cause: cause}
}

// As returns err as an *Error, or, when it is not one, an INTERNAL_ERROR
// that keeps err as its cause.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Wrap(err)
}

// MapPaths returns err with the path of each of its fields mapped by fn,
// when err is an *Error with fields; any other err as it is. The *Error is
// copied, never changed: a load names a business's fields within the file
// ("businesses.1.appointments.2.startTime") that the business itself names
// from its own object.
func MapPaths(err error, fn func(path string) string) error {
	var e *Error
	if !errors.As(err, &e) || len(e.Fields) == 0 {
		return err
	}
	out := *e
	out.Fields = make([]Field, len(e.Fields))
	for i, f := range e.Fields {
		f.Path = fn(f.Path)
		out.Fields[i] = f
	}
	return &out
}

// Occurrence is one occurrence of a series that would be refused.
type Occurrence struct {
	StartTime time.Time
	Code      Code
}
