package calendar

import (
	"time"

	"github.com/slotd/slotd/actors/model"
)

// Instants in this package are Unix milliseconds.
const (
	msMinute = int64(60_000)
	msHour   = 60 * msMinute
	msDay    = 24 * msHour
	secDay   = int64(86_400)
)

// day is one local date of the business calendar, with what is needed to turn
// its wall-clock times into instants quickly.
type day struct {
	n      int64 // day number: days since 1970-01-01 of the local date
	date   model.Date
	wd     time.Weekday
	mid    int64 // time.Date(date 00:00) in the business location, Unix ms
	fast   bool  // no zone transition within a day of it: clock c is mid + c minutes
	closed bool  // one of the business's closedDates
	win    clip  // the day's window (see window), where Slots has set it
}

// at returns the instant of wall-clock time c on d. It is exactly
// time.Date(y, m, d, c/60, c%60, 0, 0, loc): 24:00 is the next day's 00:00, a
// time skipped by a DST jump resolves as time.Date resolves it. The fast path
// is taken only when the zone in force at midnight holds from 26 hours before
// to 50 hours after it, where time.Date's own lookup can only find that zone.
func (d *day) at(c model.Clock, loc *time.Location) int64 {
	if d.fast {
		return d.mid + int64(c)*msMinute
	}
	return time.Date(d.date.Year, d.date.Month, d.date.Day, int(c)/60, int(c)%60, 0, 0, loc).UnixMilli()
}

// days is a run of consecutive local dates.
type days struct{ list []day }

// loadDays returns the local dates first..last (day numbers), stored in buf
// when it has room.
func loadDays(buf []day, biz *model.Business, loc *time.Location, first, last int64) days {
	for n := first; n <= last; n++ {
		buf = append(buf, makeDay(biz, loc, n))
	}
	return days{list: buf}
}

// get returns the date with day number n, which must be in ds.
func (ds *days) get(n int64) *day { return &ds.list[n-ds.list[0].n] }

func makeDay(biz *model.Business, loc *time.Location, n int64) day {
	date := model.DateOf(time.Unix(n*secDay, 0).UTC())
	t := time.Date(date.Year, date.Month, date.Day, 0, 0, 0, 0, loc)
	d := day{n: n, date: date, wd: time.Weekday(floorMod(n+4, 7)), mid: t.UnixMilli()}
	zs, ze := t.ZoneBounds()
	d.fast = (zs.IsZero() || t.Sub(zs) >= 26*time.Hour) && (ze.IsZero() || ze.Sub(t) >= 50*time.Hour)
	for _, c := range biz.ClosedDates {
		if c == date {
			d.closed = true
		}
	}
	return d
}

// dayNumber returns the day number of the local date of instant ms, and the
// wall-clock seconds since that local midnight.
func dayNumber(ms int64, loc *time.Location) (n, sec int64) {
	_, off := time.UnixMilli(ms).In(loc).Zone()
	wall := floorDiv(ms, 1000) + int64(off)
	n = floorDiv(wall, secDay)
	return n, wall - n*secDay
}

// weekday is the weekday of local day number n (day 0, 1 January 1970,
// was a Thursday).
func weekday(n int64) time.Weekday {
	return time.Weekday((n%7 + 7 + int64(time.Thursday)) % 7)
}

// window is the stretch of time whose free stretches decide every booking
// starting on local day d: from d's midnight to the next midnight plus the
// footprint, widened by pad on both sides. pad exceeds minGap by hours, so a
// stretch cut at the window's edge is always long enough for the gap rule
// and the cut never changes a judgement; it only bounds the work.
func (ds *days) window(n int64, footprint, pad int64) clip {
	return clip{ds.get(n).mid - pad, ds.get(n+1).mid + footprint + pad}
}

// clip is a half-open window [lo, hi) in Unix ms.
type clip struct{ lo, hi int64 }

// padOf returns the widening of a day's window for the given gap rule.
func padOf(minGap int64) int64 { return minGap + 6*msHour }

// dayRange returns the day numbers to load so that the windows of local days
// a..b, and the working time of every date that can reach them, are covered:
// midnights lie within 14 hours of their UTC counterparts, so a spare day on
// each side of the widened window is always enough.
func dayRange(a, b, footprint, pad int64) (first, last int64) {
	lo := a*msDay - msDay - pad
	hi := (b+2)*msDay + msDay + footprint + pad
	return floorDiv(lo, msDay) - 1, floorDiv(hi, msDay) + 1
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// LocalDay is the day number (days since 1970-01-01) of t's local date in
// loc: the day a booking limit counts it on (decisions §9).
func LocalDay(t time.Time, loc *time.Location) int64 {
	n, _ := dayNumber(t.UnixMilli(), loc)
	return n
}

// weekOf is the day number of the Monday of day n's week.
func weekOf(n int64) int64 { return n - floorMod(n+3, 7) }
