package transport

import (
	"github.com/slotd/slotd/actors/problem"
)

// Fixed sentences of the errors the transport raises itself.
var (
	errNotFound     = problem.New(problem.NotFound, "No such resource for this business.")
	errUnauthorized = problem.New(problem.Unauthorized, "A valid API key is required: send Authorization: Bearer <key>.")
	errRevoked      = problem.New(problem.KeyRevoked, "The API key has been revoked.")
	errExpired      = problem.New(problem.KeyExpired, "The API key has expired.")
	errForbidden    = problem.New(problem.Forbidden, "The business does not have the module this endpoint belongs to.")
	errBodyTooLarge = problem.Fields(problem.Bound(problem.PathBody, problem.TooLarge, maxBody, "The request body must be at most 65536 bytes."))
)

// Sentences of the admin listener: the same codes and shape as the public
// API's, but true of an operator calling the admin API, who holds an admin
// token rather than an API key and names businesses rather than records of one.
var (
	errAdminNotFound     = problem.New(problem.NotFound, "No such admin resource.")
	errAdminUnauthorized = problem.New(problem.Unauthorized, "A valid admin token is required: send Authorization: Bearer <admin token>.")
	errNoKey             = problem.New(problem.NotFound, "No such key.")
	errAdminBodyTooLarge = problem.Fields(problem.Bound(problem.PathBody, problem.TooLarge, MaxAdminBody, "The request body must be at most 33554432 bytes."))
)
