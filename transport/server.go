package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fasthttp/router"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/clock"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/handover"
	"github.com/slotd/slotd/transport/quota"
	"github.com/slotd/slotd/webhook/deliver"
)

// MaxBody is the largest public request body accepted (decisions §3: 64 KiB).
const MaxBody = 64 << 10

const maxBody = MaxBody

// Config is what the front end needs.
type Config struct {
	Dir     *directory.Directory
	Clock   clock.Clock
	Cursors *cursor.Codec
	Log     *slog.Logger
	// FailedAuth is the per-IP limit on failed authentication; zero means
	// quota.FailedAuth (20 a minute).
	FailedAuth quota.Window
	AdminToken string
	// Disabled lists modules switched off platform-wide (--disable-module):
	// their endpoints answer 503 MODULE_UNAVAILABLE.
	Disabled map[model.Module]bool
	// Webhooks sends test pings; WebhooksAllowInsecure lifts the https/443
	// rule at registration (--webhooks-allow-insecure).
	Webhooks              *deliver.Client
	WebhooksAllowInsecure bool
	// Metrics is what /metrics serves: the registry everything was
	// registered in, the server's own Collector included. nil serves the
	// server's metrics and the journal's.
	Metrics prometheus.Gatherer
	// AccessLog gets one line per request on either listener (see
	// NewAccessLog); nil logs none.
	AccessLog *slog.Logger
	// Cluster is set in cluster mode (cluster.go); NodeName then names
	// this node in the X-Slotd-Node header of the answers it produces.
	Cluster  Cluster
	NodeName string
	// HandOver is the road to the other nodes (cluster mode).
	HandOver *handover.Node
}

// Server serves the public and admin APIs.
type Server struct {
	Config
	routeSet
	ready   atomic.Bool
	reqSeq  atomic.Uint64
	reqBase string
	metrics *httpMetrics
	// promHandler serves /metrics.
	promHandler fasthttp.RequestHandler
	slots       *slotCache
	pings       *pingBucket
	quota       *quota.Limiter // per-key quotas and the failed-auth limit
	// authLimit is the per-IP limit on failed authentication.
	authLimit quota.Check
}

// New returns a server; it answers /readyz with 503 until SetReady(true).
func New(c Config) *Server {
	var p [4]byte
	_, _ = rand.Read(p[:])
	if c.FailedAuth.N <= 0 || c.FailedAuth.Per <= 0 {
		c.FailedAuth = quota.FailedAuth
	}
	s := &Server{Config: c, reqBase: hex.EncodeToString(p[:]) + "-", slots: newSlotCache(64 << 20), pings: newPingBucket(),
		quota: quota.New(c.Clock), authLimit: quota.Check{Kind: limitFailedAuth, Window: c.FailedAuth}, metrics: newHTTPMetrics()}
	s.promHandler = s.newPromHandler()
	return s
}

// SetReady sets what /readyz reports.
func (s *Server) SetReady(v bool) { s.ready.Store(v) }

// route is one public endpoint: the scope and module it needs, and its work.
type route struct {
	scope  string       // "" means any valid key
	module model.Module // "" means no module is needed
	fn     func(*call)
}

// Public returns the handler of the public API.
func (s *Server) Public() fasthttp.RequestHandler {
	pub, _ := s.routers()
	return s.observe(pub, publicEdge)
}

// buildPublic returns the routes of the public API.
func (s *Server) buildPublic() fasthttp.RequestHandler {
	r := newRouter(s, s.meter, errNotFound)
	add := func(method, path string, h fasthttp.RequestHandler) { s.handle(r, listenerPublic, method, path, h) }
	get := func(path string, rt route) { add(fasthttp.MethodGet, path, s.api(rt)) }
	get("/api/v1/me", route{fn: s.me})
	get("/api/v1/services", route{scope: "services:read", fn: s.listServices})
	get("/api/v1/services/{id}", route{scope: "services:read", fn: s.getService})
	get("/api/v1/service-categories", route{scope: "services:read", fn: s.listCategories})
	get("/api/v1/staff", route{scope: "staff:read", fn: s.listStaff})
	get("/api/v1/staff/{id}", route{scope: "staff:read", fn: s.getStaff})
	get("/api/v1/customers/{id}", route{scope: "customers:read", module: model.ModCustomers, fn: s.getCustomer})
	get("/api/v1/appointments", route{scope: "appointments:read", module: model.ModAppointments, fn: s.listAppointments})
	get("/api/v1/appointments/{id}", route{scope: "appointments:read", module: model.ModAppointments, fn: s.getAppointment})
	get("/api/v1/availability/slots", route{scope: "appointments:read", module: model.ModAppointments, fn: s.availability})
	add(fasthttp.MethodPost, "/api/v1/appointments", s.api(route{scope: "appointments:write", module: model.ModAppointments, fn: s.createAppointment}))
	add(fasthttp.MethodPatch, "/api/v1/appointments/{id}", s.api(route{scope: "appointments:write", module: model.ModAppointments, fn: s.patchAppointment}))
	add(fasthttp.MethodPost, "/api/v1/appointments/{id}/status", s.api(route{scope: "appointments:write", module: model.ModAppointments, fn: s.setStatus}))
	add(fasthttp.MethodPost, "/api/v1/customers", s.api(route{scope: "customers:write", module: model.ModCustomers, fn: s.createCustomer}))
	s.sixRoutes(add)
	hook := func(fn func(*call)) fasthttp.RequestHandler {
		return s.api(route{scope: "webhooks:manage", module: model.ModWebhooks, fn: fn})
	}
	add(fasthttp.MethodGet, "/api/v1/webhooks", hook(s.listWebhooks))
	add(fasthttp.MethodPost, "/api/v1/webhooks", hook(s.registerWebhook))
	add(fasthttp.MethodGet, "/api/v1/webhooks/{id}", hook(s.getWebhook))
	add(fasthttp.MethodPatch, "/api/v1/webhooks/{id}", hook(s.patchWebhook))
	add(fasthttp.MethodDelete, "/api/v1/webhooks/{id}", hook(s.deleteWebhook))
	s.paymentRoutes(add)
	add(fasthttp.MethodGet, "/api/v1/webhooks/{id}/deliveries", hook(s.listDeliveries))
	add(fasthttp.MethodPost, "/api/v1/webhooks/{id}/deliveries/{deliveryId}/replay", hook(s.replayDelivery))
	return r.Handler
}

// newRouter returns a router whose misses answer in the §7.1 shape through
// miss: unknown paths notFound (404), known paths with another method
// (OPTIONS included) 405 with an Allow header naming the served methods,
// and never a redirect.
func newRouter(s *Server, miss func(*fasthttp.RequestCtx, *problem.Error), notFound *problem.Error) *router.Router {
	r := router.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleOPTIONS = false
	r.HandleMethodNotAllowed = true
	r.NotFound = func(ctx *fasthttp.RequestCtx) { miss(ctx, notFound) }
	r.MethodNotAllowed = func(ctx *fasthttp.RequestCtx) {
		dropOptionsFromAllow(ctx)
		miss(ctx, errMethod)
	}
	r.PanicHandler = func(ctx *fasthttp.RequestCtx, v any) {
		id := requestID(ctx)
		s.Log.Error("handler panicked", "request_id", id, "panic", fmt.Sprint(v))
		ctx.ResetBody()
		ctx.Response.Header.Reset()
		setRequestID(ctx, id)
		writeError(ctx, errInternal)
	}
	return r
}

// dropOptionsFromAllow removes OPTIONS from the Allow header the router
// set on a 405. The router always lists it, as if it answered OPTIONS, but
// OPTIONS is itself 405 here (api-v1 §4.1 rule 7): an Allow header naming
// it would send a client to a method that is refused. Only 405 answers pay
// for the rewrite.
func dropOptionsFromAllow(ctx *fasthttp.RequestCtx) {
	allow := ctx.Response.Header.Peek(fasthttp.HeaderAllow)
	out := make([]byte, 0, len(allow))
	for _, m := range bytes.Split(allow, []byte(",")) {
		m = bytes.TrimSpace(m)
		if len(m) == 0 || string(m) == fasthttp.MethodOptions {
			continue
		}
		if len(out) > 0 {
			out = append(out, ", "...)
		}
		out = append(out, m...)
	}
	ctx.Response.Header.SetBytesV(fasthttp.HeaderAllow, out)
}

// observe is the front door of a listener's routes (e is the listener):
// it stamps a request id on every response, reads the body within the
// listener's limit (readBody), then counts and times the answer and logs
// it to the access log (finish). A body it could not read is answered
// here, as a request fasthttp could not parse is (refuseUnread); a body
// over the limit is not kept (readBody drains it) and left for the route
// to refuse once it has authenticated the request.
func (s *Server) observe(next fasthttp.RequestHandler, e edge) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		// fasthttp read the clock as it called the handler; a handler
		// called directly (tests, benchmarks) has no such time.
		start := ctx.Time()
		if start.IsZero() {
			start = time.Now()
		}
		s.stamp(ctx)
		if ambiguousFraming(&ctx.Request.Header) {
			s.refuseUnread(ctx, e, errFraming)
			s.finish(ctx, e, start)
			return
		}
		switch readBody(ctx, e.maxBody) {
		case bodyTimedOut:
			s.refuseUnread(ctx, e, errReadTimeout)
		case bodyBroken:
			s.refuseUnread(ctx, e, errBadRequest)
		default:
			next(ctx)
		}
		s.finish(ctx, e, start)
	}
}

// stamp prepares a response: header names spelled as given, and a fresh
// request id.
func (s *Server) stamp(ctx *fasthttp.RequestCtx) {
	// Header names go out as we spell them: fasthttp would turn
	// X-RateLimit-Limit into X-Ratelimit-Limit. Names are case-insensitive,
	// but integrators grep and compare them as the spec prints them.
	ctx.Response.Header.DisableNormalizing()
	var buf [48]byte
	id := strconv.AppendUint(append(buf[:0], s.reqBase...), s.reqSeq.Add(1), 36)
	ctx.Response.Header.SetBytesV(requestIDHeader, id)
}

const requestIDHeader = "X-Request-Id"

// requestID is the id observe stamped on the response, for log lines. The
// response header is its only home (no per-request allocation); whoever
// resets the response headers reads it first.
func requestID(ctx *fasthttp.RequestCtx) string {
	return string(ctx.Response.Header.Peek(requestIDHeader))
}

func setRequestID(ctx *fasthttp.RequestCtx, id string) { ctx.Response.Header.Set(requestIDHeader, id) }

// reqContext returns a context bounded by the request's deadline budget.
func reqContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), reqTimeout)
}

// reqTimeout is how long a request waits for the engine.
const reqTimeout = 10 * time.Second

// fail writes err: a refusal (*problem.Error) as itself, anything else as
// an INTERNAL_ERROR that reveals nothing to the client. An internal error
// is logged here, once, with the request id and its cause; the engine
// returns causes and does not log what it returns.
func (s *Server) fail(ctx *fasthttp.RequestCtx, err error) {
	pe := problem.As(err)
	if pe.Code == problem.Internal {
		s.Log.Error("request failed", "request_id", requestID(ctx), "err", err)
	}
	writeError(ctx, pe)
}

// ConnLimits bound what one connection may hold: a client that sends its
// request slowly, reads its answer slowly or keeps an idle connection open
// is cut off, so it cannot pin a goroutine and its 16 KiB read buffer for
// ever (slowloris).
type ConnLimits struct {
	// ReadTimeout bounds reading one request, from its first byte (or, on
	// a new connection, from the accept) to the end of its body.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing one response.
	WriteTimeout time.Duration
	// IdleTimeout bounds the wait for the next request on a kept-alive
	// connection; it closes without an answer.
	IdleTimeout time.Duration
}

// DefaultConnLimits are the limits of `slotd serve` unless flags say
// otherwise: generous for a phone on a poor network, short for an attacker.
var DefaultConnLimits = ConnLimits{ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second}

// writeBuffer is the per-connection response buffer (see httpServer).
const writeBuffer = 16 << 10

// MaxHeader is the most a request line plus headers may take; fasthttp
// reads them into a buffer of this size.
const MaxHeader = 16 << 10

// edge is what a listener answers before any route: the largest body its
// routes take and the 400 for a larger one, and whether it meters its
// answers (the public API does; the admin listener does not); listener
// says which one it is, for the metrics.
type edge struct {
	maxBody  int
	tooLarge *problem.Error
	metered  bool
	listener int
}

// Listeners, edge.listener.
const (
	publicListener = 0
	adminListener  = 1
)

var (
	publicEdge = edge{maxBody: MaxBody, tooLarge: errBodyTooLarge, metered: true, listener: publicListener}
	adminEdge  = edge{maxBody: MaxAdminBody, tooLarge: errAdminBodyTooLarge, listener: adminListener}
)

// PublicServer returns the fasthttp server of the public API with lim's
// timeouts.
func (s *Server) PublicServer(lim ConnLimits) *fasthttp.Server {
	return s.httpServer(s.Public(), "slotd", publicEdge, lim)
}

// AdminServer returns the fasthttp server of the admin listener with lim's
// timeouts.
func (s *Server) AdminServer(lim ConnLimits) *fasthttp.Server {
	return s.httpServer(s.Admin(), "slotd-admin", adminEdge, lim)
}

// httpServer wraps h in a fasthttp server with the limits a public server
// needs: bounded header size, lim's timeouts, and a streamed request body
// that the handler reads within e.maxBody (readBody), so that a request
// with a body too large is still authenticated and charged before it is
// refused, and its client can read the refusal. Requests fasthttp cannot
// read or parse are answered in the §7.1 shape, with a request id.
//
// fasthttp's own MaxConnsPerIP is deliberately left off: it counts every
// IPv6 client as one address and refuses in plain text outside the error
// shape. A per-address connection cap belongs to the load balancer in front.
func (s *Server) httpServer(h fasthttp.RequestHandler, name string, e edge, lim ConnLimits) *fasthttp.Server {
	return &fasthttp.Server{
		Logger:  fasthttpLogger{s.Log},
		Handler: h,
		Name:    name,
		// Streamed, fasthttp reads at most 8 KiB of a body before calling
		// the handler and leaves the rest to readBody; MaxRequestBodySize
		// then only caps that first read.
		StreamRequestBody:  true,
		MaxRequestBodySize: e.maxBody,
		// fasthttp would otherwise read a multipart body whole, to
		// temporary files, before the handler: no route takes one.
		DisablePreParseMultipartForm: true,
		ReadBufferSize:               MaxHeader,
		// A response bigger than the write buffer goes out in two write
		// syscalls instead of one; fasthttp's 4 KiB default splits a
		// one-day availability answer (4–5 KB). 16 KiB holds the common
		// answers whole, at 16 KiB per open connection.
		WriteBufferSize:       writeBuffer,
		ReadTimeout:           lim.ReadTimeout,
		WriteTimeout:          lim.WriteTimeout,
		IdleTimeout:           lim.IdleTimeout,
		CloseOnShutdown:       true,
		NoDefaultDate:         false,
		NoDefaultServerHeader: true,
		ErrorHandler:          s.parseError(e),
		// fasthttp otherwise quotes the unparsable request in its error
		// messages, Authorization header and all; API keys are never logged.
		SecureErrorLogMessage: true,
	}
}

// parseError answers a request fasthttp could not read: its request line
// and headers were too long, malformed, or did not arrive within the read
// timeout.
func (s *Server) parseError(e edge) func(*fasthttp.RequestCtx, error) {
	return func(ctx *fasthttp.RequestCtx, err error) {
		start := time.Now()
		s.stamp(ctx)
		var small *fasthttp.ErrSmallBuffer
		var nerr net.Error
		switch {
		case errors.Is(err, fasthttp.ErrBodyTooLarge): // not while bodies are streamed; kept for safety
			s.refuseUnread(ctx, e, e.tooLarge)
		case errors.As(err, &small):
			s.refuseUnread(ctx, e, errHeaderTooLong)
		case errors.As(err, &nerr) && nerr.Timeout():
			s.refuseUnread(ctx, e, errReadTimeout)
		default:
			s.refuseUnread(ctx, e, errBadRequest)
		}
		s.finish(ctx, e, start)
	}
}

// refuseUnread answers a request that could not be read whole and closes
// the connection: what is left on it cannot be trusted to start the next
// request. Nothing of the request was acted on and no credential was read
// from it, so on the public API the answer carries the client IP's
// failed-authentication limit's headers, as any answer without a valid
// key does, without spending from it. (It stays a 400 or 408 when that
// limit is used up: the client learns what was wrong with what it sent,
// and the headers say it is blocked.)
func (s *Server) refuseUnread(ctx *fasthttp.RequestCtx, e edge, perr *problem.Error) {
	ctx.SetConnectionClose()
	if e.metered {
		rateHeaders(ctx, s.quota.Peek(string(ctx.RemoteIP()), s.authLimit))
	}
	writeError(ctx, perr)
}

// fasthttpLogger sends fasthttp's own messages (connection-level errors) to
// slog at debug level: a client that sends garbage is not the operator's
// problem, and the client already got its 400.
type fasthttpLogger struct{ log *slog.Logger }

func (l fasthttpLogger) Printf(format string, args ...any) {
	l.log.Debug(fmt.Sprintf(format, args...), "component", "fasthttp")
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
