package calendar

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
)

// The scenario commands. Times are either UTC or offset timestamps
// (2026-03-30T09:00:00Z) or local wall-clock times in the business's zone
// (2026-03-30T10:00). Staff members are listed in the order they are first
// named.
//
//	business tz=ZONE interval=MIN notice=MIN advance=DAYS assignment=STRATEGY
//	         preventGaps=BOOL minGap=MIN requireCustomer=BOOL
//	closed DATE...                       the business is closed on these dates
//	restricted FROM TO                   no online bookings starting in [FROM, TO)
//	now TIME
//	service NAME MINUTES | KIND:MIN...   [inactive] [price=CENTS] [deposit=CENTS]
//	rule SERVICE DAYS HH:MM-HH:MM CENTS  a pricing rule (DAYS: mon-fri, sat, thu,fri)
//	staff NAME [inactive] [unbookable]
//	hours NAME DAYS HH:MM-HH:MM...       weekly hours (none given: off those days)
//	exception NAME DATE HH:MM-HH:MM...   hours for one date (none given: day off)
//	assign NAME SERVICE...
//	book NAME TIME SERVICE [as=ID]       put a booking in the calendar, no questions asked
//	decide SERVICE TIME [staff=NAME] [enforce=false] [customer=new] [except=ID] [last=NAME]
//	reserve ...                          decide, and book the booking if it is accepted
//	slots SERVICE DATE [DATE] | FROM TO [staff=NAME]
//	day NAME DATE                        a timeline of one staff member's day
//	price SERVICE TIME
type scenario struct {
	biz      model.Business
	loc      *time.Location
	now      time.Time
	services map[string]*model.Service
	staff    []model.Staff
	index    interval.Index
	last     uuid.UUID // the last auto-assigned staff member, kept by reserve
	booked   int
	// counts is the scenario's tally (Tally): bookings by staff member,
	// local day and service.
	counts map[dayCount]int
	// resources are the business's (decisions §10).
	resources []model.Resource
}

type dayCount struct {
	staff, svc uuid.UUID
	day        int64
}

// Days implements Tally.
func (sc *scenario) Days(staff, svc uuid.UUID, from int64, all, ofSvc []int) {
	for k, c := range sc.counts {
		if i := k.day - from; k.staff == staff && i >= 0 && i < int64(len(all)) {
			all[i] += c
			if k.svc == svc {
				ofSvc[i] += c
			}
		}
	}
}

// count adds a booking of svc by staff at start to the tally.
func (sc *scenario) count(staff uuid.UUID, svc *model.Service, start time.Time) {
	sc.counts[dayCount{staff, svc.ID, LocalDay(start, sc.loc)}]++
}

func newScenario() *scenario {
	loc, _ := time.LoadLocation("Europe/Amsterdam")
	return &scenario{
		biz:      model.Business{ID: nameID("business", "b"), Assignment: model.LeastBusy, Rules: model.DefaultRules(), Timezone: loc.String()},
		loc:      loc,
		services: map[string]*model.Service{},
		counts:   map[dayCount]int{},
	}
}

func nameID(kind, name string) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte(kind+":"+name))
}

func (sc *scenario) run(line string) (string, error) {
	f := strings.Fields(line)
	a := parseArgs(f[1:])
	switch f[0] {
	case "business":
		return "", sc.business(a)
	case "closed":
		for _, s := range a.pos {
			d, err := model.ParseDate(s)
			if err != nil {
				return "", err
			}
			sc.biz.ClosedDates = append(sc.biz.ClosedDates, d)
		}
		return "", nil
	case "restricted":
		if err := a.need(2, "restricted FROM TO"); err != nil {
			return "", err
		}
		from, err1 := sc.time(a.pos[0])
		to, err2 := sc.time(a.pos[1])
		sc.biz.Rules.RestrictedPeriods = append(sc.biz.Rules.RestrictedPeriods, model.Period{From: from, To: to})
		return "", firstErr(err1, err2)
	case "now":
		var err error
		sc.now, err = sc.time(strings.Join(a.pos, " "))
		return "", err
	case "service":
		return "", sc.service(a)
	case "rule":
		return "", sc.rule(a)
	case "timetable":
		return "", sc.timetable(a)
	case "resource":
		if err := a.need(2, "resource NAME QUANTITY"); err != nil {
			return "", err
		}
		q, err := strconv.Atoi(a.pos[1])
		sc.resources = append(sc.resources, model.Resource{ID: nameID("resource", a.pos[0]), Name: a.pos[0], Quantity: q, IsActive: true})
		return "", err
	case "needs":
		return "", sc.needs(a)
	case "staff":
		if err := a.need(1, "staff NAME [inactive] [unbookable]"); err != nil {
			return "", err
		}
		st := sc.member(a.pos[0])
		st.IsActive = !slices.Contains(a.pos, "inactive")
		st.IsBookable = !slices.Contains(a.pos, "unbookable")
		return "", nil
	case "hours":
		return "", sc.hours(a)
	case "exception":
		return "", sc.exception(a)
	case "assign":
		if err := a.need(2, "assign NAME SERVICE..."); err != nil {
			return "", err
		}
		st := sc.member(a.pos[0])
		for _, s := range a.pos[1:] {
			svc, err := sc.service1(s)
			if err != nil {
				return "", err
			}
			st.AssignedServiceIDs = append(st.AssignedServiceIDs, svc.ID)
		}
		return "", nil
	case "book":
		return "", sc.book(a)
	case "decide", "reserve":
		return sc.decide(a, f[0] == "reserve")
	case "slots":
		return sc.slots(a)
	case "day":
		return sc.day(a)
	case "price":
		return sc.price(a)
	}
	return "", fmt.Errorf("unknown command %q", f[0])
}

func (sc *scenario) business(a args) error {
	for k, v := range a.opts {
		var err error
		r := &sc.biz.Rules
		switch k {
		case "tz":
			sc.loc, err = time.LoadLocation(v)
			sc.biz.Timezone = v
		case "interval":
			r.SlotIntervalMinutes, err = strconv.Atoi(v)
		case "notice":
			r.MinNoticeMinutes, err = strconv.Atoi(v)
		case "advance":
			r.MaxAdvanceDays, err = strconv.Atoi(v)
		case "minGap":
			r.MinGapMinutes, err = strconv.Atoi(v)
		case "preventGaps":
			r.PreventGaps, err = strconv.ParseBool(v)
		case "requireCustomer":
			r.RequireExistingCustomer, err = strconv.ParseBool(v)
		case "assignment":
			sc.biz.Assignment = model.Assignment(v)
		case "perStaffPerDay", "perStaffPerWeek":
			if sc.biz.Limits == nil {
				sc.biz.Limits = &model.StaffLimits{}
			}
			n, err2 := strconv.Atoi(v)
			if k == "perStaffPerDay" {
				sc.biz.Limits.PerStaffPerDay = &n
			} else {
				sc.biz.Limits.PerStaffPerWeek = &n
			}
			err = err2
		default:
			err = fmt.Errorf("unknown business setting %q", k)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (sc *scenario) service(a args) error {
	if err := a.need(2, "service NAME MINUTES | KIND:MIN..."); err != nil {
		return err
	}
	svc := &model.Service{ID: nameID("service", a.pos[0]), Name: a.pos[0], IsActive: true}
	for _, p := range a.pos[1:] {
		if p == "inactive" {
			svc.IsActive = false
			continue
		}
		kind, m, ok := strings.Cut(p, ":")
		if !ok {
			kind, m = "", p
		}
		n, err := strconv.Atoi(m)
		if err != nil {
			return fmt.Errorf("bad duration %q", p)
		}
		svc.DurationMinutes += n
		if ok {
			svc.Segments = append(svc.Segments, model.SegmentTemplate{Kind: model.SegmentKind(kind), DurationMinutes: n})
		}
	}
	var err error
	if v, ok := a.opts["price"]; ok {
		svc.PriceCents, err = strconv.Atoi(v)
	}
	if v, ok := a.opts["deposit"]; ok {
		d, err2 := strconv.Atoi(v)
		svc.DepositCents, err = &d, firstErr(err, err2)
	}
	if v, ok := a.opts["before"]; ok {
		b, err2 := strconv.Atoi(v)
		svc.BufferBeforeMinutes, err = b, firstErr(err, err2)
	}
	if v, ok := a.opts["after"]; ok {
		b, err2 := strconv.Atoi(v)
		svc.BufferAfterMinutes, err = b, firstErr(err, err2)
	}
	for _, k := range []string{"perDay", "perWeek"} {
		if v, ok := a.opts[k]; ok {
			if svc.Limits == nil {
				svc.Limits = &model.BookingLimits{}
			}
			n, err2 := strconv.Atoi(v)
			if k == "perDay" {
				svc.Limits.PerDay = &n
			} else {
				svc.Limits.PerWeek = &n
			}
			err = firstErr(err, err2)
		}
	}
	sc.services[a.pos[0]] = svc
	return err
}

func (sc *scenario) rule(a args) error {
	if err := a.need(4, "rule SERVICE DAYS HH:MM-HH:MM CENTS"); err != nil {
		return err
	}
	svc, err := sc.service1(a.pos[0])
	if err != nil {
		return err
	}
	days, err1 := parseDays(a.pos[1])
	spans, err2 := parseSpans(a.pos[2:3])
	cents, err3 := strconv.Atoi(a.pos[3])
	if err := firstErr(err1, err2, err3); err != nil {
		return err
	}
	svc.PricingRules = append(svc.PricingRules, model.PricingRule{Days: days, From: spans[0].From, To: spans[0].To, PriceCents: cents})
	return nil
}

func (sc *scenario) hours(a args) error {
	if err := a.need(2, "hours NAME DAYS HH:MM-HH:MM..."); err != nil {
		return err
	}
	days, err1 := parseDays(a.pos[1])
	spans, err2 := parseSpans(a.pos[2:])
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	st := sc.member(a.pos[0])
	for _, d := range days {
		st.Hours[d] = spans
	}
	return nil
}

func (sc *scenario) exception(a args) error {
	if err := a.need(2, "exception NAME DATE HH:MM-HH:MM..."); err != nil {
		return err
	}
	d, err1 := model.ParseDate(a.pos[1])
	spans, err2 := parseSpans(a.pos[2:])
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	st := sc.member(a.pos[0])
	st.Exceptions = append(st.Exceptions, model.Exception{Date: d, Hours: spans})
	return nil
}

func (sc *scenario) book(a args) error {
	if err := a.need(3, "book NAME TIME SERVICE [as=ID]"); err != nil {
		return err
	}
	start, err1 := sc.time(a.pos[1])
	svc, err2 := sc.service1(a.pos[2])
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	sc.booked++
	id := a.opts["as"]
	if id == "" {
		id = fmt.Sprintf("booking-%d", sc.booked)
	}
	staff := sc.member(a.pos[0]).ID
	sc.count(staff, svc, start)
	return sc.put(staff, nameID("appointment", id), Occupied(svc, start), svc.Resources)
}

// put adds a booking's occupied stretches (its active pieces with its
// buffers) to the index, refusing overlaps so that a mistake in a scenario
// does not go unnoticed.
func (sc *scenario) put(staff, owner uuid.UUID, spans []interval.Span, needs []model.ResourceNeed) error {
	var items []interval.Item
	for i, sp := range spans {
		items = append(items, interval.Item{Span: sp, Owner: owner, Seg: int32(i)})
	}
	if !sc.index.Fits(staff, spans, uuid.Nil) {
		return fmt.Errorf("the booking overlaps another one")
	}
	if id, ok := Room(sc.index, sc.resources, needs, spans, uuid.Nil); !ok {
		return fmt.Errorf("the booking takes more of resource %v than is free", id)
	}
	sc.index = sc.index.Add(staff, items...)
	for _, n := range needs {
		for _, it := range items {
			it.Units = int32(n.Quantity)
			sc.index = sc.index.Take(n.ResourceID, it)
		}
	}
	return nil
}

// needs makes a service take resources: "needs massage room:1 laser".
func (sc *scenario) needs(a args) error {
	if err := a.need(2, "needs SERVICE RESOURCE[:UNITS]..."); err != nil {
		return err
	}
	svc, err := sc.service1(a.pos[0])
	if err != nil {
		return err
	}
	for _, p := range a.pos[1:] {
		name, units, ok := strings.Cut(p, ":")
		n := 1
		if ok {
			if n, err = strconv.Atoi(units); err != nil {
				return err
			}
		}
		svc.Resources = append(svc.Resources, model.ResourceNeed{ResourceID: nameID("resource", name), Quantity: n, Name: name})
	}
	return nil
}

func (sc *scenario) decide(a args, reserve bool) (string, error) {
	if err := a.need(2, "decide SERVICE TIME [staff=NAME] [enforce=false] [customer=new] [except=ID] [last=NAME]"); err != nil {
		return "", err
	}
	svc, err1 := sc.service1(a.pos[0])
	start, err2 := sc.time(a.pos[1])
	if err := firstErr(err1, err2); err != nil {
		return "", err
	}
	r := &Request{Business: &sc.biz, Loc: sc.loc, Now: sc.now, Service: svc, Start: start, Staff: sc.staff,
		Enforce: a.opts["enforce"] != "false", CustomerOnFile: a.opts["customer"] != "new", Index: sc.index, LastAssigned: sc.last,
		Tally: sc, Resources: sc.resources}
	if n, ok := a.opts["staff"]; ok {
		id := sc.member(n).ID
		r.Pinned, r.Staff = &id, sc.staff
	}
	if n, ok := a.opts["last"]; ok {
		r.LastAssigned = sc.member(n).ID
	}
	if x, ok := a.opts["except"]; ok {
		r.Except = nameID("appointment", x)
	}
	d, perr := Decide(r)
	if perr != nil {
		return string(perr.Code), nil
	}
	if reserve {
		sc.booked++
		if err := sc.put(d.Staff.ID, nameID("appointment", fmt.Sprintf("booking-%d", sc.booked)), Occupied(svc, start), svc.Resources); err != nil {
			return "", err
		}
		sc.count(d.Staff.ID, svc, start)
		if r.Pinned == nil {
			sc.last = d.Staff.ID
		}
	}
	if len(d.Pieces) == 1 {
		return fmt.Sprintf("ok %s %s", d.Staff.Name, sc.spanText(d.Pieces[0].Span)), nil
	}
	lines := []string{"ok " + d.Staff.Name}
	for _, p := range d.Pieces {
		lines = append(lines, fmt.Sprintf("  %-6s %s", p.Kind, sc.spanText(p.Span)))
	}
	return strings.Join(lines, "\n"), nil
}

func (sc *scenario) slots(a args) (string, error) {
	if err := a.need(2, "slots SERVICE DATE | FROM TO [staff=NAME]"); err != nil {
		return "", err
	}
	svc, err := sc.service1(a.pos[0])
	if err != nil {
		return "", err
	}
	// A date asks for that local day; two dates for the days from the first
	// to the second; two times for starts between them.
	last := a.pos[len(a.pos)-1]
	d1, err1 := model.ParseDate(a.pos[1])
	d2, err2 := model.ParseDate(last)
	from := time.Date(d1.Year, d1.Month, d1.Day, 0, 0, 0, 0, sc.loc)
	to := time.Date(d2.Year, d2.Month, d2.Day+1, 0, 0, 0, 0, sc.loc).Add(-time.Second)
	if firstErr(err1, err2) != nil {
		from, err1 = sc.time(a.pos[1])
		to, err2 = sc.time(last)
		if err := firstErr(err1, err2); err != nil {
			return "", err
		}
	}
	q := &Query{Business: &sc.biz, Loc: sc.loc, Now: sc.now, Service: svc, Staff: sc.staff, Index: sc.index, From: from, To: to, Tally: sc,
		Resources: sc.resources}
	if n, ok := a.opts["staff"]; ok {
		id := sc.member(n).ID
		q.Only = &id
	}
	return sc.slotText(Slots(q, nil)), nil
}

func (sc *scenario) price(a args) (string, error) {
	if err := a.need(2, "price SERVICE TIME"); err != nil {
		return "", err
	}
	svc, err1 := sc.service1(a.pos[0])
	start, err2 := sc.time(a.pos[1])
	if err := firstErr(err1, err2); err != nil {
		return "", err
	}
	base, total, deposit := Price(svc, sc.loc, start)
	dep := "none"
	if deposit != nil {
		dep = strconv.Itoa(*deposit)
	}
	return fmt.Sprintf("base %d total %d deposit %s", base, total, dep), nil
}

// member returns the staff member called name, adding them (active and
// bookable) when they are new.
func (sc *scenario) member(name string) *model.Staff {
	for i := range sc.staff {
		if sc.staff[i].Name == name {
			return &sc.staff[i]
		}
	}
	sc.staff = append(sc.staff, model.Staff{ID: nameID("staff", name), Name: name, IsActive: true, IsBookable: true})
	return &sc.staff[len(sc.staff)-1]
}

func (sc *scenario) nameOf(id uuid.UUID) string {
	for i := range sc.staff {
		if sc.staff[i].ID == id {
			return sc.staff[i].Name
		}
	}
	return id.String()
}

// timetable gives a service start times on some weekdays:
// "timetable yoga tue,thu 18:00 19:30".
func (sc *scenario) timetable(a args) error {
	if err := a.need(3, "timetable SERVICE DAYS HH:MM..."); err != nil {
		return err
	}
	svc, err := sc.service1(a.pos[0])
	if err != nil {
		return err
	}
	days, err := parseDays(a.pos[1])
	if err != nil {
		return err
	}
	if svc.Timetable == nil {
		svc.Timetable = &model.Timetable{}
	}
	for _, t := range a.pos[2:] {
		c, err := model.ParseClock(t)
		if err != nil {
			return err
		}
		for _, d := range days {
			svc.Timetable[d] = append(svc.Timetable[d], c)
			slices.Sort(svc.Timetable[d])
		}
	}
	return nil
}

func (sc *scenario) service1(name string) (*model.Service, error) {
	if svc, ok := sc.services[name]; ok {
		return svc, nil
	}
	return nil, fmt.Errorf("unknown service %q", name)
}

// time parses an absolute timestamp, or a local wall-clock time.
func (sc *scenario) time(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.ParseInLocation("2006-01-02T15:04", s, sc.loc)
}

func parseDays(s string) ([]time.Weekday, error) {
	var out []time.Weekday
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		from, ok1 := model.Weekdays[a]
		to, ok2 := from, true
		if isRange {
			to, ok2 = model.Weekdays[b]
		}
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("bad days %q", s)
		}
		for d := from; ; d = (d + 1) % 7 {
			out = append(out, d)
			if d == to {
				break
			}
		}
	}
	return out, nil
}

func parseSpans(ss []string) ([]model.Span, error) {
	var out []model.Span
	for _, s := range ss {
		a, b, ok := strings.Cut(s, "-")
		from, err1 := model.ParseClock(a)
		to, err2 := model.ParseClock(b)
		if !ok || firstErr(err1, err2) != nil {
			return nil, fmt.Errorf("bad hours %q", s)
		}
		out = append(out, model.Span{From: from, To: to})
	}
	return out, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
