package calendar

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
)

// clockText is the local wall-clock time of ms, with its weekday in front
// when it falls on another date than ref: "20:00", "Tue 02:00".
func (sc *scenario) clockText(ms int64, ref model.Date) string {
	t := time.UnixMilli(ms).In(sc.loc)
	if model.DateOf(t) != ref {
		return t.Format("Mon 15:04")
	}
	return t.Format("15:04")
}

// spanText shows a span in local time and in UTC: 11:00-11:30 (10:00Z-10:30Z).
func (sc *scenario) spanText(s interval.Span) string {
	ref := model.DateOf(time.UnixMilli(s.Start).In(sc.loc))
	return fmt.Sprintf("%s-%s (%s-%s)", sc.clockText(s.Start, ref), sc.clockText(s.End, ref), utc(s.Start), utc(s.End))
}

func utc(ms int64) string { return time.UnixMilli(ms).UTC().Format("15:04Z") }

// spansText lists spans in local time, relative to date ref.
func (sc *scenario) spansText(spans []interval.Span, ref model.Date) string {
	if len(spans) == 0 {
		return "none"
	}
	var parts []string
	for _, s := range spans {
		parts = append(parts, sc.clockText(s.Start, ref)+"-"+sc.clockText(s.End, ref))
	}
	return strings.Join(parts, " ")
}

// slotText lists slots by local date. A run of starts one grid step apart
// offering the same staff is one line: "09:00..11:45 CET (08:00Z..10:45Z)
// anna,bram" means 09:00, 09:15, ..., 11:45.
func (sc *scenario) slotText(slots []Slot) string {
	if len(slots) == 0 {
		return "no slots"
	}
	step := time.Duration(gridStep(sc.biz.Rules.SlotIntervalMinutes)) * time.Minute
	var lines []string
	date := ""
	for i := 0; i < len(slots); {
		first := slots[i].Start().In(sc.loc)
		if d := first.Format("Mon 2006-01-02"); d != date {
			lines, date = append(lines, d), d
		}
		j := i
		for j+1 < len(slots) && slots[j+1].Start().Sub(slots[j].Start()) == step &&
			slots[j+1].Start().In(sc.loc).Format("2006-01-02 MST") == first.Format("2006-01-02 MST") &&
			slices.Equal(slots[j+1].Staff, slots[i].Staff) {
			j++
		}
		var names []string
		for _, id := range slots[i].StaffIDs(sc.staff) {
			names = append(names, sc.nameOf(id))
		}
		last := slots[j].Start().In(sc.loc)
		when := fmt.Sprintf("%s %s (%s)", first.Format("15:04"), first.Format("MST"), utc(first.UnixMilli()))
		if j > i {
			when = fmt.Sprintf("%s..%s %s (%s..%s)", first.Format("15:04"), last.Format("15:04"), first.Format("MST"), utc(first.UnixMilli()), utc(last.UnixMilli()))
		}
		lines = append(lines, fmt.Sprintf("  %-35s %s", when, strings.Join(names, ",")))
		i = j + 1
	}
	return strings.Join(lines, "\n")
}

// day draws one staff member's local day: a timeline in quarter hours of real
// time ('=' free working time, '#' booked, '.' off), then the working time,
// the bookings and the free stretches the booking decisions use.
func (sc *scenario) day(a args) (string, error) {
	if err := a.need(2, "day NAME DATE"); err != nil {
		return "", err
	}
	st := sc.member(a.pos[0])
	d, err := model.ParseDate(a.pos[1])
	if err != nil {
		return "", err
	}
	lo := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, sc.loc).UnixMilli()
	hi := time.Date(d.Year, d.Month, d.Day+1, 0, 0, 0, 0, sc.loc).UnixMilli()
	window := interval.Span{Start: lo, End: hi}
	work := Working(st, &sc.biz, sc.loc, window)
	tree := sc.index.Tree(st.ID)
	var booked []interval.Span
	tree.Overlapping(window, func(it interval.Item) bool {
		booked = append(booked, it.Span)
		return true
	})
	// The free stretches exactly as Decide computes them for this date.
	n, _ := dayNumber(lo, sc.loc)
	pad := padOf(gapOf(&sc.biz.Rules))
	first, last := dayRange(n, n, 0, pad)
	ds := loadDays(nil, &sc.biz, sc.loc, first, last)
	var free []interval.Span
	for _, f := range appendFree(nil, tree, appendWorking(nil, st, &ds, sc.loc, ds.window(n, 0, pad))) {
		if f.Overlaps(window) {
			free = append(free, f)
		}
	}
	lines := sc.timeline(st.Name, window, booked, free, work)
	lines = append(lines,
		"working "+sc.spansText(work, d),
		"booked  "+sc.spansText(booked, d),
		"free    "+sc.spansText(free, d))
	return strings.Join(lines, "\n"), nil
}

// timeline draws the whole hours of window that hold working time or
// bookings, four characters to the hour.
func (sc *scenario) timeline(name string, window interval.Span, booked, free, work []interval.Span) []string {
	lo, hi := window.End, window.Start
	for _, s := range slices.Concat(booked, work) {
		lo, hi = min(lo, max(s.Start, window.Start)), max(hi, min(s.End, window.End))
	}
	if lo >= hi {
		return []string{fmt.Sprintf("%-8s(nothing on this day)", name)}
	}
	lo = window.Start + floorDiv(lo-window.Start, msHour)*msHour
	hi = window.Start + ceilDiv(hi-window.Start, msHour)*msHour
	const quarter = 15 * msMinute
	var head, row strings.Builder
	head.WriteString(strings.Repeat(" ", 8))
	row.WriteString(fmt.Sprintf("%-8s", name))
	for t := lo; t < hi; t += quarter {
		if (t-lo)%msHour == 0 {
			head.WriteString(fmt.Sprintf("%-4s", time.UnixMilli(t).In(sc.loc).Format("15")))
		}
		q := interval.Span{Start: t, End: t + quarter}
		c := byte('.')
		if slices.ContainsFunc(booked, q.Overlaps) {
			c = '#'
		} else if slices.ContainsFunc(free, q.Overlaps) {
			c = '='
		}
		row.WriteByte(c)
	}
	return []string{strings.TrimRight(head.String(), " "), row.String()}
}
