package edge

import (
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
)

// Errors both listeners answer with.
var (
	ErrInternal   = problem.New(problem.Internal, "The server failed to handle the request.")
	ErrNoBusiness = problem.New(problem.NotFound, "No such business.")
	// ErrMoving is the answer about a business between nodes (cluster mode).
	ErrMoving = problem.Moving(nil)
)

// Fixed sentences of the errors the edge raises itself.
var (
	errMethod        = problem.New(problem.MethodNotAllowed, "The method is not allowed on this resource.")
	errBadRequest    = problem.FieldError(problem.PathBody, problem.Invalid, "The request could not be parsed.")
	errHeaderTooLong = problem.Fields(problem.Bound("(headers)", problem.TooLarge, maxHeader, "The request line and headers must be at most 16384 bytes."))
	errReadTimeout   = problem.New(problem.RequestTimeout, "The request was not received in time; send it again.")
)

// WriteError writes e as the response: its status (wire.Status, the one
// mapping of error codes to HTTP statuses) and the §7.1 body.
func WriteError(ctx *fasthttp.RequestCtx, e *problem.Error) {
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(wire.Status(e.Code))
	if e.Code == problem.Unavailable && len(ctx.Response.Header.Peek("Retry-After")) == 0 {
		// 1 s by default: in cluster mode, a business between nodes.
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(max(e.RetryAfter, 1)))
	}
	b := wire.AppendError(make([]byte, 0, 256), e)
	ctx.SetBody(b)
}

// WriteRawJSON sends body with status without copying it: body must stay
// unchanged until the response is written, which is after the handler
// returns. Values the handler stored with ctx.SetUserValue are closed
// (io.Closer) once it is: the place to take a buffer back.
//
// A week of slots is about 150 KiB. Copied into the response's pooled
// buffer, or encoded into a buffer swapped in from there, it was written
// into memory no cache held: a fifth of the week's CPU in memmove
// (2026-11-27). The handler's own pooled buffer, kept until the answer is
// out, is the one written last.
func WriteRawJSON(ctx *fasthttp.RequestCtx, status int, body []byte) {
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(status)
	ctx.Response.SetBodyRaw(body)
}

// WriteJSON sends body (copied) with status.
func WriteJSON(ctx *fasthttp.RequestCtx, status int, body []byte) {
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(status)
	ctx.SetBody(body)
}
