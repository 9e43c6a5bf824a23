package transport

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/transport/admin"
	"github.com/slotd/slotd/transport/api"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/handover"
	"github.com/slotd/slotd/transport/linktoken"
	"github.com/slotd/slotd/transport/quota"
	"github.com/slotd/slotd/webhook/deliver"
)

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
	// server's own metrics.
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
	// Links makes and opens the tokens of customers' manage links, shown
	// under PublicURL (decisions §7); nil: appointments carry none.
	Links     *linktoken.Codec
	PublicURL string
	// Feeds makes and opens the tokens of calendar feeds (decisions §8).
	Feeds *linktoken.Codec
}

// Server is the front end: the public API and the admin listener on one
// edge.
type Server struct {
	edge  *edge.Edge
	api   *api.Server
	admin *admin.Server
}

// New returns a server; its admin listener answers /readyz with 503 until
// SetReady(true).
func New(c Config) *Server {
	e := edge.New(edge.Config{Log: c.Log, AccessLog: c.AccessLog, Cluster: c.Cluster, NodeName: c.NodeName, HandOver: c.HandOver})
	s := &Server{edge: e, api: api.New(e, api.Config{Dir: c.Dir, Clock: c.Clock, Cursors: c.Cursors, FailedAuth: c.FailedAuth,
		Disabled: c.Disabled, Webhooks: c.Webhooks, WebhooksAllowInsecure: c.WebhooksAllowInsecure,
		Links: c.Links, PublicURL: c.PublicURL, Feeds: c.Feeds})}
	g := c.Metrics
	if g == nil {
		reg := prometheus.NewRegistry()
		reg.MustRegister(s.Collectors()...)
		g = reg
	}
	s.admin = admin.New(e, admin.Config{Dir: c.Dir, Clock: c.Clock, Token: c.AdminToken, Metrics: g})
	return s
}

// Public returns the handler of the public API.
func (s *Server) Public() fasthttp.RequestHandler { return s.api.Handler() }

// Admin returns the handler of the admin listener.
func (s *Server) Admin() fasthttp.RequestHandler { return s.admin.Handler() }

// PublicServer returns the fasthttp server of the public API with lim's
// timeouts.
func (s *Server) PublicServer(lim edge.ConnLimits) *fasthttp.Server { return s.api.HTTPServer(lim) }

// AdminServer returns the fasthttp server of the admin listener with lim's
// timeouts.
func (s *Server) AdminServer(lim edge.ConnLimits) *fasthttp.Server { return s.admin.HTTPServer(lim) }

// HandOverHandler serves the hand-over listener (cluster mode): requests
// other nodes hand to this one, run through the routes of the listener
// they came in on, and the engine call of another node's world load.
func (s *Server) HandOverHandler() fasthttp.RequestHandler {
	return s.edge.HandOverHandler(func(l handover.Listener) fasthttp.RequestHandler {
		switch l {
		case handover.Public:
			return s.api.Routes()
		case handover.Admin:
			return s.admin.Routes()
		case handover.Engine:
			return s.admin.EnginePut
		}
		return nil
	})
}

// Withheld returns how many answers this node made from its own state of
// a business and replaced by a 503, its lease having run out meanwhile
// (edge.Edge.Settle; cluster mode).
func (s *Server) Withheld() uint64 { return s.edge.Withheld() }

// SetReady sets what /readyz reports.
func (s *Server) SetReady(v bool) { s.admin.SetReady(v) }

// Readiness is what /readyz says now.
func (s *Server) Readiness() admin.Readiness { return s.admin.Readiness() }

// PutWorldClustered loads the world file data in cluster mode, each
// business on its node.
func (s *Server) PutWorldClustered(ctx context.Context, data []byte) ([]directory.PutResult, error) {
	return s.admin.PutWorldClustered(ctx, data)
}

// Collectors are the front end's metrics: the request metrics of both
// listeners and the public API's own. Register them once, in the registry
// /metrics serves (Config.Metrics).
func (s *Server) Collectors() []prometheus.Collector {
	return append(s.edge.Collectors(), s.api.Collectors()...)
}
