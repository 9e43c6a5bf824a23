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
	}
	for _, tc := range good {
		got, err := ParseRule(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	bad := []string{
		"", "WEEKLY", "FREQ=WEEKLY;", ";FREQ=WEEKLY", "FREQ=", "=WEEKLY",
		"FREQ=YEARLY", "FREQ=HOURLY", "COUNT=4", "INTERVAL=2",
		"FREQ=WEEKLY;BYDAY=MO", "FREQ=WEEKLY;BYMONTHDAY=1", "FREQ=WEEKLY;WKST=MO",
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
