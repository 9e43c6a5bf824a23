package transport

import (
	"context"
	"log/slog"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/clock"
	"github.com/slotd/slotd/transport/admin"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/edge"
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
	// AdminToken is the admin token (--admin-token); "" leaves the admin
	// API's reads open and refuses its writes.
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
	// edge.NewAccessLog); nil logs none.
	AccessLog *slog.Logger
	// Cluster is set in cluster mode; NodeName then names this node in
	// the X-Slotd-Node header of the answers it produces.
	Cluster  edge.Cluster
	NodeName string
	// HandOver is the road to the other nodes (cluster mode).
	HandOver *handover.Node
}

// settings are the parts of Config that are not the edge's.
type settings struct {
	Dir                   *directory.Directory
	Clock                 clock.Clock
	Cursors               *cursor.Codec
	FailedAuth            quota.Window
	Disabled              map[model.Module]bool
	Webhooks              *deliver.Client
	WebhooksAllowInsecure bool
}

// Server serves the public and admin APIs.
type Server struct {
	*edge.Edge
	settings
	routeSet
	admin   *admin.Server
	metrics *apiMetrics
	slots   *slotCache
	pings   *pingBucket
	quota   *quota.Limiter // per-key quotas and the failed-auth limit
	// authLimit is the per-IP limit on failed authentication.
	authLimit quota.Check
	// publicEdge is what the public listener answers before any route.
	publicEdge edge.Listener
}

// New returns a server; it answers /readyz with 503 until SetReady(true).
func New(c Config) *Server {
	if c.FailedAuth.N <= 0 || c.FailedAuth.Per <= 0 {
		c.FailedAuth = quota.FailedAuth
	}
	e := edge.New(edge.Config{Log: c.Log, AccessLog: c.AccessLog, Cluster: c.Cluster, NodeName: c.NodeName, HandOver: c.HandOver})
	s := &Server{Edge: e, settings: settings{Dir: c.Dir, Clock: c.Clock, Cursors: c.Cursors, FailedAuth: c.FailedAuth,
		Disabled: c.Disabled, Webhooks: c.Webhooks, WebhooksAllowInsecure: c.WebhooksAllowInsecure},
		slots: newSlotCache(64 << 20), pings: newPingBucket(),
		quota: quota.New(c.Clock), authLimit: quota.Check{Kind: limitFailedAuth, Window: c.FailedAuth}, metrics: newAPIMetrics()}
	s.publicEdge = edge.Listener{Name: edge.Public, MaxBody: MaxBody, TooLarge: errBodyTooLarge, Unread: s.unreadHeaders}
	g := c.Metrics
	if g == nil {
		reg := prometheus.NewRegistry()
		reg.MustRegister(s.Collector())
		g = reg
	}
	s.admin = admin.New(e, admin.Config{Dir: c.Dir, Clock: c.Clock, Token: c.AdminToken, Metrics: g})
	return s
}

// SetReady sets what /readyz reports.
func (s *Server) SetReady(v bool) { s.admin.SetReady(v) }

// Admin returns the handler of the admin listener.
func (s *Server) Admin() fasthttp.RequestHandler { return s.admin.Handler() }

// PutWorldClustered loads the world file data in cluster mode, each
// business on its node (admin.Server.PutWorldClustered).
func (s *Server) PutWorldClustered(ctx context.Context, data []byte) ([]directory.PutResult, error) {
	return s.admin.PutWorldClustered(ctx, data)
}

// route is one public endpoint: the scope and module it needs, and its work.
type route struct {
	scope  string       // "" means any valid key
	module model.Module // "" means no module is needed
	fn     func(*call)
}

// Public returns the handler of the public API.
func (s *Server) Public() fasthttp.RequestHandler {
	return s.Observe(s.publicRoutes(), s.publicEdge)
}

// buildPublic returns the routes of the public API.
func (s *Server) buildPublic() fasthttp.RequestHandler {
	r := s.NewRouter(edge.Public, s.meter, errNotFound)
	add := r.Handle
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
	return r.Handler()
}

// PublicServer returns the fasthttp server of the public API with lim's
// timeouts.
func (s *Server) PublicServer(lim edge.ConnLimits) *fasthttp.Server {
	return s.NewHTTPServer(s.Public(), "slotd", s.publicEdge, lim)
}

// AdminServer returns the fasthttp server of the admin listener with lim's
// timeouts.
func (s *Server) AdminServer(lim edge.ConnLimits) *fasthttp.Server {
	return s.admin.HTTPServer(lim)
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

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
