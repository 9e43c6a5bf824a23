package calendar

import (
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// Tally counts what occupies staff members by local day, for booking
// limits (decisions §9).
type Tally interface {
	// Days adds to all[i] and ofSvc[i] how many bookings that occupy
	// time, and active holds, staff member staff has starting on local
	// day from+i (LocalDay), for every i of all: of every service, and of
	// service svc. One call covers a run of days, so a week costs one
	// descent of the tally, not seven.
	Days(staff, svc uuid.UUID, from int64, all, ofSvc []int)
}

// limits are the booking limits that apply to a booking of one service:
// the service's per staff member (of that service) and the business's
// per staff member (of every service), each 0 when there is none.
type limits struct {
	t                 Tally
	svc               uuid.UUID
	svcDay, svcWeek   int
	staffDay, staffWk int
}

// limitsOf returns the limits of a booking of svc, false when none
// applies (or nothing is counted).
func limitsOf(biz *model.Business, svc *model.Service, t Tally) (limits, bool) {
	l := limits{t: t, svc: svc.ID}
	if svc.Limits != nil {
		l.svcDay, l.svcWeek = deref(svc.Limits.PerDay), deref(svc.Limits.PerWeek)
	}
	if biz.Limits != nil {
		l.staffDay, l.staffWk = deref(biz.Limits.PerStaffPerDay), deref(biz.Limits.PerStaffPerWeek)
	}
	on := t != nil && (l.svcDay > 0 || l.svcWeek > 0 || l.staffDay > 0 || l.staffWk > 0)
	return l, on
}

func deref(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}

// reached reports whether one more booking of staff member staff on
// local day n would pass a limit: the day's count, or its Monday–Sunday
// week's, is already at it.
func (l *limits) reached(staff uuid.UUID, n int64) bool {
	var all, of [7]int
	w := weekOf(n)
	l.t.Days(staff, l.svc, w, all[:], of[:])
	return l.full(all[:], of[:], int(n-w))
}

// full reports whether day i of a week whose counts are all and of
// (Monday first) is at a limit.
func (l *limits) full(all, of []int, i int) bool {
	return l.dayFull(all[i], of[i]) || l.weekFull(all, of)
}

// dayFull reports whether a day with all bookings, of of the service,
// is at a daily limit.
func (l *limits) dayFull(all, of int) bool {
	return l.staffDay > 0 && all >= l.staffDay || l.svcDay > 0 && of >= l.svcDay
}

// weekFull reports whether a week whose counts are all and of (seven
// days) is at a weekly limit.
func (l *limits) weekFull(all, of []int) bool {
	if l.staffWk == 0 && l.svcWeek == 0 {
		return false
	}
	var wAll, wOf int
	for d := range 7 {
		wAll, wOf = wAll+all[d], wOf+of[d]
	}
	return l.staffWk > 0 && wAll >= l.staffWk || l.svcWeek > 0 && wOf >= l.svcWeek
}

// CheckLimit refuses with BOOKING_LIMIT_REACHED one more booking of svc
// by staff member staff at start that would pass a booking limit
// (decisions §9): for a reinstatement, which is not otherwise a decision
// of this package. Nil when none would be passed.
func CheckLimit(biz *model.Business, svc *model.Service, t Tally, loc *time.Location, staff uuid.UUID, start time.Time) *problem.Error {
	if l, on := limitsOf(biz, svc, t); on && l.reached(staff, LocalDay(start, loc)) {
		return refuse(problem.BookingLimitReached)
	}
	return nil
}
