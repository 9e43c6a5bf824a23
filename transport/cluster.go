package transport

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"sync"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/storage/catalog"
	"github.com/slotd/slotd/storage/problem"
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
type Cluster interface {
	// Local reports whether business biz lives on this node.
	Local(biz uuid.UUID) bool
	// Forward hands the request req (ForwardRequest's bytes) to business
	// biz's node and returns the answer's bytes.
	Forward(ctx context.Context, biz uuid.UUID, req []byte) ([]byte, error)
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

// The bytes of a handed-over request: the listener (public or admin), the
// flags, the client's address, then the HTTP/1.1 request.
const (
	fwdPublic = 'p'
	fwdAdmin  = 'a'

	fwdTooLarge = 1
)

// elsewhere hands the request to business biz's node when it is not this
// one, and reports whether it did (the answer is then written).
func (s *Server) elsewhere(ctx *fasthttp.RequestCtx, biz uuid.UUID, listener byte) bool {
	if s.Cluster == nil {
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
	req, err := encodeForward(ctx, listener)
	if err != nil {
		writeError(ctx, errBadRequest)
		return true
	}
	rctx, cancel := reqContext()
	defer cancel()
	answer, err := s.Cluster.Forward(rctx, biz, req)
	if err != nil {
		s.fail(ctx, err)
		return true
	}
	id := requestID(ctx)
	ctx.Response.Reset()
	ctx.Response.Header.DisableNormalizing()
	if err := ctx.Response.Read(bufio.NewReader(bytes.NewReader(answer))); err != nil {
		ctx.Response.Reset()
		s.fail(ctx, err)
	}
	setRequestID(ctx, id)
	return true
}

var errMoving = problem.Moving(nil)

func encodeForward(ctx *fasthttp.RequestCtx, listener byte) ([]byte, error) {
	var flags byte
	if tooLarge(ctx) {
		flags |= fwdTooLarge
	}
	return forwardBytes(&ctx.Request, listener, flags, ctx.RemoteIP().String())
}

// forwardBytes frames req as a handed-over request from a client at ip.
func forwardBytes(req *fasthttp.Request, listener, flags byte, ip string) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(64 + len(ip) + len(req.Header.Header()) + len(req.Body()))
	b.WriteByte(listener)
	b.WriteByte(flags)
	b.WriteByte(byte(len(ip)))
	b.WriteString(ip)
	if len(req.Host()) == 0 { // HTTP/1.0 may omit it; writing a request needs one
		req.SetHost("slotd")
	}
	if _, err := req.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ServeForwarded runs a request another node handed over (Forward's
// bytes) and returns the bytes of its answer.
func (s *Server) ServeForwarded(raw []byte) []byte {
	var rc fasthttp.RequestCtx
	var req fasthttp.Request
	handler, ok := s.decodeForward(raw, &req, &rc)
	if !ok {
		rc.Response.Header.DisableNormalizing()
		writeError(&rc, errBadRequest)
	} else {
		handler(&rc)
	}
	var out bytes.Buffer
	_, _ = rc.Response.WriteTo(&out)
	return out.Bytes()
}

func (s *Server) decodeForward(raw []byte, req *fasthttp.Request, rc *fasthttp.RequestCtx) (fasthttp.RequestHandler, bool) {
	if len(raw) < 3 || len(raw) < 3+int(raw[2]) {
		return nil, false
	}
	listener, flags, ip := raw[0], raw[1], net.ParseIP(string(raw[3:3+int(raw[2])]))
	if err := req.Read(bufio.NewReader(bytes.NewReader(raw[3+int(raw[2]):]))); err != nil {
		return nil, false
	}
	rc.Init(req, &net.TCPAddr{IP: ip}, nil)
	rc.Response.Header.DisableNormalizing()
	rc.SetUserValue(forwardedKey, true)
	if flags&fwdTooLarge != 0 {
		rc.SetUserValue(tooLargeKey, true)
	}
	pub, adm := s.routers()
	switch listener {
	case fwdPublic:
		return pub, true
	case fwdAdmin:
		return adm, true
	}
	return nil, false
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
	return s.Dir.KeyOwner(catalog.HashKey(string(h[len(bearer):])))
}

type routeSet struct {
	routesOnce                sync.Once
	publicRoutes, adminRoutes fasthttp.RequestHandler
}
