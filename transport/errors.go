package transport

import (
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/wire"
	"github.com/valyala/fasthttp"
)

// statusOf is the one mapping from error code to HTTP status. Codes not
// listed are business-rule refusals (the rule set is extensible): 422.
var statusOf = map[problem.Code]int{
	problem.Validation:             400,
	problem.IdempotencyKeyRequired: 400,
	problem.Unauthorized:           401,
	problem.KeyRevoked:             401,
	problem.KeyExpired:             401,
	problem.InsufficientScope:      403,
	problem.PlanUpgradeRequired:    403,
	problem.Forbidden:              403,
	problem.NotFound:               404,
	problem.MethodNotAllowed:       405,
	problem.SlotTaken:              409,
	problem.NoStaffAvailable:       409,
	problem.Conflict:               409,
	problem.IdempotencyInProgress:  409,
	problem.IdempotencyKeyReused:   409,
	problem.RateLimited:            429,
	problem.PaymentError:           500,
	problem.Internal:               500,
	problem.ModuleUnavailable:      503,
	problem.Unavailable:            503,
}

// Status returns the HTTP status of an error code.
func Status(c problem.Code) int {
	if s, ok := statusOf[c]; ok {
		return s
	}
	return 422
}

// Fixed sentences of the errors the transport raises itself.
var (
	errNotFound      = problem.New(problem.NotFound, "No such resource for this business.")
	errMethod        = problem.New(problem.MethodNotAllowed, "The method is not allowed on this resource.")
	errUnauthorized  = problem.New(problem.Unauthorized, "A valid API key is required: send Authorization: Bearer <key>.")
	errRevoked       = problem.New(problem.KeyRevoked, "The API key has been revoked.")
	errExpired       = problem.New(problem.KeyExpired, "The API key has expired.")
	errForbidden     = problem.New(problem.Forbidden, "The business does not have the module this endpoint belongs to.")
	errInternal      = problem.New(problem.Internal, "The server failed to handle the request.")
	errNotReady      = problem.New(problem.Unavailable, "The server is starting or stopping; retry shortly.")
	errBodyTooLarge  = problem.Fields(problem.Bound(problem.PathBody, problem.TooLarge, maxBody, "The request body must be at most 65536 bytes."))
	errBadRequest    = problem.FieldError(problem.PathBody, problem.Invalid, "The request could not be parsed.")
	errHeaderTooLong = problem.FieldError("(headers)", problem.TooLarge, "The request headers are too large.")
)

// writeError writes e as the response: its status and the §7.1 body.
func writeError(ctx *fasthttp.RequestCtx, e *problem.Error) {
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(Status(e.Code))
	b := wire.AppendError(make([]byte, 0, 256), e)
	ctx.SetBody(b)
}
