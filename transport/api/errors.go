package api

import "github.com/slotd/slotd/actors/problem"

// Fixed sentences of the errors the public API raises itself.
var (
	errNotFound     = problem.New(problem.NotFound, "No such resource for this business.")
	errUnauthorized = problem.New(problem.Unauthorized, "A valid API key is required: send Authorization: Bearer <key>.")
	errRevoked      = problem.New(problem.KeyRevoked, "The API key has been revoked.")
	errExpired      = problem.New(problem.KeyExpired, "The API key has expired.")
	errForbidden    = problem.New(problem.Forbidden, "The business does not have the module this endpoint belongs to.")
	errBodyTooLarge = problem.Fields(problem.Bound(problem.PathBody, problem.TooLarge, maxBody, "The request body must be at most 65536 bytes."))
	// errLargeBodyTooLarge is the calendar endpoints' (decisions §8).
	errLargeBodyTooLarge = problem.Fields(problem.Bound(problem.PathBody, problem.TooLarge, MaxLargeBody, "The request body must be at most 1048576 bytes."))
)
