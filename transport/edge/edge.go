package edge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/handover"
)

// Config is what the edge needs.
type Config struct {
	Log *slog.Logger
	// AccessLog gets one line per request on either listener (see
	// NewAccessLog); nil logs none.
	AccessLog *slog.Logger
	// Cluster is set in cluster mode (handover.go); NodeName then names
	// this node in the X-Slotd-Node header of the answers it produces.
	Cluster  Cluster
	NodeName string
	// HandOver is the road to the other nodes (cluster mode).
	HandOver *handover.Node
}

// Edge is what both listeners share: the request id sequence, the
// request metrics and the access log, and the road to the other nodes.
type Edge struct {
	Config
	reqSeq   atomic.Uint64
	withheld atomic.Uint64 // answers Settle replaced
	reqBase  string
	metrics  *httpMetrics
}

// New returns the edge of one server.
func New(c Config) *Edge {
	var p [4]byte
	_, _ = rand.Read(p[:])
	return &Edge{Config: c, reqBase: hex.EncodeToString(p[:]) + "-", metrics: newHTTPMetrics()}
}

// Listener is what a listener answers before any route: the largest body
// its routes take (MaxBody) and the 400 for a larger one (TooLarge), and
// its name, the listener label of its metrics and access log lines.
// Unread, when set, adds to the answer of a request that could not be
// read whole: the public API sends its client IP's failed-authentication
// limit headers, as on any answer without a valid key.
type Listener struct {
	Name     string // Public or Admin
	MaxBody  int
	TooLarge *problem.Error
	Unread   func(*fasthttp.RequestCtx)
	// Large, when set, names the paths whose bodies may be up to
	// LargeBody instead (decisions §8: a week of busy time is bigger than
	// any booking).
	Large     func(path []byte) bool
	LargeBody int
}

// limit is the largest body the request's route takes.
func (l *Listener) limit(ctx *fasthttp.RequestCtx) int {
	if l.Large != nil && l.Large(ctx.Path()) {
		return max(l.LargeBody, l.MaxBody)
	}
	return l.MaxBody
}

// Listener names: the listener label values of the metrics and the
// access log.
const (
	Public = "public"
	Admin  = "admin"
)

// Observe is the front door of a listener's routes (l is the listener):
// it stamps a request id on every response, reads the body within the
// listener's limit (readBody), then counts and times the answer and logs
// it to the access log (finish). A body it could not read is answered
// here, as a request fasthttp could not parse is (refuseUnread); a body
// over the limit is not kept (readBody drains it) and left for the route
// to refuse once it has authenticated the request.
func (e *Edge) Observe(next fasthttp.RequestHandler, l Listener) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		// fasthttp read the clock as it called the handler; a handler
		// called directly (tests, benchmarks) has no such time.
		start := ctx.Time()
		if start.IsZero() {
			start = time.Now()
		}
		e.stamp(ctx)
		if ambiguousFraming(&ctx.Request.Header) {
			e.refuseUnread(ctx, l, errFraming)
			e.finish(ctx, l.Name, start)
			return
		}
		switch readBody(ctx, l.limit(ctx)) {
		case bodyTimedOut:
			e.refuseUnread(ctx, l, errReadTimeout)
		case bodyBroken:
			e.refuseUnread(ctx, l, errBadRequest)
		default:
			next(ctx)
		}
		e.finish(ctx, l.Name, start)
	}
}

// stamp prepares a response: header names spelled as given, and a fresh
// request id.
func (e *Edge) stamp(ctx *fasthttp.RequestCtx) {
	// Header names go out as we spell them: fasthttp would turn
	// X-RateLimit-Limit into X-Ratelimit-Limit. Names are case-insensitive,
	// but integrators grep and compare them as the spec prints them.
	ctx.Response.Header.DisableNormalizing()
	var buf [48]byte
	id := strconv.AppendUint(append(buf[:0], e.reqBase...), e.reqSeq.Add(1), 36)
	ctx.Response.Header.SetBytesV(requestIDHeader, id)
}

const requestIDHeader = "X-Request-Id"

// RequestID is the id Observe stamped on the response, for log lines. The
// response header is its only home (no per-request allocation); whoever
// resets the response headers reads it first.
func RequestID(ctx *fasthttp.RequestCtx) string {
	return string(ctx.Response.Header.Peek(requestIDHeader))
}

func setRequestID(ctx *fasthttp.RequestCtx, id string) { ctx.Response.Header.Set(requestIDHeader, id) }

// RequestContext returns a context bounded by the request's deadline
// budget.
func RequestContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), RequestTimeout)
}

// RequestTimeout is how long a request waits for the engine.
const RequestTimeout = 10 * time.Second

// Fail writes err: a refusal (*problem.Error) as itself, anything else as
// an INTERNAL_ERROR that reveals nothing to the client. An internal error
// is logged here, once, with the request id and its cause; the engine
// returns causes and does not log what it returns.
func (e *Edge) Fail(ctx *fasthttp.RequestCtx, err error) {
	pe := problem.As(err)
	if pe.Code == problem.Internal {
		e.Log.Error("request failed", "request_id", RequestID(ctx), "err", err)
	}
	WriteError(ctx, pe)
}

// refuseUnread answers a request that could not be read whole and closes
// the connection: what is left on it cannot be trusted to start the next
// request. Nothing of the request was acted on and no credential was read
// from it; the listener's Unread adds what it adds to such an answer.
func (e *Edge) refuseUnread(ctx *fasthttp.RequestCtx, l Listener, perr *problem.Error) {
	ctx.SetConnectionClose()
	if l.Unread != nil {
		l.Unread(ctx)
	}
	WriteError(ctx, perr)
}
