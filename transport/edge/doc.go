// Package edge is the front door every slotd listener shares, before and
// around any route. It stamps each answer with a request id; refuses a
// request whose body two HTTP parsers could delimit differently
// (framing.go) and reads the body within the listener's limit (body.go);
// counts and times each answer by route (metrics.go) and writes it to the
// access log (accesslog.go, asyncwriter.go). It builds the routers, whose
// misses and panics answer in the api-v1 §7.1 error shape, and the
// fasthttp servers with their connection limits (server.go). It holds what
// both APIs write their answers with (WriteJSON, WriteError, Fail and the
// error values they share) and, in cluster mode, the hand-over of a
// request to the node its business lives on (handover.go).
//
// The public API (package api) and the admin listener (package admin)
// share one *Edge, so that request ids and the request metrics are one
// sequence and one set across both; it knows neither of them.
package edge
