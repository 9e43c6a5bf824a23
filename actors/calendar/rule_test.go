package calendar

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseRule(t *testing.T) {
	until := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
	good := []struct {
		in   string
		want Rule
	}{
		{"FREQ=WEEKLY;COUNT=4", Rule{Freq: Weekly, Interval: 1, Count: 4}},
		{"FREQ=DAILY", Rule{Freq: Daily, Interval: 1}},
		{"INTERVAL=2;FREQ=MONTHLY;COUNT=1000", Rule{Freq: Monthly, Interval: 2, Count: 1000}},
		{"freq=weekly;interval=3", Rule{Freq: Weekly, Interval: 3}},
		{"FREQ=WEEKLY;UNTIL=20270301T000000Z", Rule{Freq: Weekly, Interval: 1, Until: until}},
		{"FREQ=WEEKLY;UNTIL=2027-03-01T00:00:00Z", Rule{Freq: Weekly, Interval: 1, Until: until}},
		{"FREQ=WEEKLY;BYDAY=SU,TU,MO;COUNT=6", Rule{Freq: Weekly, Interval: 1, Count: 6, ByDay: []time.Weekday{time.Monday, time.Tuesday, time.Sunday}}},
		{"FREQ=MONTHLY;byday=fr", Rule{Freq: Monthly, Interval: 1, ByDay: []time.Weekday{time.Friday}}},
	}
	for _, tc := range good {
		got, err := ParseRule(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	bad := []string{
		"", "WEEKLY", "FREQ=WEEKLY;", ";FREQ=WEEKLY", "FREQ=", "=WEEKLY",
		"FREQ=YEARLY", "FREQ=HOURLY", "COUNT=4", "INTERVAL=2",
		"FREQ=WEEKLY;BYDAY=1MO", "FREQ=WEEKLY;BYDAY=MO,MO", "FREQ=WEEKLY;BYDAY=", "FREQ=WEEKLY;BYDAY=MON", "FREQ=WEEKLY;BYDAY=MO,",
		"FREQ=WEEKLY;BYMONTHDAY=1", "FREQ=WEEKLY;WKST=MO",
		"FREQ=WEEKLY;FREQ=DAILY", "FREQ=WEEKLY;COUNT=2;COUNT=3",
		"FREQ=WEEKLY;COUNT=0", "FREQ=WEEKLY;COUNT=1001", "FREQ=WEEKLY;COUNT=-1", "FREQ=WEEKLY;COUNT=+4",
		"FREQ=WEEKLY;COUNT=4x", "FREQ=WEEKLY;COUNT=99999999999999999999",
		"FREQ=WEEKLY;INTERVAL=0", "FREQ=WEEKLY;INTERVAL=1001",
		"FREQ=WEEKLY;UNTIL=20270301", "FREQ=WEEKLY;UNTIL=20270301T000000", "FREQ=WEEKLY;UNTIL=2027-03-01T00:00:00+01:00",
		"FREQ=WEEKLY;UNTIL=20271301T000000Z",
		"FREQ=WEEKLY;COUNT=4;UNTIL=20270301T000000Z",
		"RRULE:FREQ=WEEKLY", "FREQ=WEEKLY COUNT=4",
	}
	for _, in := range bad {
		_, err := ParseRule(in)
		require.Error(t, err, in)
		if len(in) > 12 {
			require.NotContains(t, err.Error(), in, "errors never quote the rule")
		}
	}
}

// TestOccurrences: the starts a rule makes, read off the business's wall
// clock, across both changes of the clocks and through short months.
func TestOccurrences(t *testing.T) {
	ams, err := time.LoadLocation("Europe/Amsterdam")
	require.NoError(t, err)
	at := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, ams)
		require.NoError(t, err)
		return v
	}
	list := func(rule, first string) []string {
		r, err := ParseRule(rule)
		require.NoError(t, err, rule)
		var out []string
		Occurrences(r, at(first), func(v time.Time, _ int) bool {
			out = append(out, v.In(ams).Format("Mon 01-02 15:04 MST"))
			return len(out) < 20
		})
		return out
	}
	// Weekly across the spring change: 18:00 local, CET then CEST.
	require.Equal(t, []string{"Tue 03-24 18:00 CET", "Tue 03-31 18:00 CEST", "Tue 04-07 18:00 CEST"},
		list("FREQ=WEEKLY;COUNT=3", "2026-03-24 18:00"))
	// And across the autumn one.
	require.Equal(t, []string{"Tue 10-20 18:00 CEST", "Tue 10-27 18:00 CET"}, list("FREQ=WEEKLY;COUNT=2", "2026-10-20 18:00"))
	// Monthly on the 31st skips the months without one (RFC 5545).
	require.Equal(t, []string{"Sat 01-31 10:00 CET", "Tue 03-31 10:00 CEST", "Sun 05-31 10:00 CEST", "Fri 07-31 10:00 CEST"},
		list("FREQ=MONTHLY;COUNT=4", "2026-01-31 10:00"))
	// BYDAY: within each week (Monday first), from the first start on.
	require.Equal(t, []string{"Wed 12-09 09:00 CET", "Fri 12-11 09:00 CET", "Mon 12-21 09:00 CET", "Wed 12-23 09:00 CET"},
		list("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;COUNT=4", "2026-12-09 09:00"))
	// A daily rule's BYDAY filters its days; a monthly one's takes every
	// such day of the month.
	require.Equal(t, []string{"Fri 12-11 09:00 CET", "Mon 12-14 09:00 CET", "Fri 12-18 09:00 CET"},
		list("FREQ=DAILY;BYDAY=MO,FR;COUNT=3", "2026-12-11 09:00"))
	require.Equal(t, []string{"Fri 12-25 09:00 CET", "Fri 01-01 09:00 CET", "Fri 01-08 09:00 CET"},
		list("FREQ=MONTHLY;BYDAY=FR;COUNT=3", "2026-12-25 09:00"))
	// UNTIL is inclusive; nothing after it.
	require.Equal(t, []string{"Tue 12-08 09:00 CET", "Tue 12-15 09:00 CET"},
		list("FREQ=WEEKLY;UNTIL=20261215T080000Z", "2026-12-08 09:00"))
	// A rule whose days never come stops, bounded.
	require.Empty(t, list("FREQ=DAILY;INTERVAL=7;BYDAY=MO;COUNT=2", "2026-12-08 09:00"))
}
