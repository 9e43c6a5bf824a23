package edge

import (
	"bytes"
	"fmt"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/problem"
)

// Router is the routes of one listener. Each route tells Observe that it
// answered (for the metrics and the access log); a request no route
// matches is answered in the §7.1 shape.
type Router struct {
	r        *router.Router
	e        *Edge
	listener string
}

// NewRouter returns the router of listener, whose misses answer in the
// §7.1 shape through miss: unknown paths notFound (404), known paths with
// another method (OPTIONS included) 405 with an Allow header naming the
// served methods, and never a redirect. A route that panics is answered
// 500 INTERNAL_ERROR, logged with the request id.
func (e *Edge) NewRouter(listener string, miss func(*fasthttp.RequestCtx, *problem.Error), notFound *problem.Error) *Router {
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
		id := RequestID(ctx)
		e.Log.Error("handler panicked", "request_id", id, "panic", fmt.Sprint(v))
		ctx.ResetBody()
		ctx.Response.Header.Reset()
		setRequestID(ctx, id)
		WriteError(ctx, ErrInternal)
	}
	return &Router{r: r, e: e, listener: listener}
}

// Handle registers h for method and path, telling Observe which route
// answered.
func (r *Router) Handle(method, path string, h fasthttp.RequestHandler) {
	ro := r.e.metrics.route(r.listener, method, path)
	r.r.Handle(method, path, func(ctx *fasthttp.RequestCtx) {
		ctx.SetUserValue(routeKey, ro)
		h(ctx)
	})
}

// Handler returns the handler of the routes. In cluster mode an answer
// made from this node's own state of a business is settled after the
// route (Edge.Settle), on the listener and on the hand-over road alike.
func (r *Router) Handler() fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		r.r.Handler(ctx)
		r.e.Settle(ctx)
	}
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
