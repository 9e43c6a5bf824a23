package api

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/linktoken"
	"github.com/slotd/slotd/transport/quota"
	"github.com/slotd/slotd/webhook/deliver"
)

// MaxBody is the largest public request body accepted (decisions §3: 64 KiB).
const MaxBody = 64 << 10

const maxBody = MaxBody

// MaxLargeBody is the largest body of the calendar endpoints (decisions
// §8): a year of busy time is more than a booking.
const MaxLargeBody = 1 << 20

// Config is what the public API needs.
type Config struct {
	Dir     *directory.Directory
	Clock   clock.Clock
	Cursors *cursor.Codec
	// FailedAuth is the per-IP limit on failed authentication; zero means
	// quota.FailedAuth (20 a minute).
	FailedAuth quota.Window
	// Disabled lists modules switched off platform-wide (--disable-module):
	// their endpoints answer 503 MODULE_UNAVAILABLE.
	Disabled map[model.Module]bool
	// Webhooks sends test pings; WebhooksAllowInsecure lifts the https/443
	// rule at registration (--webhooks-allow-insecure).
	Webhooks              *deliver.Client
	WebhooksAllowInsecure bool
	// Links makes and opens the tokens of customers' manage links, shown
	// under PublicURL (decisions §7); nil: appointments carry none.
	Links     *linktoken.Codec
	PublicURL string
	// Feeds makes and opens the tokens of calendar feeds (decisions §8).
	Feeds *linktoken.Codec
}

// Server serves the public API.
type Server struct {
	*edge.Edge
	Config
	// listener is what the public listener answers before any route.
	listener   edge.Listener
	routesOnce sync.Once
	routes     fasthttp.RequestHandler
	metrics    *metrics
	slots      *slotCache
	pings      *pingBucket
	quota      *quota.Limiter // per-key quotas and the failed-auth limit
	// authLimit is the per-IP limit on failed authentication.
	authLimit quota.Check
	// publicOrigin is the origin of PublicURL: slotd's own pages' origin.
	publicOrigin string
	rootBody     []byte // GET /'s answer (root.go)
}

// New returns the public API's server over the shared edge e.
func New(e *edge.Edge, c Config) *Server {
	if c.FailedAuth.N <= 0 || c.FailedAuth.Per <= 0 {
		c.FailedAuth = quota.FailedAuth
	}
	s := &Server{Edge: e, Config: c, slots: newSlotCache(64 << 20), pings: newPingBucket(),
		quota: quota.New(c.Clock), authLimit: quota.Check{Kind: limitFailedAuth, Window: c.FailedAuth}, metrics: newMetrics()}
	s.publicOrigin = originOf(c.PublicURL)
	s.rootBody = rootBody(c.PublicURL)
	s.listener = edge.Listener{Name: edge.Public, MaxBody: MaxBody, TooLarge: errBodyTooLarge, Unread: s.unreadHeaders,
		Large: largeBody, LargeBody: MaxLargeBody}
	return s
}

// Handler returns the handler of the public API: its routes behind the
// edge.
func (s *Server) Handler() fasthttp.RequestHandler {
	return s.Observe(s.Routes(), s.listener)
}

// HTTPServer returns the fasthttp server of the public API with lim's
// timeouts.
func (s *Server) HTTPServer(lim edge.ConnLimits) *fasthttp.Server {
	return s.NewHTTPServer(s.Handler(), "slotd", s.listener, lim)
}

// Collectors are the public API's own metrics (its rate-limit refusals,
// test pings, availability checks and feeds); the request metrics are the
// edge's (edge.Edge.Collectors).
func (s *Server) Collectors() []prometheus.Collector { return s.metrics.Collectors() }

// Routes returns the routes of the public API, built once: the listener
// and requests handed over from other nodes serve from them.
func (s *Server) Routes() fasthttp.RequestHandler {
	s.routesOnce.Do(func() { s.routes = s.build() })
	return s.routes
}

// route is one public endpoint: the scope and module it needs, whether a
// publishable key may call it, and its work.
type route struct {
	scope       string       // "" means any valid key
	module      model.Module // "" means no module is needed
	publishable bool         // part of the booking flow (decisions §7)
	large       bool         // takes a body of up to 1 MiB (decisions §8; largeBody)
	fn          func(*call)
}

func (s *Server) build() fasthttp.RequestHandler {
	r := s.NewRouter(edge.Public, s.meter, errNotFound)
	add := r.Handle
	get := func(path string, rt route) { add(fasthttp.MethodGet, path, s.api(rt)) }
	add(fasthttp.MethodGet, "/", s.root)
	get("/api/v1/me", route{publishable: true, fn: s.me})
	get("/api/v1/services", route{scope: "services:read", publishable: true, fn: s.listServices})
	get("/api/v1/services/{id}", route{scope: "services:read", publishable: true, fn: s.getService})
	get("/api/v1/service-categories", route{scope: "services:read", publishable: true, fn: s.listCategories})
	get("/api/v1/resources", route{scope: "services:read", fn: s.listResources})
	get("/api/v1/resources/{id}", route{scope: "services:read", fn: s.getResource})
	get("/api/v1/staff", route{scope: "staff:read", publishable: true, fn: s.listStaff})
	get("/api/v1/staff/{id}", route{scope: "staff:read", publishable: true, fn: s.getStaff})
	get("/api/v1/customers/{id}", route{scope: "customers:read", module: model.ModCustomers, fn: s.getCustomer})
	get("/api/v1/appointments", route{scope: "appointments:read", module: model.ModAppointments, fn: s.listAppointments})
	get("/api/v1/appointments/{id}", route{scope: "appointments:read", module: model.ModAppointments, fn: s.getAppointment})
	get("/api/v1/availability/slots", route{scope: "appointments:read", module: model.ModAppointments, publishable: true, fn: s.availability})
	add(fasthttp.MethodPost, "/api/v1/appointments", s.api(route{scope: "appointments:write", module: model.ModAppointments, publishable: true, fn: s.createAppointment}))
	add(fasthttp.MethodPatch, "/api/v1/appointments/{id}", s.api(route{scope: "appointments:write", module: model.ModAppointments, fn: s.patchAppointment}))
	add(fasthttp.MethodPost, "/api/v1/appointments/{id}/status", s.api(route{scope: "appointments:write", module: model.ModAppointments, fn: s.setStatus}))
	add(fasthttp.MethodPost, "/api/v1/customers", s.api(route{scope: "customers:write", module: model.ModCustomers, fn: s.createCustomer}))
	s.sixRoutes(add)
	s.seriesRoutes(add)
	s.basketRoutes(add)
	hook := func(fn func(*call)) fasthttp.RequestHandler {
		return s.api(route{scope: "webhooks:manage", module: model.ModWebhooks, fn: fn})
	}
	add(fasthttp.MethodGet, "/api/v1/webhooks", hook(s.listWebhooks))
	add(fasthttp.MethodPost, "/api/v1/webhooks", hook(s.registerWebhook))
	add(fasthttp.MethodGet, "/api/v1/webhooks/{id}", hook(s.getWebhook))
	add(fasthttp.MethodPatch, "/api/v1/webhooks/{id}", hook(s.patchWebhook))
	add(fasthttp.MethodDelete, "/api/v1/webhooks/{id}", hook(s.deleteWebhook))
	s.paymentRoutes(add)
	s.pageRoutes(add)
	s.feedRoutes(add)
	s.busyRoutes(add)
	s.sourceRoutes(add)
	add(fasthttp.MethodGet, "/api/v1/manage/{token}", s.manage)
	add(fasthttp.MethodGet, "/api/v1/manage/{token}/slots", s.manageSlots)
	add(fasthttp.MethodPost, "/api/v1/manage/{token}/cancel", s.manageCancel)
	add(fasthttp.MethodPost, "/api/v1/manage/{token}/reschedule", s.manageReschedule)
	add(fasthttp.MethodGet, "/api/v1/webhooks/{id}/deliveries", hook(s.listDeliveries))
	add(fasthttp.MethodPost, "/api/v1/webhooks/{id}/deliveries/{deliveryId}/replay", hook(s.replayDelivery))
	return withPreflight(r.Handler())
}

// unreadHeaders is what the public API adds to the answer of a request
// that could not be read whole: nothing of it was acted on and no
// credential was read from it, so it carries the client IP's
// failed-authentication limit's headers, as any answer without a valid
// key does, without spending from it. (It stays a 400 or 408 when that
// limit is used up: the client learns what was wrong with what it sent,
// and the headers say it is blocked.)
func (s *Server) unreadHeaders(ctx *fasthttp.RequestCtx) {
	rateHeaders(ctx, s.quota.Peek(string(ctx.RemoteIP()), s.authLimit))
}
