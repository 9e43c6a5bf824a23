package calendar

import (
	"errors"
	"slices"
	"strings"
	"time"
)

// Recurrence-rule bounds. COUNT is materialized whole at load, so it is
// what bounds the work one series can cause.
const (
	// MaxRuleLen is the longest rule text accepted.
	MaxRuleLen  = 200
	maxCount    = 1000
	maxInterval = 1000
)

// The rule frequencies.
const (
	Daily   = "DAILY"
	Weekly  = "WEEKLY"
	Monthly = "MONTHLY"
)

// Rule is the supported subset of an RFC 5545 recurrence rule.
type Rule struct {
	Freq     string    // Daily, Weekly or Monthly
	Interval int       // >= 1; every Interval-th period
	Count    int       // occurrences in total; 0 when the rule has none
	Until    time.Time // last possible start, UTC; zero when the rule has none
	// ByDay, when set, is the weekdays the rule books on, Monday first
	// (RFC 5545's BYDAY without ordinals): within each week of a weekly
	// rule, among the days of a daily one, every such day of a monthly
	// one's month.
	ByDay []time.Weekday
}

// The errors of ParseRule. They never quote the rule back, so they are
// safe to show wherever the rule came from.
var (
	errRuleSyntax      = errors.New("recurrence rule: want NAME=VALUE parts separated by ';'")
	errRuleFreq        = errors.New("recurrence rule: FREQ must be DAILY, WEEKLY or MONTHLY")
	errRuleInterval    = errors.New("recurrence rule: INTERVAL must be a whole number from 1 to 1000")
	errRuleCount       = errors.New("recurrence rule: COUNT must be a whole number from 1 to 1000")
	errRuleUntil       = errors.New("recurrence rule: UNTIL must be a UTC timestamp like 20270101T000000Z")
	errRuleCountUntil  = errors.New("recurrence rule: COUNT and UNTIL exclude each other")
	errRuleDuplicate   = errors.New("recurrence rule: a part appears more than once")
	errRuleUnsupported = errors.New("recurrence rule: only FREQ, INTERVAL, BYDAY, COUNT and UNTIL are supported")
	errRuleByDay       = errors.New("recurrence rule: BYDAY must list distinct days among MO, TU, WE, TH, FR, SA and SU, without ordinals")
)

// ParseRule parses "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=6" and the
// like. Part names and values are case-insensitive, as in RFC 5545; every
// other part (and BYDAY's ordinals, "1MO") is refused rather than
// ignored, since ignoring it would book different times than the author
// meant.
func ParseRule(s string) (Rule, error) {
	if s == "" || len(s) > MaxRuleLen {
		return Rule{}, errRuleSyntax
	}
	r := Rule{Interval: 1}
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ";") {
		name, value, ok := strings.Cut(part, "=")
		if !ok || name == "" || value == "" {
			return Rule{}, errRuleSyntax
		}
		name, value = strings.ToUpper(name), strings.ToUpper(value)
		if seen[name] {
			return Rule{}, errRuleDuplicate
		}
		seen[name] = true
		if err := r.set(name, value); err != nil {
			return Rule{}, err
		}
	}
	switch {
	case r.Freq == "":
		return Rule{}, errRuleFreq
	case r.Count > 0 && !r.Until.IsZero():
		return Rule{}, errRuleCountUntil
	}
	return r, nil
}

func (r *Rule) set(name, value string) error {
	var ok bool
	switch name {
	case "FREQ":
		if value != Daily && value != Weekly && value != Monthly {
			return errRuleFreq
		}
		r.Freq = value
	case "INTERVAL":
		if r.Interval, ok = smallInt(value, maxInterval); !ok {
			return errRuleInterval
		}
	case "COUNT":
		if r.Count, ok = smallInt(value, maxCount); !ok {
			return errRuleCount
		}
	case "UNTIL":
		if r.Until, ok = parseUntil(value); !ok {
			return errRuleUntil
		}
	case "BYDAY":
		if r.ByDay, ok = parseByDay(value); !ok {
			return errRuleByDay
		}
	default:
		return errRuleUnsupported
	}
	return nil
}

// smallInt parses 1..max written in plain digits (no sign, no spaces).
func smallInt(s string, max int) (int, bool) {
	if len(s) > 4 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, n >= 1 && n <= max
}

// parseUntil accepts the basic form RFC 5545 uses (20270101T000000Z) and
// the extended ISO 8601 form, both in UTC only: a floating or offset UNTIL
// would be ambiguous against a series that keeps local wall-clock time.
func parseUntil(s string) (time.Time, bool) {
	if !strings.HasSuffix(s, "Z") {
		return time.Time{}, false
	}
	if t, err := time.Parse("20060102T150405Z", s); err == nil {
		return t, true
	}
	// The extended form is RFC 3339, as every other timestamp of the
	// world file; its length is bounded by the rule's.
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err == nil
}

// ruleDay is one of BYDAY's day names.
type ruleDay struct {
	name string
	day  time.Weekday
}

// ruleDays are BYDAY's day names, Monday first.
var ruleDays = []ruleDay{{"MO", time.Monday}, {"TU", time.Tuesday}, {"WE", time.Wednesday}, {"TH", time.Thursday},
	{"FR", time.Friday}, {"SA", time.Saturday}, {"SU", time.Sunday}}

// parseByDay parses "MO,WE,FR" into weekdays, Monday first.
func parseByDay(s string) ([]time.Weekday, bool) {
	var seen [7]bool
	for _, name := range strings.Split(s, ",") {
		i := slices.IndexFunc(ruleDays, func(d ruleDay) bool { return d.name == name })
		if i < 0 || seen[i] {
			return nil, false
		}
		seen[i] = true
	}
	var out []time.Weekday
	for i, d := range ruleDays {
		if seen[i] {
			out = append(out, d.day)
		}
	}
	return out, true
}

// maxPeriods bounds the periods Occurrences walks: a rule whose days
// never come (BYDAY=MO of a daily rule every 7th day from a Tuesday)
// would otherwise walk for ever.
const maxPeriods = 10_000

// Occurrences calls fn with each start of r at or after first, in order
// (first itself when it is one of the rule's days), each at first's
// wall-clock time in first's
// location, so a series keeps its local time across changes of the
// clocks. It stops after COUNT starts, after UNTIL, when fn returns
// false, or after maxPeriods periods. A monthly rule skips the months
// that have no such day (the 31st), as RFC 5545 does; a wall-clock time
// a change of the clocks skips moves as package time moves it.
//
// fn also gets a number that names the start within the rule, the same
// for the same rule and first start whatever came before: the period's
// index, or, with ByDay, 32 times it plus the day's place in the period
// (a world file's series derives its occurrences' ids from it).
func Occurrences(r Rule, first time.Time, fn func(t time.Time, k int) bool) {
	n := 0
	emit := func(t time.Time, k int) bool {
		if t.Before(first) {
			return true
		}
		if !r.Until.IsZero() && t.After(r.Until) || r.Count > 0 && n >= r.Count {
			return false
		}
		n++
		return fn(t, k)
	}
	y, mo, d := first.Date()
	h, mi, sec := first.Clock()
	at := func(y int, mo time.Month, d int) time.Time {
		return time.Date(y, mo, d, h, mi, sec, first.Nanosecond(), first.Location())
	}
	has := func(wd time.Weekday) bool { return len(r.ByDay) == 0 || slices.Contains(r.ByDay, wd) }
	for k := 0; k < maxPeriods; k++ {
		step := k * r.Interval
		switch r.Freq {
		case Daily:
			if t := at(y, mo, d+step); has(t.Weekday()) && !emit(t, k*byDayK(r)) {
				return
			}
		case Weekly:
			if len(r.ByDay) == 0 {
				if !emit(at(y, mo, d+7*step), k) {
					return
				}
				continue
			}
			monday := d - (int(first.Weekday())+6)%7 + 7*step
			for _, wd := range r.ByDay {
				if !emit(at(y, mo, monday+(int(wd)+6)%7), 32*k+(int(wd)+6)%7) {
					return
				}
			}
		case Monthly:
			if len(r.ByDay) == 0 {
				if t := at(y, mo+time.Month(step), d); t.Day() == d && !emit(t, k) {
					return
				}
				continue
			}
			for day := 1; day <= 31; day++ {
				t := at(y, mo+time.Month(step), day)
				if t.Day() != day {
					break // past the month's end
				}
				if has(t.Weekday()) && !emit(t, 32*k+day) {
					return
				}
			}
		default:
			return
		}
	}
}

// byDayK is what a daily rule's period index is multiplied by to name a
// start: 32 with ByDay, as the other frequencies' are, 1 without.
func byDayK(r Rule) int {
	if len(r.ByDay) > 0 {
		return 32
	}
	return 1
}
