package mail

// qpWriter is mime/quotedprintable's Writer (text mode) made for one job:
// it appends a string to a byte slice, copying runs of plain bytes instead
// of handling each byte alone, straight into the slice rather than through
// a line buffer. Its output is the standard Writer's, byte for byte
// (TestQPMatchesStandard): lines of at most 76 characters, '=' and bytes
// outside printable ASCII as =XX, a space or tab before a line break
// encoded, and every line break written as CRLF (or eol).
type qpWriter struct {
	dst []byte
	eol string // "\r\n" as the standard Writer writes, or "\n"
	col int    // bytes of the line being written
	cr  bool
}

const qpLineMax = 76

// appendQP appends s quoted-printable to dst.
func appendQP(dst []byte, eol, s string) []byte {
	w := qpWriter{dst: dst, eol: eol}
	w.writeString(s)
	w.checkLastByte()
	return w.dst
}

func (w *qpWriter) writeString(s string) {
	for len(s) > 0 {
		n := 0
		for n < len(s) && qpPlain[s[n]] {
			n++
		}
		w.put(s[:n])
		if n == len(s) {
			return
		}
		switch c := s[n]; c {
		case '\n', '\r':
			if w.cr && c == '\n' { // the CRLF is already written
				w.cr = false
				break
			}
			w.cr = c == '\r'
			w.checkLastByte()
			w.lineBreak()
		default:
			w.encode(c) // leaves cr alone, as the standard Writer does
		}
		s = s[n+1:]
	}
}

// writeEscaped writes s escaped for HTML as escapeTo does.
func (w *qpWriter) writeEscaped(s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		if rep := htmlEscapes[s[i]]; rep != "" {
			w.writeString(s[start:i])
			w.writeString(rep)
			start = i + 1
		}
	}
	w.writeString(s[start:])
}

// qpPlain marks the bytes written as they are: printable ASCII but '=',
// space and tab.
var qpPlain = func() (t [256]bool) {
	for c := '!'; c <= '~'; c++ {
		t[c] = c != '='
	}
	t[' '], t['\t'] = true, true
	return t
}()

// put writes run, which needs no encoding and holds no line break,
// breaking lines softly where they grow too long.
func (w *qpWriter) put(run string) {
	if len(run) == 0 {
		return
	}
	w.cr = false
	for len(run) > 0 {
		if w.col == qpLineMax-1 {
			w.softLineBreak()
		}
		k := min(len(run), qpLineMax-1-w.col)
		w.dst = append(w.dst, run[:k]...)
		w.col += k
		run = run[k:]
	}
}

func (w *qpWriter) encode(c byte) {
	if qpLineMax-1-w.col < 3 {
		w.softLineBreak()
	}
	const upperhex = "0123456789ABCDEF"
	w.dst = append(w.dst, '=', upperhex[c>>4], upperhex[c&0x0f])
	w.col += 3
}

// checkLastByte encodes the last byte of the line if it is a space or a
// tab: trailing white space does not survive transport.
func (w *qpWriter) checkLastByte() {
	if w.col == 0 {
		return
	}
	if c := w.dst[len(w.dst)-1]; c == ' ' || c == '\t' {
		w.dst = w.dst[:len(w.dst)-1]
		w.col--
		w.encode(c)
	}
}

func (w *qpWriter) softLineBreak() {
	w.dst = append(w.dst, '=')
	w.lineBreak()
}

func (w *qpWriter) lineBreak() {
	w.dst = append(w.dst, w.eol...)
	w.col = 0
}
