package ical

import (
	"fmt"
	"slices"
	"strings"
	"time"

	goical "github.com/emersion/go-ical"
	"github.com/teambition/rrule-go"
)

// A zone turns the wall clock of an iCalendar time (held as a UTC time)
// into an instant, and an instant into its wall clock.
type zone interface {
	instant(wall time.Time) time.Time
	wall(t time.Time) time.Time
}

// goZone is a zone Go knows (the tz database).
type goZone struct{ loc *time.Location }

func (z goZone) instant(w time.Time) time.Time {
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), z.loc)
}

func (z goZone) wall(t time.Time) time.Time {
	t = t.In(z.loc)
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

var utcZone = goZone{time.UTC}

// zoneOf resolves a TZID ("" is floating: the business's zone): an IANA
// name, a Windows name, an IANA name behind a vendor's prefix, or the
// file's own VTIMEZONE. A name none of those knows is taken as the
// business's zone, as calendar apps fall back to their own.
func (im *importer) zoneOf(tzid string) (zone, error) {
	if z, ok := im.zones[tzid]; ok {
		return z, nil
	}
	z, err := im.resolve(tzid)
	if err != nil {
		return nil, err
	}
	im.zones[tzid] = z
	return z, nil
}

func (im *importer) resolve(tzid string) (zone, error) {
	name := strings.Trim(tzid, `"`)
	if name == "" {
		return goZone{im.loc}, nil
	}
	if loc, ok := loadIANA(name); ok {
		return goZone{loc}, nil
	}
	if iana, ok := windowsZones[name]; ok {
		if loc, ok := loadIANA(iana); ok {
			return goZone{loc}, nil
		}
	}
	// /mozilla.org/20050126_1/Europe/Berlin, /citadel.org/…/America/New_York
	parts := strings.Split(name, "/")
	for n := min(3, len(parts)); n >= 2; n-- {
		if loc, ok := loadIANA(strings.Join(parts[len(parts)-n:], "/")); ok {
			return goZone{loc}, nil
		}
	}
	for i := range im.vtz {
		if im.vtz[i].id == tzid || im.vtz[i].id == name {
			return im.vtz[i].build(im.from, im.to)
		}
	}
	return goZone{im.loc}, nil
}

// loadIANA loads a tz database zone, never the machine's Local.
func loadIANA(name string) (*time.Location, bool) {
	if name == "Local" || !strings.ContainsAny(name, "/") && name != "UTC" && name != "GMT" {
		return nil, false
	}
	loc, err := time.LoadLocation(name)
	return loc, err == nil
}

// vtimezone is a VTIMEZONE of the file.
type vtimezone struct {
	id   string
	comp *goical.Component
}

// ruleZone is a zone defined by its VTIMEZONE: the transitions of its
// STANDARD and DAYLIGHT observances around the window, in time order.
type ruleZone struct {
	base  int          // offset before the first transition, seconds
	trans []transition // by at
}

type transition struct {
	at       time.Time // the instant it takes effect
	from, to int       // offsets in seconds
}

// build expands the observances' onsets (DTSTART, RRULE, RDATE) from two
// years before from to two years after to.
func (v vtimezone) build(from, to time.Time) (zone, error) {
	lo, hi := from.AddDate(-2, 0, 0), to.AddDate(2, 0, 0)
	z := &ruleZone{}
	first := true
	for _, c := range v.comp.Children {
		if c.Name != goical.CompTimezoneStandard && c.Name != goical.CompTimezoneDaylight {
			continue
		}
		off, errTo := offset(c.Props.Get(goical.PropTimezoneOffsetTo))
		was, errFrom := offset(c.Props.Get(goical.PropTimezoneOffsetFrom))
		start := c.Props.Get(goical.PropDateTimeStart)
		if errTo != nil || errFrom != nil || start == nil {
			return nil, fmt.Errorf("ical: VTIMEZONE %s: an observance without DTSTART, TZOFFSETFROM or TZOFFSETTO", v.id)
		}
		wall, err := time.Parse("20060102T150405", start.Value)
		if err != nil {
			return nil, fmt.Errorf("ical: VTIMEZONE %s: DTSTART %q", v.id, start.Value)
		}
		onsets := []time.Time{wall}
		if r := c.Props.Get(goical.PropRecurrenceRule); r != nil {
			opt, err := rrule.StrToROptionInLocation(r.Value, time.UTC)
			if err != nil {
				return nil, fmt.Errorf("ical: VTIMEZONE %s: RRULE %q: %w", v.id, r.Value, err)
			}
			opt.Dtstart = wall
			rule, err := rrule.NewRRule(*opt)
			if err != nil {
				return nil, fmt.Errorf("ical: VTIMEZONE %s: RRULE %q: %w", v.id, r.Value, err)
			}
			next := rule.Iterator()
			onsets = onsets[:0]
			for n := 0; n < 5000; n++ {
				t, ok := next()
				if !ok || t.After(hi) {
					break
				}
				if !t.Before(lo) {
					onsets = append(onsets, t)
				}
			}
		}
		for _, p := range c.Props.Values(goical.PropRecurrenceDates) {
			for _, s := range strings.Split(p.Value, ",") {
				if t, err := time.Parse("20060102T150405", strings.TrimSpace(s)); err == nil {
					onsets = append(onsets, t)
				}
			}
		}
		for _, w := range onsets {
			// An onset is written in the local time it ends (TZOFFSETFROM).
			z.trans = append(z.trans, transition{at: w.Add(-time.Duration(was) * time.Second), from: was, to: off})
		}
		if first || wall.Before(lo) {
			z.base, first = was, false
		}
	}
	slices.SortFunc(z.trans, func(a, b transition) int { return a.at.Compare(b.at) })
	if len(z.trans) > 0 {
		z.base = z.trans[0].from
	}
	return z, nil
}

// offset reads a UTC offset, +0100 or -053000.
func offset(p *goical.Prop) (int, error) {
	if p == nil {
		return 0, fmt.Errorf("no offset")
	}
	v := strings.TrimSpace(p.Value)
	if len(v) != 5 && len(v) != 7 || v[0] != '+' && v[0] != '-' {
		return 0, fmt.Errorf("offset %q", v)
	}
	var h, m, s int
	if _, err := fmt.Sscanf(v[1:5], "%02d%02d", &h, &m); err != nil {
		return 0, err
	}
	if len(v) == 7 {
		if _, err := fmt.Sscanf(v[5:], "%02d", &s); err != nil {
			return 0, err
		}
	}
	n := h*3600 + m*60 + s
	if v[0] == '-' {
		n = -n
	}
	return n, nil
}

func (z *ruleZone) instant(w time.Time) time.Time {
	for i := len(z.trans) - 1; i >= 0; i-- {
		t := z.trans[i]
		if at := w.Add(-time.Duration(t.to) * time.Second); !at.Before(t.at) {
			return at
		}
	}
	return w.Add(-time.Duration(z.base) * time.Second)
}

func (z *ruleZone) wall(t time.Time) time.Time {
	off := z.base
	for _, tr := range z.trans {
		if tr.at.After(t) {
			break
		}
		off = tr.to
	}
	return t.UTC().Add(time.Duration(off) * time.Second)
}

// windowsZones are the Windows time zone names Outlook and Exchange write
// as TZID, by the IANA zone of their territory "001" in CLDR's
// windowsZones.xml: the common ones.
var windowsZones = map[string]string{
	"Dateline Standard Time":          "Etc/GMT+12",
	"Hawaiian Standard Time":          "Pacific/Honolulu",
	"Alaskan Standard Time":           "America/Anchorage",
	"Pacific Standard Time":           "America/Los_Angeles",
	"Mountain Standard Time":          "America/Denver",
	"US Mountain Standard Time":       "America/Phoenix",
	"Central Standard Time":           "America/Chicago",
	"Eastern Standard Time":           "America/New_York",
	"Atlantic Standard Time":          "America/Halifax",
	"Newfoundland Standard Time":      "America/St_Johns",
	"E. South America Standard Time":  "America/Sao_Paulo",
	"Argentina Standard Time":         "America/Buenos_Aires",
	"UTC":                             "Etc/UTC",
	"GMT Standard Time":               "Europe/London",
	"Greenwich Standard Time":         "Atlantic/Reykjavik",
	"W. Europe Standard Time":         "Europe/Berlin",
	"Central Europe Standard Time":    "Europe/Budapest",
	"Romance Standard Time":           "Europe/Paris",
	"Central European Standard Time":  "Europe/Warsaw",
	"W. Central Africa Standard Time": "Africa/Lagos",
	"GTB Standard Time":               "Europe/Bucharest",
	"E. Europe Standard Time":         "Europe/Chisinau",
	"FLE Standard Time":               "Europe/Kiev",
	"South Africa Standard Time":      "Africa/Johannesburg",
	"Israel Standard Time":            "Asia/Jerusalem",
	"Turkey Standard Time":            "Europe/Istanbul",
	"Russian Standard Time":           "Europe/Moscow",
	"Arabian Standard Time":           "Asia/Dubai",
	"India Standard Time":             "Asia/Calcutta",
	"SE Asia Standard Time":           "Asia/Bangkok",
	"China Standard Time":             "Asia/Shanghai",
	"Singapore Standard Time":         "Asia/Singapore",
	"Tokyo Standard Time":             "Asia/Tokyo",
	"Korea Standard Time":             "Asia/Seoul",
	"AUS Eastern Standard Time":       "Australia/Sydney",
	"E. Australia Standard Time":      "Australia/Brisbane",
	"Cen. Australia Standard Time":    "Australia/Adelaide",
	"W. Australia Standard Time":      "Australia/Perth",
	"New Zealand Standard Time":       "Pacific/Auckland",
}
