package wire

import "github.com/slotd/slotd/actors/problem"

// statusOf is the one mapping from error code to HTTP status. Codes not
// listed are business-rule refusals (the rule set is extensible): 422.
var statusOf = map[problem.Code]int{
	problem.Validation:             400,
	problem.IdempotencyKeyRequired: 400,
	problem.Unauthorized:           401,
	problem.KeyRevoked:             401,
	problem.KeyExpired:             401,
	problem.InsufficientScope:      403,
	problem.PlanUpgradeRequired:    403,
	problem.Forbidden:              403,
	problem.OriginNotAllowed:       403,
	problem.NotFound:               404,
	problem.MethodNotAllowed:       405,
	problem.SlotTaken:              409,
	problem.NoStaffAvailable:       409,
	problem.ResourceUnavailable:    409,
	problem.SessionFull:            409,
	problem.SeriesConflict:         409,
	problem.Conflict:               409,
	problem.IdempotencyInProgress:  409,
	problem.IdempotencyKeyReused:   409,
	problem.HoldExpired:            409,
	problem.PreconditionFailed:     412,
	problem.RequestTimeout:         408,
	problem.RateLimited:            429,
	problem.PaymentError:           500,
	problem.Internal:               500,
	problem.ModuleUnavailable:      503,
	problem.Unavailable:            503,
}

// Status returns the HTTP status of an error code.
func Status(c problem.Code) int {
	if s, ok := statusOf[c]; ok {
		return s
	}
	return 422
}
