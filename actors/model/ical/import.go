package ical

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	goical "github.com/emersion/go-ical"
	"github.com/teambition/rrule-go"
)

// Importing busy time from a calendar (decisions §8: a staff member's ICS
// calendar, pulled on a schedule).
//
// Parsing is emersion/go-ical's (a small, strict RFC 5545 decoder that
// unfolds lines and keeps every parameter) and recurrence is
// teambition/rrule-go's (a port of python-dateutil's rrule, the engine
// most calendar code trusts): no hand-written RRULE engine. What those
// leave to their callers is done here, the way calendar apps do it:
//
//   - Recurrences are expanded on the wall clock of the event's zone and
//     each occurrence is then placed in that zone, so a 09:00 meeting stays
//     at 09:00 across a DST change.
//   - TZID may be an IANA name, a Windows zone name as Outlook writes it,
//     an IANA name behind a vendor prefix (/mozilla.org/…/Europe/Berlin),
//     or a name only the file's own VTIMEZONE defines; floating times and
//     all-day dates are in the business's zone.
//   - EXDATE and RDATE may list several values; go-ical's RecurrenceSet
//     reads EXDATE twice and RDATE never, so it is not used.
//   - An override (RECURRENCE-ID) replaces its occurrence; a cancelled one
//     removes it. TRANSP:TRANSPARENT and STATUS:CANCELLED are not busy.

// Interval is one busy stretch of an imported calendar.
type Interval struct {
	Start, End time.Time
	// ExternalID is the event's UID, and for an occurrence of a recurring
	// event "/" and its original start (20261005T070000Z, or a date).
	ExternalID string
	Title      string
}

// MaxIntervals bounds what one calendar may yield: a source holds at most
// as many intervals as one PUT may send.
const MaxIntervals = 10000

// ErrTooMany is returned for a calendar with more than MaxIntervals busy
// intervals in the window.
var ErrTooMany = fmt.Errorf("ical: more than %d busy intervals in the window", MaxIntervals)

// ErrTooSlow is returned when expanding a calendar outlasts its context.
// rrule-go looks for an impossible rule's occurrences (FREQ=HOURLY;
// BYMONTH=2;BYMONTHDAY=30) until year 9999, about half a second each, and
// a calendar is fetched from anywhere: a deadline, checked between events
// and between occurrences, bounds what one file can cost.
var ErrTooSlow = errors.New("ical: the calendar takes too long to expand")

// Busy returns the busy intervals of the iCalendar object data that
// intersect [from, to), clipped to it, sorted by start, end and id. loc is
// the business's zone: floating times and all-day dates are in it. It
// gives up with ErrTooSlow once ctx is done.
func Busy(ctx context.Context, data []byte, loc *time.Location, from, to time.Time) ([]Interval, error) {
	cal, err := decode(data)
	if err != nil {
		return nil, err
	}
	im := importer{ctx: ctx, loc: loc, from: from, to: to, zones: map[string]zone{}}
	for _, c := range cal.Children {
		if c.Name == goical.CompTimezone {
			if id := text(c.Props.Get(goical.PropTimezoneID)); id != "" {
				im.vtz = append(im.vtz, vtimezone{id: id, comp: c})
			}
		}
	}
	overrides := map[string][]*goical.Component{}
	var masters []*goical.Component
	for _, c := range cal.Children {
		if c.Name != goical.CompEvent {
			continue
		}
		if c.Props.Get(goical.PropRecurrenceID) != nil {
			uid := text(c.Props.Get(goical.PropUID))
			overrides[uid] = append(overrides[uid], c)
			continue
		}
		masters = append(masters, c)
	}
	for _, c := range masters {
		if ctx.Err() != nil {
			return nil, ErrTooSlow
		}
		if err := im.event(c, overrides[text(c.Props.Get(goical.PropUID))]); err != nil {
			return nil, err
		}
	}
	for _, list := range overrides {
		for _, c := range list {
			if ctx.Err() != nil {
				return nil, ErrTooSlow
			}
			if err := im.override(c); err != nil {
				return nil, err
			}
		}
	}
	if len(im.out) > MaxIntervals {
		return nil, ErrTooMany
	}
	slices.SortFunc(im.out, func(a, b Interval) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		if c := a.End.Compare(b.End); c != 0 {
			return c
		}
		return strings.Compare(a.ExternalID, b.ExternalID)
	})
	return im.out, nil
}

// decode parses data. go-ical's decoder panics on some malformed content
// lines (a parameter cut off at the end of its line: an index out of
// range in lineDecoder.peek, found by FuzzBusy); a calendar is fetched
// from anywhere, so such a file is an error like any other bad one.
func decode(data []byte) (cal *goical.Calendar, err error) {
	defer func() {
		if r := recover(); r != nil {
			cal, err = nil, fmt.Errorf("ical: malformed calendar (%v)", r)
		}
	}()
	cal, err = goical.NewDecoder(bytes.NewReader(data)).Decode()
	if err != nil {
		return nil, fmt.Errorf("ical: %w", err)
	}
	return cal, nil
}

type importer struct {
	ctx      context.Context
	loc      *time.Location
	from, to time.Time
	vtz      []vtimezone
	zones    map[string]zone
	out      []Interval
}

// when is a DTSTART-like value: an instant, or a date (all-day).
type when struct {
	wall time.Time // the wall clock, as a UTC time
	z    zone      // how the wall clock becomes an instant
	date bool
}

// instant is w's real time.
func (w when) instant() time.Time { return w.z.instant(w.wall) }

// skipped reports whether c is not busy time.
func skipped(c *goical.Component) bool {
	return strings.EqualFold(text(c.Props.Get(goical.PropTransparency)), "TRANSPARENT") ||
		strings.EqualFold(text(c.Props.Get(goical.PropStatus)), "CANCELLED")
}

// event adds the occurrences of master c, those overridden excepted.
func (im *importer) event(c *goical.Component, overrides []*goical.Component) error {
	if skipped(c) {
		return nil
	}
	if c.Props.Get(goical.PropDateTimeStart) == nil {
		return nil
	}
	start, length, days, err := im.span(c)
	if err != nil {
		return err
	}
	uid := text(c.Props.Get(goical.PropUID))
	title := text(c.Props.Get(goical.PropSummary))
	rule := c.Props.Get(goical.PropRecurrenceRule)
	rdates := c.Props.Values(goical.PropRecurrenceDates)
	if rule == nil && len(rdates) == 0 {
		im.add(start, length, days, uid, title)
		return nil
	}
	gone := map[time.Time]bool{}
	for _, o := range overrides {
		if w, err := im.value(o.Props.Get(goical.PropRecurrenceID)); err == nil {
			gone[w.key()] = true
		}
	}
	for _, p := range c.Props.Values(goical.PropExceptionDates) {
		ws, err := im.values(&p)
		if err != nil {
			return err
		}
		for _, w := range ws {
			gone[w.key()] = true
		}
	}
	occ, err := im.occurrences(rule, start, length)
	if err != nil {
		return err
	}
	for _, p := range rdates {
		ws, err := im.values(&p)
		if err != nil {
			return err
		}
		occ = append(occ, ws...)
	}
	for _, o := range occ {
		if !gone[o.key()] {
			im.add(o, length, days, uid+"/"+o.id(), title)
			gone[o.key()] = true // an RDATE that repeats a rule's occurrence counts once
		}
	}
	return nil
}

// override adds the occurrence an override (RECURRENCE-ID) describes.
func (im *importer) override(c *goical.Component) error {
	if skipped(c) || c.Props.Get(goical.PropDateTimeStart) == nil {
		return nil
	}
	start, length, days, err := im.span(c)
	if err != nil {
		return err
	}
	orig, err := im.value(c.Props.Get(goical.PropRecurrenceID))
	if err != nil {
		return err
	}
	uid := text(c.Props.Get(goical.PropUID))
	im.add(start, length, days, uid+"/"+orig.id(), text(c.Props.Get(goical.PropSummary)))
	return nil
}

// span is c's start and how long it lasts (length).
func (im *importer) span(c *goical.Component) (when, time.Duration, int, error) {
	start, err := im.value(c.Props.Get(goical.PropDateTimeStart))
	if err != nil {
		return when{}, 0, 0, err
	}
	length, days, err := im.length(c, start)
	return start, length, days, err
}

// key identifies an occurrence: its instant, or its date. In UTC: a map
// tells two times of different locations apart even when they are the
// same instant.
func (w when) key() time.Time {
	if w.date {
		return w.wall
	}
	return w.instant().UTC()
}

// id is the occurrence part of an external id.
func (w when) id() string {
	if w.date {
		return w.wall.Format("20060102")
	}
	return w.instant().UTC().Format("20060102T150405Z")
}

// length is how long each occurrence of c lasts: elapsed time for a timed
// event, whole days for an all-day one.
func (im *importer) length(c *goical.Component, start when) (time.Duration, int, error) {
	if p := c.Props.Get(goical.PropDateTimeEnd); p != nil {
		end, err := im.value(p)
		if err != nil {
			return 0, 0, err
		}
		if start.date {
			return 0, int(end.wall.Sub(start.wall).Hours() / 24), nil
		}
		return end.instant().Sub(start.instant()), 0, nil
	}
	if p := c.Props.Get(goical.PropDuration); p != nil {
		d, err := p.Duration()
		if err != nil {
			return 0, 0, fmt.Errorf("ical: DURATION %q: %w", p.Value, err)
		}
		if start.date {
			return 0, int(d.Hours() / 24), nil
		}
		return d, 0, nil
	}
	if start.date {
		return 0, 1, nil
	}
	return 0, 0, nil
}

// add records an occurrence that intersects the window, clipped to it.
func (im *importer) add(start when, length time.Duration, days int, id, title string) {
	var s, e time.Time
	if start.date {
		d := start.wall
		s = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, im.loc)
		e = time.Date(d.Year(), d.Month(), d.Day()+days, 0, 0, 0, 0, im.loc)
	} else {
		s = start.instant()
		e = s.Add(length)
	}
	if !e.After(s) || !s.Before(im.to) || !e.After(im.from) {
		return
	}
	if s.Before(im.from) {
		s = im.from
	}
	if e.After(im.to) {
		e = im.to
	}
	im.out = append(im.out, Interval{Start: s.UTC(), End: e.UTC(), ExternalID: id, Title: title})
}

// maxExpand bounds the occurrences one rule may make before the window
// ends: a rule a minute apart for years would otherwise run on.
const maxExpand = 100000

var errRunaway = errors.New("ical: a recurrence makes too many occurrences")

// occurrences expands rule from start on the event's wall clock, up to a
// day past the window (its occurrences before the window are skipped by
// add).
func (im *importer) occurrences(prop *goical.Prop, start when, length time.Duration) ([]when, error) {
	if prop == nil {
		return []when{start}, nil
	}
	opt, err := rrule.StrToROptionInLocation(prop.Value, time.UTC)
	if err != nil {
		return nil, fmt.Errorf("ical: RRULE %q: %w", prop.Value, err)
	}
	if !opt.Until.IsZero() && strings.Contains(strings.ToUpper(prop.Value), "Z") && !start.date {
		// An UNTIL in UTC is an instant: the rule runs on wall clocks.
		opt.Until = start.z.wall(opt.Until)
	}
	opt.Dtstart = start.wall
	r, err := rrule.NewRRule(*opt)
	if err != nil {
		return nil, fmt.Errorf("ical: RRULE %q: %w", prop.Value, err)
	}
	stop := start.z.wall(im.to).Add(48 * time.Hour)
	first := start.z.wall(im.from).Add(-length - 48*time.Hour)
	var out []when
	next := r.Iterator()
	for n := 0; ; n++ {
		t, ok := next()
		if !ok || t.After(stop) {
			return out, nil
		}
		if n >= maxExpand {
			return nil, errRunaway
		}
		if n&1023 == 1023 && im.ctx.Err() != nil {
			return nil, ErrTooSlow
		}
		if start.date || !t.Before(first) {
			out = append(out, when{wall: t, z: start.z, date: start.date})
		}
		if len(out) > MaxIntervals {
			return nil, ErrTooMany
		}
	}
}

// value reads a date or date-time property.
func (im *importer) value(p *goical.Prop) (when, error) {
	if p == nil {
		return when{}, errors.New("ical: missing date")
	}
	ws, err := im.values(p)
	if err != nil {
		return when{}, err
	}
	if len(ws) != 1 {
		return when{}, fmt.Errorf("ical: %s: one value expected", p.Name)
	}
	return ws[0], nil
}

// values reads the comma-separated dates or date-times of p.
func (im *importer) values(p *goical.Prop) ([]when, error) {
	z, err := im.zoneOf(p.Params.Get(goical.PropTimezoneID))
	if err != nil {
		return nil, err
	}
	var out []when
	for _, v := range strings.Split(p.Value, ",") {
		v = strings.TrimSpace(v)
		switch {
		case v == "":
			continue
		case strings.EqualFold(p.Params.Get(goical.ParamValue), "DATE") || len(v) == 8:
			d, err := time.Parse("20060102", v)
			if err != nil {
				return nil, fmt.Errorf("ical: %s %q: %w", p.Name, v, err)
			}
			out = append(out, when{wall: d, z: z, date: true})
		case strings.HasSuffix(v, "Z"):
			t, err := time.Parse("20060102T150405Z", v)
			if err != nil {
				return nil, fmt.Errorf("ical: %s %q: %w", p.Name, v, err)
			}
			out = append(out, when{wall: t, z: utcZone})
		default:
			t, err := time.Parse("20060102T150405", v)
			if err != nil {
				return nil, fmt.Errorf("ical: %s %q: %w", p.Name, v, err)
			}
			out = append(out, when{wall: t, z: z})
		}
	}
	return out, nil
}

func text(p *goical.Prop) string {
	if p == nil {
		return ""
	}
	s, err := p.Text()
	if err != nil {
		return p.Value
	}
	return s
}
