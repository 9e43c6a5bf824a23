package api

import (
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/transport/edge"
)

// The DELETEs of the API: a resource named by the path's {id} goes with
// a write that answers nothing, and the answer is 204 without a body.

// deleteByID answers DELETE …/{id}: no query is taken, an id the business
// does not have (exists says) is 404 NOT_FOUND, and otherwise the write
// op(id) is made.
func deleteByID[O directory.Op[directory.Done]](c *call, exists func(uuid.UUID) bool, op func(uuid.UUID) O) {
	id, ok := c.pathID("id")
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	if !ok || !exists(id) {
		edge.WriteError(c.ctx, errNotFound)
		return
	}
	deleted(c, op(id))
}

// deleted makes write op and answers 204.
func deleted[O directory.Op[directory.Done]](c *call, op O) {
	rctx, cancel := edge.RequestContext()
	defer cancel()
	if _, err := directory.Do(rctx, c.s.Dir, c.st.Business().ID, op); err != nil {
		c.s.Fail(c.ctx, err)
		return
	}
	edge.WriteJSON(c.ctx, 204, nil)
}
