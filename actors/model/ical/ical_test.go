package ical

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFoldKeepsLinesShortAndRunesWhole(t *testing.T) {
	for _, v := range []string{
		"", "short", strings.Repeat("a", 200), strings.Repeat("é", 100), strings.Repeat("ab€", 60),
		"Knippen; wassen, föhnen\\ en\nmeer", strings.Repeat("😀", 40),
	} {
		b := textLine(nil, "SUMMARY:", v)
		require.True(t, bytes.HasSuffix(b, []byte("\r\n")))
		lines := strings.Split(strings.TrimSuffix(string(b), "\r\n"), "\r\n")
		var unfolded strings.Builder
		for i, l := range lines {
			assert.LessOrEqual(t, len(l), 75, "%q", l)
			assert.True(t, utf8.ValidString(l), "no rune split across lines: %q", l)
			if i > 0 {
				require.True(t, strings.HasPrefix(l, " "))
				l = l[1:]
			}
			unfolded.WriteString(l)
		}
		assert.Equal(t, "SUMMARY:"+escape(v), unfolded.String())
	}
}

// escape is RFC 5545's TEXT escaping, the slow way.
func escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\n", `\n`).Replace(s)
}

func TestAppend(t *testing.T) {
	at := time.Date(2026, 12, 8, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	c := &Calendar{Name: "Salon Example, Anna", Timezone: "Europe/Amsterdam", Events: []Event{
		{UID: "a-0@slotd", Stamp: at, Sequence: 2, Start: at, End: at.Add(30 * time.Minute), Summary: "Haircut", Status: Confirmed},
	}}
	got := string(Append(nil, c))
	assert.Equal(t, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//slotd//calendar feed 1//EN\r\nCALSCALE:GREGORIAN\r\nMETHOD:PUBLISH\r\n"+
		"X-WR-CALNAME:Salon Example\\, Anna\r\nX-WR-TIMEZONE:Europe/Amsterdam\r\n"+
		"REFRESH-INTERVAL;VALUE=DURATION:PT15M\r\nX-PUBLISHED-TTL:PT15M\r\n"+
		"BEGIN:VEVENT\r\nUID:a-0@slotd\r\nDTSTAMP:20261208T090000Z\r\nDTSTART:20261208T090000Z\r\nDTEND:20261208T093000Z\r\n"+
		"SEQUENCE:2\r\nSUMMARY:Haircut\r\nSTATUS:CONFIRMED\r\nTRANSP:OPAQUE\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", got)
}

func TestControlCharactersDropped(t *testing.T) {
	assert.Equal(t, "SUMMARY:ab\\ncd\r\n", string(textLine(nil, "SUMMARY:", "a\rb\ncd\x00")))
}

// Any value: every line at most 75 octets and valid UTF-8 when the value
// is, continuation lines start with a space, and unfolding gives the
// escaped value back.
func FuzzTextLine(f *testing.F) {
	for _, s := range []string{"", "Haircut", strings.Repeat("é", 80), "a;b,c\\d\ne", "\x00\r\t", strings.Repeat("😀x", 30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		b := textLine(nil, "SUMMARY:", v)
		if !bytes.HasSuffix(b, []byte("\r\n")) {
			t.Fatal("no CRLF at the end")
		}
		var unfolded []byte
		for i, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\r\n")), []byte("\r\n")) {
			if len(l) > 75 {
				t.Fatalf("line of %d octets", len(l))
			}
			if i > 0 {
				if len(l) == 0 || l[0] != ' ' {
					t.Fatalf("continuation without a space: %q", l)
				}
				l = l[1:]
			}
			if utf8.ValidString(v) && !utf8.Valid(l) {
				t.Fatalf("a rune split: %q", l)
			}
			unfolded = append(unfolded, l...)
		}
		for _, c := range unfolded {
			if c < 0x20 || c == 0x7f {
				t.Fatalf("control character %#x in %q", c, unfolded)
			}
		}
		if utf8.ValidString(v) {
			clean := strings.Map(func(r rune) rune {
				if r != '\n' && (r < 0x20 || r == 0x7f) {
					return -1
				}
				return r
			}, v)
			if string(unfolded) != "SUMMARY:"+escape(clean) {
				t.Fatalf("unfolded %q, want %q", unfolded, "SUMMARY:"+escape(clean))
			}
		}
	})
}
