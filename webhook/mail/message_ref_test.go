package mail

import (
	"bytes"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The encoder Message.Bytes had when it was built on mime/multipart: the
// reference the hand-written one must match byte for byte (but for the
// boundary, now taken from the message's id).

func refBytes(m Message) []byte {
	var b bytes.Buffer
	date := m.Date
	if date.IsZero() {
		date = time.Unix(0, 0).UTC()
	}
	boundary := string(boundaryOf(m, nil)) // the boundary is chosen anew; the layout is the same
	refHeader(&b, "Date", date.Format(time.RFC1123Z))
	refHeader(&b, "From", addressHeader(m.From))
	refHeader(&b, "To", addressHeader(m.To))
	refHeader(&b, "Subject", encodeWords(oneLine(m.Subject)))
	refHeader(&b, "Message-ID", "<"+oneLine(m.ID)+"@slotd>")
	refHeader(&b, "MIME-Version", "1.0")
	refHeader(&b, "Auto-Submitted", "auto-generated")
	refHeader(&b, "Content-Type", mime.FormatMediaType("multipart/alternative", map[string]string{"boundary": boundary}))
	b.WriteString("\r\n")

	mw := multipart.NewWriter(&b)
	// A boundary starting with "=_" never occurs in quoted-printable text,
	// where '=' is always followed by hex digits or a line break.
	if err := mw.SetBoundary(boundary); err != nil {
		panic(err) // boundaryOf makes only valid boundaries
	}
	refPart(mw, "text/plain", m.Text())
	refPart(mw, "text/html", m.HTML())
	_ = mw.Close() // writes to a bytes.Buffer cannot fail
	return b.Bytes()
}
func refPart(mw *multipart.Writer, ctype, body string) {
	h := textproto.MIMEHeader{}
	h.Set("Content-Type", ctype+"; charset=utf-8")
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	w, _ := mw.CreatePart(h)
	qp := quotedprintable.NewWriter(w)
	// The writer turns every line break of the text into CRLF.
	_, _ = qp.Write([]byte(body))
	_ = qp.Close()
}
func refHeader(b *bytes.Buffer, name, value string) {
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

// TestBytesMatchesMultipartEncoder: random messages (long lines, non-ASCII,
// line breaks, quoting, display names) encode exactly as before.
func TestBytesMatchesMultipartEncoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 1))
	pieces := []string{"a", "From ", "Zoë", " ", "  ", "\n", "\r\n", "=", ".", "\t", "<b>", "&", "ü€", "\"",
		strings.Repeat("x", 90), "trailing \n", "é", "日本", "@", ","}
	text := func(n int) string {
		var b strings.Builder
		for range rng.IntN(n) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for i := range 3000 {
		m := newMessage("01J"+text(3), text(4)+" <ana@example.com>", `"`+text(5)+`" <bookings@example.com>`,
			text(30), text(200), text(200), time.Unix(rng.Int64N(4e9), 0).In(time.FixedZone("x", 3600*rng.IntN(12))))
		if i%7 == 0 {
			m.Date = time.Time{}
		}
		if i%5 == 0 {
			m.To, m.From = "ana@example.com", text(10)
		}
		require.Equal(t, string(refBytes(m)), string(m.Bytes()), "message %d: %#v", i, m)
	}
}

func TestBoundary(t *testing.T) {
	m := newMessage("01JBQZ3W5Y8N2K4M6P8R0T2V4X", "", "", "", "a", "b", time.Time{})
	assert.Equal(t, "=_slotd_01JBQZ3W5Y8N2K4M6P8R0T2V4X", string(boundaryOf(m, nil)))
	for _, id := range []string{"", "bad id", strings.Repeat("x", 61)} {
		m.ID = id
		b := string(boundaryOf(m, nil))
		assert.Regexp(t, `^=_slotd_[0-9a-f]{24}$`, b, "%q", id)
		assert.Equal(t, b, string(boundaryOf(m, nil)), "a function of the message")
	}
}

// TestPlainAddress: the shortcut says yes only where net/mail writes the
// address back as "<s>".
func TestPlainAddress(t *testing.T) {
	for _, s := range []string{"ana@example.com", "a.b+c_d-e@mail.example.co.uk", "A1@B2", ".a@b", "a.@b", "a..b@c", "a@b..c",
		"a@b.", "@b", "a@", "a@b@c", "a b@c", `"a"@b`, "é@b", "a@[1.2.3.4]", "x@-y", "-x@y", "a@b.c>", "<a@b>"} {
		a, err := mail.ParseAddress(s)
		if plainAddress(s) {
			require.NoError(t, err, s)
			require.Equal(t, "<"+s+">", a.String(), s)
		}
		if err == nil {
			require.Equal(t, a.String(), addressHeader(s), s)
		}
	}
}

// TestQPMatchesStandard: appendQP writes what mime/quotedprintable's Writer
// writes, for random text and for the edges of a line.
func TestQPMatchesStandard(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 2))
	alphabet := []string{"a", " ", "\t", "=", "\n", "\r", "\r\n", "é", "\x00", "~", "!", strings.Repeat("b", 74), strings.Repeat("c", 75), strings.Repeat("d", 76)}
	check := func(s string) {
		var want bytes.Buffer
		qp := quotedprintable.NewWriter(&want)
		_, _ = qp.Write([]byte(s))
		_ = qp.Close()
		got := appendQP(nil, "\r\n", s)
		require.Equal(t, want.String(), string(got), "%q", s)
	}
	for n := range 160 {
		check(strings.Repeat("x", n))
		check(strings.Repeat("x", n) + " ")
		check(strings.Repeat("x", n) + "=x")
		check(strings.Repeat("x", n) + " \n")
	}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		check(b.String())
	}
}
