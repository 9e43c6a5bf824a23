// Package transport is slotd's HTTP front end put together: the public
// API (package api) and the admin listener (package admin) over one
// shared edge (package edge: request ids, body limits, the request
// metrics and the access log), and, in cluster mode, the hand-over
// listener, which serves the requests other nodes hand to this one with
// the routes of the listener they came in on. cmd/slotd builds one Server
// from a Config and serves its listeners; what a listener answers is in
// that listener's package.
package transport
