package admin

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/model/world"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/handover"
)

// MaxBody bounds admin request bodies, which may carry a whole world.
const MaxBody = 32 << 20

// Config is what the admin listener needs.
type Config struct {
	Dir   *directory.Directory
	Clock clock.Clock
	// Token is the admin token (--admin-token); "" leaves reads open and
	// refuses writes.
	Token string
	// Metrics is what /metrics serves: the registry everything was
	// registered in (required).
	Metrics prometheus.Gatherer
}

// Server serves the admin listener.
type Server struct {
	*edge.Edge
	Config
	ready atomic.Bool
	// promHandler serves /metrics.
	promHandler fasthttp.RequestHandler
	listener    edge.Listener
	routesOnce  sync.Once
	routes      fasthttp.RequestHandler
}

// New returns the admin listener's server over the shared edge e; it
// answers /readyz with 503 until SetReady(true).
func New(e *edge.Edge, c Config) *Server {
	s := &Server{Edge: e, Config: c,
		listener: edge.Listener{Name: edge.Admin, MaxBody: MaxBody, TooLarge: errBodyTooLarge}}
	s.promHandler = fasthttpadaptor.NewFastHTTPHandler(promhttp.HandlerFor(c.Metrics, promhttp.HandlerOpts{
		ErrorLog:      promLogger{s},
		ErrorHandling: promhttp.ContinueOnError,
	}))
	return s
}

// SetReady sets what /readyz reports.
func (s *Server) SetReady(v bool) { s.ready.Store(v) }

var (
	errWritesOff    = problem.New(problem.Forbidden, "Admin writes are disabled: start slotd with --admin-token.")
	errNotFound     = problem.New(problem.NotFound, "No such admin resource.")
	errUnauthorized = problem.New(problem.Unauthorized, "A valid admin token is required: send Authorization: Bearer <admin token>.")
	errNoKey        = problem.New(problem.NotFound, "No such key.")
	errBodyTooLarge = problem.Fields(problem.Bound(problem.PathBody, problem.TooLarge, MaxBody, "The request body must be at most 33554432 bytes."))
)

// Handler returns the handler of the admin listener: its routes behind
// the edge.
func (s *Server) Handler() fasthttp.RequestHandler {
	return s.Observe(s.Routes(), s.listener)
}

// HTTPServer returns the fasthttp server of the admin listener with lim's
// timeouts.
func (s *Server) HTTPServer(lim edge.ConnLimits) *fasthttp.Server {
	return s.NewHTTPServer(s.Handler(), "slotd-admin", s.listener, lim)
}

// Routes returns the routes of the admin listener, built once: the
// listener and requests handed over from other nodes serve from them.
func (s *Server) Routes() fasthttp.RequestHandler {
	s.routesOnce.Do(func() { s.routes = s.build() })
	return s.routes
}

func (s *Server) build() fasthttp.RequestHandler {
	r := s.NewRouter(edge.Admin, edge.WriteError, errNotFound)
	add := r.Handle
	add(fasthttp.MethodGet, "/healthz", func(ctx *fasthttp.RequestCtx) { edge.WriteJSON(ctx, 200, []byte(`{"status":"ok"}`)) })
	add(fasthttp.MethodGet, "/readyz", s.readyz)
	add(fasthttp.MethodGet, "/metrics", s.admin(false, s.serveMetrics))
	add(fasthttp.MethodGet, "/debug/pprof/{profile:*}", s.admin(false, servePprof))
	add(fasthttp.MethodGet, "/admin/v1/businesses", s.admin(false, s.listBusinesses))
	add(fasthttp.MethodPut, "/admin/v1/businesses/{id}", s.admin(true, s.putBusinessAt))
	add(fasthttp.MethodPost, "/admin/v1/world", s.admin(true, s.loadWorld))
	add(fasthttp.MethodGet, "/admin/v1/businesses/{id}/keys", s.admin(false, s.listKeys))
	add(fasthttp.MethodPost, "/admin/v1/businesses/{id}/keys", s.admin(true, s.issueKey))
	add(fasthttp.MethodPost, "/admin/v1/businesses/{id}/keys/{keyId}/revoke", s.admin(true, s.revokeKey))
	return r.Handler()
}

// serveMetrics serves Config.Metrics in the Prometheus text format (or
// what the scraper negotiates).
func (s *Server) serveMetrics(ctx *fasthttp.RequestCtx) { s.promHandler(ctx) }

// promLogger sends promhttp's errors (a collector that failed) to the log.
type promLogger struct{ s *Server }

func (l promLogger) Println(v ...any) { l.s.Log.Error("metrics: gathering failed", "err", v) }

func (s *Server) readyz(ctx *fasthttp.RequestCtx) {
	r := s.Readiness()
	if r.Ready() {
		edge.WriteJSON(ctx, 200, []byte(`{"status":"ready"}`))
		return
	}
	b := wire.AppendString([]byte(`{"status":`), r.Status)
	if r.Reason != "" {
		b = wire.AppendString(append(b, `,"reason":`...), r.Reason)
	}
	edge.WriteJSON(ctx, 503, append(b, '}'))
}

// Readiness is what /readyz says: Status "ready", or why not.
type Readiness struct {
	Status string // "ready", "not ready", "starting" or "writes refused"
	Reason string // why not, "" when ready (or starting)
}

// Ready reports whether r is ready.
func (r Readiness) Ready() bool { return r.Status == "ready" }

// Readiness tells whether this node is ready for traffic, as /readyz does.
func (s *Server) Readiness() Readiness {
	if s.Cluster != nil {
		if why := s.Cluster.NotReady(); why != "" {
			return Readiness{"not ready", why}
		}
	}
	if !s.ready.Load() {
		return Readiness{Status: "starting"}
	}
	// Not ready while writes cannot be made durable (disk full, journal
	// failed): a load balancer sends the traffic to a node that can.
	if h := s.Dir.Health(); !h.Writable {
		return Readiness{"writes refused", h.Reason}
	}
	return Readiness{Status: "ready"}
}

// admin wraps an admin endpoint with the token check, then refuses a body
// over the admin limit (edge.TooLarge).
func (s *Server) admin(write bool, fn fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if perr := s.refusal(ctx, write); perr != nil {
			edge.WriteError(ctx, perr)
			return
		}
		// A business's admin calls are served where the business lives.
		if id, ok := pathID(ctx, "id"); ok && s.Elsewhere(ctx, id, handover.Admin) {
			return
		}
		if edge.TooLarge(ctx) {
			edge.WriteError(ctx, errBodyTooLarge)
			return
		}
		fn(ctx)
	}
}

// refusal is the token check: with a token, every call must carry it;
// without one, reads are open and writes refused.
func (s *Server) refusal(ctx *fasthttp.RequestCtx, write bool) *problem.Error {
	if s.Token == "" {
		if write {
			return errWritesOff
		}
		return nil
	}
	h := ctx.Request.Header.Peek(fasthttp.HeaderAuthorization)
	if subtle.ConstantTimeCompare(h, []byte("Bearer "+s.Token)) != 1 {
		return errUnauthorized
	}
	return nil
}

func (s *Server) listBusinesses(ctx *fasthttp.RequestCtx) {
	b := []byte(`{"data":[`)
	n := 0
	each := s.Dir.Businesses
	if s.Cluster != nil {
		each = func(fn func(id [16]byte, name []byte) error) error {
			return s.Cluster.Businesses(func(id uuid.UUID, name string) error { return fn(id, []byte(name)) })
		}
	}
	err := each(func(id [16]byte, name []byte) error {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, '{')
		b = wire.AppendKey(b, "id")
		b = wire.AppendUUID(b, id)
		b = wire.AppendKey(b, "name")
		b = wire.AppendString(b, string(name))
		b = append(b, '}')
		return nil
	})
	if err != nil {
		s.Fail(ctx, err)
		return
	}
	edge.WriteJSON(ctx, 200, append(b, `]}`...))
}

func (s *Server) putBusinessAt(ctx *fasthttp.RequestCtx) {
	id, ok := pathID(ctx, "id")
	if !ok {
		edge.WriteError(ctx, errNotFound) // a path that is no business id names nothing to put
		return
	}
	s.putBusiness(ctx, id)
}

// putBusiness puts business id from the world object in the body: the
// admin API's put, and the engine call of another node's world load.
func (s *Server) putBusiness(ctx *fasthttp.RequestCtx, id uuid.UUID) {
	spec, err := world.ParseBusiness(ctx.PostBody())
	if err != nil {
		s.Fail(ctx, worldProblem(err))
		return
	}
	if spec.Business.ID != id {
		edge.WriteError(ctx, problem.FieldError("id", problem.Invalid, "The body's id must match the id in the path."))
		return
	}
	s.putSpecs(ctx, []model.Spec{spec}, "businesses.0.", func(rs []directory.PutResult) (int, []byte) {
		status := 200
		if rs[0].Created {
			status = 201
		}
		return status, appendPutResult(nil, rs[0])
	})
}

func (s *Server) loadWorld(ctx *fasthttp.RequestCtx) {
	if s.Cluster != nil {
		s.loadWorldClustered(ctx)
		return
	}
	specs, err := world.Parse(ctx.PostBody())
	if err != nil {
		s.Fail(ctx, worldProblem(err))
		return
	}
	s.putSpecs(ctx, specs, "", func(rs []directory.PutResult) (int, []byte) {
		b := []byte(`{"businesses":[`)
		for i, r := range rs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendPutResult(b, r)
		}
		return 200, append(b, `]}`...)
	})
}

// putSpecs puts specs and renders the result. A refusal's paths name the
// business within the load ("businesses.1.…"); within is cut from them
// when the body is one business's object, whose paths start at it.
func (s *Server) putSpecs(ctx *fasthttp.RequestCtx, specs []model.Spec, within string, render func([]directory.PutResult) (int, []byte)) {
	rctx, cancel := edge.RequestContext()
	defer cancel()
	rs, err := PutWorld(rctx, s.Dir, specs, s.Clock.Now(), s.Log)
	if err != nil {
		s.Fail(ctx, problem.MapPaths(err, func(p string) string { return strings.TrimPrefix(p, within) }))
		return
	}
	status, body := render(rs)
	edge.WriteJSON(ctx, status, body)
}

func appendPutResult(b []byte, r directory.PutResult) []byte {
	b = append(b, '{')
	b = wire.AppendKey(b, "id")
	b = wire.AppendUUID(b, r.ID)
	b = wire.AppendKey(b, "created")
	b = wire.AppendBool(b, r.Created)
	b = wire.AppendKey(b, "changed")
	b = wire.AppendBool(b, r.Changed)
	return append(b, '}')
}

// worldProblem turns a world file error into a VALIDATION_ERROR.
func worldProblem(err error) error {
	var we *world.Error
	if errors.As(err, &we) {
		return problem.Fields(we.Fields...)
	}
	return err
}

func pathID(ctx *fasthttp.RequestCtx, name string) (uuid.UUID, bool) {
	s, _ := ctx.UserValue(name).(string)
	id, err := uuid.Parse(s)
	return id, err == nil && len(s) == 36
}

// pathBusiness returns the view of the existing business named in the
// path; ok is false when there is none.
func (s *Server) pathBusiness(ctx *fasthttp.RequestCtx) (st directory.View, ok bool) {
	id, ok := pathID(ctx, "id")
	if !ok {
		return st, false
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	st, ok, err := s.Dir.ExistingView(rctx, id)
	return st, ok && err == nil
}

func (s *Server) listKeys(ctx *fasthttp.RequestCtx) {
	st, ok := s.pathBusiness(ctx)
	if !ok {
		edge.WriteError(ctx, edge.ErrNoBusiness)
		return
	}
	b := []byte(`{"data":[`)
	for i := range st.Keys() {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, &st.Keys()[i], "")
	}
	edge.WriteJSON(ctx, 200, append(b, `]}`...))
}

func (s *Server) issueKey(ctx *fasthttp.RequestCtx) {
	st, ok := s.pathBusiness(ctx)
	if !ok {
		edge.WriteError(ctx, edge.ErrNoBusiness)
		return
	}
	k, err := world.ParseKey(ctx.PostBody(), s.Clock.Now())
	if err != nil {
		s.Fail(ctx, worldProblem(err))
		return
	}
	plain := NewKey()
	if k.Publishable() {
		plain = NewPublishableKey()
	}
	k.ID, k.Hash = uuid.New(), model.HashKey(plain)
	rctx, cancel := edge.RequestContext()
	defer cancel()
	k, err = s.Dir.Issue(rctx, st.Business().ID, k)
	if err != nil {
		s.Fail(ctx, err)
		return
	}
	edge.WriteJSON(ctx, 201, appendKey(nil, &k, plain))
}

func (s *Server) revokeKey(ctx *fasthttp.RequestCtx) {
	st, ok := s.pathBusiness(ctx)
	if !ok {
		edge.WriteError(ctx, edge.ErrNoBusiness)
		return
	}
	keyID, ok := pathID(ctx, "keyId")
	if !ok {
		edge.WriteError(ctx, errNoKey)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	k, err := directory.Ask(rctx, s.Dir, st.Business().ID, &directory.Revoke{KeyID: keyID})
	if err != nil {
		s.Fail(ctx, err)
		return
	}
	edge.WriteJSON(ctx, 200, appendKey(nil, &k, ""))
}

// appendKey appends a key's metadata; plain, the plaintext, is shown
// only in the answer that created it.
func appendKey(b []byte, k *model.Key, plain string) []byte {
	b = append(b, '{')
	b = wire.AppendKey(b, "id")
	b = wire.AppendUUID(b, k.ID)
	if plain != "" {
		b = wire.AppendKey(b, "key")
		b = wire.AppendString(b, plain)
	}
	b = wire.AppendKey(b, "kind")
	if k.Publishable() {
		b = wire.AppendString(b, string(model.PublishableKey))
		b = wire.AppendKey(b, "allowedOrigins")
		b = wire.AppendStrings(b, k.AllowedOrigins)
	} else {
		b = wire.AppendString(b, string(model.SecretKey))
	}
	b = wire.AppendKey(b, "scopes")
	b = wire.AppendStrings(b, k.Scopes)
	b = wire.AppendKey(b, "revoked")
	b = wire.AppendBool(b, k.Revoked)
	b = wire.AppendKey(b, "expiresAt")
	b = wire.AppendNullTime(b, k.ExpiresAt)
	if k.Limits != nil {
		b = wire.AppendKey(b, "limits")
		b = append(b, '{')
		b = wire.AppendKey(b, "perMinute")
		b = wire.AppendInt(b, k.Limits.PerMinute)
		b = wire.AppendKey(b, "perHour")
		b = wire.AppendInt(b, k.Limits.PerHour)
		b = wire.AppendKey(b, "mutationsPerMinute")
		b = wire.AppendInt(b, k.Limits.MutationsPerMinute)
		b = append(b, '}')
	}
	b = wire.AppendKey(b, "origin")
	b = wire.AppendString(b, string(k.Origin))
	b = wire.AppendKey(b, "createdAt")
	b = wire.AppendTime(b, k.CreatedAt)
	return append(b, '}')
}

// NewKey returns a fresh random secret API key: "sk_live_" and 32
// URL-safe characters (192 random bits).
func NewKey() string { return model.SecretPrefix + randomText() }

// NewPublishableKey returns a fresh random publishable key (decisions §7):
// "pk_live_" and 32 URL-safe characters.
func NewPublishableKey() string { return model.PublishablePrefix + randomText() }

func randomText() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
