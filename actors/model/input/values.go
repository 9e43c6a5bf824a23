package input

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// MaxEmailLen is the longest address accepted (RFC 5321's path limit).
const MaxEmailLen = 254

// maxTimeLen bounds timestamp strings before they reach time.Parse; the
// longest RFC 3339 form we accept is well under it.
const maxTimeLen = 64

var errTime = errors.New("input: want an RFC 3339 timestamp with Z or an offset")

// ParseTime parses an RFC 3339 timestamp (ISO 8601 with a 'T', seconds and
// either Z or a numeric offset; fractional seconds allowed) and returns it in
// UTC. A timestamp without a zone is refused: guessing one would silently
// move the booking.
func ParseTime(s string) (time.Time, error) {
	if len(s) > maxTimeLen {
		return time.Time{}, errTime
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, errTime
	}
	// An offset can carry a time written in year 9999 (or 0000) out of the
	// years RFC 3339 can write in UTC, which every answer uses: such a
	// time could be stored but never shown again as a timestamp.
	if t = t.UTC(); t.Year() < 0 || t.Year() > 9999 {
		return time.Time{}, errTime
	}
	return t, nil
}

// parseTime is ParseTime of a string's text in a document; an overlong one
// is refused before it is copied.
func parseTime(text []byte) (time.Time, error) {
	if len(text) > maxTimeLen {
		return time.Time{}, errTime
	}
	return ParseTime(string(text))
}

// ValidEmail is a pragmatic address check: one '@', a non-empty local part
// of at most 64 bytes, a domain with a dot and no empty labels, at most
// MaxEmailLen bytes, and no whitespace, control characters or the specials
// that would let an address break out of an e-mail header (<>()[],;:\").
// It does not try to accept every address RFC 5322 allows; quoted local
// parts and IP-literal domains are refused on purpose.
func ValidEmail(s string) bool {
	if len(s) > MaxEmailLen {
		return false
	}
	local, domain, ok := strings.Cut(s, "@")
	if !ok || local == "" || len(local) > 64 || strings.Contains(domain, "@") {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`<>()[],;:\"`, r) {
			return false
		}
	}
	return validDomain(domain)
}

func validDomain(d string) bool {
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
	}
	return true
}

// parseUUID accepts only the canonical 8-4-4-4-12 form. uuid.Parse also
// takes braces, "urn:uuid:" and 32 bare digits; accepting those would give
// one id several spellings in URLs, logs and idempotency hashes.
func parseUUID(s []byte) (u uuid.UUID, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return uuid.UUID{}, false
	}
	// One pass, each pair of hex digits to its byte: checking the text and
	// then handing it to uuid.ParseBytes, which checks it again, was a
	// fifth of reading a world file's appointment (2026-11-27).
	var bad byte
	for j, i := range uuidPairs {
		hi, lo := hexValue[s[i]], hexValue[s[i+1]]
		bad |= hi | lo
		u[j] = hi<<4 | lo
	}
	if bad&0xf0 != 0 {
		return uuid.UUID{}, false
	}
	return u, true
}

// uuidPairs is where each byte's two hex digits start in a UUID's text.
var uuidPairs = [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// hexValue is each byte's value as a hex digit, 0xff for any other byte.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
		t[c-'a'+'A'] = byte(c-'a') + 10
	}
	return t
}()

// intResult says how a number literal fared as an integer.
type intResult int

const (
	intOK       intResult = iota
	intNotWhole           // has a fraction or an exponent
	intTooSmall           // a whole number below int's range
	intTooLarge           // a whole number above int's range
)

// parseInt reads a JSON number literal as an int. Only plain integer
// literals count: 1.0 and 1e2 are refused rather than converted through
// float64, which would silently round large values. The scanner validated
// the syntax, so a literal without '.', 'e' or 'E' is -?digits.
func parseInt[T string | []byte](lit T) (int, intResult) {
	for i := 0; i < len(lit); i++ {
		if c := lit[i]; c == '.' || c == 'e' || c == 'E' {
			return 0, intNotWhole
		}
	}
	neg := len(lit) > 0 && lit[0] == '-'
	limit := uint64(math.MaxInt) // the magnitude allowed
	start := 0
	if neg {
		limit++
		start = 1
	}
	var v uint64
	for i := start; i < len(lit); i++ {
		d := uint64(lit[i] - '0')
		if d > 9 {
			return 0, intNotWhole // not a literal the scanner passes
		}
		if v > (limit-d)/10 {
			if neg {
				return 0, intTooSmall
			}
			return 0, intTooLarge
		}
		v = v*10 + d
	}
	if neg {
		return -int(v), intOK
	}
	return int(v), intOK
}

// emptyKey stands for the key "" in paths: a path must never be empty (a
// client could not tell it from "no path"), and "a." reads like a typo.
const emptyKey = `""`

func join(path, key string) string {
	if key == "" {
		key = emptyKey
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func indexPath(path string, i int) string { return join(path, strconv.Itoa(i)) }
