package transport

import (
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
)

// Status returns the HTTP status of an error code (see wire.Status).
func Status(c problem.Code) int { return wire.Status(c) }

// Fixed sentences of the errors the transport raises itself.
var (
	errNotFound      = problem.New(problem.NotFound, "No such resource for this business.")
	errMethod        = problem.New(problem.MethodNotAllowed, "The method is not allowed on this resource.")
	errUnauthorized  = problem.New(problem.Unauthorized, "A valid API key is required: send Authorization: Bearer <key>.")
	errRevoked       = problem.New(problem.KeyRevoked, "The API key has been revoked.")
	errExpired       = problem.New(problem.KeyExpired, "The API key has expired.")
	errForbidden     = problem.New(problem.Forbidden, "The business does not have the module this endpoint belongs to.")
	errInternal      = problem.New(problem.Internal, "The server failed to handle the request.")
	errBodyTooLarge  = problem.Fields(problem.Bound(problem.PathBody, problem.TooLarge, maxBody, "The request body must be at most 65536 bytes."))
	errBadRequest    = problem.FieldError(problem.PathBody, problem.Invalid, "The request could not be parsed.")
	errHeaderTooLong = problem.Fields(problem.Bound("(headers)", problem.TooLarge, MaxHeader, "The request line and headers must be at most 16384 bytes."))
	errReadTimeout   = problem.New(problem.RequestTimeout, "The request was not received in time; send it again.")
)

// Sentences of the admin listener: the same codes and shape as the public
// API's, but true of an operator calling the admin API, who holds an admin
// token rather than an API key and names businesses rather than records of one.
var (
	errAdminNotFound     = problem.New(problem.NotFound, "No such admin resource.")
	errAdminUnauthorized = problem.New(problem.Unauthorized, "A valid admin token is required: send Authorization: Bearer <admin token>.")
	errNoBusiness        = problem.New(problem.NotFound, "No such business.")
	errNoKey             = problem.New(problem.NotFound, "No such key.")
	errAdminBodyTooLarge = problem.Fields(problem.Bound(problem.PathBody, problem.TooLarge, MaxAdminBody, "The request body must be at most 33554432 bytes."))
)

// writeError writes e as the response: its status and the §7.1 body.
func writeError(ctx *fasthttp.RequestCtx, e *problem.Error) {
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(Status(e.Code))
	if e.Code == problem.Unavailable && len(ctx.Response.Header.Peek("Retry-After")) == 0 {
		// 1 s by default: in cluster mode, a business between nodes.
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(max(e.RetryAfter, 1)))
	}
	b := wire.AppendError(make([]byte, 0, 256), e)
	ctx.SetBody(b)
}
