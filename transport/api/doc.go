// Package api is slotd's public API, the listener integrators call: every
// /api/v1 route and the payment providers' hook (/hooks/payments). Each
// route is wrapped (auth.go) with the request limits of api-v1 §8
// (limits.go, over package quota, and the ping-and-replay bucket,
// bucket.go), bearer-key authentication and the entitlement checks, in
// one fixed order, before its handler parses the query strictly
// (query.go) and the body with actors/model/input, calls the engine's one
// door (actors/directory) and renders the answer with actors/model/wire:
// lists with sealed cursors (list.go), availability from a cache of
// encoded answers (availability.go, slotcache.go), idempotent creates
// from the facts the engine stored under their key (writes.go). In
// cluster mode a request whose key belongs to a business on another node
// is handed to that node before it is authenticated (cluster.go).
//
// Handlers copy what they need out of the *fasthttp.RequestCtx into plain
// values before talking to a business actor; nothing from fasthttp ever
// crosses into another goroutine. Reads are served from the business's
// published immutable state and never wait in an actor's mailbox.
package api
