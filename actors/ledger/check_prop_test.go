package ledger

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// TestCheckAgreesWithBooking checks the promise of explained availability
// (decisions §6) on a few hundred random businesses: for every start asked
// about, Check's code is exactly the code POST /appointments would get at
// that moment (rules enforced, a customer already on file), each staff
// verdict is the code of a booking pinned to that staff member, and a hold
// for the same input succeeds exactly when Check says bookable, refusing
// with the same code otherwise. The calendars are made through the real
// decisions (DecideCreate with and without the rules, DecideHold, expiry
// and release) and applied through the journal's codec.
//
// Payments are left out on purpose: a booking that needs prepayment from a
// business without a provider is refused PAYMENTS_UNAVAILABLE after the
// slot is decided, which Check does not model (see the report of the
// session that added this test).
func TestCheckAgreesWithBooking(t *testing.T) {
	rng := rand.New(rand.NewPCG(20260601, 6))
	tally := map[problem.Code]int{}
	staffTally := map[problem.Code]int{}
	for i := range 200 {
		b := newCheckBiz(t, rng, i)
		if !t.Run(fmt.Sprint(i), func(t *testing.T) { b.check(t, rng, tally, staffTally) }) {
			return
		}
	}
	t.Logf("top-level codes: %v", tally)
	t.Logf("staff codes: %v", staffTally)
	// A healthy mix, so the comparison cannot pass vacuously.
	require.GreaterOrEqual(t, tally[""], 50, "bookable")
	require.GreaterOrEqual(t, tally[problem.SlotTaken]+tally[problem.NoStaffAvailable], 20, "taken")
	require.GreaterOrEqual(t, tally[problem.SlotTaken], 3)
	require.GreaterOrEqual(t, tally[problem.NoStaffAvailable], 3)
	require.GreaterOrEqual(t, tally[problem.SlotNotOffered], 20)
	require.GreaterOrEqual(t, tally[problem.BookingTooSoon], 20)
	require.GreaterOrEqual(t, tally[problem.BookingTooFarAhead], 5)
	for _, c := range []problem.Code{problem.BookingSlotNotConnected, problem.BookingPeriodRestricted, problem.BookingLimitReached, problem.ResourceUnavailable,
		problem.SessionFull, problem.StaffNotBookable, problem.ServiceNotBookable, problem.Validation} {
		require.GreaterOrEqual(t, tally[c], 1, "%s never came up", c)
	}
	require.Zero(t, tally[problem.BookingRequiresCustomer], "a check judges as for a customer on file")
	require.GreaterOrEqual(t, staffTally[""], 50)
	require.GreaterOrEqual(t, staffTally[problem.SlotTaken], 20)
}

// checkBiz is one random business, its calendar made, and the moment
// everything is judged at.
type checkBiz struct {
	s      *State
	loc    *time.Location
	now    time.Time
	base   time.Time // local, near a DST change for zones that have one
	ids    *seqIDs
	onFile string // e-mail of a customer on file
	taken  []span // footprints of bookings and holds made, for starts next to them
	made   []string
}

type span struct{ start, end time.Time }

// seqIDs mints distinct ids (fixedIDs wraps after 255).
type seqIDs struct{ n uint64 }

func (x *seqIDs) UUID() uuid.UUID {
	x.n++
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], x.n)
	return uuid.NewSHA1(uuid.NameSpaceX500, b[:])
}
func (x *seqIDs) Event(time.Time) string   { x.n++; return fmt.Sprintf("evt_%026d", x.n) }
func (x *seqIDs) Mail(at time.Time) string { return x.Event(at) }

var checkZones = []string{"Europe/Amsterdam", "America/New_York", "Australia/Lord_Howe", "UTC", "Asia/Kolkata"}

// The 2026 transitions of the zones above, and two ordinary dates.
var checkDates = map[string][]string{
	"Europe/Amsterdam":    {"2026-03-29", "2026-10-25"},
	"America/New_York":    {"2026-03-08", "2026-11-01"},
	"Australia/Lord_Howe": {"2026-04-05", "2026-10-04"},
	"":                    {"2026-06-17", "2026-01-14"},
}

func rngUUID(rng *rand.Rand) uuid.UUID {
	var u uuid.UUID
	binary.BigEndian.PutUint64(u[:8], rng.Uint64())
	binary.BigEndian.PutUint64(u[8:], rng.Uint64())
	u[6], u[8] = u[6]&0x0f|0x40, u[8]&0x3f|0x80
	return u
}

func newCheckBiz(t *testing.T, rng *rand.Rand, n int) *checkBiz {
	tz := checkZones[rng.IntN(len(checkZones))]
	loc, err := time.LoadLocation(tz)
	require.NoError(t, err)
	dates := checkDates[""]
	if d, ok := checkDates[tz]; ok && rng.IntN(3) > 0 {
		dates = d
	}
	day, err := time.ParseInLocation(time.DateOnly, dates[rng.IntN(len(dates))], loc)
	require.NoError(t, err)
	b := &checkBiz{base: day, loc: loc, ids: &seqIDs{n: uint64(n) << 32}}

	biz := model.Business{ID: rngUUID(rng), Name: fmt.Sprint("biz", n), Timezone: tz, Currency: "EUR",
		Plan: model.Pro, Modules: model.AllModules,
		Assignment: []model.Assignment{model.FirstAvailable, model.LeastBusy, model.RoundRobin}[rng.IntN(3)],
		Rules: model.BookingRules{
			MinNoticeMinutes:        []int{0, 0, 30, 60, 120, 240, 720}[rng.IntN(7)],
			MaxAdvanceDays:          []int{1, 3, 5, 7, 30}[rng.IntN(5)],
			SlotIntervalMinutes:     []int{5, 10, 15, 30}[rng.IntN(4)],
			RequireExistingCustomer: rng.IntN(4) == 0,
			PreventGaps:             rng.IntN(2) == 0,
			MinGapMinutes:           []int{10, 15, 30, 45, 60}[rng.IntN(5)],
		}}
	for range rng.IntN(3) {
		from := day.Add(time.Duration(rng.IntN(72*60)-12*60) * time.Minute)
		biz.Rules.RestrictedPeriods = append(biz.Rules.RestrictedPeriods,
			model.Period{From: from.UTC(), To: from.Add(time.Duration(15+rng.IntN(8*60)) * time.Minute).UTC()})
	}
	if rng.IntN(6) == 0 {
		biz.ClosedDates = append(biz.ClosedDates, model.DateOf(day.AddDate(0, 0, rng.IntN(3))))
	}
	if rng.IntN(3) == 0 { // booking limits per staff member (decisions §9)
		biz.Limits = &model.StaffLimits{PerStaffPerDay: randLimit(rng), PerStaffPerWeek: randLimit(rng)}
	}
	cat := rngUUID(rng)
	sp := &model.Spec{Business: biz, Categories: []model.Category{{ID: cat, Name: "C"}}}
	for i := range 1 + rng.IntN(4) {
		sp.Services = append(sp.Services, randCheckService(rng, i, cat))
		if rng.IntN(3) == 0 {
			sp.Services[i].Limits = &model.BookingLimits{PerDay: randLimit(rng), PerWeek: randLimit(rng)}
		}
	}
	if rng.IntN(2) == 0 { // a room some services need (decisions §10)
		room := model.Resource{ID: rngUUID(rng), Name: "Room", Quantity: 1 + rng.IntN(2), IsActive: true}
		sp.Resources = []model.Resource{room}
		for i := range sp.Services {
			if rng.IntN(2) == 0 {
				sp.Services[i].Resources = []model.ResourceNeed{{ResourceID: room.ID, Quantity: 1 + rng.IntN(room.Quantity), Name: room.Name}}
			}
		}
	}
	if k := rng.IntN(len(sp.Services) * 4); k < len(sp.Services) {
		sp.Services[k].IsActive = false // one sometimes inactive
	} else if rng.IntN(15) == 0 {
		sp.Services[rng.IntN(len(sp.Services))].Deleted = true
	}
	for i := range 1 + rng.IntN(4) {
		st := model.Staff{ID: rngUUID(rng), Name: fmt.Sprint("staff", i), IsActive: rng.IntN(10) > 0, IsBookable: rng.IntN(10) > 0}
		for _, svc := range sp.Services {
			if rng.IntN(6) > 0 {
				st.AssignedServiceIDs = append(st.AssignedServiceIDs, svc.ID)
			}
		}
		for d := range 7 {
			st.Hours[d] = randCheckDay(rng)
		}
		if rng.IntN(5) == 0 {
			st.Exceptions = append(st.Exceptions, model.Exception{Date: model.DateOf(day.AddDate(0, 0, rng.IntN(3))), Hours: randCheckDay(rng)})
		}
		sp.Staff = append(sp.Staff, st)
	}
	created := day.Add(-30 * 24 * time.Hour).UTC()
	s, _ := put(t, nil, sp, created)

	// A customer on file, made as POST /customers makes one.
	b.onFile = "onfile@example.com"
	ch, _, err := DecideCustomer(s, model.Customer{FirstName: "On", Email: b.onFile}, created, b.ids)
	require.NoError(t, err)
	s = step(t, s, ch)

	b.now = day.Add(time.Duration(rng.IntN(42*60)-36*60) * time.Minute).UTC()
	if rng.IntN(4) == 0 {
		b.now = b.now.Add(time.Duration(rng.IntN(60_000)) * time.Millisecond)
	}

	// Existing bookings, with and without the rules, then holds: some left
	// live, some expired by the timer, some released.
	last := map[uuid.UUID]time.Time{} // each class's last start booked, to book again
	for i := range rng.IntN(60) {
		svc := sp.Services[rng.IntN(len(sp.Services))]
		at := b.wallStart(rng, s)
		if t, ok := last[svc.ID]; ok && svc.IsClass() && rng.IntN(3) > 0 {
			at = t // another seat of a session, often filling it (decisions §10)
		}
		last[svc.ID] = at
		in := &CreateInput{ServiceID: svc.ID, Start: at, Enforce: rng.IntN(2) == 0,
			Customer: model.Customer{FirstName: "C", Email: fmt.Sprintf("c%d@example.com", i)}}
		if rng.IntN(4) == 0 {
			in.Customer.Email = b.onFile
		}
		if rng.IntN(2) == 0 {
			in.StaffID = &sp.Staff[rng.IntN(len(sp.Staff))].ID
		}
		ch, a, err := DecideCreate(s, in, b.now, b.ids)
		if err != nil {
			continue
		}
		s = step(t, s, ch)
		b.taken = append(b.taken, span{a.StartTime, a.EndTime})
		b.made = append(b.made, fmt.Sprintf("booking %s %s-%s staff=%s enforce=%v", svc.Name, b.local(a.StartTime), b.local(a.EndTime), a.Staff.Name, in.Enforce))
	}
	var holds []uuid.UUID
	for range rng.IntN(8) {
		svc := sp.Services[rng.IntN(len(sp.Services))]
		made := b.now.Add(-time.Duration(rng.IntN(40)) * time.Minute)
		in := &HoldInput{ServiceID: svc.ID, Start: b.wallStart(rng, s), TTL: time.Duration(30+rng.IntN(1771)) * time.Second}
		if rng.IntN(2) == 0 {
			in.StaffID = &sp.Staff[rng.IntN(len(sp.Staff))].ID
		}
		ch, h, err := DecideHold(s, in, made, b.ids)
		if err != nil {
			continue
		}
		s = step(t, s, ch)
		holds = append(holds, h.ID)
		b.taken = append(b.taken, span{h.Start, h.End})
		b.made = append(b.made, fmt.Sprintf("hold %s %s-%s staff=%s expires=%s", svc.Name, b.local(h.Start), b.local(h.End), s.StaffMember(h.StaffID).Name, b.local(h.ExpiresAt)))
	}
	// External busy time (decisions §8) over some staff members, laid
	// over bookings and holds as it comes: anything, overlapping or not.
	for _, st := range sp.Staff {
		if rng.IntN(3) != 0 {
			continue
		}
		from := b.now.Add(-24 * time.Hour)
		in := &BusyPut{Staff: st.ID, Source: fmt.Sprint("src", rng.IntN(2)), From: from, To: from.Add(30 * 24 * time.Hour)}
		for range 1 + rng.IntN(6) {
			start := b.wallStart(rng, s).Add(time.Duration(rng.IntN(7)-3) * 15 * time.Minute)
			if start.Before(in.From) {
				continue
			}
			end := start.Add(time.Duration(5+rng.IntN(120)) * time.Minute)
			in.Busy = append(in.Busy, model.BusyTime{Start: start, End: end, ExternalID: fmt.Sprint("e", rng.IntN(9))})
			b.taken = append(b.taken, span{start, end})
			b.made = append(b.made, fmt.Sprintf("busy %s %s-%s staff=%s", in.Source, b.local(start), b.local(end), st.Name))
		}
		ch, err := DecideBusyPut(s, in, b.now)
		require.NoError(t, err)
		s = step(t, s, ch)
	}
	if ch := DecideExpiries(s, b.now, b.ids); ch != nil {
		s = step(t, s, ch)
	}
	for _, id := range holds {
		if rng.IntN(6) == 0 {
			if ch, err := DecideRelease(s, id, b.now, b.ids); err == nil && ch != nil {
				s = step(t, s, ch)
				b.made = append(b.made, "released hold "+id.String())
			}
		}
	}
	b.s = s
	return b
}

// randLimit is a small limit, often reached by the calendars made, or
// none.
func randLimit(rng *rand.Rand) *int {
	if rng.IntN(3) == 0 {
		return nil
	}
	n := 1 + rng.IntN(4)
	return &n
}

func randCheckService(rng *rand.Rand, i int, cat uuid.UUID) model.Service {
	svc := model.Service{ID: rngUUID(rng), Name: fmt.Sprint("svc", i), IsActive: true, CategoryID: cat, PriceCents: 1000 + 500*rng.IntN(10)}
	if rng.IntN(2) == 0 { // buffers (decisions §9)
		pick := func() int { return []int{0, 5, 10, 15, 30, 60}[rng.IntN(6)] }
		svc.BufferBeforeMinutes, svc.BufferAfterMinutes = pick(), pick()
	}
	if rng.IntN(3) == 0 { // a class (decisions §10)
		svc.Capacity = 2 + rng.IntN(3)
	}
	if rng.IntN(2) == 0 {
		svc.DurationMinutes = 5 * (1 + rng.IntN(18))
		return svc
	}
	// active, gap, active (and now and then one more gap and active)
	n := 3
	if rng.IntN(4) == 0 {
		n = 5
	}
	for j := range n {
		kind := model.Active
		if j%2 == 1 {
			kind = model.Gap
		}
		d := 5 * (1 + rng.IntN(12))
		svc.Segments = append(svc.Segments, model.SegmentTemplate{Kind: kind, DurationMinutes: d})
		svc.DurationMinutes += d
	}
	return svc
}

// randCheckDay is one weekday's working time: mostly an ordinary day, with
// or without a lunch break; now and then off, round the clock, a night
// shift over the hours a DST change moves, or odd spans.
func randCheckDay(rng *rand.Rand) []model.Span {
	switch r := rng.IntN(20); {
	case r < 3:
		return nil
	case r < 4:
		return []model.Span{{From: 0, To: 24 * 60}}
	case r < 5:
		return []model.Span{{From: 0, To: model.Clock(60 * (4 + rng.IntN(4)))}}
	case r < 6:
		var out []model.Span
		for range 1 + rng.IntN(3) {
			a := 5 * rng.IntN(24*12)
			out = append(out, model.Span{From: model.Clock(a), To: model.Clock(min(a+5*(1+rng.IntN(12*12)), 24*60))})
		}
		return out
	}
	from := 6*60 + 15*rng.IntN(17)
	to := min(from+60*(4+rng.IntN(7)), 24*60)
	if to-from >= 6*60 && rng.IntN(2) == 0 {
		mid := from + 3*60 + 15*rng.IntN(8)
		return []model.Span{{From: model.Clock(from), To: model.Clock(mid)}, {From: model.Clock(mid + 30 + 15*rng.IntN(3)), To: model.Clock(to)}}
	}
	return []model.Span{{From: model.Clock(from), To: model.Clock(to)}}
}

// wallStart is a start on the business's grid by the wall clock, on a day
// near base, mostly in ordinary working hours.
func (b *checkBiz) wallStart(rng *rand.Rand, s *State) time.Time {
	every := max(s.Business.Rules.SlotIntervalMinutes, 1)
	min0 := 6 * 60
	span := 14 * 60
	if rng.IntN(5) == 0 {
		min0, span = 0, 24*60
	}
	m := min0 + every*rng.IntN(span/every)
	return time.Date(b.base.Year(), b.base.Month(), b.base.Day()+rng.IntN(5)-1, 0, m, 0, 0, s.Loc).UTC()
}

// starts returns the starts to ask about: on and off the grid, in and out
// of working time, next to the bookings made, in the past, inside the
// notice, at and beyond the advance limit, in restricted periods, and
// through the night a DST change falls in.
func (b *checkBiz) starts(rng *rand.Rand) []time.Time {
	s, br := b.s, &b.s.Business.Rules
	var out []time.Time
	add := func(t time.Time) { out = append(out, t.UTC()) }
	for range 10 {
		add(b.wallStart(rng, s))
	}
	for range 3 {
		t := b.wallStart(rng, s)
		switch rng.IntN(3) {
		case 0:
			add(t.Add(time.Duration(1+rng.IntN(4)) * time.Minute))
		case 1:
			add(t.Add(time.Duration(1+rng.IntN(59)) * time.Second))
		default:
			add(t.Add(time.Duration(1+rng.IntN(999)) * time.Millisecond))
		}
	}
	for range 6 {
		if len(b.taken) == 0 {
			break
		}
		tk := b.taken[rng.IntN(len(b.taken))]
		svc := s.Services[rng.IntN(len(s.Services))]
		d := time.Duration(svc.DurationMinutes) * time.Minute
		gap := time.Duration(5*rng.IntN(13)) * time.Minute
		add([]time.Time{tk.start, tk.end, tk.end.Add(gap), tk.start.Add(-d), tk.start.Add(-d - gap), tk.start.Add(gap)}[rng.IntN(6)])
	}
	add(b.now.Add(-time.Duration(1+rng.IntN(600)) * time.Minute).Truncate(5 * time.Minute))
	notice := time.Duration(br.MinNoticeMinutes) * time.Minute
	add(b.now.Add(notice)) // the first instant the notice allows
	if notice > 0 {
		add(b.now.Add(time.Duration(rng.Int64N(int64(notice)))).Truncate(5 * time.Minute))
	}
	ahead := b.now.Add(time.Duration(br.MaxAdvanceDays) * 24 * time.Hour)
	add(ahead)
	add(ahead.Add(-time.Duration(rng.IntN(120)) * time.Minute).Truncate(5 * time.Minute))
	add(ahead.Add(time.Duration(rng.IntN(48*60)) * time.Minute).Truncate(5 * time.Minute))
	for _, p := range br.RestrictedPeriods {
		add(p.From)
		add(p.To)
		if n := p.To.Sub(p.From); n > 0 {
			add(p.From.Add(time.Duration(rng.Int64N(int64(n)))).Truncate(5 * time.Minute))
		}
	}
	// The night of base (a DST change in those zones), every 15 minutes
	// of elapsed time from local midnight for six hours.
	for i := range 24 {
		if rng.IntN(4) == 0 {
			add(b.base.Add(time.Duration(i) * 15 * time.Minute))
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// check asks Check about the starts, for a few services, with and without
// a pinned staff member, and compares every verdict with DecideCreate and
// DecideHold.
func (b *checkBiz) check(t *testing.T, rng *rand.Rand, tally, staffTally map[problem.Code]int) {
	s := b.s
	starts := b.starts(rng)
	for range 2 {
		svcID := s.Services[rng.IntN(len(s.Services))].ID
		if rng.IntN(60) == 0 {
			svcID = rngUUID(rng) // unknown
		}
		pins := []*uuid.UUID{nil}
		st := s.Staff[rng.IntN(len(s.Staff))].ID
		pins = append(pins, &st)
		if rng.IntN(60) == 0 {
			u := rngUUID(rng)
			pins = append(pins, &u) // unknown
		}
		for _, pin := range pins {
			b.compare(t, &CheckInput{ServiceID: svcID, StaffID: pin, Starts: starts}, tally, staffTally)
		}
	}
}

func (b *checkBiz) compare(t *testing.T, in *CheckInput, tally, staffTally map[problem.Code]int) {
	t.Helper()
	s := b.s
	vs, cerr := Check(s, in, b.now)
	if cerr != nil {
		// A validation error: the booking and the hold get the same one.
		want := problem.As(cerr)
		tally[want.Code]++
		for _, at := range in.Starts[:1] {
			_, _, err := DecideCreate(s, b.create(in.ServiceID, at, in.StaffID), b.now, b.ids)
			got := problem.As(err)
			if err == nil || got.Code != want.Code || fieldOf(got) != fieldOf(want) {
				b.fail(t, in, at, nil, "Check's error", fmt.Sprint(want.Code, " ", fieldOf(want)), "DecideCreate's", fmt.Sprint(codeOrOK(err), " ", fieldOf(got)))
			}
			_, _, err = DecideHold(s, &HoldInput{ServiceID: in.ServiceID, Start: at, StaffID: in.StaffID, TTL: model.HoldDefaultTTL}, b.now, b.ids)
			got = problem.As(err)
			if err == nil || got.Code != want.Code || fieldOf(got) != fieldOf(want) {
				b.fail(t, in, at, nil, "Check's error", fmt.Sprint(want.Code, " ", fieldOf(want)), "DecideHold's", fmt.Sprint(codeOrOK(err), " ", fieldOf(got)))
			}
		}
		return
	}
	require.Len(t, vs, len(in.Starts))
	svc := s.Service(in.ServiceID)
	var eligible []uuid.UUID
	if in.StaffID != nil {
		eligible = []uuid.UUID{*in.StaffID}
	} else {
		for i := range s.Staff {
			if calendar.Eligible(&s.Staff[i], svc) {
				eligible = append(eligible, s.Staff[i].ID)
			}
		}
	}
	for i, v := range vs {
		start := in.Starts[i]
		if !v.Start.Equal(start) {
			b.fail(t, in, start, nil, "verdict for", b.local(v.Start), "asked", b.local(start))
		}
		tally[v.Code]++
		// (a) the top-level code is the booking's.
		_, a, err := DecideCreate(s, b.create(in.ServiceID, start, in.StaffID), b.now, b.ids)
		if got := codeOrEmpty(err); got != v.Code {
			b.fail(t, in, start, in.StaffID, "Check", show(v.Code), "DecideCreate", show(got))
		}
		// (c) a hold for the same input fares the same.
		_, h, herr := DecideHold(s, &HoldInput{ServiceID: in.ServiceID, Start: start, StaffID: in.StaffID, TTL: model.HoldDefaultTTL}, b.now, b.ids)
		if got := codeOrEmpty(herr); got != v.Code {
			b.fail(t, in, start, in.StaffID, "Check", show(v.Code), "DecideHold", show(got))
		}
		if err == nil && herr == nil && a.Staff.ID != h.StaffID {
			b.fail(t, in, start, in.StaffID, "booking assigned", a.Staff.Name, "hold assigned", s.StaffMember(h.StaffID).Name)
		}
		// (b) each staff verdict is the booking pinned to them.
		ids := make([]uuid.UUID, len(v.Staff))
		anyFree := false
		for j, sv := range v.Staff {
			ids[j] = sv.ID
			staffTally[sv.Code]++
			anyFree = anyFree || sv.Code == ""
			id := sv.ID
			_, _, err := DecideCreate(s, b.create(in.ServiceID, start, &id), b.now, b.ids)
			if got := codeOrEmpty(err); got != sv.Code {
				b.fail(t, in, start, &id, "Check's staff verdict", show(sv.Code), "DecideCreate pinned", show(got))
			}
		}
		if !slices.Equal(ids, eligible) {
			b.fail(t, in, start, nil, "staff listed", fmt.Sprint(ids), "eligible", fmt.Sprint(eligible))
		}
		if in.StaffID == nil && (v.Code == "") != anyFree {
			b.fail(t, in, start, nil, "top-level", show(v.Code), "some staff free", fmt.Sprint(anyFree))
		}
	}
}

// create is a booking by the customer on file with the rules enforced.
func (b *checkBiz) create(svc uuid.UUID, start time.Time, staff *uuid.UUID) *CreateInput {
	return &CreateInput{ServiceID: svc, Start: start, StaffID: staff, Enforce: true,
		Customer: model.Customer{FirstName: "On", Email: b.onFile}}
}

func (b *checkBiz) local(t time.Time) string {
	return t.In(b.loc).Format("2006-01-02 15:04:05.000 -07:00 Mon")
}

func (b *checkBiz) fail(t *testing.T, in *CheckInput, start time.Time, staff *uuid.UUID, what1, got1, what2, got2 string) {
	t.Helper()
	s := b.s
	var w strings.Builder
	br := s.Business.Rules
	fmt.Fprintf(&w, "\n%s says %s, %s says %s\n", what1, got1, what2, got2)
	fmt.Fprintf(&w, "start %s (%s UTC), now %s\n", b.local(start), start.Format(time.RFC3339Nano), b.local(b.now))
	fmt.Fprintf(&w, "zone %s, assignment %s, closed %v\n", s.Business.Timezone, s.Business.Assignment, s.Business.ClosedDates)
	fmt.Fprintf(&w, "rules: minNotice=%d maxAdvanceDays=%d interval=%d requireExisting=%v preventGaps=%v minGap=%d\n",
		br.MinNoticeMinutes, br.MaxAdvanceDays, br.SlotIntervalMinutes, br.RequireExistingCustomer, br.PreventGaps, br.MinGapMinutes)
	for _, p := range br.RestrictedPeriods {
		fmt.Fprintf(&w, "  restricted %s – %s\n", b.local(p.From), b.local(p.To))
	}
	if svc := s.Service(in.ServiceID); svc != nil {
		fmt.Fprintf(&w, "service %s: %d min, active=%v deleted=%v segments=%+v\n", svc.Name, svc.DurationMinutes, svc.IsActive, svc.Deleted, svc.Segments)
	} else {
		fmt.Fprintf(&w, "service %s unknown\n", in.ServiceID)
	}
	if in.StaffID != nil {
		fmt.Fprintf(&w, "check pinned to %s\n", *in.StaffID)
	}
	if staff != nil {
		fmt.Fprintf(&w, "compared for staff %s\n", *staff)
	}
	for i := range s.Staff {
		st := &s.Staff[i]
		fmt.Fprintf(&w, "  staff %s %s active=%v bookable=%v performs=%v hours=%v exceptions=%+v\n", st.Name, st.ID,
			st.IsActive, st.IsBookable, st.Performs(in.ServiceID), st.Hours, st.Exceptions)
	}
	for _, m := range b.made {
		fmt.Fprintf(&w, "  %s\n", m)
	}
	t.Fatal(w.String())
}

func codeOrEmpty(err error) problem.Code {
	if err == nil {
		return ""
	}
	return problem.As(err).Code
}

func codeOrOK(err error) problem.Code {
	if err == nil {
		return "ok"
	}
	return problem.As(err).Code
}

func show(c problem.Code) string {
	if c == "" {
		return "bookable"
	}
	return string(c)
}

func fieldOf(e *problem.Error) string {
	if e == nil || len(e.Fields) == 0 {
		return ""
	}
	return e.Fields[0].Path
}
