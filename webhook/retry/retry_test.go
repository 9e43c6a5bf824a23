package retry

import (
	"errors"
	"math"
	"testing"
	"time"
)

var (
	now        = time.Date(2026, 3, 30, 10, 0, 0, 0, time.UTC)
	errTimeout = errors.New("timed out")
)

// at returns now+d, the NextAt a test expects.
func at(d time.Duration) time.Time { return now.Add(d) }

func TestLadder(t *testing.T) {
	// The §6.5 table: time since the event of each attempt when every
	// earlier one failed and nothing but the ladder decides.
	since := []time.Duration{0, time.Minute, 6 * time.Minute, 36 * time.Minute,
		2*time.Hour + 36*time.Minute, 14*time.Hour + 36*time.Minute}
	if MaxAttempts != 6 || len(since) != MaxAttempts {
		t.Fatalf("MaxAttempts = %d, want 6", MaxAttempts)
	}
	clock := now
	for attempt := 1; attempt <= MaxAttempts; attempt++ {
		if got := clock.Sub(now); got != since[attempt-1] {
			t.Errorf("attempt %d sent %v after the event, want %v", attempt, got, since[attempt-1])
		}
		d := Next(attempt, Outcome{Status: 503}, clock, 1)
		if attempt == MaxAttempts {
			if d != (Decision{Final: true}) {
				t.Errorf("after attempt %d: %+v, want Final", attempt, d)
			}
			break
		}
		if !d.Retry {
			t.Fatalf("after attempt %d: %+v, want Retry", attempt, d)
		}
		clock = d.NextAt
	}
}

func TestNext(t *testing.T) {
	imfDate := func(d time.Duration) string { return now.Add(d).Format("Mon, 02 Jan 2006 15:04:05 GMT") }
	tests := []struct {
		name    string
		attempt int
		o       Outcome
		scale   float64
		want    Decision
	}{
		// Success.
		{"200 delivered", 1, Outcome{Status: 200}, 1, Decision{Delivered: true}},
		{"204 delivered", 3, Outcome{Status: 204}, 1, Decision{Delivered: true}},
		{"299 delivered", 1, Outcome{Status: 299}, 1, Decision{Delivered: true}},
		{"2xx on the last attempt", 6, Outcome{Status: 201}, 1, Decision{Delivered: true}},
		{"2xx on a replay", 7, Outcome{Status: 200}, 1, Decision{Delivered: true}},
		{"status wins over a body read error", 1, Outcome{Status: 200, Err: errTimeout}, 1, Decision{Delivered: true}},

		// Retried answers, each rung.
		{"timeout after attempt 1", 1, Outcome{Err: errTimeout}, 1, Decision{Retry: true, NextAt: at(time.Minute)}},
		{"no answer, no error", 1, Outcome{}, 1, Decision{Retry: true, NextAt: at(time.Minute)}},
		{"500 after attempt 2", 2, Outcome{Status: 500}, 1, Decision{Retry: true, NextAt: at(5 * time.Minute)}},
		{"502 after attempt 3", 3, Outcome{Status: 502}, 1, Decision{Retry: true, NextAt: at(30 * time.Minute)}},
		{"599 after attempt 4", 4, Outcome{Status: 599}, 1, Decision{Retry: true, NextAt: at(2 * time.Hour)}},
		{"408 after attempt 5", 5, Outcome{Status: 408}, 1, Decision{Retry: true, NextAt: at(12 * time.Hour)}},
		{"429 without Retry-After", 1, Outcome{Status: 429}, 1, Decision{Retry: true, NextAt: at(time.Minute)}},
		{"attempt 0 read as 1", 0, Outcome{Status: 500}, 1, Decision{Retry: true, NextAt: at(time.Minute)}},

		// Exhausted: ladder ran out, replays.
		{"5xx after attempt 6", 6, Outcome{Status: 500}, 1, Decision{Final: true}},
		{"timeout after attempt 6", 6, Outcome{Err: errTimeout}, 1, Decision{Final: true}},
		{"429 after attempt 6", 6, Outcome{Status: 429, RetryAfter: "1"}, 1, Decision{Final: true}},
		{"replay 7 fails", 7, Outcome{Status: 503}, 1, Decision{Final: true}},
		{"replay 12 times out", 12, Outcome{Err: errTimeout}, 1, Decision{Final: true}},

		// Never retried.
		{"400", 1, Outcome{Status: 400}, 1, Decision{Final: true}},
		{"401", 1, Outcome{Status: 401}, 1, Decision{Final: true}},
		{"404", 2, Outcome{Status: 404}, 1, Decision{Final: true}},
		{"410", 1, Outcome{Status: 410}, 1, Decision{Final: true}},
		{"499", 1, Outcome{Status: 499}, 1, Decision{Final: true}},
		{"301", 1, Outcome{Status: 301}, 1, Decision{Final: true}},
		{"302", 1, Outcome{Status: 302}, 1, Decision{Final: true}},
		{"304", 1, Outcome{Status: 304}, 1, Decision{Final: true}},
		{"307", 1, Outcome{Status: 307}, 1, Decision{Final: true}},
		{"308", 1, Outcome{Status: 308}, 1, Decision{Final: true}},
		{"1xx", 1, Outcome{Status: 102}, 1, Decision{Final: true}},
		{"600 is no 5xx", 1, Outcome{Status: 600}, 1, Decision{Final: true}},
		{"Retry-After on a 400 changes nothing", 1, Outcome{Status: 400, RetryAfter: "5"}, 1, Decision{Final: true}},

		// Retry-After on 429 replaces the next rung, shorter or longer.
		{"429 delta shorter than rung", 2, Outcome{Status: 429, RetryAfter: "10"}, 1, Decision{Retry: true, NextAt: at(10 * time.Second)}},
		{"429 delta longer than rung", 1, Outcome{Status: 429, RetryAfter: "3600"}, 1, Decision{Retry: true, NextAt: at(time.Hour)}},
		{"429 delta zero", 1, Outcome{Status: 429, RetryAfter: "0"}, 1, Decision{Retry: true, NextAt: now}},
		{"429 delta padded", 1, Outcome{Status: 429, RetryAfter: " 30 "}, 1, Decision{Retry: true, NextAt: at(30 * time.Second)}},
		{"429 just under 12 h", 1, Outcome{Status: 429, RetryAfter: "43199"}, 1, Decision{Retry: true, NextAt: at(12*time.Hour - time.Second)}},
		{"429 exactly 12 h ignored", 2, Outcome{Status: 429, RetryAfter: "43200"}, 1, Decision{Retry: true, NextAt: at(5 * time.Minute)}},
		{"429 over 12 h ignored", 2, Outcome{Status: 429, RetryAfter: "86400"}, 1, Decision{Retry: true, NextAt: at(5 * time.Minute)}},
		{"429 huge delta ignored", 1, Outcome{Status: 429, RetryAfter: "99999999999999999999999"}, 1, Decision{Retry: true, NextAt: at(time.Minute)}},
		{"429 negative ignored", 1, Outcome{Status: 429, RetryAfter: "-5"}, 1, Decision{Retry: true, NextAt: at(time.Minute)}},
		{"429 fraction ignored", 1, Outcome{Status: 429, RetryAfter: "1.5"}, 1, Decision{Retry: true, NextAt: at(time.Minute)}},
		{"429 plus sign ignored", 1, Outcome{Status: 429, RetryAfter: "+5"}, 1, Decision{Retry: true, NextAt: at(time.Minute)}},
		{"429 garbage ignored", 1, Outcome{Status: 429, RetryAfter: "soon"}, 1, Decision{Retry: true, NextAt: at(time.Minute)}},
		{"429 IMF-fixdate", 1, Outcome{Status: 429, RetryAfter: imfDate(2 * time.Hour)}, 1, Decision{Retry: true, NextAt: at(2 * time.Hour)}},
		{"429 date 12 h ahead ignored", 3, Outcome{Status: 429, RetryAfter: imfDate(12 * time.Hour)}, 1, Decision{Retry: true, NextAt: at(30 * time.Minute)}},
		{"429 date in the past is now", 1, Outcome{Status: 429, RetryAfter: imfDate(-time.Hour)}, 1, Decision{Retry: true, NextAt: now}},
		{"429 RFC 850 date", 1, Outcome{Status: 429, RetryAfter: "Monday, 30-Mar-26 10:20:00 GMT"}, 1, Decision{Retry: true, NextAt: at(20 * time.Minute)}},
		{"429 asctime date", 1, Outcome{Status: 429, RetryAfter: "Mon Mar 30 10:00:45 2026"}, 1, Decision{Retry: true, NextAt: at(45 * time.Second)}},
		{"429 date with numeric zone ignored", 1, Outcome{Status: 429, RetryAfter: "Mon, 30 Mar 2026 10:20:00 +0000"}, 1, Decision{Retry: true, NextAt: at(time.Minute)}},
		{"Retry-After on a 503 ignored", 1, Outcome{Status: 503, RetryAfter: "5"}, 1, Decision{Retry: true, NextAt: at(time.Minute)}},

		// Scaling multiplies every wait, Retry-After included.
		{"scale 0.001, 12 h rung is 43.2 s", 5, Outcome{Status: 500}, 0.001, Decision{Retry: true, NextAt: at(43200 * time.Millisecond)}},
		{"scale 0.001, 1 m rung is 60 ms", 1, Outcome{Err: errTimeout}, 0.001, Decision{Retry: true, NextAt: at(60 * time.Millisecond)}},
		{"scale 0.001 on Retry-After", 1, Outcome{Status: 429, RetryAfter: "3600"}, 0.001, Decision{Retry: true, NextAt: at(3600 * time.Millisecond)}},
		{"scale judged after the 12 h limit", 1, Outcome{Status: 429, RetryAfter: "50000"}, 0.001, Decision{Retry: true, NextAt: at(60 * time.Millisecond)}},
		{"scale 2", 2, Outcome{Status: 500}, 2, Decision{Retry: true, NextAt: at(10 * time.Minute)}},
		{"scale 0 read as 1", 1, Outcome{Status: 500}, 0, Decision{Retry: true, NextAt: at(time.Minute)}},
		{"negative scale read as 1", 1, Outcome{Status: 500}, -3, Decision{Retry: true, NextAt: at(time.Minute)}},
		{"scale does not revive a replay", 7, Outcome{Status: 500}, 0.001, Decision{Final: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Next(tt.attempt, tt.o, now, tt.scale)
			if !got.NextAt.Equal(tt.want.NextAt) || got.Delivered != tt.want.Delivered ||
				got.Retry != tt.want.Retry || got.Final != tt.want.Final {
				t.Errorf("Next(%d, %+v, now, %v) = %+v, want %+v", tt.attempt, tt.o, tt.scale, got, tt.want)
			}
			if n := btoi(got.Delivered) + btoi(got.Retry) + btoi(got.Final); n != 1 {
				t.Errorf("%d of Delivered/Retry/Final set, want exactly one: %+v", n, got)
			}
		})
	}
}

func TestScale(t *testing.T) {
	tests := []struct {
		d      time.Duration
		factor float64
		want   time.Duration
	}{
		{12 * time.Hour, 0.001, 43200 * time.Millisecond},
		{time.Minute, 1, time.Minute},
		{time.Minute, 0.5, 30 * time.Second},
		{time.Minute, 0, time.Minute},
		{time.Minute, -1, time.Minute},
		{time.Minute, math.NaN(), time.Minute},
		{time.Minute, math.Inf(1), time.Minute},
		{12 * time.Hour, 1e300, 1<<63 - 1},
	}
	for _, tt := range tests {
		if got := Scale(tt.d, tt.factor); got != tt.want {
			t.Errorf("Scale(%v, %v) = %v, want %v", tt.d, tt.factor, got, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		v      string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"   ", 0, false},
		{"0", 0, true},
		{"120", 2 * time.Minute, true},
		{"007", 7 * time.Second, true},
		{"43199", 43199 * time.Second, true},
		{"43200", 0, false},
		{"9223372036854775808", 0, false},
		{"1e3", 0, false},
		{"12 ", 12 * time.Second, true},
		{"1 2", 0, false},
		{"Mon, 30 Mar 2026 11:00:00 GMT", time.Hour, true},
		{"Mon, 30 Mar 2026 22:00:00 GMT", 0, false}, // exactly 12 h
		{"Mon, 30 Mar 2026 09:00:00 GMT", 0, true},  // past
		{"mon, 30 mar 2026 11:00:00 gmt", 0, false}, // case matters in HTTP-date
		{"30 Mar 2026 11:00:00 GMT", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfter(tt.v, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.wantOK)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "120", "Mon, 30 Mar 2026 11:00:00 GMT", "Mon Mar 30 10:00:45 2026", "-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := ParseRetryAfter(v, now)
		if ok && (d < 0 || d >= MaxRetryAfter) {
			t.Fatalf("ParseRetryAfter(%q) = %v, true: outside [0, 12h)", v, d)
		}
		if !ok && d != 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v, false: want 0 when refused", v, d)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
