// Package retry owns the webhook retry policy of api-v1 §6.5: which answers
// count as delivered, which are worth another attempt, and when that attempt
// is due.
//
// Retries are data. The ladder is a table, and the next step is a pure
// function of the attempt number, the consumer's answer and the current time,
// so a delivery's timer can be re-armed from the journal after a restart by
// calling Next again with what was stored. The package imports only the
// standard library, starts no goroutines and never reads the clock.
package retry

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Ladder is the wait before each attempt, indexed by attempt-1: attempt 1 is
// sent at once, attempt 2 one minute after attempt 1 failed, and so on up to
// attempt 6, twelve hours after attempt 5.
var Ladder = [...]time.Duration{
	0,
	1 * time.Minute,
	5 * time.Minute,
	30 * time.Minute,
	2 * time.Hour,
	12 * time.Hour,
}

// MaxAttempts is the ladder ceiling: six attempts per event. An attempt
// number above it is a replay, which gets exactly one try.
const MaxAttempts = len(Ladder)

// MaxRetryAfter bounds a consumer's Retry-After: a 429 asking for a wait
// shorter than this replaces the next rung; a longer one is ignored.
const MaxRetryAfter = 12 * time.Hour

// Outcome is what one attempt produced.
type Outcome struct {
	// Status is the HTTP status of the answer, 0 when there was none
	// (refused, unreachable, timed out). A non-zero Status wins over Err:
	// the consumer answered.
	Status int
	// RetryAfter is the raw Retry-After header of the answer, if any.
	RetryAfter string
	// Err is the transport error or timeout when Status is 0. Next does not
	// look inside it: every failure to get an answer is worth a retry.
	Err error
}

// Decision is what to do after an attempt. Exactly one of Delivered, Retry
// and Final is true; they map onto the delivery states of api-v1 §3.3 as
// delivered, failed (with nextRetryAt) and exhausted.
type Decision struct {
	// Delivered means the consumer answered 2xx.
	Delivered bool
	// Retry means another attempt is due at NextAt.
	Retry bool
	// NextAt is when the next attempt is due; zero unless Retry.
	NextAt time.Time
	// Final means no further attempt: the ladder ran out, the attempt was a
	// replay, or the answer can never succeed (3xx, 4xx other than 408/429).
	Final bool
}

// Next decides what follows attempt number attempt (1-based; values below 1
// are read as 1) that ended in o at time now. scale multiplies every wait,
// a consumer's Retry-After included (--webhook-retry-scale); a scale that is
// not a positive finite number is read as 1.
func Next(attempt int, o Outcome, now time.Time, scale float64) Decision {
	switch {
	case Success(o.Status):
		return Decision{Delivered: true}
	case !Retryable(o.Status), Webhook.Exhausted(attempt):
		return Decision{Final: true}
	}
	wait := Webhook.Wait(attempt)
	if o.Status == 429 {
		if d, ok := ParseRetryAfter(o.RetryAfter, now); ok {
			wait = d
		}
	}
	return Decision{Retry: true, NextAt: now.Add(Scale(wait, scale))}
}

// Success reports whether status means delivered: any 2xx.
func Success(status int) bool { return status >= 200 && status <= 299 }

// Retryable reports whether an attempt that ended with status deserves
// another: no answer at all (0), every 5xx, 408 and 429. Any other status,
// 3xx included, can never succeed by repeating the same request.
func Retryable(status int) bool {
	return status == 0 || status == 408 || status == 429 || (status >= 500 && status <= 599)
}

// Scale multiplies d by factor, reading a factor that is not a positive
// finite number as 1 and saturating instead of overflowing.
func Scale(d time.Duration, factor float64) time.Duration {
	if !(factor > 0) || math.IsInf(factor, 0) {
		return d
	}
	f := float64(d) * factor
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(f)
}

// httpDateLayouts are the three HTTP-date forms of RFC 9110 §5.6.7, in the
// order a recipient should try them (the same list as net/http.ParseTime,
// which this package may not import).
var httpDateLayouts = [...]string{
	"Mon, 02 Jan 2006 15:04:05 GMT",  // IMF-fixdate
	"Monday, 02-Jan-06 15:04:05 GMT", // obsolete RFC 850
	"Mon Jan _2 15:04:05 2006",       // obsolete asctime
}

// ParseRetryAfter reads a Retry-After value, delta-seconds or an HTTP-date,
// as a wait from now. It reports false when the value is empty, malformed,
// or asks for MaxRetryAfter or longer; a date in the past is a wait of 0.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	var wait time.Duration
	if isDigits(v) {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs >= int64(MaxRetryAfter/time.Second) {
			return 0, false // too large to represent is certainly too long
		}
		wait = time.Duration(secs) * time.Second
	} else {
		at, ok := parseHTTPDate(v)
		if !ok {
			return 0, false
		}
		wait = max(at.Sub(now), 0)
	}
	if wait >= MaxRetryAfter {
		return 0, false
	}
	return wait, true
}

func parseHTTPDate(v string) (time.Time, bool) {
	for _, layout := range httpDateLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// isDigits reports whether s is 1*DIGIT, the delta-seconds grammar: no sign,
// no fraction, no spaces.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
