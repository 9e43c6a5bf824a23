package api

import (
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/transport/edge"
)

// Holds (decisions §6): POST places one through the booking decision,
// GET shows one (ended ones too, with their status), PATCH extends a live
// one, DELETE releases it. Booking with a hold is POST /appointments with
// holdId (decodeCreate).

const (
	minTTL = int(model.HoldMinTTL / time.Second)
	maxTTL = int(model.HoldMaxLife / time.Second)
)

func (s *Server) createHold(c *call) {
	create(c, decodeHold, func(in directory.HoldInput) directory.IdempotentOp { return directory.CreateHold{In: in} })
}

// decodeHold validates a POST /holds body.
func decodeHold(body []byte) (*directory.HoldInput, error) {
	var errs input.Errors
	in := &directory.HoldInput{TTL: model.HoldDefaultTTL}
	if obj, ok := input.ParseObject(body, &errs); ok {
		in.ServiceID, _ = obj.UUID("serviceId", input.Required)
		in.Start, _ = obj.Time("startTime", input.Required)
		if id, ok := obj.NullableUUID("staffMemberId"); ok {
			in.StaffID = id
		}
		if v, ok := obj.Int("ttlSeconds", input.Optional, minTTL, maxTTL); ok {
			in.TTL = time.Duration(v) * time.Second
		}
		obj.Done()
	}
	return in, errs.Err()
}

// hold returns the {id} hold of the business, having answered 400 for a
// bad query or 404 for an id it lacks.
func (c *call) hold() (uuid.UUID, *model.Hold, bool) {
	id, ok := c.pathID("id")
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return id, nil, false
	}
	var h *model.Hold
	if ok {
		h = c.st.Hold(id)
	}
	if h == nil {
		edge.WriteError(c.ctx, errNotFound)
		return id, nil, false
	}
	return id, h, true
}

func (s *Server) getHold(c *call) {
	if _, h, ok := c.hold(); ok {
		edge.WriteJSON(c.ctx, 200, wire.AppendHold(make([]byte, 0, 768), h))
	}
}

func (s *Server) extendHold(c *call) {
	id, _, ok := c.hold()
	if !ok {
		return
	}
	var errs input.Errors
	ttl := 0
	if obj, ok := input.ParseObject(c.ctx.PostBody(), &errs); ok {
		ttl, _ = obj.Int("ttlSeconds", input.Required, minTTL, maxTTL)
		obj.Done()
	}
	if err := errs.Err(); err != nil {
		s.Fail(c.ctx, err)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	h, err := directory.Do(rctx, s.Dir, c.st.Business().ID, directory.ExtendHold{ID: id, TTL: time.Duration(ttl) * time.Second})
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	edge.WriteJSON(c.ctx, 200, wire.AppendHold(make([]byte, 0, 768), &h))
}

func (s *Server) releaseHold(c *call) {
	id, _, ok := c.hold()
	if !ok {
		return
	}
	deleted(c, directory.ReleaseHold{ID: id})
}

// decodeHeldBooking reads the holdId of a booking with a hold. The hold
// fixes service, start and staff member, so serviceId, startTime and
// staffMemberId are left unread: Done reports them as unknown_field.
func decodeHeldBooking(obj input.Object, in *directory.CreateInput) {
	if id, ok := obj.UUID("holdId", input.Required); ok {
		in.HoldID = &id
	}
}
