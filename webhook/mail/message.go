package mail

import (
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unsafe"
)

// Text is the message's plain-text body, "\n" line ends.
func (m Message) Text() string { return m.part(false) }

// HTML is the message's HTML body.
func (m Message) HTML() string { return m.part(true) }

func (m Message) part(html bool) string {
	if m.body == nil {
		return ""
	}
	if html {
		return raw(m.body.html, &m.vals, true)
	}
	return raw(m.body.text, &m.vals, false)
}

// Bytes encodes m as an RFC 5322 message with CRLF line ends: Date, From,
// To, Subject (RFC 2047 when not ASCII), Message-ID <ID@slotd>,
// MIME-Version and a multipart/alternative body holding the text/plain and
// then the text/html part, both UTF-8 and quoted-printable. The output is a
// function of m alone (the boundary is derived from the content), so
// sending one message twice writes the same bytes. The sender sets Date
// (the Drainer does, from its clock, when the row has none); a zero Date
// is written as the Unix epoch rather than read from a clock here.
func (m Message) Bytes() []byte {
	return m.appendTo(nil, "\r\n")
}

// appendTo appends Bytes' encoding of m to dst, with eol ("\r\n", or
// "\n" for a mailbox) as every line end. The multipart body is written by
// hand in the layout mime/multipart writes (a part's headers sorted by
// name), without its header maps: a booking storm renders one message per
// booking.
func (m Message) appendTo(dst []byte, eol string) []byte {
	dst = slices.Grow(dst, 4096)
	date := m.Date
	if date.IsZero() {
		date = time.Unix(0, 0).UTC()
	}
	var bnd [8 + maxIDLen]byte
	boundary := boundaryOf(m, bnd[:0])
	dst = append(dst, "Date: "...) // RFC1123Z is 31 bytes: no folding
	dst = append(date.AppendFormat(dst, time.RFC1123Z), eol...)
	dst = header(dst, eol, "From", fromHeader(m.From))
	if to := m.To; plainAddress(to) && len(to) <= maxLine-6 {
		dst = append(append(append(dst, "To: <"...), to...), '>') // addressHeader's answer
		dst = append(dst, eol...)
	} else {
		dst = header(dst, eol, "To", addressHeader(to))
	}
	dst = header(dst, eol, "Subject", encodeWords(oneLine(m.Subject)))
	if id := m.ID; isOneLine(id) && len(id) <= 50 {
		dst = append(append(append(dst, "Message-ID: <"...), id...), "@slotd>"...)
		dst = append(dst, eol...)
	} else {
		dst = header(dst, eol, "Message-ID", "<"+oneLine(id)+"@slotd>")
	}
	dst = append(dst, "MIME-Version: 1.0"...)
	dst = append(dst, eol...)
	dst = append(dst, "Auto-Submitted: auto-generated"...)
	dst = append(dst, eol...)
	// '=' is a tspecial: the boundary is quoted (as mime.FormatMediaType
	// does), and the header folds before it where header would.
	dst = append(dst, "Content-Type: multipart/alternative;"...)
	if len("Content-Type: multipart/alternative;")+len(` boundary=""`)+len(boundary) > maxLine {
		dst = append(dst, eol...)
	}
	dst = append(append(dst, ` boundary="`...), boundary...)
	dst = append(append(dst, '"'), eol...)
	dst = append(dst, eol...)
	// A boundary starting with "=_" never occurs in quoted-printable text,
	// where '=' is always followed by hex digits or a line break.
	var text, html []chunk
	if m.body != nil {
		text, html = m.body.text, m.body.html
	}
	dst = partHeader(dst, eol, boundary, "text/plain", true)
	dst = encode(dst, eol, text, &m.vals, false) // every line break of the text becomes eol
	dst = partHeader(dst, eol, boundary, "text/html", false)
	dst = encode(dst, eol, html, &m.vals, true)
	dst = append(append(dst, eol...), "--"...)
	dst = append(dst, boundary...)
	return append(append(dst, "--"...), eol...)
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
	for _, s := range []string{m.ID, m.To, m.From, m.Subject, m.Text(), m.HTML()} {
		h.Write(unsafe.Slice(unsafe.StringData(s), len(s))) // read only
		h.Write([]byte{0})
	}
	var sum [sha256.Size]byte
	return hex.AppendEncode(dst, h.Sum(sum[:0])[:12])
}

// partHeader starts one part of the multipart body, quoted-printable.
func partHeader(dst []byte, eol string, boundary []byte, ctype string, first bool) []byte {
	if !first {
		dst = append(dst, eol...)
	}
	dst = append(append(dst, "--"...), boundary...)
	dst = append(append(dst, eol...), "Content-Transfer-Encoding: quoted-printable"...)
	dst = append(append(dst, eol...), "Content-Type: "...)
	dst = append(append(dst, ctype...), "; charset=utf-8"...)
	return append(append(dst, eol...), eol...)
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
func header(dst []byte, eol, name, value string) []byte {
	dst = append(append(dst, name...), ':')
	if len(name)+2+len(value) <= maxLine {
		dst = append(append(dst, ' '), value...)
		return append(dst, eol...)
	}
	n := len(name) + 1 // the line's length so far
	for {
		word, rest, more := strings.Cut(value, " ")
		// Also after the colon: a 75-character encoded word does not fit
		// behind "Subject: ".
		if n+1+len(word) > maxLine {
			dst = append(dst, eol...)
			n = 0
		}
		dst = append(append(dst, ' '), word...)
		n += 1 + len(word)
		if !more {
			return append(dst, eol...)
		}
		value = rest
	}
}
