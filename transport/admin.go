package transport

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"

	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/handover"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/world"
	"github.com/slotd/slotd/actors/problem"
)

// The admin listener is the dashboard's side of slotd: health and readiness
// probes, metrics, pprof, and a small API that puts businesses in the world
// file format and issues or revokes API keys. It listens on loopback by
// default. With --admin-token every /admin/v1 call, /metrics and pprof need
// that bearer token; without one the admin API still answers reads (those
// included) but refuses writes. Only the probes, /healthz and /readyz,
// never need it.

// MaxAdminBody bounds admin request bodies, which may carry a whole world.
const MaxAdminBody = 32 << 20

var errAdminWrites = problem.New(problem.Forbidden, "Admin writes are disabled: start slotd with --admin-token.")

// Admin returns the handler of the admin listener.
func (s *Server) Admin() fasthttp.RequestHandler {
	_, adm := s.routers()
	return s.Observe(adm, s.adminEdge)
}

// buildAdmin returns the routes of the admin listener.
func (s *Server) buildAdmin() fasthttp.RequestHandler {
	r := s.NewRouter(edge.Admin, edge.WriteError, errAdminNotFound)
	add := r.Handle
	add(fasthttp.MethodGet, "/healthz", func(ctx *fasthttp.RequestCtx) { edge.WriteJSON(ctx, 200, []byte(`{"status":"ok"}`)) })
	add(fasthttp.MethodGet, "/readyz", s.readyz)
	add(fasthttp.MethodGet, "/metrics", s.admin(false, s.serveMetrics))
	add(fasthttp.MethodGet, "/debug/pprof/{profile:*}", s.admin(false, servePprof))
	add(fasthttp.MethodGet, "/admin/v1/businesses", s.admin(false, s.adminBusinesses))
	add(fasthttp.MethodPut, "/admin/v1/businesses/{id}", s.admin(true, s.adminPutBusiness))
	add(fasthttp.MethodPost, "/admin/v1/world", s.admin(true, s.adminWorld))
	add(fasthttp.MethodGet, "/admin/v1/businesses/{id}/keys", s.admin(false, s.adminKeys))
	add(fasthttp.MethodPost, "/admin/v1/businesses/{id}/keys", s.admin(true, s.adminIssueKey))
	add(fasthttp.MethodPost, "/admin/v1/businesses/{id}/keys/{keyId}/revoke", s.admin(true, s.adminRevokeKey))
	return r.Handler()
}

func (s *Server) readyz(ctx *fasthttp.RequestCtx) {
	if s.Cluster != nil {
		if why := s.Cluster.NotReady(); why != "" {
			b := wire.AppendString([]byte(`{"status":"not ready","reason":`), why)
			edge.WriteJSON(ctx, 503, append(b, '}'))
			return
		}
	}
	if !s.ready.Load() {
		edge.WriteJSON(ctx, 503, []byte(`{"status":"starting"}`))
		return
	}
	// Not ready while writes cannot be made durable (disk full, journal
	// failed): a load balancer sends the traffic to a node that can.
	if h := s.Dir.Health(); !h.Writable {
		b := wire.AppendString([]byte(`{"status":"writes refused","reason":`), h.Reason)
		edge.WriteJSON(ctx, 503, append(b, '}'))
		return
	}
	edge.WriteJSON(ctx, 200, []byte(`{"status":"ready"}`))
}

// admin wraps an admin endpoint with the token check, then refuses a body
// over the admin limit (readBody).
func (s *Server) admin(write bool, fn fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if perr := s.adminRefusal(ctx, write); perr != nil {
			edge.WriteError(ctx, perr)
			return
		}
		// A business's admin calls are served where the business lives.
		if id, ok := adminPathID(ctx, "id"); ok && s.Elsewhere(ctx, id, handover.Admin) {
			return
		}
		if edge.TooLarge(ctx) {
			edge.WriteError(ctx, errAdminBodyTooLarge)
			return
		}
		fn(ctx)
	}
}

// adminRefusal is the token check: with a token, every call must carry it;
// without one, reads are open and writes refused.
func (s *Server) adminRefusal(ctx *fasthttp.RequestCtx, write bool) *problem.Error {
	if s.AdminToken == "" {
		if write {
			return errAdminWrites
		}
		return nil
	}
	h := ctx.Request.Header.Peek(fasthttp.HeaderAuthorization)
	if subtle.ConstantTimeCompare(h, []byte("Bearer "+s.AdminToken)) != 1 {
		return errAdminUnauthorized
	}
	return nil
}

func (s *Server) adminBusinesses(ctx *fasthttp.RequestCtx) {
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

func (s *Server) adminPutBusiness(ctx *fasthttp.RequestCtx) {
	id, ok := adminPathID(ctx, "id")
	if !ok {
		edge.WriteError(ctx, errAdminNotFound) // a path that is no business id names nothing to put
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
	s.putSpecs(ctx, []model.Spec{spec}, func(rs []directory.PutResult) (int, []byte) {
		status := 200
		if rs[0].Created {
			status = 201
		}
		return status, appendPutResult(nil, rs[0])
	})
}

func (s *Server) adminWorld(ctx *fasthttp.RequestCtx) {
	if s.Cluster != nil {
		s.adminWorldClustered(ctx)
		return
	}
	specs, err := world.Parse(ctx.PostBody())
	if err != nil {
		s.Fail(ctx, worldProblem(err))
		return
	}
	s.putSpecs(ctx, specs, func(rs []directory.PutResult) (int, []byte) {
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

func (s *Server) putSpecs(ctx *fasthttp.RequestCtx, specs []model.Spec, render func([]directory.PutResult) (int, []byte)) {
	rctx, cancel := edge.RequestContext()
	defer cancel()
	rs, err := PutWorld(rctx, s.Dir, specs, s.Clock.Now(), s.Log)
	if err != nil {
		s.Fail(ctx, err)
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

func adminPathID(ctx *fasthttp.RequestCtx, name string) (uuid.UUID, bool) {
	s, _ := ctx.UserValue(name).(string)
	id, err := uuid.Parse(s)
	return id, err == nil && len(s) == 36
}

// adminBusiness returns the view of the existing business named in the
// path; ok is false when there is none.
func (s *Server) adminBusiness(ctx *fasthttp.RequestCtx) (st directory.View, ok bool) {
	id, ok := adminPathID(ctx, "id")
	if !ok {
		return st, false
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	st, ok, err := s.Dir.ExistingView(rctx, id)
	return st, ok && err == nil
}

func (s *Server) adminKeys(ctx *fasthttp.RequestCtx) {
	st, ok := s.adminBusiness(ctx)
	if !ok {
		edge.WriteError(ctx, edge.ErrNoBusiness)
		return
	}
	b := []byte(`{"data":[`)
	for i := range st.Keys() {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAdminKey(b, &st.Keys()[i], "")
	}
	edge.WriteJSON(ctx, 200, append(b, `]}`...))
}

func (s *Server) adminIssueKey(ctx *fasthttp.RequestCtx) {
	st, ok := s.adminBusiness(ctx)
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
	k.ID, k.Hash = uuid.New(), model.HashKey(plain)
	rctx, cancel := edge.RequestContext()
	defer cancel()
	k, err = s.Dir.Issue(rctx, st.Business().ID, k)
	if err != nil {
		s.Fail(ctx, err)
		return
	}
	edge.WriteJSON(ctx, 201, appendAdminKey(nil, &k, plain))
}

func (s *Server) adminRevokeKey(ctx *fasthttp.RequestCtx) {
	st, ok := s.adminBusiness(ctx)
	if !ok {
		edge.WriteError(ctx, edge.ErrNoBusiness)
		return
	}
	keyID, ok := adminPathID(ctx, "keyId")
	if !ok {
		edge.WriteError(ctx, errNoKey)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	k, err := s.Dir.Revoke(rctx, st.Business().ID, keyID)
	if err != nil {
		s.Fail(ctx, err)
		return
	}
	edge.WriteJSON(ctx, 200, appendAdminKey(nil, &k, ""))
}

// appendAdminKey appends a key's metadata; plain, the plaintext, is shown
// only in the answer that created it.
func appendAdminKey(b []byte, k *model.Key, plain string) []byte {
	b = append(b, '{')
	b = wire.AppendKey(b, "id")
	b = wire.AppendUUID(b, k.ID)
	if plain != "" {
		b = wire.AppendKey(b, "key")
		b = wire.AppendString(b, plain)
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

// NewKey returns a fresh random API key: "sk_live_" and 32 URL-safe
// characters (192 random bits).
func NewKey() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return "sk_live_" + base64.RawURLEncoding.EncodeToString(b[:])
}
