package transport

import (
	"bytes"
	"sync"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/transport/handover"
)

// nodeHeader names the node that answered a request for a business (in
// cluster mode): where the business lives, for operators and tests.
const nodeHeader = "X-Slotd-Node"

// HandOverHandler serves the hand-over listener: requests other nodes
// hand to this one, run through the routes of the listener they came in
// on.
func (s *Server) HandOverHandler() fasthttp.RequestHandler {
	return s.Edge.HandOverHandler(s.routes)
}

// routes returns the routes of a listener, nil for none.
func (s *Server) routes(l handover.Listener) fasthttp.RequestHandler {
	switch l {
	case handover.Public:
		return s.publicRoutes()
	case handover.Admin:
		return s.admin.Routes()
	case handover.Engine:
		return s.admin.EnginePut
	}
	return nil
}

// publicRoutes returns the routes of the public API, built once: the
// listener and requests handed over from other nodes serve from them.
func (s *Server) publicRoutes() fasthttp.RequestHandler {
	s.routesOnce.Do(func() { s.pubRoutes = s.buildPublic() })
	return s.pubRoutes
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
	routesOnce sync.Once
	pubRoutes  fasthttp.RequestHandler
}
