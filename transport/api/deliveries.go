package api

import (
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/edge"
)

// The delivery log of an endpoint (api-v1 §2.7, §4.5) is read from the
// store, not from the business's in-memory state: it is written by the
// endpoint's courier and may be large, and reading it is not on any booking
// path. Records list in creation order (createdAt, then id), which is the
// order of their time-ordered ids, so a page is one range scan from the
// cursor.

// endpointOf resolves the {id} path parameter to an endpoint of the
// caller's business, writing 404 when there is none.
func (c *call) endpointOf() (*model.Endpoint, bool) {
	var e *model.Endpoint
	if id, ok := c.pathID("id"); ok {
		e = c.st.Endpoint(id)
	}
	if e == nil {
		edge.WriteError(c.ctx, errNotFound)
	}
	return e, e != nil
}

func (s *Server) listDeliveries(c *call) {
	q := parseQuery(c.ctx, "limit", "cursor")
	limit := q.limit()
	ls := listSpec{name: "deliveries", filters: c.ctx.UserValue("id").(string)}
	var after *[16]byte
	if raw, ok := q.ok("cursor"); ok {
		p, err := s.Cursors.Decode(c.cursorScope(ls), raw)
		if err != nil {
			q.errs = append(q.errs, errCursor)
		}
		after = &p.ID
	}
	if perr := q.err(); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	ep, ok := c.endpointOf()
	if !ok {
		return
	}
	b := getBuf()
	defer putBuf(b)
	*b = append((*b)[:0], `{"data":[`...)
	n, more := 0, false
	var last cursor.Position
	// What the directory passes on is shown only once it returns nil:
	// every record is durable then.
	err := s.Dir.Deliveries(c.st.Business().ID, ep.ID, after, func(id [16]byte, d *model.Delivery) bool {
		if n == limit {
			more = true
			return false
		}
		if n > 0 {
			*b = append(*b, ',')
		}
		*b = wire.AppendDelivery(*b, d)
		n, last.ID = n+1, id
		return true
	})
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	*b = c.endList(*b, ls, more, last)
	edge.WriteJSON(c.ctx, 200, *b)
}

// replayDelivery re-sends a delivery's stored envelope with its original
// event id (decisions §3–4): 202 with the new, pending record. It is
// refused before spending from the ping-and-replay bucket when the
// delivery does not exist; the body may be empty or an empty object.
func (s *Server) replayDelivery(c *call) {
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	if perr := noBody(c.ctx.PostBody()); perr != nil {
		s.Fail(c.ctx, perr)
		return
	}
	ep, ok := c.endpointOf()
	if !ok {
		return
	}
	id, ok := c.pathID("deliveryId")
	if ok {
		ok, _ = s.Dir.DeliveryExists(c.st.Business().ID, ep.ID, id)
	}
	if !ok {
		edge.WriteError(c.ctx, errNotFound)
		return
	}
	if perr := s.spendPing(c); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	d, err := directory.Ask(rctx, s.Dir, c.st.Business().ID, &directory.Replay{EndpointID: ep.ID, DeliveryID: uuid.UUID(id)})
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	edge.WriteJSON(c.ctx, 202, wire.AppendDelivery(nil, d))
}

// spendPing takes one from the business's bucket shared by test pings and
// replays (10 a minute), or says when to come back. The bucket is one of
// the limiters the request consulted, so when it has less left than the
// key's quotas (and always when it refuses) its numbers replace theirs in
// the X-RateLimit headers.
func (s *Server) spendPing(c *call) *problem.Error {
	v := s.pings.take(c.st.Business().ID, s.Clock.Now())
	if !v.Allowed || v.Remaining < c.rate.Remaining {
		rateHeaders(c.ctx, v)
		c.rate = v
	}
	if v.Allowed {
		return nil
	}
	s.metrics.refused(limitPings)
	retryAfter(c.ctx, v)
	return errPingsUsed
}

var errPingsUsed = problem.New(problem.RateLimited, "Too many test pings and replays for this business; retry after the Retry-After seconds.")
