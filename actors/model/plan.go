package model

import "strings"

// Plan is a business's subscription slug. Any slug is accepted; one that is
// not recognised gets Groei's quotas and entitlements.
type Plan string

// The recognised plans, cheapest first.
const (
	Groei    Plan = "groei"
	Pro      Plan = "pro"
	Zakelijk Plan = "zakelijk"
)

func (p Plan) rank() int {
	switch p {
	case Pro:
		return 1
	case Zakelijk:
		return 2
	}
	return 0
}

// Entitles reports whether the plan grants scope.
func (p Plan) Entitles(scope string) bool { return p.rank() >= RequiredPlan(scope).rank() }

// RequiredPlan is the cheapest plan that entitles scope: every ":read" scope
// comes with Groei; Pro adds the writing scopes integrators need; anything
// else is Zakelijk only.
func RequiredPlan(scope string) Plan {
	switch {
	case strings.HasSuffix(scope, ":read"):
		return Groei
	case scope == "appointments:write", scope == "customers:write", scope == "webhooks:manage", scope == "calendars:manage":
		return Pro
	}
	return Zakelijk
}

// Module is a product area a business subscribes to.
type Module string

// The modules. A business without one gets 403 FORBIDDEN on its endpoints.
const (
	ModAppointments Module = "appointments"
	ModCustomers    Module = "customers"
	ModWebhooks     Module = "webhooks"
	ModPayments     Module = "payments"
)

// AllModules is the default module set of a business.
var AllModules = []Module{ModAppointments, ModCustomers, ModWebhooks, ModPayments}

// KnownModule reports whether m names a module.
func KnownModule(m string) bool {
	for _, x := range AllModules {
		if string(x) == m {
			return true
		}
	}
	return false
}
