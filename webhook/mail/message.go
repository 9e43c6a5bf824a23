package mail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
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
	date := m.Date
	if date.IsZero() {
		date = time.Unix(0, 0).UTC()
	}
	boundary := boundaryOf(m)
	header(&b, "Date", date.Format(time.RFC1123Z))
	header(&b, "From", addressHeader(m.From))
	header(&b, "To", addressHeader(m.To))
	header(&b, "Subject", encodeWords(oneLine(m.Subject)))
	header(&b, "Message-ID", "<"+oneLine(m.ID)+"@slotd>")
	header(&b, "MIME-Version", "1.0")
	header(&b, "Auto-Submitted", "auto-generated")
	header(&b, "Content-Type", mime.FormatMediaType("multipart/alternative", map[string]string{"boundary": boundary}))
	b.WriteString("\r\n")

	mw := multipart.NewWriter(&b)
	// A boundary starting with "=_" never occurs in quoted-printable text,
	// where '=' is always followed by hex digits or a line break.
	if err := mw.SetBoundary(boundary); err != nil {
		panic(err) // boundaryOf makes only valid boundaries
	}
	part(mw, "text/plain", m.Text)
	part(mw, "text/html", m.HTML)
	_ = mw.Close() // writes to a bytes.Buffer cannot fail
	return b.Bytes()
}

func boundaryOf(m Message) string {
	h := sha256.New()
	for _, s := range []string{m.ID, m.To, m.From, m.Subject, m.Text, m.HTML} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "=_slotd_" + hex.EncodeToString(h.Sum(nil)[:12])
}

func part(mw *multipart.Writer, ctype, body string) {
	h := textproto.MIMEHeader{}
	h.Set("Content-Type", ctype+"; charset=utf-8")
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	w, _ := mw.CreatePart(h)
	qp := quotedprintable.NewWriter(w)
	// The writer turns every line break of the text into CRLF.
	_, _ = qp.Write([]byte(body))
	_ = qp.Close()
}

// addressHeader renders an address (with or without a display name) for a
// header, RFC 2047-encoding a non-ASCII name. Something that does not parse
// is written with its line breaks removed.
func addressHeader(s string) string {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return oneLine(s)
	}
	return a.String()
}

// encodeWords returns s as RFC 2047 encoded words when it is not plain
// printable ASCII, else unchanged.
func encodeWords(s string) string {
	return mime.QEncoding.Encode("utf-8", s)
}

// maxLine is the line length RFC 5322 asks for (78 characters before the
// CRLF); longer header values are folded at spaces.
const maxLine = 78

// header writes "name: value" CRLF, folding at spaces to keep lines within
// maxLine where the value allows it. Folding keeps the space, so unfolding
// gives back the value unchanged.
func header(b *bytes.Buffer, name, value string) {
	line := name + ":"
	for _, word := range strings.Split(value, " ") {
		// Also after the colon: a 75-character encoded word does not fit
		// behind "Subject: ".
		if len(line)+1+len(word) > maxLine {
			b.WriteString(line)
			b.WriteString("\r\n")
			line = ""
		}
		line += " " + word
	}
	b.WriteString(line)
	b.WriteString("\r\n")
}
