package calendar

import (
	"slices"
	"time"

	"github.com/slotd/slotd/actors/model"
)

// Price returns the price snapshot of a booking of svc starting at start
// (decisions §4 "Pricing"): base is the service price; total is the price of
// the first pricing rule, in list order, whose weekday and [from, to) contain
// the local start time, else base; deposit is a copy of the service deposit.
// A rule applies to the days it names only: one whose to is not after its
// from matches nothing (it does not wrap past midnight).
func Price(svc *model.Service, loc *time.Location, start time.Time) (base, total int, deposit *int) {
	base, total = svc.PriceCents, svc.PriceCents
	local := start.In(loc)
	sec := local.Hour()*3600 + local.Minute()*60 + local.Second()
	for _, r := range svc.PricingRules {
		if slices.Contains(r.Days, local.Weekday()) && int(r.From)*60 <= sec && sec < int(r.To)*60 {
			total = r.PriceCents
			break
		}
	}
	if svc.DepositCents != nil {
		d := *svc.DepositCents
		deposit = &d
	}
	return base, total, deposit
}
