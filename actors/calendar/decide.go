package calendar

import (
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// Request is one booking to decide: a create, a PATCH that moves or changes
// the service or staff member, or a reinstatement. The transport has already
// validated it; the service exists and is not deleted, and Pinned, when set,
// is a staff member of the business.
type Request struct {
	Business       *model.Business
	Loc            *time.Location
	Now            time.Time
	Service        *model.Service
	Start          time.Time
	Staff          []model.Staff // every staff member of the business, in list order (createdAt, id)
	Pinned         *uuid.UUID    // the staffMemberId the client gave
	Enforce        bool          // enforceBookingRules
	CustomerOnFile bool          // the customer was on file before this request
	Index          interval.Index
	Except         uuid.UUID // the appointment being moved or reinstated (uuid.Nil on create)
	LastAssigned   uuid.UUID // staff member of the business's last auto-assigned booking, for round_robin
	// Tally counts the staff members' bookings for the booking limits
	// (decisions §9), without the appointment being moved or reinstated;
	// nil counts nothing, and no limit applies.
	Tally Tally
	// Buffers, when set, are the booking's own (an appointment moved
	// with its service unchanged keeps the buffers it was booked with);
	// nil: the service's.
	Buffers *model.Buffers
	// Resources are the business's (decisions §10); Needs, when set, are
	// the booking's own (an appointment moved with its service unchanged
	// keeps what it was booked with); nil: the service's.
	Resources []model.Resource
	Needs     *[]model.ResourceNeed
	// Sessions are the open sessions of classes (decisions §10); nil:
	// none. Except, moving a seat, is its session's owner when it is the
	// session's last seat (the move frees the session), else nobody.
	Sessions Sessions
	// Chained says the start follows the item before it in a basket
	// (decisions §11, Follows): the customer did not choose it, so the
	// service's grid or timetable does not apply; every other rule does.
	Chained bool
}

// Decision is an accepted booking: who does it, and its footprint.
type Decision struct {
	Staff  *model.Staff // points into Request.Staff
	Pieces []Piece
}

// Decide accepts or refuses a booking, refusing with the first that applies
// of (decisions §4, §9): SERVICE_NOT_BOOKABLE, STAFF_NOT_BOOKABLE, then, when
// Enforce, BOOKING_TOO_SOON, BOOKING_TOO_FAR_AHEAD, BOOKING_PERIOD_RESTRICTED,
// BOOKING_REQUIRES_EXISTING_CUSTOMER, SLOT_NOT_OFFERED and
// BOOKING_LIMIT_REACHED (the pinned staff member, or every eligible one who
// works then, at a limit), then always SLOT_TAKEN (pinned) or
// NO_STAFF_AVAILABLE (auto-assigned), when Enforce
// BOOKING_SLOT_NOT_CONNECTED, and last, always, RESOURCE_UNAVAILABLE. Without Enforce working hours, the
// grid and the gap rule are not looked at: any free eligible staff member
// will do. An auto-assigned booking goes to the candidate the business's
// assignment strategy picks.
func Decide(r *Request) (*Decision, *problem.Error) {
	if !r.Service.IsActive {
		return nil, refuse(problem.ServiceNotBookable)
	}
	pinned := -1
	if r.Pinned != nil {
		pinned = staffIndex(r.Staff, *r.Pinned)
		if pinned < 0 || !Eligible(&r.Staff[pinned], r.Service) {
			return nil, refuse(problem.StaffNotBookable)
		}
	}
	var buf [8]rel
	sh := shapeOf(r.Service, buf[:0])
	if r.Buffers != nil {
		sh = sh.withBuffers(*r.Buffers)
	}
	full := false
	if r.Service.IsClass() && r.Sessions != nil {
		var d *Decision
		var err *problem.Error
		var done bool
		if d, err, full, done = r.joinSession(&sh, pinned); done {
			return d, err
		}
	}
	var i int
	var err *problem.Error
	if r.Enforce {
		if err = rules(r); err == nil {
			i, err = enforced(r, sh, pinned)
		}
	} else {
		i, err = loose(r, sh, pinned)
	}
	if err == nil {
		err = r.room(&sh)
	}
	if err != nil {
		return nil, fullInstead(err, full)
	}
	return &Decision{Staff: &r.Staff[i], Pieces: Footprint(r.Service, r.Start)}, nil
}

// rules applies the rules that depend on the start and the customer alone.
func rules(r *Request) *problem.Error {
	br := &r.Business.Rules
	switch {
	case r.Start.Before(r.Now.Add(minutes(br.MinNoticeMinutes))):
		return refuse(problem.BookingTooSoon)
	case !r.Start.Before(r.Now.Add(advance(br.MaxAdvanceDays))):
		return refuse(problem.BookingTooFarAhead)
	case restricted(br, r.Start):
		return refuse(problem.BookingPeriodRestricted)
	case br.RequireExistingCustomer && !r.CustomerOnFile:
		return refuse(problem.BookingRequiresCustomer)
	}
	return nil
}

// enforced judges the start for the pinned staff member or for every
// eligible one, and returns the one to book (an index into r.Staff).
func enforced(r *Request, sh shape, pinned int) (int, *problem.Error) {
	start := r.Start.UnixMilli()
	n, sec := dayNumber(start, r.Loc)
	if !r.Chained && !offered(r.Business, r.Service, r.Start, n, sec) {
		return 0, refuse(problem.SlotNotOffered)
	}
	minGap := gapOf(&r.Business.Rules)
	pad := padOf(minGap) + sh.pre + sh.post
	var dbuf [16]day
	first, last := dayRange(n, n, sh.long, pad)
	ds := loadDays(dbuf[:0], r.Business, r.Loc, first, last)
	w := ds.window(n, sh.long, pad)
	var wbuf, abuf, obuf [32]interval.Span
	var fbuf [64]interval.Span
	var cbuf [64]int
	work, free, open, fit := wbuf[:0], fbuf[:0], obuf[:0], cbuf[:0]
	hull := interval.Span{Start: start - sh.pre, End: start + sh.long + sh.post}
	lim, limited := limitsOf(r.Business, r.Service, r.Tally)
	working, unbooked, below := false, false, false
	for i := range r.Staff {
		st := &r.Staff[i]
		if pinned >= 0 && i != pinned || pinned < 0 && !Eligible(st, r.Service) {
			continue
		}
		work = appendWorking(work[:0], st, &ds, r.Loc, w)
		if !inside(work, sh.acts, start) {
			continue
		}
		working = true
		if limited && lim.reached(st.ID, n) {
			continue // at a limit: passed over
		}
		below = true
		// Working, but their external busy time (decisions §8) is not
		// free: it takes the time as a booking would, so over it the
		// answer is SLOT_TAKEN, not SLOT_NOT_OFFERED. (Its own buffer:
		// without external time it is work itself, which the next staff
		// member's working time overwrites.)
		ext, items := r.Index.External(st.ID), without(r.Index.Tree(st.ID), r.Except, w)
		avail := withoutExternal(abuf[:0], work, ext)
		free = appendFree(free[:0], items, avail)
		if sh.buffered() {
			open = appendOpen(open[:0], items, ext, hull)
		}
		switch judge(free, open, w, &sh, start, minGap, 0) {
		case fits:
			unbooked, fit = true, append(fit, i)
		case gapped:
			unbooked = true
		}
	}
	switch {
	case !working:
		return 0, refuse(problem.SlotNotOffered)
	case !below:
		return 0, refuse(problem.BookingLimitReached)
	case !unbooked && pinned >= 0:
		return 0, refuse(problem.SlotTaken)
	case !unbooked:
		return 0, refuse(problem.NoStaffAvailable)
	case len(fit) == 0:
		return 0, refuse(problem.BookingSlotNotConnected)
	case pinned >= 0:
		return pinned, nil
	}
	return assign(r, fit), nil
}

// loose is Decide without the booking rules: the pinned staff member, or
// some eligible one, merely has to be free.
func loose(r *Request, sh shape, pinned int) (int, *problem.Error) {
	var sbuf [8]interval.Span
	var cbuf [64]int
	spans, free := sbuf[:0], cbuf[:0]
	start := r.Start.UnixMilli()
	for i := range sh.acts {
		s, e := sh.occupied(i, start)
		spans = append(spans, interval.Span{Start: s, End: e})
	}
	for i := range r.Staff {
		st := &r.Staff[i]
		if pinned >= 0 && i != pinned || pinned < 0 && !Eligible(st, r.Service) {
			continue
		}
		if r.Index.Fits(st.ID, spans, r.Except) {
			free = append(free, i)
		}
	}
	switch {
	case len(free) == 0 && pinned >= 0:
		return 0, refuse(problem.SlotTaken)
	case len(free) == 0:
		return 0, refuse(problem.NoStaffAvailable)
	case pinned >= 0:
		return pinned, nil
	}
	return assign(r, free), nil
}

// inside reports whether every active piece lies inside one working span.
func inside(work []interval.Span, acts []rel, start int64) bool {
	k := 0
	for _, a := range acts {
		s, e := start+a.off, start+a.end
		for k < len(work) && work[k].End <= s {
			k++
		}
		if k == len(work) || work[k].Start > s || work[k].End < e {
			return false
		}
	}
	return true
}

// assign picks one of the candidates (indices into r.Staff, in list order)
// by the business's assignment strategy. An unknown strategy is least_busy,
// the world file's default.
func assign(r *Request, cands []int) int {
	switch r.Business.Assignment {
	case model.FirstAvailable:
		return cands[0]
	case model.RoundRobin:
		last := -1
		if r.LastAssigned != uuid.Nil {
			last = staffIndex(r.Staff, r.LastAssigned)
		}
		for _, i := range cands {
			if i > last {
				return i
			}
		}
		return cands[0]
	}
	return leastBusy(r, cands)
}

// leastBusy picks the candidate with the fewest minutes of active items on
// the local day of the start (the appointment being moved not counted);
// ties go to the earlier in list order.
func leastBusy(r *Request, cands []int) int {
	n, _ := dayNumber(r.Start.UnixMilli(), r.Loc)
	var dbuf [2]day
	ds := loadDays(dbuf[:0], r.Business, r.Loc, n, n+1)
	d := interval.Span{Start: ds.get(n).mid, End: ds.get(n + 1).mid}
	best, least := cands[0], int64(-1)
	for _, i := range cands {
		var sum int64
		r.Index.Tree(r.Staff[i].ID).Overlapping(d, func(it interval.Item) bool {
			if it.Owner != r.Except {
				sum += min(it.End, d.End) - max(it.Start, d.Start)
			}
			return true
		})
		if least < 0 || sum < least {
			best, least = i, sum
		}
	}
	return best
}

// Eligible reports whether st can be booked for svc at all: active,
// bookable and assigned the service.
func Eligible(st *model.Staff, svc *model.Service) bool {
	return st.IsActive && st.IsBookable && st.Performs(svc.ID)
}

func staffIndex(staff []model.Staff, id uuid.UUID) int {
	for i := range staff {
		if staff[i].ID == id {
			return i
		}
	}
	return -1
}

// onGrid reports whether a start whose wall clock reads sec seconds after
// local midnight is on the business's grid of start times: a whole number of
// slotIntervalMinutes after local midnight, with no seconds.
func onGrid(t time.Time, sec int64, every int) bool {
	return t.Nanosecond() == 0 && sec%(int64(gridStep(every))*60) == 0
}

// gridStep is the grid interval in minutes; a non-positive setting means
// every whole minute.
func gridStep(every int) int { return max(every, 1) }

// gapOf returns the gap rule's minimum in ms, 0 when the rule is off.
func gapOf(br *model.BookingRules) int64 {
	if !br.PreventGaps {
		return 0
	}
	return max(int64(br.MinGapMinutes), 0) * msMinute
}

func restricted(br *model.BookingRules, t time.Time) bool {
	for _, p := range br.RestrictedPeriods {
		if !t.Before(p.From) && t.Before(p.To) {
			return true
		}
	}
	return false
}

func minutes(n int) time.Duration { return time.Duration(n) * time.Minute }

// advance is maxAdvanceDays × 24 h, held short of overflowing time.Duration.
func advance(days int) time.Duration {
	const most = 100 * 365
	return time.Duration(min(days, most)) * 24 * time.Hour
}

// refuse returns the refusal for code with its fixed sentence.
func refuse(code problem.Code) *problem.Error {
	return problem.New(code, sentences[code])
}

var sentences = map[problem.Code]string{
	problem.ServiceNotBookable:      "The service cannot be booked.",
	problem.StaffNotBookable:        "The staff member cannot be booked for this service.",
	problem.BookingTooSoon:          "The start time is inside the notice period the business requires.",
	problem.BookingTooFarAhead:      "The start time is further ahead than the business accepts bookings.",
	problem.BookingPeriodRestricted: "The start time falls in a period closed to online bookings.",
	problem.BookingRequiresCustomer: "Only customers already on file may book online.",
	problem.SlotNotOffered:          "The business does not offer this start time.",
	problem.SlotTaken:               "The requested time is already taken.",
	problem.NoStaffAvailable:        "No staff member is available at the requested time.",
	problem.BookingSlotNotConnected: "The start time would leave a gap in the day that cannot be booked.",
	problem.BookingLimitReached:     "The staff member already has as many bookings that day or week as the business allows.",
	problem.SessionFull:             "The class session at the requested time has no free seat.",
	problem.ResourceUnavailable:     "A resource the service needs (a room, a chair, a machine) is not free at the requested time.",
}

// Offered reports whether t is a start the business offers svc at, in
// its local time: on the service's timetable when it has one, else on the
// business's grid. These are the candidates a search for bookable starts
// looks at.
func Offered(biz *model.Business, svc *model.Service, loc *time.Location, t time.Time) bool {
	n, sec := dayNumber(t.UnixMilli(), loc)
	return t.UnixMilli()%1000 == 0 && offered(biz, svc, t, n, sec)
}

// offered is Offered for a start on local day n whose wall clock reads
// sec seconds after midnight.
func offered(biz *model.Business, svc *model.Service, t time.Time, n, sec int64) bool {
	if tt := svc.Timetable; tt != nil {
		return t.Nanosecond() == 0 && sec%60 == 0 && tt.Offers(weekday(n), model.Clock(sec/60))
	}
	return onGrid(t, sec, biz.Rules.SlotIntervalMinutes)
}

// Reach is how far from a freed stretch of time a start may lie and still
// become bookable by it: the service's footprint and buffer after before
// it (the booking may end in it), its buffer before after it, and the gap
// rule's minimum on both sides (a start next to it may no longer leave a
// gap too short to book).
func Reach(biz *model.Business, svc *model.Service) (before, after time.Duration) {
	sh := shapeOf(svc, nil)
	gap := time.Duration(gapOf(&biz.Rules)) * time.Millisecond
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	return ms(sh.long+sh.post) + gap, ms(sh.pre) + gap
}
