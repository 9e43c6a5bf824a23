package api

import (
	"bytes"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/handover"
	"github.com/slotd/slotd/transport/quota"
)

// call is one authenticated public request: the view of the business it
// is served from and the key it came with. st is the view taken when the
// request was authenticated; a handler that only reads uses it throughout,
// so one response never mixes two versions of the business.
type call struct {
	ctx *fasthttp.RequestCtx
	st  directory.View
	key *model.Key
	s   *Server
	// rate is what the X-RateLimit headers report so far: the key's
	// tightest limit, or a tighter limiter the handler consulted since.
	rate quota.Verdict
}

// api wraps a route with the request limits (limits.go), authentication
// and the entitlement checks, in this order: the client IP's failed-auth
// limit (429), credential (401), a publishable key's origin (403
// ORIGIN_NOT_ALLOWED, cors.go), the key's quotas (429), platform-wide
// module switch (503), key scope (403 INSUFFICIENT_SCOPE), plan (403
// PLAN_UPGRADE_REQUIRED), business module (403 FORBIDDEN), then a body
// over 64 KiB (400), before the route's own validation.
func (s *Server) api(rt route) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if !s.admitIP(ctx) {
			return
		}
		if s.Cluster != nil {
			if biz, ok := s.keyBusiness(ctx); ok && s.Elsewhere(ctx, biz, handover.Public) {
				return
			}
			ctx.Response.Header.Set(nodeHeader, s.NodeName)
		}
		c, perr := s.authenticate(ctx)
		if perr != nil {
			if perr.Code == problem.Internal || perr.Code == problem.Unavailable {
				edge.WriteError(ctx, perr)
			} else {
				s.failedAuth(ctx, perr)
			}
			return
		}
		edge.Authenticated(ctx, c.st.Business())
		if c.key.Publishable() && !publishableOrigin(c) {
			return
		}
		if !s.admitKey(c) {
			return
		}
		if perr := s.authorize(c, rt); perr != nil {
			edge.WriteError(ctx, perr)
			return
		}
		if edge.TooLarge(ctx) { // the first of the request's own checks
			if rt.large {
				edge.WriteError(ctx, errLargeBodyTooLarge)
			} else {
				edge.WriteError(ctx, errBodyTooLarge)
			}
			return
		}
		rt.fn(c)
	}
}

var bearer = []byte("bearer ")

// authenticate resolves the bearer key to its business and key record.
// Unknown, malformed and missing credentials are all the same 401, so the
// answer never tells whether a key exists.
func (s *Server) authenticate(ctx *fasthttp.RequestCtx) (*call, *problem.Error) {
	h := ctx.Request.Header.Peek(fasthttp.HeaderAuthorization)
	if len(h) <= len(bearer) || !bytes.EqualFold(h[:len(bearer)], bearer) {
		return nil, errUnauthorized
	}
	tok := h[len(bearer):]
	if bytes.ContainsAny(tok, " \t") {
		return nil, errUnauthorized
	}
	hash := model.HashKey(string(tok))
	owner, ok := s.Dir.KeyOwner(hash)
	if !ok {
		return nil, errUnauthorized
	}
	st, ok, err := s.Dir.View(owner)
	if err != nil {
		if s.Cluster != nil { // the business is being taken over: settled in moments
			s.Log.Warn("business unavailable", "request_id", edge.RequestID(ctx), "err", err)
			return nil, edge.ErrMoving
		}
		s.Log.Error("business unavailable", "request_id", edge.RequestID(ctx), "err", err)
		return nil, edge.ErrInternal
	}
	if !ok {
		return nil, errUnauthorized
	}
	key := st.Key(hash)
	switch {
	case key == nil:
		return nil, errUnauthorized
	case key.Revoked:
		return nil, errRevoked
	case key.ExpiresAt != nil && !s.Clock.Now().Before(*key.ExpiresAt):
		return nil, errExpired
	}
	return &call{ctx: ctx, st: st, key: key, s: s}, nil
}

// authorize applies the key's scopes, the plan and the business's modules
// to the route. A publishable key may call only the routes of the booking
// flow (route.publishable), narrowed further by its scopes when it lists
// any (decisions §7).
func (s *Server) authorize(c *call, rt route) *problem.Error {
	if rt.module != "" && s.Disabled[rt.module] {
		return problem.New(problem.ModuleUnavailable, "This part of the API is switched off at the moment.")
	}
	if c.key.Publishable() && (!rt.publishable || rt.scope != "" && len(c.key.Scopes) > 0 && !c.key.HasScope(rt.scope)) {
		return scopeError(rt.scope)
	}
	if rt.scope != "" {
		if !c.key.Publishable() && !c.key.HasScope(rt.scope) {
			return scopeError(rt.scope)
		}
		if !c.st.Business().Plan.Entitles(rt.scope) {
			return &problem.Error{Code: problem.PlanUpgradeRequired, Message: "The business's plan does not include this endpoint.",
				Scope: rt.scope, RequiredPlan: string(model.RequiredPlan(rt.scope))}
		}
	}
	if rt.module != "" && !c.st.Business().HasModule(rt.module) {
		return errForbidden
	}
	return nil
}

// scopeError is the 403 of a key that may not call an endpoint needing
// scope.
// fromPage applies a booking page's bounds to a write (decisions §7): a
// publishable key books only with the rules enforced (past them is the
// business's own call: 403 naming appointments:write), and what it books
// is the customer's own (*byCustomer). A secret key is not bounded.
func (c *call) fromPage(enforce bool, byCustomer *bool) error {
	switch {
	case !c.key.Publishable():
		return nil
	case !enforce:
		return scopeError("appointments:write")
	}
	if byCustomer != nil {
		*byCustomer = true
	}
	return nil
}

func scopeError(scope string) *problem.Error {
	return &problem.Error{Code: problem.InsufficientScope, Message: "The API key lacks the scope this endpoint needs.", Scope: scope}
}

// pathID parses the {id} path parameter. Anything that is not a UUID names
// no record: 404, the same as a missing one.
func (c *call) pathID(name string) (uuid.UUID, bool) {
	s, _ := c.ctx.UserValue(name).(string)
	if len(s) != 36 {
		return uuid.UUID{}, false
	}
	id, err := uuid.Parse(s)
	return id, err == nil
}
