package mail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"net/mail"
	"strings"
	"time"
	"unsafe"
)

// Bytes encodes m as an RFC 5322 message with CRLF line ends: Date, From,
// To, Subject (RFC 2047 when not ASCII), Message-ID <ID@slotd>,
// MIME-Version and a multipart/alternative body holding the text/plain and
// then the text/html part, both UTF-8 and quoted-printable. The output is a
// function of m alone (the boundary is derived from the content), so
// sending one message twice writes the same bytes. The sender sets Date
// (the Drainer does, from its clock, when the row has none); a zero Date
// is written as the Unix epoch rather than read from a clock here.
func (m Message) Bytes() []byte {
	var b bytes.Buffer
	m.appendTo(&b, "\r\n")
	return b.Bytes()
}

// appendTo writes Bytes' encoding of m to b, with eol ("\r\n", or "\n"
// for a mailbox) as every line end. The multipart body is written by hand
// in the layout mime/multipart writes (a part's headers sorted by name),
// without its header maps: a booking storm renders one message per
// booking.
func (m Message) appendTo(b *bytes.Buffer, eol string) {
	b.Grow(1024 + 2*(len(m.Text)+len(m.HTML)))
	date := m.Date
	if date.IsZero() {
		date = time.Unix(0, 0).UTC()
	}
	var bnd [8 + maxIDLen]byte
	var dbuf [40]byte
	boundary := boundaryOf(m, bnd[:0])
	header(b, eol, "Date", string(date.AppendFormat(dbuf[:0], time.RFC1123Z)))
	header(b, eol, "From", fromHeader(m.From))
	header(b, eol, "To", addressHeader(m.To))
	header(b, eol, "Subject", encodeWords(oneLine(m.Subject)))
	header(b, eol, "Message-ID", "<"+oneLine(m.ID)+"@slotd>")
	b.WriteString("MIME-Version: 1.0" + eol + "Auto-Submitted: auto-generated" + eol)
	// '=' is a tspecial: the boundary is quoted (as mime.FormatMediaType
	// does), and the header folds before it.
	header(b, eol, "Content-Type", `multipart/alternative; boundary="`+string(boundary)+`"`)
	b.WriteString(eol)
	// A boundary starting with "=_" never occurs in quoted-printable text,
	// where '=' is always followed by hex digits or a line break.
	part(b, eol, boundary, "text/plain", m.Text, true)
	part(b, eol, boundary, "text/html", m.HTML, false)
	b.WriteString(eol + "--")
	b.Write(boundary)
	b.WriteString("--" + eol)
}

// boundaryOf appends the multipart boundary to dst: "=_slotd_" and the
// message's id (a hash of the content when the id would not do). A
// boundary starting with "=_" never occurs in quoted-printable text, where
// '=' is always followed by hex digits or a line break, so any such
// boundary is safe; taking it from the id keeps the encoding a function of
// m alone without hashing the bodies.
func boundaryOf(m Message, dst []byte) []byte {
	dst = append(dst, "=_slotd_"...)
	if validID(m.ID) && len(m.ID) <= 60 { // RFC 2046: at most 70 characters
		return append(dst, m.ID...)
	}
	h := sha256.New()
	for _, s := range []string{m.ID, m.To, m.From, m.Subject, m.Text, m.HTML} {
		h.Write(unsafe.Slice(unsafe.StringData(s), len(s))) // read only
		h.Write([]byte{0})
	}
	var sum [sha256.Size]byte
	return hex.AppendEncode(dst, h.Sum(sum[:0])[:12])
}

// part writes one part of the multipart body, quoted-printable.
func part(b *bytes.Buffer, eol string, boundary []byte, ctype, body string, first bool) {
	if !first {
		b.WriteString(eol)
	}
	b.WriteString("--")
	b.Write(boundary)
	b.WriteString(eol + "Content-Transfer-Encoding: quoted-printable" + eol + "Content-Type: ")
	b.WriteString(ctype)
	b.WriteString("; charset=utf-8" + eol + eol)
	writeQP(b, eol, body) // every line break of the text becomes eol
}

// fromHeader is addressHeader of the sender, remembered.
func fromHeader(s string) string { return fromHeaders.get(s) }

var fromHeaders = newMemo(addressHeader)

// addressHeader renders an address (with or without a display name) for a
// header, RFC 2047-encoding a non-ASCII name. Something that does not parse
// is written with its line breaks removed.
func addressHeader(s string) string {
	if plainAddress(s) {
		return "<" + s + ">" // what ParseAddress and String make of it
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		return oneLine(s)
	}
	return a.String()
}

// plainAddress reports whether s is a bare address of the common shape,
// local@domain.tld in letters, digits and ._+- with no dot at either end of
// a part or twice in a row, which net/mail parses as it is and writes as
// "<s>". Anything else takes the parser.
func plainAddress(s string) bool {
	at := strings.IndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || strings.IndexByte(s[at+1:], '@') >= 0 {
		return false
	}
	for _, part := range []string{s[:at], s[at+1:]} {
		if part[0] == '.' || part[len(part)-1] == '.' || strings.Contains(part, "..") {
			return false
		}
		for i := 0; i < len(part); i++ {
			c := part[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '+' || c == '-') {
				return false
			}
		}
	}
	return true
}

// encodeWords returns s as RFC 2047 encoded words when it is not plain
// printable ASCII, else unchanged.
func encodeWords(s string) string {
	return mime.QEncoding.Encode("utf-8", s)
}

// maxLine is the line length RFC 5322 asks for (78 characters before the
// CRLF); longer header values are folded at spaces.
const maxLine = 78

// header writes "name: value" and eol, folding at spaces to keep lines within
// maxLine where the value allows it. Folding keeps the space, so unfolding
// gives back the value unchanged.
func header(b *bytes.Buffer, eol, name, value string) {
	if len(name)+2+len(value) <= maxLine {
		b.WriteString(name)
		b.WriteString(": ")
		b.WriteString(value)
		b.WriteString(eol)
		return
	}
	line := name + ":"
	for _, word := range strings.Split(value, " ") {
		// Also after the colon: a 75-character encoded word does not fit
		// behind "Subject: ".
		if len(line)+1+len(word) > maxLine {
			b.WriteString(line)
			b.WriteString(eol)
			line = ""
		}
		line += " " + word
	}
	b.WriteString(line)
	b.WriteString(eol)
}
