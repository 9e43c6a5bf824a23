package main

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// The layout is the one place that knows where everything in a world is:
// which ids exist, when each booked appointment starts, which times are
// free for the booking storm and the race, and which availability queries
// the read workloads ask. The world writer, the workloads and the walk all
// ask it, so they agree without sharing state, and every id and time is a
// pure function of the seed, the sizes and the base day.
//
// The calendar: every business is in UTC and open Monday to Saturday,
// 09:00-18:00; day 0 is a Monday at least two days after the run starts,
// so every offered slot is in the future. Each staff member's booked
// appointments are one-hour blocks on whole hours of working days, at most
// one per hour; the storms book the half hours those leave free (rules
// off, staff pinned; the mixed phase, the storm and the new-customer
// storm each from where the one before stopped in the same sequence of
// slots), and the race books 08:00, before opening, which nothing else
// uses. So the storms and the race never collide with the booked
// appointments or with each other, and any 409 they see outside the race
// is a finding. The series phase books 06:00 (one booking) and
// 06:30 (the first of 12 weekly occurrences) on days seriesRound gives
// it, which nothing else books either.

// WorldSpec sizes one world.
type WorldSpec struct {
	Tag          string // "main" or "load": part of every id and key
	Businesses   int
	Staff        int // per business
	Appointments int // booked appointments per business
	Customers    int // per business
	WindowDays   int // distinct start days of the 7-day availability queries
	Seed         uint64
	Now          time.Time // the base day is derived from it; zero: time.Now()
}

// Services every business offers; every staff member performs them all.
var services = []struct {
	name    string
	minutes int
	cents   int
}{
	{"Cut", 30, 3500},    // the storm and the race book this one
	{"Colour", 60, 8500}, // the booked appointments are this one
	{"Treatment", 45, 6000},
}

const (
	openHour     = 9
	openHours    = 9  // 09:00-18:00
	halfHours    = 18 // half-hour starts in a working day
	workWeekDays = 6  // Monday to Saturday
	raceHour     = 8  // before opening: only the race books it
	seriesHour   = 6  // before opening: only the series phase books it (06:00 and 06:30)
	seriesWeeks  = 12 // occurrences of a series of the series phase, a week apart
	maxDays      = 3650
)

// layout is a WorldSpec made concrete.
type layout struct {
	WorldSpec
	base    time.Time // 00:00 UTC of day 0, a Monday
	days    int       // the booked horizon, in days from base
	working int       // working days in [0, days)
	ns      uuid.UUID // namespace of every id

	businesses []uuid.UUID
	keys       []string // the API key of each business
	bearer     []string // "Bearer " + key
	// free[s] lists the half-hour starts (offsets from base) that staff
	// member s of any business has free within the horizon, day by day.
	free [][]time.Duration
}

func newLayout(spec WorldSpec) (*layout, error) {
	switch {
	case spec.Businesses < 1 || spec.Staff < 1 || spec.Customers < 1 || spec.WindowDays < 1:
		return nil, fmt.Errorf("world %s: businesses, staff, customers and window days must be at least 1", spec.Tag)
	case spec.Appointments < 0:
		return nil, fmt.Errorf("world %s: appointments must not be negative", spec.Tag)
	}
	now := spec.Now
	if now.IsZero() {
		now = time.Now()
	}
	l := &layout{WorldSpec: spec, base: baseDay(now)}
	// The horizon holds every availability window, and enough working days
	// that no staff member needs more than eight booked hours a day.
	perStaff := (spec.Appointments + spec.Staff - 1) / spec.Staff
	needWorking := (perStaff + openHours - 2) / (openHours - 1)
	l.days = max(spec.WindowDays+7, dayOf(needWorking-1)+1)
	if l.days > maxDays {
		return nil, fmt.Errorf("world %s: the calendar needs %d days, more than slotd's %d-day booking horizon: fewer queries per business or fewer appointments per staff member",
			spec.Tag, l.days, maxDays)
	}
	l.working = workingDaysBefore(l.days)
	l.ns = uuid.NewSHA1(uuid.NameSpaceOID, []byte("slotd-harness/"+strconv.FormatUint(spec.Seed, 10)+"/"+spec.Tag))
	l.businesses = make([]uuid.UUID, spec.Businesses)
	l.keys = make([]string, spec.Businesses)
	l.bearer = make([]string, spec.Businesses)
	for b := range l.businesses {
		l.businesses[b] = l.id(kindBusiness, b, 0)
		l.keys[b] = fmt.Sprintf("sk_bench_%x_%s_%d", spec.Seed, spec.Tag, b)
		l.bearer[b] = "Bearer " + l.keys[b]
	}
	l.free = make([][]time.Duration, spec.Staff)
	for s := range l.free {
		l.free[s] = l.freeHalfHours(s)
	}
	return l, nil
}

// baseDay is the first Monday at least two days after now, at 00:00 UTC.
func baseDay(now time.Time) time.Time {
	d := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 2)
	for d.Weekday() != time.Monday {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// dayOf is the day (from base) of working day w: six a week, Sundays off.
func dayOf(w int) int { return w/workWeekDays*7 + w%workWeekDays }

// workingDaysBefore counts the working days in [0, days).
func workingDaysBefore(days int) int { return days/7*workWeekDays + min(days%7, workWeekDays) }

type idKind byte

const (
	kindBusiness idKind = iota + 1
	kindCategory
	kindService
	kindStaff
	kindCustomer
	kindAppointment
)

// id is a name-based (version 5) UUID of (kind, a, b) under the world's
// namespace: deterministic, distinct per kind and index, and cheap enough
// to derive a million times while the world is streamed out.
func (l *layout) id(kind idKind, a, b int) uuid.UUID {
	var name [9]byte
	name[0] = byte(kind)
	binary.BigEndian.PutUint32(name[1:], uint32(a))
	binary.BigEndian.PutUint32(name[5:], uint32(b))
	return uuid.NewSHA1(l.ns, name[:])
}

func (l *layout) staffID(b, s int) uuid.UUID    { return l.id(kindStaff, b, s) }
func (l *layout) serviceID(b, v int) uuid.UUID  { return l.id(kindService, b, v) }
func (l *layout) customerID(b, c int) uuid.UUID { return l.id(kindCustomer, b, c) }

// customerEmail is customer c of business b's address; bookings name the
// customer by it, so they reuse the world's customers.
func (l *layout) customerEmail(b, c int) string {
	return "c" + strconv.Itoa(c) + ".b" + strconv.Itoa(b) + "@bench.example"
}

// perStaff is how many booked appointments staff member s has: appointment
// k of a business belongs to staff member k mod Staff.
func (l *layout) perStaff(s int) int {
	n := l.Appointments / l.Staff
	if s < l.Appointments%l.Staff {
		n++
	}
	return n
}

// booked returns appointment k of a business: its staff member and start.
// Staff member s's j-th appointment falls on working day j mod W, at an
// hour that moves with the staff member, the day and the round j / W, so
// one day's appointments of one person never share an hour.
func (l *layout) booked(k int) (staff int, start time.Time) {
	s, j := k%l.Staff, k/l.Staff
	w, r := j%l.working, j/l.working
	hour := openHour + (3*s+w+r)%openHours
	return s, l.base.Add(time.Duration(dayOf(w))*24*time.Hour + time.Duration(hour)*time.Hour)
}

// freeHalfHours lists staff member s's free half-hour starts within the
// horizon, in time order: the hours of each working day its booked
// appointments leave free (booked mirrors this).
func (l *layout) freeHalfHours(s int) []time.Duration {
	p := l.perStaff(s)
	out := make([]time.Duration, 0, l.working*halfHours)
	for w := range l.working {
		var taken [openHours]bool
		for r := 0; w+r*l.working < p; r++ {
			taken[(3*s+w+r)%openHours] = true
		}
		day := time.Duration(dayOf(w)) * 24 * time.Hour
		for h := range openHours {
			if !taken[h] {
				at := day + time.Duration(openHour+h)*time.Hour
				out = append(out, at, at+30*time.Minute)
			}
		}
	}
	return out
}

// stormSlot is the i-th booking of the storm: consecutive requests go to
// different businesses, then different staff members, and each staff
// member's bookings fill its free half hours in time order, then the
// working days after the horizon, which nothing else books.
func (l *layout) stormSlot(i int) (b, s int, start time.Time) {
	b, q := i%l.Businesses, i/l.Businesses
	s, n := q%l.Staff, q/l.Staff
	free := l.free[s]
	if n < len(free) {
		return b, s, l.base.Add(free[n])
	}
	m := n - len(free)
	day := dayOf(l.working + m/halfHours)
	return b, s, l.base.Add(time.Duration(day)*24*time.Hour + time.Duration(openHour)*time.Hour + time.Duration(m%halfHours)*30*time.Minute)
}

// stormCustomer is the customer the i-th storm booking names.
func (l *layout) stormCustomer(i int) int { return (i / l.Businesses) % l.Customers }

// appendNewCustomerEmail appends the address of the new customer who
// books storm slot i in the new-customer storm: it names the seed, the
// slot and the slot's business, so no two bookings of a run share it, and
// no customer of the world has it (theirs are customerEmail's).
func (l *layout) appendNewCustomerEmail(dst []byte, i int) []byte {
	dst = append(dst, "new"...)
	dst = strconv.AppendUint(dst, l.Seed, 10)
	dst = append(dst, ".i"...)
	dst = strconv.AppendInt(dst, int64(i), 10)
	dst = append(dst, ".b"...)
	dst = strconv.AppendInt(dst, int64(i%l.Businesses), 10)
	return append(dst, "@bench.example"...)
}

// raceSlot is the k-th slot of the contention race: 08:00, before
// opening, on a working day, for a business and staff member that change
// with k.
func (l *layout) raceSlot(k int) (b, s int, start time.Time) {
	b, q := k%l.Businesses, k/l.Businesses
	s, w := q%l.Staff, q/l.Staff
	return b, s, l.base.Add(time.Duration(dayOf(w))*24*time.Hour + raceHour*time.Hour)
}

// seriesRound is round k of the series phase: a business, a staff
// member and a working day that change with k. The round's booking is at
// 06:00 that day and its series at 06:30 that day and on the same weekday
// of the 11 weeks after. Rounds of the same staff member take the six
// weekdays of a block of 12 weeks, then the next block, so no two rounds'
// bookings or occurrences meet, and none meets another phase's: nothing
// else books before 08:00.
func (l *layout) seriesRound(k int) (b, s int, day time.Time) {
	b, q := k%l.Businesses, k/l.Businesses
	s, q = q%l.Staff, q/l.Staff
	return b, s, l.base.Add(time.Duration(seriesDay(q)) * 24 * time.Hour)
}

// seriesDay is the day (from base) of a staff member's q-th round of the
// series phase.
func seriesDay(q int) int { return q/workWeekDays*seriesWeeks*7 + q%workWeekDays }

// seriesLastDay is the day (from base) of the last occurrence of the
// series phase's n rounds over businesses × staff staff members.
func seriesLastDay(n, businesses, staff int) int {
	if n < 1 {
		return 0
	}
	return seriesDay((n-1)/(businesses*staff)) + (seriesWeeks-1)*7
}

// weekQuery is the q-th 7-day availability query: business, service and
// window start vary, so the 60,000 of the default run are all distinct.
func (l *layout) weekQuery(q int) (b, svc int, from time.Time) {
	b, t := q%l.Businesses, q/l.Businesses
	return b, t % len(services), l.base.Add(time.Duration(t/len(services)) * 24 * time.Hour)
}

// dayQuery is the n-th 1-day, one-staff availability query, over every
// business, staff member, service and working day of the horizon.
func (l *layout) dayQuery(n int) (b, s, svc int, from time.Time) {
	b, t := n%l.Businesses, n/l.Businesses
	s, t = t%l.Staff, t/l.Staff
	svc, t = t%len(services), t/len(services)
	return b, s, svc, l.base.Add(time.Duration(dayOf(t%l.working)) * 24 * time.Hour)
}

// dayQueries is how many distinct 1-day queries there are.
func (l *layout) dayQueries() int { return l.Businesses * l.Staff * len(services) * l.working }

// sampleWeek is a 7-day query outside the rotation (its window starts the
// day after the last rotating one), so fetching it to size the static
// baseline's body warms no answer the workload will ask.
func (l *layout) sampleWeek(k int) (b, svc int, from time.Time) {
	return k % l.Businesses, k % len(services), l.base.Add(time.Duration(l.WindowDays) * 24 * time.Hour)
}

// sampleDay is a 1-day query outside the rotation: a rotating one spread
// over the rotation, with its window moved a minute later (nothing opens
// before 09:00, so the answer holds the same slots; the mixed phase moves
// windows the same way), so fetching it warms no answer the workload asks.
func (l *layout) sampleDay(k int) (b, s, svc int, from time.Time) {
	b, s, svc, from = l.dayQuery(k * 7919 % l.dayQueries())
	return b, s, svc, from.Add(time.Minute)
}

// occupied is the total of booked appointments in the world.
func (l *layout) occupied() int { return l.Businesses * l.Appointments }

// mainWorld and loadWorld are the two worlds of a run.
func (o Options) mainWorld() WorldSpec {
	per := o.Businesses * len(services)
	return WorldSpec{Tag: "main", Businesses: o.Businesses, Staff: o.Staff, Appointments: o.Appointments,
		Customers: o.Customers, WindowDays: (o.Queries + per - 1) / per, Seed: o.Seed}
}

func (o Options) loadWorld() WorldSpec {
	return WorldSpec{Tag: "load", Businesses: o.LoadBusinesses, Staff: o.LoadStaff,
		Appointments: o.LoadAppointments / max(o.LoadBusinesses, 1), Customers: 20, WindowDays: 7, Seed: o.Seed}
}

// A business of the tenancy world is small: a salon of two, ten
// customers (one per appointment at the default size) and the three
// services every world offers.
const (
	tenancyStaff     = 2
	tenancyCustomers = 10
)

func (o Options) tenancyWorld() WorldSpec {
	return WorldSpec{Tag: "tenancy", Businesses: o.TenancyBusinesses, Staff: tenancyStaff,
		Appointments: o.TenancyAppointments, Customers: tenancyCustomers, WindowDays: 7, Seed: o.Seed}
}
