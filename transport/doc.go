// Package transport owns slotd's HTTP front end: the fasthttp router of the
// public API (/api/v1) beside the admin listener (package admin),
// bearer-key authentication and entitlement checks, strict query parsing, list pagination, the JSON
// encoders of every response, and the one table that maps error codes to
// HTTP statuses and the api-v1 §7.1 error body. It also owns what a client
// may cost the server: the request limits of api-v1 §8 (limits.go, over
// package quota, and the ping bucket). What every listener does before
// and around its routes (request ids, the bounded reading of request
// bodies, the request metrics, the access log, the connection limits of
// the servers) is package edge's.
//
// Handlers copy what they need out of the *fasthttp.RequestCtx into plain
// values before talking to a business actor; nothing from fasthttp ever
// crosses into another goroutine. Reads are served from the business's
// published immutable state and never wait in an actor's mailbox.
package transport
