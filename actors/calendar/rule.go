package calendar

import (
	"errors"
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
	errRuleUnsupported = errors.New("recurrence rule: only FREQ, INTERVAL, COUNT and UNTIL are supported")
)

// ParseRule parses "FREQ=WEEKLY;INTERVAL=2;COUNT=6" and the like. Part
// names and values are case-insensitive, as in RFC 5545; BYDAY and every
// other part are refused rather than ignored, since ignoring them would
// book different times than the author meant.
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
