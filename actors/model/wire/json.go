// Package wire owns the JSON encoding of slotd's public API: the resources
// of api-v1 §2, the list envelope's pieces and the §7.1 error body. Encoders
// append to a byte slice by hand; reflection-based encoding costs about a
// third of the HTTP ceiling on our machines (PERF-NOTES), and these shapes
// are fixed. The package is pure, so the business actor can encode the
// answer it stores for an idempotent request, and webhook payloads use the
// same bytes an integrator sees from GET.
package wire

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD.
func AppendString(b []byte, s string) []byte {
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

// AppendNullString appends s, or null when s is nil.
func AppendNullString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return AppendString(b, *s)
}

// AppendUUID appends id in canonical form, quoted.
func AppendUUID(b []byte, id uuid.UUID) []byte {
	b = append(b, '"')
	for i, x := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[x>>4], hexDigits[x&0xf])
	}
	return append(b, '"')
}

// AppendNullUUID appends id, or null when id is nil.
func AppendNullUUID(b []byte, id *uuid.UUID) []byte {
	if id == nil {
		return append(b, "null"...)
	}
	return AppendUUID(b, *id)
}

// TimeLayout is the API's timestamp form: UTC with milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// AppendTime appends t in UTC with milliseconds, quoted. It computes the
// civil date directly from Unix milliseconds: time.Time.AppendFormat was
// 40 % of an availability answer's CPU, and this layout never changes.
func AppendTime(b []byte, t time.Time) []byte {
	var f Times
	return f.Append(b, t)
}

// Times appends times as AppendTime does, remembering the date of the
// last one: the times of one availability answer fall on a few days, and
// the date from the day number was a third of each time's cost.
type Times struct {
	day  int64
	date [len("2006-01-02")]byte
	ok   bool // day and date hold a day
}

// Append appends t as AppendTime does.
func (f *Times) Append(b []byte, t time.Time) []byte {
	ms := t.UnixMilli()
	days, rem := ms/86400000, ms%86400000
	if rem < 0 {
		days, rem = days-1, rem+86400000
	}
	if !f.ok || days != f.day {
		y, m, d := civil(days)
		if y < 0 || y > 9999 {
			b = append(b, '"')
			b = t.UTC().AppendFormat(b, TimeLayout)
			return append(b, '"')
		}
		date := append4(f.date[:0], y)
		date = append2(append(date, '-'), m)
		date = append2(append(date, '-'), d)
		f.date = [10]byte(date)
		f.day, f.ok = days, true
	}
	b = append(b, '"')
	b = append(b, f.date[:]...)
	b = append(b, 'T')
	b = append2(b, int(rem/3600000))
	b = append(b, ':')
	b = append2(b, int(rem/60000%60))
	b = append(b, ':')
	b = append2(b, int(rem/1000%60))
	b = append(b, '.')
	ms3 := int(rem % 1000)
	b = append(b, byte('0'+ms3/100), byte('0'+ms3/10%10), byte('0'+ms3%10))
	return append(b, 'Z', '"')
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date
// (Howard Hinnant's days_from_civil, inverted).
func civil(days int64) (year, month, day int) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	y := yoe + era*400
	if m <= 2 {
		y++
	}
	return int(y), int(m), int(d)
}

func append2(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

func append4(b []byte, n int) []byte {
	return append(b, byte('0'+n/1000), byte('0'+n/100%10), byte('0'+n/10%10), byte('0'+n%10))
}

// AppendNullTime appends t, or null when t is nil.
func AppendNullTime(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return AppendTime(b, *t)
}

// AppendInt appends n.
func AppendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// AppendNullInt appends n, or null when n is nil.
func AppendNullInt(b []byte, n *int) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return AppendInt(b, *n)
}

// AppendBool appends v.
func AppendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// AppendKey appends a member name and colon, preceded by a comma unless the
// object was just opened.
func AppendKey(b []byte, k string) []byte {
	if n := len(b); n > 0 && b[n-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

// AppendStrings appends a JSON array of strings.
func AppendStrings[S ~string](b []byte, xs []S) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, string(x))
	}
	return append(b, ']')
}
