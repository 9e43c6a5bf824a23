package api

import (
	"math"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/quota"
)

// Request limits (api-v1 §8, decisions §3–4). Before any key is looked at,
// the client IP's failed-authentication limit is checked: an IP over it is
// refused outright. A request whose credential fails spends from that
// limit and carries its headers; an authenticated one spends from its key's
// per-minute and per-hour limits (and, for POST, PATCH and DELETE, the
// mutation ceiling) and carries the headers of the one with the least left,
// whatever the answer turns out to be. A refusal (429) spends nothing.

// Limit kinds, one byte each in the limiter's keys.
const (
	limitMinute     byte = 'm'
	limitHour       byte = 'h'
	limitMutations  byte = 'w'
	limitFailedAuth byte = 'a'
	// limitPings is the ping-and-replay bucket (bucket.go), which is not
	// one of the limiter's; it is a kind only to be counted with them.
	limitPings byte = 'p'
)

var errRateLimited = problem.New(problem.RateLimited, "Too many requests; retry after the Retry-After seconds.")

// admitIP refuses a client IP that is over its failed-authentication
// limit, writing the 429.
func (s *Server) admitIP(ctx *fasthttp.RequestCtx) bool {
	if v := s.quota.Peek(string(ctx.RemoteIP()), s.authLimit); !v.Allowed {
		s.refuse(ctx, v)
		return false
	}
	return true
}

// failedAuth counts a failed authentication from the client IP and writes
// its answer with the IP limit's headers.
func (s *Server) failedAuth(ctx *fasthttp.RequestCtx, perr *problem.Error) {
	if s.spendFailedAuth(ctx) {
		edge.WriteError(ctx, perr)
	}
}

// spendFailedAuth counts a failed authentication from the client IP: past
// the limit it writes the 429 (false); else it sets the limit's headers
// and leaves the answer to the caller.
func (s *Server) spendFailedAuth(ctx *fasthttp.RequestCtx) bool {
	v := s.quota.Take(string(ctx.RemoteIP()), s.authLimit)
	if !v.Allowed {
		s.refuse(ctx, v)
		return false
	}
	rateHeaders(ctx, v)
	return true
}

// admitKey spends from the limits of the call's key, or writes the 429.
// A publishable key's limits are counted per key and client IP.
func (s *Server) admitKey(c *call) bool {
	var k quota.KeyLimits
	var subject []byte
	if c.key.Publishable() {
		k = quota.ForPublishable(c.key.Limits)
		var b [16 + 16]byte
		subject = append(append(b[:0], c.key.ID[:]...), c.ctx.RemoteIP()...)
	} else {
		k = quota.ForKey(c.st.Business().Plan, c.key.Limits)
		subject = c.key.ID[:]
	}
	checks := [3]quota.Check{{Kind: limitMinute, Window: k.Minute}, {Kind: limitHour, Window: k.Hour}, {Kind: limitMutations, Window: k.Mutations}}
	n := 2
	if m := c.ctx.Method(); string(m) == fasthttp.MethodPost || string(m) == fasthttp.MethodPatch || string(m) == fasthttp.MethodDelete {
		n = 3
	}
	v := s.quota.Take(string(subject), checks[:n]...)
	if !v.Allowed {
		s.refuse(c.ctx, v)
		return false
	}
	rateHeaders(c.ctx, v)
	c.rate = v
	return true
}

// refuse writes the 429 of a limit that refused, and counts it by the
// limit's kind.
func (s *Server) refuse(ctx *fasthttp.RequestCtx, v quota.Verdict) {
	s.metrics.refused(v.Refused)
	rateHeaders(ctx, v)
	retryAfter(ctx, v)
	edge.WriteError(ctx, errRateLimited)
}

// retryAfter sets Retry-After: whole seconds, rounded up, at least 1.
func retryAfter(ctx *fasthttp.RequestCtx, v quota.Verdict) {
	secs := max(int64(math.Ceil(v.RetryAfter.Seconds())), 1)
	ctx.Response.Header.Set("Retry-After", strconv.FormatInt(secs, 10))
}

func rateHeaders(ctx *fasthttp.RequestCtx, v quota.Verdict) {
	h := &ctx.Response.Header
	var b [20]byte
	h.SetBytesV("X-RateLimit-Limit", strconv.AppendInt(b[:0], int64(v.Limit), 10))
	h.SetBytesV("X-RateLimit-Remaining", strconv.AppendInt(b[:0], int64(v.Remaining), 10))
	h.SetBytesV("X-RateLimit-Reset", strconv.AppendInt(b[:0], ceilUnix(v.Reset), 10))
}

// ceilUnix is t in epoch seconds, rounded up: capacity is back by then.
func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// meter applies the limits to a request for no route (404, 405), then
// writes perr: an IP over its failed-auth limit is refused; a valid key
// pays for the request and gets its headers; anything else gets the IP
// limit's headers without spending from it (no credential was refused).
func (s *Server) meter(ctx *fasthttp.RequestCtx, perr *problem.Error) {
	if !s.admitIP(ctx) {
		return
	}
	if c, aerr := s.authenticate(ctx); aerr == nil {
		edge.Authenticated(ctx, c.st.Business())
		if c.key.Publishable() && !publishableOrigin(c) {
			return
		}
		if !s.admitKey(c) {
			return
		}
	} else {
		rateHeaders(ctx, s.quota.Peek(string(ctx.RemoteIP()), s.authLimit))
	}
	edge.WriteError(ctx, perr)
}
