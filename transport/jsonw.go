package transport

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// The encoders below append JSON to a byte slice by hand. Reflection-based
// encoding costs about a third of the HTTP ceiling on these machines (see
// PERF-NOTES), and our response shapes are fixed, so a few appenders pay
// for themselves.

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendNullString appends s, or null when s is nil.
func appendNullString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

// appendUUID appends id in canonical form, quoted.
func appendUUID(b []byte, id uuid.UUID) []byte {
	b = append(b, '"')
	for i, x := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[x>>4], hexDigits[x&0xf])
	}
	return append(b, '"')
}

// appendNullUUID appends id, or null when id is nil.
func appendNullUUID(b []byte, id *uuid.UUID) []byte {
	if id == nil {
		return append(b, "null"...)
	}
	return appendUUID(b, *id)
}

// timeLayout is the API's timestamp form: UTC with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z"

// appendTime appends t in UTC with milliseconds, quoted.
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, timeLayout)
	return append(b, '"')
}

// appendNullTime appends t, or null when t is nil.
func appendNullTime(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return appendTime(b, *t)
}

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

func appendNullInt(b []byte, n *int) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return appendInt(b, *n)
}

func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// appendKey appends a member name and colon, preceded by a comma unless the
// object was just opened.
func appendKey(b []byte, k string) []byte {
	if n := len(b); n > 0 && b[n-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

// appendStrings appends a JSON array of strings.
func appendStrings[S ~string](b []byte, xs []S) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, string(x))
	}
	return append(b, ']')
}
