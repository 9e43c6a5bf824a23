package calendar

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// TestSlotsMatchDecide checks, on a few hundred random businesses, the promise
// availability makes: a start is offered listing staff member X exactly when
// Decide (rules enforced, customer on file) accepts it with X pinned, and is
// offered at all exactly when Decide accepts it with nobody pinned. Each
// decision is also checked against an oracle written from the definitions
// alone (Working, Index.Fits and a minute-by-minute scan for the gap rule),
// so the two callers cannot agree on a wrong answer.
func TestSlotsMatchDecide(t *testing.T) {
	rng := rand.New(rand.NewPCG(20260329, 1))
	businesses := 600
	if testing.Short() || raceEnabled {
		businesses = 250
	}
	for i := range businesses {
		w := randomWorld(rng)
		if !t.Run(fmt.Sprint(i), func(t *testing.T) { w.check(t, rng) }) {
			t.Logf("world: %s", w)
			return
		}
	}
}

// world is one random business with its calendar and the window asked about.
type world struct {
	biz      model.Business
	loc      *time.Location
	now      time.Time
	svc      *model.Service
	staff    []model.Staff
	index    interval.Index
	bookings []booking
	from, to time.Time
	// resources (decisions §10): the business's, and the units its other
	// bookings take, kept apart from the index for the oracle.
	resources []model.Resource
	taken     []interval.Item
	// sessions (decisions §10) are the seats taken in the class
	// sessions among the bookings of the service, by staff member and
	// start, and the stretch each occupies.
	sessions map[sessionKey]sessionSeats
}

type sessionKey struct {
	staff uuid.UUID
	start int64
}

type sessionSeats struct {
	seats int
	hull  interval.Span
}

func (w *world) Seats(svc, staff uuid.UUID, start int64) (int, interval.Span, bool) {
	x, ok := w.sessions[sessionKey{staff, start}]
	if svc != w.svc.ID || !ok {
		return 0, interval.Span{}, false
	}
	return x.seats, x.hull, true
}

func (w *world) SessionsOf(svc, staff uuid.UUID, from, to int64, dst []Session) []Session {
	var starts []int64
	for k := range w.sessions {
		if svc == w.svc.ID && k.staff == staff && k.start >= from && k.start <= to {
			starts = append(starts, k.start)
		}
	}
	slices.Sort(starts)
	for _, at := range starts {
		x := w.sessions[sessionKey{staff, at}]
		dst = append(dst, Session{Start: at, Seats: x.seats, Hull: x.hull})
	}
	return dst
}

// session is staff member st's session of the service at start that a
// booking at start could join: one whose stretch is the booking's.
func (w *world) session(st *model.Staff, start time.Time) (sessionSeats, bool) {
	x, ok := w.sessions[sessionKey{st.ID, start.UnixMilli()}]
	if !ok || !w.svc.IsClass() {
		return x, false
	}
	own := Occupied(w.svc, start)
	return x, len(own) > 0 && x.hull == interval.Span{Start: own[0].Start, End: own[len(own)-1].End}
}

type booking struct {
	staff uuid.UUID
	owner uuid.UUID
	items []interval.Item
	svc   uuid.UUID
	start time.Time
}

func (w *world) String() string {
	return fmt.Sprintf("tz=%s rules=%+v assignment=%s now=%s from=%s to=%s service=%+v staff=%+v",
		w.loc, w.biz.Rules, w.biz.Assignment, w.now, w.from, w.to, *w.svc, w.staff)
}

var zones = []string{"Europe/Amsterdam", "UTC", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu",
	"Australia/Lord_Howe", "America/Santiago", "Pacific/Chatham"}

// Dates near the 2026 transitions of those zones, and two ordinary ones.
var baseDates = []string{"2026-03-29", "2026-10-25", "2026-03-08", "2026-11-01", "2026-04-05",
	"2026-10-04", "2026-09-06", "2026-09-27", "2026-06-17", "2026-01-14"}

func randomWorld(rng *rand.Rand) *world {
	w := &world{}
	w.loc, _ = time.LoadLocation(zones[rng.IntN(len(zones))])
	base, _ := time.ParseInLocation(time.DateOnly, baseDates[rng.IntN(len(baseDates))], w.loc)
	base = base.Add(time.Duration(rng.IntN(48)-24) * time.Hour)
	w.biz = model.Business{
		Assignment: []model.Assignment{model.FirstAvailable, model.LeastBusy, model.RoundRobin}[rng.IntN(3)],
		Rules: model.BookingRules{
			SlotIntervalMinutes:     []int{1, 5, 10, 15, 20, 25, 30, 45, 60, 90, 0}[rng.IntN(11)],
			MinNoticeMinutes:        rng.IntN(4) * rng.IntN(300),
			MaxAdvanceDays:          1 + rng.IntN(6),
			RequireExistingCustomer: rng.IntN(4) == 0,
			PreventGaps:             rng.IntN(2) == 0,
			MinGapMinutes:           []int{0, 10, 15, 30, 45, 60}[rng.IntN(6)],
		},
	}
	for range rng.IntN(3) {
		from := base.Add(time.Duration(rng.IntN(72*60)-24*60) * time.Minute)
		w.biz.Rules.RestrictedPeriods = append(w.biz.Rules.RestrictedPeriods,
			model.Period{From: from, To: from.Add(time.Duration(rng.IntN(6*60)) * time.Minute)})
	}
	for range rng.IntN(2) {
		w.biz.ClosedDates = append(w.biz.ClosedDates, model.DateOf(base.AddDate(0, 0, rng.IntN(4)-1)))
	}
	w.svc = randomService(rng, "s")
	w.svc.IsActive = rng.IntN(20) != 0
	if rng.IntN(3) == 0 { // booking limits (decisions §9), small enough to be met
		w.svc.Limits = &model.BookingLimits{PerDay: randomLimit(rng), PerWeek: randomLimit(rng)}
	}
	if rng.IntN(4) == 0 { // a timetable (decisions §10) in place of the grid
		w.svc.Timetable = randomTimetable(rng)
	}
	if rng.IntN(3) == 0 { // a class (decisions §10)
		w.svc.Capacity = 2 + rng.IntN(3)
	}
	w.sessions = map[sessionKey]sessionSeats{}
	if rng.IntN(3) == 0 {
		w.biz.Limits = &model.StaffLimits{PerStaffPerDay: randomLimit(rng), PerStaffPerWeek: randomLimit(rng)}
	}
	others := []*model.Service{w.svc, randomService(rng, "o1"), randomService(rng, "o2")}
	for i := range 1 + rng.IntN(5) {
		w.staff = append(w.staff, randomStaff(rng, i, base, w.svc.ID))
	}
	for i := range rng.IntN(80) {
		st := &w.staff[rng.IntN(len(w.staff))]
		start := base.Add(time.Duration(rng.IntN(96*60)-36*60) * time.Minute).Truncate(time.Minute)
		if rng.IntN(3) > 0 {
			start = start.Truncate(5 * time.Minute)
		}
		svc := others[rng.IntN(len(others))]
		b := booking{staff: st.ID, owner: uuid.NewSHA1(uuid.NameSpaceOID, fmt.Append(nil, "booking", i)), svc: svc.ID, start: start}
		// Its occupied stretches: active pieces with buffers.
		spans := Occupied(svc, start)
		for k, sp := range spans {
			b.items = append(b.items, interval.Item{Span: sp, Owner: b.owner, Seg: int32(k)})
		}
		if len(b.items) > 0 && w.index.Fits(st.ID, spans, uuid.Nil) {
			w.index = w.index.Add(st.ID, b.items...)
			w.bookings = append(w.bookings, b)
			if svc == w.svc && w.svc.IsClass() {
				x := sessionSeats{seats: 1 + rng.IntN(w.svc.Capacity), hull: interval.Span{Start: spans[0].Start, End: spans[len(spans)-1].End}}
				if rng.IntN(8) == 0 {
					x.hull.End += 5 * msMinute // opened before the service's footprint changed
				}
				w.sessions[sessionKey{st.ID, start.UnixMilli()}] = x
			}
		}
	}
	// A room the service needs (decisions §10), some of whose units other
	// bookings take.
	if rng.IntN(3) == 0 {
		room := model.Resource{ID: uuid.NewSHA1(uuid.NameSpaceOID, []byte("room")), Name: "Room", Quantity: 1 + rng.IntN(3), IsActive: rng.IntN(10) > 0}
		w.resources = []model.Resource{room}
		w.svc.Resources = []model.ResourceNeed{{ResourceID: room.ID, Quantity: 1 + rng.IntN(room.Quantity)}}
		for i := range rng.IntN(12) {
			start := base.Add(time.Duration(rng.IntN(96*60)-36*60) * time.Minute).Truncate(5 * time.Minute).UnixMilli()
			it := interval.Item{Span: interval.Span{Start: start, End: start + int64(5+rng.IntN(120))*msMinute},
				Owner: uuid.NewSHA1(uuid.NameSpaceOID, fmt.Append(nil, "user", i)), Units: int32(1 + rng.IntN(2))}
			w.taken = append(w.taken, it)
			w.index = w.index.Take(room.ID, it)
		}
	}
	// External busy time (decisions §8) over some staff members: any
	// spans, over bookings or not; it takes time as a booking does.
	for _, st := range w.staff {
		if rng.IntN(3) != 0 {
			continue
		}
		var spans []interval.Span
		for range rng.IntN(5) {
			start := base.Add(time.Duration(rng.IntN(96*60)-36*60) * time.Minute).Truncate(5 * time.Minute).UnixMilli()
			spans = append(spans, interval.Span{Start: start, End: start + int64(5+rng.IntN(120))*msMinute})
		}
		w.index = w.index.WithExternal(st.ID, spans)
	}
	w.now = base.Add(-time.Duration(rng.IntN(36*60)) * time.Minute)
	if rng.IntN(4) == 0 {
		w.now = w.now.Add(time.Duration(rng.IntN(60_000)) * time.Millisecond)
	}
	// At most about 120 grid starts, so that every start can be decided.
	step := time.Duration(gridStep(w.biz.Rules.SlotIntervalMinutes)) * time.Minute
	w.from = base.Add(time.Duration(rng.IntN(24*60)-12*60) * time.Minute)
	if rng.IntN(3) == 0 {
		w.from = w.from.Add(time.Duration(rng.IntN(60_000)) * time.Millisecond)
	}
	w.to = w.from.Add(min(time.Duration(rng.IntN(72*60))*time.Minute, 120*step))
	return w
}

func randomService(rng *rand.Rand, name string) *model.Service {
	svc := &model.Service{ID: uuid.NewSHA1(uuid.NameSpaceOID, []byte(name)), IsActive: true, PriceCents: 1000}
	if rng.IntN(2) == 0 { // buffers (decisions §9)
		svc.BufferBeforeMinutes, svc.BufferAfterMinutes = randomBuffer(rng), randomBuffer(rng)
	}
	if rng.IntN(2) == 0 {
		svc.DurationMinutes = 5 * (1 + rng.IntN(24))
		return svc
	}
	for i := range 1 + rng.IntN(4) {
		kind := model.Active
		if i%2 == 1 && rng.IntN(4) > 0 {
			kind = model.Gap
		}
		d := 5 * rng.IntN(13)
		svc.Segments = append(svc.Segments, model.SegmentTemplate{Kind: kind, DurationMinutes: d})
		svc.DurationMinutes += d
	}
	return svc
}

// randomTimetable lists up to six start times a day, on five-minute
// marks, some days none.
func randomTimetable(rng *rand.Rand) *model.Timetable {
	var t model.Timetable
	for d := range t {
		for range rng.IntN(7) {
			t[d] = append(t[d], model.Clock(5*rng.IntN(24*12)))
		}
		slices.Sort(t[d])
		t[d] = slices.Compact(t[d])
	}
	return &t
}

func randomLimit(rng *rand.Rand) *int {
	if rng.IntN(3) == 0 {
		return nil
	}
	n := 1 + rng.IntN(3)
	return &n
}

// worldTally counts the world's bookings as a Tally, without the booking
// except.
type worldTally struct {
	w      *world
	except uuid.UUID
}

func (t worldTally) Days(staff, svc uuid.UUID, from int64, all, ofSvc []int) {
	for _, b := range t.w.bookings {
		if i := LocalDay(b.start, t.w.loc) - from; b.owner != t.except && b.staff == staff && i >= 0 && i < int64(len(all)) {
			all[i]++
			if b.svc == svc {
				ofSvc[i]++
			}
		}
	}
}

// overLimit is the oracle of the limits, from the definitions: the
// bookings of st that start on the start's local date, and in its Monday
// to Sunday week, compared with date arithmetic of package time.
func (w *world) overLimit(st *model.Staff, start time.Time, except uuid.UUID) bool {
	date := func(t time.Time) time.Time {
		l := t.In(w.loc)
		return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
	}
	monday := func(d time.Time) time.Time { return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7)) }
	day, week := date(start), monday(date(start))
	var dAll, dSvc, wAll, wSvc int
	for _, b := range w.bookings {
		if b.owner == except || b.staff != st.ID {
			continue
		}
		bd := date(b.start)
		if bd.Equal(day) {
			dAll++
			if b.svc == w.svc.ID {
				dSvc++
			}
		}
		if monday(bd).Equal(week) {
			wAll++
			if b.svc == w.svc.ID {
				wSvc++
			}
		}
	}
	over := func(n int, lim *int) bool { return lim != nil && n >= *lim }
	if l := w.svc.Limits; l != nil && (over(dSvc, l.PerDay) || over(wSvc, l.PerWeek)) {
		return true
	}
	l := w.biz.Limits
	return l != nil && (over(dAll, l.PerStaffPerDay) || over(wAll, l.PerStaffPerWeek))
}

func randomBuffer(rng *rand.Rand) int { return []int{0, 5, 10, 15, 30, 60, 240}[rng.IntN(7)] }

func randomStaff(rng *rand.Rand, i int, base time.Time, svc uuid.UUID) model.Staff {
	st := model.Staff{ID: uuid.NewSHA1(uuid.NameSpaceOID, fmt.Append(nil, "staff", i)), Name: fmt.Sprint("staff", i),
		IsActive: rng.IntN(10) > 0, IsBookable: rng.IntN(10) > 0}
	if rng.IntN(5) > 0 {
		st.AssignedServiceIDs = []uuid.UUID{uuid.New(), svc}
	}
	for d := range 7 {
		st.Hours[d] = randomHours(rng)
	}
	for range rng.IntN(3) {
		st.Exceptions = append(st.Exceptions, model.Exception{Date: model.DateOf(base.AddDate(0, 0, rng.IntN(5)-2)), Hours: randomHours(rng)})
	}
	return st
}

// randomHours makes 0 to 3 spans, now and then unsorted, overlapping,
// touching midnight or lying in a time a DST change skips.
func randomHours(rng *rand.Rand) []model.Span {
	var out []model.Span
	for range rng.IntN(4) {
		unit := []int{60, 30, 5, 1}[rng.IntN(4)]
		a := unit * rng.IntN(24*60/unit)
		b := min(a+unit*(1+rng.IntN(12*60/unit)), 24*60)
		switch rng.IntN(8) {
		case 0:
			a = 0
		case 1:
			b = 24 * 60
		}
		out = append(out, model.Span{From: model.Clock(a), To: model.Clock(b)})
	}
	return out
}

// check compares Slots with Decide, and Decide with the oracle, at every grid
// start in the window (found independently of the package, minute by minute
// from the wall clock), and at a few starts off the grid.
func (w *world) check(t *testing.T, rng *rand.Rand) {
	q := &Query{Business: &w.biz, Loc: w.loc, Now: w.now, Service: w.svc, Staff: w.staff, Index: w.index, From: w.from, To: w.to,
		Tally: worldTally{w: w}, Resources: w.resources, Sessions: w}
	slots := Slots(q, nil)
	offered := map[int64][]uuid.UUID{}
	for i, s := range slots {
		if i > 0 && !slots[i-1].Start().Before(s.Start()) {
			t.Fatalf("slots out of order at %s", s.Start())
		}
		if !w.onGrid(s.Start()) || s.Start().Before(w.from) || s.Start().After(w.to) {
			t.Fatalf("slot %s is off the grid or outside the window", s.Start())
		}
		if s.End().Sub(s.Start()) != time.Duration(w.svc.DurationMinutes)*time.Minute {
			t.Fatalf("slot %s ends at %s", s.Start(), s.End())
		}
		offered[s.Start().UnixMilli()] = s.StaffIDs(w.staff)
		if want := w.seatsLeft(s.Start(), s.Staff); s.SeatsLeft != want {
			t.Fatalf("slot %s has %d seats left, want %d", s.Start(), s.SeatsLeft, want)
		}
	}
	last := uuid.Nil
	if rng.IntN(3) > 0 {
		last = w.staff[rng.IntN(len(w.staff))].ID
	}
	seen := 0
	for m := ceilMs(w.from.Truncate(time.Minute)); m <= w.to.UnixMilli(); m += msMinute {
		start := time.UnixMilli(m).UTC()
		if start.Before(w.from) {
			continue
		}
		grid := w.onGrid(start)
		if !grid && rng.IntN(50) > 0 {
			continue
		}
		seen++
		var want []uuid.UUID
		for i := range w.staff {
			r := w.request(start, &w.staff[i].ID, last)
			d, err := Decide(r)
			if code := w.oracle(r); codeOf(err) != code {
				t.Fatalf("%s pinned %s: Decide says %s, the oracle %s", start, w.staff[i].Name, codeOf(err), code)
			}
			if err == nil {
				want = append(want, w.staff[i].ID)
				if d.Staff.ID != w.staff[i].ID {
					t.Fatalf("%s pinned %s: assigned to %s", start, w.staff[i].Name, d.Staff.Name)
				}
			}
		}
		if got := offered[m]; !slices.Equal(got, want) {
			t.Fatalf("%s: Slots offers %v, Decide accepts %v", start, got, want)
		}
		r := w.request(start, nil, last)
		d, err := Decide(r)
		code, pick := w.oracleAuto(r)
		if codeOf(err) != code || err == nil && d.Staff.ID != pick {
			t.Fatalf("%s auto: Decide says %s %v, the oracle %s %v", start, codeOf(err), d, code, pick)
		}
		if (err == nil) != (len(want) > 0) {
			t.Fatalf("%s auto: Decide says %s while pinned decisions accept %v", start, codeOf(err), want)
		}
		w.checkLoose(t, start, rng)
	}
	if seen == 0 && len(slots) > 0 {
		t.Fatalf("no grid start found but %d slots", len(slots))
	}
}

// checkLoose checks Decide without the booking rules, and moving a booking,
// against the oracle.
func (w *world) checkLoose(t *testing.T, start time.Time, rng *rand.Rand) {
	i := rng.IntN(len(w.staff))
	r := w.request(start, &w.staff[i].ID, uuid.Nil)
	if rng.IntN(2) == 0 {
		r.Pinned = nil
	}
	r.Enforce = rng.IntN(2) == 0
	if len(w.bookings) > 0 && rng.IntN(2) == 0 {
		b := w.bookings[rng.IntN(len(w.bookings))]
		r.Except = b.owner
		r.Tally = worldTally{w: w, except: b.owner}
	}
	_, err := Decide(r)
	var want problem.Code
	if r.Pinned != nil {
		want = w.oracle(r)
	} else {
		want, _ = w.oracleAuto(r)
	}
	if codeOf(err) != want {
		t.Fatalf("%s enforce=%v pinned=%v except=%v: Decide says %s, the oracle %s", start, r.Enforce, r.Pinned != nil, r.Except, codeOf(err), want)
	}
}

func (w *world) request(start time.Time, pinned *uuid.UUID, last uuid.UUID) *Request {
	return &Request{Business: &w.biz, Loc: w.loc, Now: w.now, Service: w.svc, Start: start, Staff: w.staff,
		Pinned: pinned, Enforce: true, CustomerOnFile: true, Index: w.index, LastAssigned: last, Tally: worldTally{w: w},
		Resources: w.resources, Sessions: w}
}

// seatsLeft is what a slot of the class at start, listing staff, shows:
// the capacity when one of them has no session there, else the most
// seats one of their sessions has left; 0 for a service that is not a
// class.
func (w *world) seatsLeft(start time.Time, staff []int32) int32 {
	if !w.svc.IsClass() {
		return 0
	}
	most := 0
	for _, i := range staff {
		x, ok := w.session(&w.staff[i], start)
		if !ok {
			return int32(w.svc.Capacity)
		}
		most = max(most, w.svc.Capacity-x.seats)
	}
	return int32(most)
}

func codeOf(err *problem.Error) problem.Code {
	if err == nil {
		return "ok"
	}
	return err.Code
}

// onGrid is the grid, or the service's timetable, read off the wall
// clock.
func (w *world) onGrid(t time.Time) bool {
	l := t.In(w.loc)
	if l.Second() != 0 || l.Nanosecond() != 0 {
		return false
	}
	if tt := w.svc.Timetable; tt != nil {
		return slices.Contains(tt[l.Weekday()], model.Clock(l.Hour()*60+l.Minute()))
	}
	return (l.Hour()*60+l.Minute())%gridStep(w.biz.Rules.SlotIntervalMinutes) == 0
}

// The oracle: the refusal of decisions §4 computed straight from the
// definitions, for a pinned staff member.
func (w *world) oracle(r *Request) problem.Code {
	if !w.svc.IsActive {
		return problem.ServiceNotBookable
	}
	st := &w.staff[slices.IndexFunc(w.staff, func(s model.Staff) bool { return s.ID == *r.Pinned })]
	if !Eligible(st, w.svc) {
		return problem.StaffNotBookable
	}
	if x, ok := w.session(st, r.Start); ok { // join it, or it is full
		if code := w.startRules(r.Start); r.Enforce && code != "" {
			return code
		}
		if x.seats < w.svc.Capacity {
			return "ok"
		}
		return problem.SessionFull
	}
	if r.Enforce {
		if code := w.startRules(r.Start); code != "" {
			return code
		}
		if !w.works(st, r.Start) {
			return problem.SlotNotOffered
		}
		if w.overLimit(st, r.Start, r.Except) {
			return problem.BookingLimitReached
		}
	}
	if !w.index.Fits(st.ID, Occupied(w.svc, r.Start), r.Except) {
		return problem.SlotTaken
	}
	if r.Enforce && !w.gapOK(st, r.Start, r.Except) {
		return problem.BookingSlotNotConnected
	}
	if !w.roomFree(r.Start) {
		return problem.ResourceUnavailable
	}
	return "ok"
}

// roomFree reports whether the service's resources have the units it
// needs at every minute of a booking at start, counted one minute at a
// time.
func (w *world) roomFree(start time.Time) bool {
	for _, n := range w.svc.Resources {
		i := slices.IndexFunc(w.resources, func(r model.Resource) bool { return r.ID == n.ResourceID })
		if i < 0 || !w.resources[i].IsActive {
			return false
		}
		for _, sp := range Occupied(w.svc, start) {
			for m := sp.Start; m < sp.End; m += msMinute {
				units := n.Quantity
				for _, it := range w.taken {
					if it.Start <= m && m < it.End {
						units += int(it.Units)
					}
				}
				if units > w.resources[i].Quantity {
					return false
				}
			}
		}
	}
	return true
}

// oracleAuto is the oracle for a booking with nobody pinned, and the staff
// member the strategy should pick.
func (w *world) oracleAuto(r *Request) (problem.Code, uuid.UUID) {
	if !w.svc.IsActive {
		return problem.ServiceNotBookable, uuid.Nil
	}
	if r.Enforce {
		if code := w.startRules(r.Start); code != "" {
			return code, uuid.Nil
		}
	}
	join, most, full := -1, -1, false
	for i := range w.staff {
		if x, ok := w.session(&w.staff[i], r.Start); ok && Eligible(&w.staff[i], w.svc) {
			if x.seats >= w.svc.Capacity {
				full = true
			} else if x.seats > most {
				join, most = i, x.seats
			}
		}
	}
	if join >= 0 { // the fullest session with a free seat
		return "ok", w.staff[join].ID
	}
	code, pick := w.oracleOpen(r)
	if full && (code == problem.NoStaffAvailable || code == problem.SlotTaken) {
		return problem.SessionFull, uuid.Nil
	}
	return code, pick
}

// oracleOpen is oracleAuto for a booking that joins no session.
func (w *world) oracleOpen(r *Request) (problem.Code, uuid.UUID) {
	var working, below, free, fine []int
	for i := range w.staff {
		st := &w.staff[i]
		if !Eligible(st, w.svc) || r.Enforce && !w.works(st, r.Start) {
			continue
		}
		working = append(working, i)
		if r.Enforce && w.overLimit(st, r.Start, r.Except) {
			continue
		}
		below = append(below, i)
		if !w.index.Fits(st.ID, Occupied(w.svc, r.Start), r.Except) {
			continue
		}
		free = append(free, i)
		if !r.Enforce || w.gapOK(st, r.Start, r.Except) {
			fine = append(fine, i)
		}
	}
	switch {
	case len(working) == 0 && r.Enforce:
		return problem.SlotNotOffered, uuid.Nil
	case len(below) == 0 && r.Enforce:
		return problem.BookingLimitReached, uuid.Nil
	case len(free) == 0:
		return problem.NoStaffAvailable, uuid.Nil
	case len(fine) == 0:
		return problem.BookingSlotNotConnected, uuid.Nil
	case !w.roomFree(r.Start):
		return problem.ResourceUnavailable, uuid.Nil
	}
	return "ok", w.staff[w.strategy(r, fine)].ID
}

func (w *world) startRules(start time.Time) problem.Code {
	br := &w.biz.Rules
	switch {
	case start.Before(w.now.Add(time.Duration(br.MinNoticeMinutes) * time.Minute)):
		return problem.BookingTooSoon
	case !start.Before(w.now.Add(time.Duration(br.MaxAdvanceDays) * 24 * time.Hour)):
		return problem.BookingTooFarAhead
	}
	for _, p := range br.RestrictedPeriods {
		if !start.Before(p.From) && start.Before(p.To) {
			return problem.BookingPeriodRestricted
		}
	}
	if !w.onGrid(start) {
		return problem.SlotNotOffered
	}
	return ""
}

func (w *world) strategy(r *Request, fine []int) int {
	switch w.biz.Assignment {
	case model.FirstAvailable:
		return fine[0]
	case model.RoundRobin:
		at := slices.IndexFunc(w.staff, func(s model.Staff) bool { return s.ID == r.LastAssigned })
		for _, i := range fine {
			if i > at {
				return i
			}
		}
		return fine[0]
	}
	l := r.Start.In(w.loc)
	day := interval.Span{Start: time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, w.loc).UnixMilli(),
		End: time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, w.loc).UnixMilli()}
	best, least := -1, int64(0)
	for _, i := range fine {
		var sum int64
		w.index.Tree(w.staff[i].ID).All(func(it interval.Item) bool {
			if it.Owner != r.Except && it.Overlaps(day) {
				sum += min(it.End, day.End) - max(it.Start, day.Start)
			}
			return true
		})
		if best < 0 || sum < least {
			best, least = i, sum
		}
	}
	return best
}

func actives(svc *model.Service, start time.Time) []interval.Span {
	var out []interval.Span
	for _, p := range Footprint(svc, start) {
		if p.Kind == model.Active && p.Span.End > p.Span.Start {
			out = append(out, p.Span)
		}
	}
	return out
}

// works reports whether every active piece lies inside one span of st's
// working time.
func (w *world) works(st *model.Staff, start time.Time) bool {
	ws := Working(st, &w.biz, w.loc, interval.Span{Start: start.UnixMilli() - msDay, End: start.UnixMilli() + 2*msDay})
	for _, a := range actives(w.svc, start) {
		if !slices.ContainsFunc(ws, func(s interval.Span) bool { return s.Start <= a.Start && a.End <= s.End }) {
			return false
		}
	}
	return true
}

// gapOK scans minute by minute outward from each active piece through free
// working time. A run stopped by the booking's own piece is its processing
// gap and is not judged; any other run must be empty or reach minGap.
func (w *world) gapOK(st *model.Staff, start time.Time, except uuid.UUID) bool {
	minGap := int64(w.biz.Rules.MinGapMinutes)
	if !w.biz.Rules.PreventGaps || minGap <= 0 {
		return true
	}
	own := Occupied(w.svc, start) // buffers included (decisions §9)
	ws := Working(st, &w.biz, w.loc, interval.Span{Start: start.UnixMilli() - msDay, End: start.UnixMilli() + 2*msDay})
	tree, ext := w.index.Tree(st.ID), w.index.External(st.ID)
	// what is the minute starting at m: 0 free, 1 the booking's own, 2 anything else
	what := func(m int64) int {
		q := interval.Span{Start: m, End: m + msMinute}
		switch {
		case slices.ContainsFunc(own, q.Overlaps):
			return 1
		case !slices.ContainsFunc(ws, func(s interval.Span) bool { return s.Start <= m && m+msMinute <= s.End }):
			return 2
		case tree.OverlapsExcept(q, except) || ext.Overlaps(q):
			return 2
		}
		return 0
	}
	for _, p := range own {
		for _, dir := range []int64{-1, 1} {
			m := p.End
			if dir < 0 {
				m = p.Start - msMinute
			}
			n := int64(0)
			for ; n < minGap && what(m) == 0; n++ {
				m += dir * msMinute
			}
			if n > 0 && n < minGap && what(m) == 2 {
				return false
			}
		}
	}
	return true
}
