package api

import (
	"bytes"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
)

// CORS for publishable keys (decisions §7). A publishable key sits in web
// pages, so a browser calls the API from a business's site: the key lists
// the origins it may be used from, a request from any other is refused,
// and the answers to one from a listed origin say the page may read them.
// Secret keys never get CORS headers: a page must not hold one.

var errOriginNotAllowed = problem.New(problem.OriginNotAllowed, "This key may not be used from this web origin.")

const (
	corsMethods = "GET, POST, PATCH, DELETE"
	corsHeaders = "Authorization, Content-Type, Idempotency-Key, If-Match"
	// corsExposed are the answer's headers a page may read besides the
	// few every browser shows.
	corsExposed = "X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag, Idempotency-Replayed"
)

// publishableOrigin applies a publishable key's allowed origins to c: a
// request from an origin they do not list gets 403 ORIGIN_NOT_ALLOWED
// (false); one from a listed origin gets the CORS headers on its answer,
// whatever the answer. A request without Origin (a server, curl) is
// neither: only browsers send it, and only browsers enforce CORS.
//
// slotd's own pages (package page) are the one other origin: the booking
// page calls the API from slotd's origin, the one it was served from.
func publishableOrigin(c *call) bool {
	origin := c.ctx.Request.Header.Peek(fasthttp.HeaderOrigin)
	if len(origin) == 0 || c.s.ownOrigin(c.ctx, origin) {
		return true
	}
	if !c.key.AllowsOrigin(origin) {
		edge.WriteError(c.ctx, errOriginNotAllowed)
		return false
	}
	h := &c.ctx.Response.Header
	h.SetBytesV(fasthttp.HeaderAccessControlAllowOrigin, origin)
	h.Set(fasthttp.HeaderVary, fasthttp.HeaderOrigin)
	h.Set(fasthttp.HeaderAccessControlExposeHeaders, corsExposed)
	return true
}

// ownOrigin reports whether origin is slotd's own: that of --public-url,
// or the one the request was sent to (scheme and Host), which only a page
// slotd served can be on. A same-origin request needs no CORS headers.
func (s *Server) ownOrigin(ctx *fasthttp.RequestCtx, origin []byte) bool {
	if s.publicOrigin != "" && string(origin) == s.publicOrigin {
		return true
	}
	host := ctx.Host()
	rest, ok := bytes.CutPrefix(origin, []byte("http://"))
	if !ok {
		rest, ok = bytes.CutPrefix(origin, []byte("https://"))
	}
	return ok && len(host) > 0 && bytes.Equal(rest, host)
}

// originOf is the origin of an absolute URL as browsers send it, "" when
// it has none.
func originOf(raw string) string {
	o, _ := model.OriginOf(raw)
	return o
}

// withPreflight answers CORS preflights before h routes anything: an
// OPTIONS with both Origin and Access-Control-Request-Method is 204 with
// what a page may send, for any origin (a preflight carries no key, so
// the origin is judged on the request that follows). Every other OPTIONS
// is h's: 405, as api-v1 §4.1 has it.
func withPreflight(h fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		rq := &ctx.Request.Header
		origin := rq.Peek(fasthttp.HeaderOrigin)
		if !rq.IsOptions() || len(origin) == 0 || len(rq.Peek(fasthttp.HeaderAccessControlRequestMethod)) == 0 {
			h(ctx)
			return
		}
		w := &ctx.Response.Header
		w.SetBytesV(fasthttp.HeaderAccessControlAllowOrigin, origin)
		w.Set(fasthttp.HeaderAccessControlAllowMethods, corsMethods)
		w.Set(fasthttp.HeaderAccessControlAllowHeaders, corsHeaders)
		w.Set(fasthttp.HeaderAccessControlMaxAge, "600")
		w.Set(fasthttp.HeaderVary, fasthttp.HeaderOrigin)
		ctx.SetStatusCode(fasthttp.StatusNoContent)
	}
}
