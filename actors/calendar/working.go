package calendar

import (
	"math"
	"time"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
)

// Working returns the working time of st that intersects window: for each
// local date, the hours of the staff member's exception for that date if
// there is one, else the weekly hours of its weekday, and nothing on the
// business's closed dates. Wall-clock times are resolved with time.Date in
// loc, so a 09:00 shift in Europe/Amsterdam starts at 08:00Z in winter and
// 07:00Z in summer. Spans that touch or overlap are merged, across midnight
// too (a shift ending 24:00 and the next day's starting 00:00 are one span).
// The spans come back in order and unclipped; a span running on without a
// break is followed for at most about a year beyond the window.
func Working(st *model.Staff, biz *model.Business, loc *time.Location, window interval.Span) []interval.Span {
	if window.End <= window.Start {
		return nil
	}
	a, _ := dayNumber(window.Start, loc)
	b, _ := dayNumber(window.End-1, loc)
	for margin := int64(2); ; margin *= 2 {
		ds := loadDays(nil, biz, loc, a-margin, b+margin)
		all := appendWorking(nil, st, &ds, loc, clip{math.MinInt64, math.MaxInt64})
		var out []interval.Span
		for _, s := range all {
			if s.Start < window.End && window.Start < s.End {
				out = append(out, s)
			}
		}
		if margin >= 512 || len(out) == 0 {
			return out
		}
		first, last := &ds.list[0], &ds.list[len(ds.list)-1]
		if out[0].Start > first.at(0, loc) && out[len(out)-1].End < last.at(24*60, loc) {
			return out
		}
	}
}

// appendWorking appends to dst the working time of st on every date of ds,
// clipped to w, sorted and merged.
func appendWorking(dst []interval.Span, st *model.Staff, ds *days, loc *time.Location, w clip) []interval.Span {
	from := len(dst)
	for i := range ds.list {
		d := &ds.list[i]
		if d.closed {
			continue
		}
		for _, h := range hoursOn(st, d) {
			s := max(d.at(h.From, loc), w.lo)
			e := min(d.at(h.To, loc), w.hi)
			if s < e {
				dst = append(dst, interval.Span{Start: s, End: e})
			}
		}
	}
	return merge(dst, from)
}

// hoursOn returns st's wall-clock hours on d.
func hoursOn(st *model.Staff, d *day) []model.Span {
	for i := range st.Exceptions {
		if st.Exceptions[i].Date == d.date {
			return st.Exceptions[i].Hours
		}
	}
	return st.Hours[d.wd]
}

// merge sorts s[from:] by start (insertion sort: the spans nearly always
// arrive in order) and merges spans that touch or overlap, in place.
func merge(s []interval.Span, from int) []interval.Span {
	for i := from + 1; i < len(s); i++ {
		for j := i; j > from && s[j].Start < s[j-1].Start; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	out := from
	for i := from; i < len(s); i++ {
		if out > from && s[i].Start <= s[out-1].End {
			s[out-1].End = max(s[out-1].End, s[i].End)
			continue
		}
		s[out] = s[i]
		out++
	}
	return s[:out]
}
