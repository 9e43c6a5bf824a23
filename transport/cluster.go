package transport

import (
	"bytes"
	"sync"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/handover"
)

// Cluster mode (docs/cluster.md): any node accepts any request. A request
// whose business lives on another node is handed to that node whole — its
// bytes, the client's address, and what this node already found out about
// it (a body over the limit) — and the owner runs it through the very
// same routes, authentication, quotas and idempotency as a request of its
// own; this node writes back the bytes of the answer. So everything
// decided per business or per key is decided in one place, the business's
// node, exactly as on a single node: quotas are exact per key, an
// Idempotency-Key is seen by one idempotency table, the refusal order is
// one code path. What stays on the receiving node is only what is
// decided per connection or per address (the request-line and body
// limits, the failed-authentication limit per IP, the access log and the
// request metrics).

// Cluster is what the front end needs of cluster mode (placement.Node).
// Requests travel to other nodes by the road of package handover
// (Server.HandOver).
type Cluster interface {
	// Local reports whether business biz lives on this node.
	Local(biz uuid.UUID) bool
	// NotReady says why this node is not ready (/readyz): not joined, no
	// journal, no lease, its journal replica catching up; "" when ready.
	NotReady() string
	// Businesses lists every business of the cluster (the admin list).
	Businesses(fn func(id uuid.UUID, name string) error) error
}

// nodeHeader names the node that answered a request for a business (in
// cluster mode): where the business lives, for operators and tests.
const nodeHeader = "X-Slotd-Node"

// forwardedKey marks a request another node handed over: it is served
// here whatever this node believes about placement, never handed on.
const forwardedKey = "slotd.forwarded"

func forwarded(ctx *fasthttp.RequestCtx) bool { return ctx.UserValue(forwardedKey) != nil }

// elsewhere hands the request to business biz's node when it is not this
// one, and reports whether it did (the answer is then written).
func (s *Server) elsewhere(ctx *fasthttp.RequestCtx, biz uuid.UUID, listener handover.Listener) bool {
	if s.Cluster == nil || s.HandOver == nil {
		return false
	}
	if forwarded(ctx) {
		if !s.Cluster.Local(biz) { // it moved on while the request travelled
			writeError(ctx, errMoving)
			return true
		}
		return false
	}
	if s.Cluster.Local(biz) {
		return false
	}
	rctx, cancel := reqContext()
	defer cancel()
	id := requestID(ctx)
	r := handover.Request{Listener: listener, Client: ctx.RemoteIP(), TooLarge: tooLarge(ctx)}
	local, err := s.HandOver.Forward(rctx, biz, r, &ctx.Request, &ctx.Response)
	if local {
		return false // it was activated here just now
	}
	if err != nil {
		ctx.Response.Reset()
		s.fail(ctx, err)
	}
	setRequestID(ctx, id)
	if r.TooLarge {
		// The rest of the body was not read here: the connection closes
		// after the answer, whoever wrote it.
		ctx.SetConnectionClose()
	}
	return true
}

var errMoving = problem.Moving(nil)

// HandOverHandler serves the hand-over listener: requests other nodes
// hand to this one, run through the routes of the listener they came in
// on.
func (s *Server) HandOverHandler() fasthttp.RequestHandler {
	return s.HandOver.Handler(s.routes, func(ctx *fasthttp.RequestCtx, tooLarge bool) {
		ctx.SetUserValue(forwardedKey, true)
		if tooLarge {
			ctx.SetUserValue(tooLargeKey, true)
		}
	})
}

// routes returns the routes of a listener, nil for none.
func (s *Server) routes(l handover.Listener) fasthttp.RequestHandler {
	pub, adm := s.routers()
	switch l {
	case handover.Public:
		return pub
	case handover.Admin:
		return adm
	case handover.Engine:
		return s.enginePut
	}
	return nil
}

// routers returns the public and admin routes, built once; both
// listeners and handed-over requests serve from them.
func (s *Server) routers() (public, admin fasthttp.RequestHandler) {
	s.routesOnce.Do(func() {
		s.publicRoutes = s.buildPublic()
		s.adminRoutes = s.buildAdmin()
	})
	return s.publicRoutes, s.adminRoutes
}

// keyBusiness returns the business the request's bearer key belongs to,
// if any (the full check is authenticate's, on the business's node).
func (s *Server) keyBusiness(ctx *fasthttp.RequestCtx) (uuid.UUID, bool) {
	h := ctx.Request.Header.Peek(fasthttp.HeaderAuthorization)
	if len(h) <= len(bearer) || !bytes.EqualFold(h[:len(bearer)], bearer) {
		return uuid.UUID{}, false
	}
	return s.Dir.KeyOwner(model.HashKey(string(h[len(bearer):])))
}

type routeSet struct {
	routesOnce                sync.Once
	publicRoutes, adminRoutes fasthttp.RequestHandler
}
