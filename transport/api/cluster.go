package api

import (
	"bytes"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
)

// In cluster mode (docs/cluster.md) a public request whose key belongs to
// a business on another node is handed to that node (edge.Elsewhere)
// before it is authenticated: the owner runs it through these same
// routes. So the limits of a key, its idempotency table and the refusal
// order are decided in one place, the business's node; only the client
// IP's failed-authentication limit stays with the receiving node.

// nodeHeader names the node that answered a request for a business (in
// cluster mode): where the business lives, for operators and tests.
const nodeHeader = "X-Slotd-Node"

// keyBusiness returns the business the request's bearer key belongs to,
// if any (the full check is authenticate's, on the business's node).
func (s *Server) keyBusiness(ctx *fasthttp.RequestCtx) (uuid.UUID, bool) {
	h := ctx.Request.Header.Peek(fasthttp.HeaderAuthorization)
	if len(h) <= len(bearer) || !bytes.EqualFold(h[:len(bearer)], bearer) {
		return uuid.UUID{}, false
	}
	return s.Dir.KeyOwner(model.HashKey(string(h[len(bearer):])))
}
