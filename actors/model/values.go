package model

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Clock is a local wall-clock time of day in minutes after midnight; 24:00
// (1440) is allowed as the end of a span.
type Clock int

// ParseClock parses "HH:MM" (00:00 to 24:00).
func ParseClock(s string) (Clock, error) {
	if len(s) != 5 || s[2] != ':' {
		return 0, errors.New("want HH:MM")
	}
	h, ok1 := digits2(s[0:2])
	m, ok2 := digits2(s[3:5])
	if !ok1 || !ok2 || m > 59 || h > 24 || (h == 24 && m != 0) {
		return 0, errors.New("want HH:MM between 00:00 and 24:00")
	}
	return Clock(h*60 + m), nil
}

func digits2(s string) (int, bool) {
	if s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return 0, false
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), true
}

func (c Clock) String() string { return string(c.Append(make([]byte, 0, 5))) }

// Append appends c as "HH:MM" to b; a response renders every pricing rule's
// times with it, so it must not allocate.
func (c Clock) Append(b []byte) []byte {
	if c < 0 || c > 99*60+59 {
		return fmt.Appendf(b, "%02d:%02d", int(c)/60, int(c)%60) // never parsed; kept readable
	}
	h, m := int(c)/60, int(c)%60
	return append(b, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10))
}

// MarshalText implements encoding.TextMarshaler.
func (c Clock) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Clock) UnmarshalText(b []byte) (err error) {
	*c, err = ParseClock(string(b))
	return err
}

// Date is a civil (local) date.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate parses "YYYY-MM-DD" and rejects dates that do not exist.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, errors.New("want YYYY-MM-DD")
	}
	return DateOf(t), nil
}

// DateOf returns the civil date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// MarshalText implements encoding.TextMarshaler.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Date) UnmarshalText(b []byte) (err error) {
	*d, err = ParseDate(string(b))
	return err
}

// KeyHash is the SHA-256 of an API key's plaintext. Keys are random and long,
// so a fast unsalted hash is enough to make a stolen database useless for
// authentication while keeping the per-request cost at a few hundred ns.
type KeyHash [32]byte

// HashKey returns the stored form of a plaintext key.
func HashKey(plaintext string) KeyHash { return sha256.Sum256([]byte(plaintext)) }

// MarshalText implements encoding.TextMarshaler.
func (h KeyHash) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(h[:])), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (h *KeyHash) UnmarshalText(b []byte) error {
	if len(b) != 64 {
		return errors.New("key hash: want 64 hex digits")
	}
	_, err := hex.Decode(h[:], b)
	return err
}

// Weekdays maps the world file's day names to time.Weekday.
var Weekdays = map[string]time.Weekday{
	"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday,
}

// DayName is the world file's name of a weekday.
func DayName(d time.Weekday) string {
	return [...]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}[d]
}
