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
// the date from the day number was a third of each time's cost. A time is
// written into one array and appended at once: appending its 26 bytes one
// or two at a time was most of what is left (2026-11-27 profile of the
// 1-day availability phase: 5.5 % of slotd's CPU).
type Times struct {
	day int64
	// text is the last time written: `"2006-01-02T15:04:05.000Z"`, whose
	// first 12 bytes stay while the day does.
	text [timeText]byte
	ok   bool // day and text's date hold a day
}

const timeText = len(`"2006-01-02T15:04:05.000Z"`)

// Append appends t as AppendTime does.
func (f *Times) Append(b []byte, t time.Time) []byte {
	ms := t.UnixMilli()
	if ms < minMs || ms >= maxMs {
		b = append(b, '"')
		b = t.UTC().AppendFormat(b, TimeLayout)
		return append(b, '"')
	}
	return f.AppendMs(b, ms)
}

// The years AppendMs writes: 0000 to 9999.
const (
	minMs = -62167219200000 // 0000-01-01T00:00:00Z
	maxMs = 253402300800000 // 10000-01-01T00:00:00Z
)

// AppendMs appends the instant ms (Unix milliseconds, in years 0000 to
// 9999) as AppendTime does.
func (f *Times) AppendMs(b []byte, ms int64) []byte {
	days, rem := ms/86400000, ms%86400000
	if rem < 0 {
		days, rem = days-1, rem+86400000
	}
	x := &f.text
	if !f.ok || days != f.day {
		y, m, d := civil(days)
		x[0] = '"'
		put4(x[1:5], y)
		x[5] = '-'
		put2(x[6:8], m)
		x[8] = '-'
		put2(x[9:11], d)
		x[11], x[14], x[17], x[20], x[24], x[25] = 'T', ':', ':', '.', 'Z', '"'
		f.day, f.ok = days, true
	}
	r := int(rem)
	if r%60000 == 0 {
		// A whole minute, as every start on a booking grid is: its
		// clock from a table.
		copy(x[12:24], clockText[r/60000][:])
		return append(b, x[:]...)
	}
	put2(x[12:14], r/3600000)
	put2(x[15:17], r/60000%60)
	put2(x[18:20], r/1000%60)
	n := r % 1000
	x[21], x[22], x[23] = byte('0'+n/100), byte('0'+n/10%10), byte('0'+n%10)
	return append(b, x[:]...)
}

// clockText is "15:04:00.000" for every minute of the day.
var clockText = func() (t [24 * 60][12]byte) {
	for m := range t {
		put2(t[m][0:2], m/60)
		t[m][2] = ':'
		put2(t[m][3:5], m%60)
		copy(t[m][5:], ":00.000")
	}
	return t
}()

// put2 and put4 write n's last two or four digits into b.
func put2(b []byte, n int) { _ = b[1]; b[0], b[1] = byte('0'+n/10), byte('0'+n%10) }

func put4(b []byte, n int) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte('0'+n/1000), byte('0'+n/100%10), byte('0'+n/10%10), byte('0'+n%10)
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
