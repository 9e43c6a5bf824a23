// Package ical writes iCalendar (RFC 5545) objects: the calendar feeds of
// decisions §8, which calendar apps poll.
//
// Only what a feed needs is here, written the strict way every consumer
// accepts: CRLF line ends, content lines folded at 75 octets (never inside
// a UTF-8 sequence), TEXT values escaped, every time in UTC (no VTIMEZONE
// to get wrong), one VEVENT per busy stretch with a UID that stays the
// same across polls and a SEQUENCE that grows with each change.
package ical

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// Calendar is one feed.
type Calendar struct {
	Name     string // X-WR-CALNAME
	Timezone string // X-WR-TIMEZONE: the zone apps show it in by default
	Events   []Event
}

// Event is one VEVENT.
type Event struct {
	UID      string
	Stamp    time.Time // DTSTAMP: when the event last changed
	Sequence int
	Start    time.Time
	End      time.Time
	Summary  string
	Status   string // CONFIRMED, TENTATIVE or CANCELLED
}

// The event statuses of RFC 5545 §3.8.1.11.
const (
	Confirmed = "CONFIRMED"
	Tentative = "TENTATIVE"
	Cancelled = "CANCELLED"
)

// Append appends c as a VCALENDAR object to b.
func Append(b []byte, c *Calendar) []byte {
	b = append(b, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//slotd//calendar feed 1//EN\r\nCALSCALE:GREGORIAN\r\nMETHOD:PUBLISH\r\n"...)
	b = textLine(b, "X-WR-CALNAME:", c.Name)
	b = textLine(b, "X-WR-TIMEZONE:", c.Timezone)
	b = append(b, "REFRESH-INTERVAL;VALUE=DURATION:PT15M\r\nX-PUBLISHED-TTL:PT15M\r\n"...)
	for i := range c.Events {
		b = appendEvent(b, &c.Events[i])
	}
	return append(b, "END:VCALENDAR\r\n"...)
}

func appendEvent(b []byte, e *Event) []byte {
	b = append(b, "BEGIN:VEVENT\r\n"...)
	b = textLine(b, "UID:", e.UID)
	b = timeLine(b, "DTSTAMP:", e.Stamp)
	b = timeLine(b, "DTSTART:", e.Start)
	b = timeLine(b, "DTEND:", e.End)
	b = append(b, "SEQUENCE:"...)
	b = strconv.AppendInt(b, int64(max(e.Sequence, 0)), 10)
	b = append(b, "\r\n"...)
	b = textLine(b, "SUMMARY:", e.Summary)
	b = append(b, "STATUS:"...)
	b = append(b, e.Status...)
	b = append(b, "\r\nTRANSP:OPAQUE\r\nEND:VEVENT\r\n"...)
	return b
}

// timeLine appends a DATE-TIME property in UTC ("20261208T100000Z"),
// written digit by digit: time's layout engine was a fifth of a feed.
func timeLine(b []byte, name string, t time.Time) []byte {
	b = append(b, name...)
	t = t.UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	b = append(b, byte('0'+y/1000%10), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	b = two(two(b, int(mo)), d)
	b = append(b, 'T')
	b = two(two(two(b, h), mi), s)
	return append(b, "Z\r\n"...)
}

func two(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

// textLine appends a property whose value is TEXT: escaped (RFC 5545
// §3.3.11), control characters dropped, and folded.
func textLine(b []byte, name, value string) []byte {
	line := make([]byte, 0, len(name)+len(value)+8)
	line = append(line, name...)
	for _, r := range value {
		switch {
		case r == '\\' || r == ';' || r == ',':
			line = append(line, '\\', byte(r))
		case r == '\n':
			line = append(line, '\\', 'n')
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			// no control characters in a content line; a lone CR or a
			// tab would be read as something else
		default:
			line = utf8.AppendRune(line, r)
		}
	}
	return fold(b, line)
}

// maxLine is the longest content line, CRLF excluded (RFC 5545 §3.1).
const maxLine = 75

// fold appends line with a CRLF and a space inserted before it would pass
// 75 octets, never inside a UTF-8 sequence, and the CRLF that ends it.
func fold(b, line []byte) []byte {
	room := maxLine
	for len(line) > room {
		cut := room
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		b = append(b, line[:cut]...)
		b = append(b, "\r\n "...)
		line = line[cut:]
		room = maxLine - 1 // the leading space counts
	}
	b = append(b, line...)
	return append(b, "\r\n"...)
}
