package edge

import (
	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

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
// (Config.HandOver).
type Cluster interface {
	// Local reports whether business biz lives on this node.
	Local(biz uuid.UUID) bool
	// Serving reports whether this node may still serve from its own
	// state: its lease is valid. A request this node served itself is
	// answered only if it still may once the answer is made (Settle).
	Serving() bool
	// NotReady says why this node is not ready (/readyz): not joined, no
	// journal, no lease, its journal replica catching up; "" when ready.
	NotReady() string
	// Businesses lists every business of the cluster (the admin list).
	Businesses(fn func(id uuid.UUID, name string) error) error
}

// forwardedKey marks a request another node handed over: it is served
// here whatever this node believes about placement, never handed on.
const forwardedKey = "slotd.forwarded"

func forwarded(ctx *fasthttp.RequestCtx) bool { return ctx.UserValue(forwardedKey) != nil }

// servedHereKey marks a request this node serves from its own state of a
// business (Elsewhere said so).
const servedHereKey = "slotd.served-here"

// serveHere marks ctx as served from this node's own state.
func serveHere(ctx *fasthttp.RequestCtx) bool {
	ctx.SetUserValue(servedHereKey, true)
	return false
}

// Elsewhere hands the request to business biz's node when it is not this
// one, and reports whether it did (the answer is then written). listener
// is the one the request came in on: the owner serves it with its routes.
func (e *Edge) Elsewhere(ctx *fasthttp.RequestCtx, biz uuid.UUID, listener handover.Listener) bool {
	if e.Cluster == nil || e.HandOver == nil {
		return false
	}
	if forwarded(ctx) {
		if !e.Cluster.Local(biz) { // it moved on while the request travelled
			WriteError(ctx, ErrMoving)
			return true
		}
		return serveHere(ctx)
	}
	if e.Cluster.Local(biz) {
		return serveHere(ctx)
	}
	rctx, cancel := RequestContext()
	defer cancel()
	id := RequestID(ctx)
	r := handover.Request{Listener: listener, Client: ctx.RemoteIP(), TooLarge: TooLarge(ctx)}
	local, err := e.HandOver.Forward(rctx, biz, r, &ctx.Request, &ctx.Response)
	if local {
		return serveHere(ctx) // it was activated here just now
	}
	if err != nil {
		ctx.Response.Reset()
		e.Fail(ctx, err)
	}
	setRequestID(ctx, id)
	if r.TooLarge {
		// The rest of the body was not read here: the connection closes
		// after the answer, whoever wrote it.
		ctx.SetConnectionClose()
	}
	return true
}

// Settle runs after a listener's routes: an answer this node made from
// its own state of a business is sent only if the node may still serve
// it now. Checked before the request, validity is not enough: a node
// paused between the check and the read of its state (SIGSTOP, a stalled
// VM) would answer from a state that survivors have written past while it
// was stopped. Checked after the answer was made, it is: the lease was
// valid when the state was read if it still is (only a renewal that no
// other node fenced extends it), so no other node could have taken the
// business over before. Otherwise the answer is replaced by a 503: a
// write the journal acknowledged stays acknowledged, and the client's
// retry with its Idempotency-Key finds it.
func (e *Edge) Settle(ctx *fasthttp.RequestCtx) {
	if e.Cluster == nil || ctx.UserValue(servedHereKey) == nil || e.Cluster.Serving() {
		return
	}
	e.withheld.Add(1)
	id := RequestID(ctx)
	ctx.Response.Reset()
	ctx.Response.Header.DisableNormalizing()
	setRequestID(ctx, id)
	WriteError(ctx, ErrMoving)
}

// Withheld returns how many answers Settle replaced.
func (e *Edge) Withheld() uint64 { return e.withheld.Load() }

// HandOverHandler serves the hand-over listener: requests other nodes
// hand to this one, run through the routes of the listener they came in
// on (routes; nil for none).
func (e *Edge) HandOverHandler(routes func(handover.Listener) fasthttp.RequestHandler) fasthttp.RequestHandler {
	return e.HandOver.Handler(routes, func(ctx *fasthttp.RequestCtx, tooLarge bool) {
		ctx.SetUserValue(forwardedKey, true)
		if tooLarge {
			ctx.SetUserValue(tooLargeKey, true)
		}
	})
}
