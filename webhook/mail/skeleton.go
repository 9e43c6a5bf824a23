package mail

import (
	"bytes"
	"strings"
	"sync"
	"time"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// A skeleton is a message's subject and body, its text and HTML parts,
// with a hole wherever one of its values goes, the lines without holes
// already encoded. Every confirmation and status e-mail of one kind,
// status and language, with the same values present, has the same
// skeleton: it is composed and encoded once (with the values as holes) and
// then filled for each message, which encodes only the lines that hold a
// value. A booking storm sends one confirmation per booking, and building
// each from its strings up was most of the e-mail's CPU (issue 22).
//
// A skeleton is read-only once built and shared between goroutines.
type skeleton struct {
	subject template // one line, not escaped
	text    []chunk
	html    []chunk // values HTML-escaped
}

// A chunk is a run of lines without holes (raw and encoded) or one line
// with holes.
type chunk struct {
	raw  string   // the lines as written, "\n" ends
	enc  []byte   // raw, quoted-printable, "\n" ends
	line template // when raw is "": a line with holes, its break included
}

// A template is literal text with holes: lit[0], the value of holes[0],
// lit[1], …, lit[len(holes)].
type template struct {
	lit   []string
	holes []uint8

	// lit[0] quoted-printable: the lines it fills (with "\n" ends) and
	// what it leaves of the line it starts, which the first value
	// continues. Most of an HTML line comes before its value.
	encLines, encRest []byte
}

// hole is how a value's hole is written into a composed document: a NUL
// and the value's index. No value holds a NUL (oneLine makes every value a
// line of printable text), nor does any locale string.
func hole(i int) string { return "\x00" + string(rune('0'+i)) }

// skeletonKey is what decides a skeleton: the document compose builds
// depends on the values only through which of them are present.
type skeletonKey struct {
	kind, status, locale string
	present              uint16 // bit i: values[i] != ""
	payment              bool   // the row has a payment request
}

// skeletons caches the skeletons built so far. The keys are few (two
// kinds, a handful of statuses, the languages, the combinations of
// optional details a world uses); the cache starts over at skeletonsMax
// rather than grow.
var skeletons struct {
	sync.RWMutex
	m map[skeletonKey]*skeleton
}

const skeletonsMax = 512

// skeletonOf returns the skeleton of the messages like r, with values v,
// or nil when r's kind has none (they are rare: composed each time).
func skeletonOf(r *record.MailRow, l locale, v *values) *skeleton {
	if r.Kind != model.MailConfirmation && r.Kind != model.MailStatus {
		return nil
	}
	k := skeletonKey{kind: r.Kind, status: statusOf(r), locale: l.name, payment: r.Payment != nil}
	for i, s := range v {
		if s != "" {
			k.present |= 1 << i
		}
	}
	skeletons.RLock()
	s := skeletons.m[k]
	skeletons.RUnlock()
	if s != nil {
		return s
	}
	var holes values
	for i := range holes {
		if k.present&(1<<i) != 0 {
			holes[i] = hole(i)
		}
	}
	d := compose(r, l, time.UTC, &holes) // the zone shows only in the values
	s = &skeleton{subject: parseTemplate(d.subject), text: parseBody(d.text()), html: parseBody(d.html())}
	skeletons.Lock()
	if skeletons.m == nil || len(skeletons.m) >= skeletonsMax {
		skeletons.m = make(map[skeletonKey]*skeleton)
	}
	skeletons.m[k] = s
	skeletons.Unlock()
	return s
}

// plainBody is the skeleton of a body without holes: text and html as
// they are.
func plainBody(subject, text, html string) *skeleton {
	return &skeleton{subject: template{lit: []string{subject}}, text: staticChunks(text), html: staticChunks(html)}
}

func staticChunks(s string) []chunk {
	if s == "" {
		return nil
	}
	return []chunk{{raw: s, enc: appendQP(nil, "\n", s)}}
}

// parseBody splits a composed body into runs of lines without holes and
// lines with holes.
func parseBody(s string) []chunk {
	var out []chunk
	static := 0 // start of the run of lines without holes
	flush := func(end int) {
		if end > static {
			out = append(out, staticChunks(s[static:end])...)
		}
	}
	for off := 0; off < len(s); {
		end := len(s)
		if i := strings.IndexByte(s[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		if strings.IndexByte(s[off:end], 0) >= 0 {
			flush(off)
			out = append(out, chunk{line: parseTemplate(s[off:end])})
			static = end
		}
		off = end
	}
	flush(len(s))
	return out
}

func parseTemplate(s string) template {
	var t template
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 || i+1 >= len(s) {
			t.lit = append(t.lit, s)
			return t
		}
		if len(t.lit) == 0 {
			w := qpWriter{eol: "\n"}
			w.writeString(s[:i])
			cut := len(w.dst) - w.col
			t.encLines, t.encRest = w.dst[:cut:cut], w.dst[cut:]
		}
		t.lit = append(t.lit, s[:i])
		t.holes = append(t.holes, s[i+1]-'0')
		s = s[i+2:]
	}
}

// fill writes t with its holes filled from v, escaped for HTML when html
// is set.
func (t *template) fill(b *strings.Builder, v *values, html bool) {
	for i, lit := range t.lit {
		b.WriteString(lit)
		if i < len(t.holes) {
			if s := v[t.holes[i]]; html {
				escapeTo(b, s)
			} else {
				b.WriteString(s)
			}
		}
	}
}

func (t *template) String(v *values) string {
	if len(t.holes) == 0 {
		return t.lit[0]
	}
	var b strings.Builder
	t.fill(&b, v, false)
	return b.String()
}

// raw is the part as written, its holes filled.
func raw(chunks []chunk, v *values, html bool) string {
	if len(chunks) == 1 && chunks[0].raw != "" {
		return chunks[0].raw
	}
	var b strings.Builder
	for i := range chunks {
		if c := &chunks[i]; c.raw != "" {
			b.WriteString(c.raw)
		} else {
			c.line.fill(&b, v, html)
		}
	}
	return b.String()
}

// encode appends the part quoted-printable to dst, its holes filled, with
// eol as every line end. Only the lines with holes are encoded here; the
// others are copied.
func encode(dst []byte, eol string, chunks []chunk, v *values, html bool) []byte {
	w := qpWriter{dst: dst, eol: eol}
	for i := range chunks {
		c := &chunks[i]
		if c.raw != "" {
			w.dst = appendEOL(w.dst, eol, c.enc)
			continue
		}
		for j, lit := range c.line.lit {
			if j == 0 {
				w.dst = appendEOL(w.dst, eol, c.line.encLines)
				w.dst = append(w.dst, c.line.encRest...)
				w.col, w.cr = len(c.line.encRest), false
			} else {
				w.writeString(lit)
			}
			if j < len(c.line.holes) {
				if s := v[c.line.holes[j]]; html {
					w.writeEscaped(s)
				} else {
					w.writeString(s)
				}
			}
		}
	}
	// A part that does not end in a line break leaves its last line open.
	w.checkLastByte()
	return w.dst
}

// appendEOL appends p, whose lines end in "\n", with eol as every line end.
func appendEOL(dst []byte, eol string, p []byte) []byte {
	if eol == "\n" {
		return append(dst, p...)
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return append(dst, p...)
		}
		dst = append(append(dst, p[:i]...), eol...)
		p = p[i+1:]
	}
	return dst
}
