package mail

import "bytes"

// qpWriter is mime/quotedprintable's Writer (text mode) made for one job:
// it writes a string into a bytes.Buffer, copying runs of plain bytes
// instead of handling each byte alone. Its output is the standard
// Writer's, byte for byte (TestQPMatchesStandard): lines of at most 76
// characters, '=' and bytes outside printable ASCII as =XX, a space or tab
// before a line break encoded, and every line break written as CRLF.
type qpWriter struct {
	b    *bytes.Buffer
	eol  string // "\r\n" as the standard Writer writes, or "\n"
	line [qpLineMax + 2]byte
	i    int
	cr   bool
}

const qpLineMax = 76

func writeQP(b *bytes.Buffer, eol, s string) {
	w := qpWriter{b: b, eol: eol}
	w.writeString(s)
	w.checkLastByte()
	w.flush()
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
			w.insertCRLF()
		default:
			w.encode(c) // leaves cr alone, as the standard Writer does
		}
		s = s[n+1:]
	}
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
		if w.i == qpLineMax-1 {
			w.insertSoftLineBreak()
		}
		k := copy(w.line[w.i:qpLineMax-1], run)
		w.i += k
		run = run[k:]
	}
}

func (w *qpWriter) encode(c byte) {
	if qpLineMax-1-w.i < 3 {
		w.insertSoftLineBreak()
	}
	const upperhex = "0123456789ABCDEF"
	w.line[w.i] = '='
	w.line[w.i+1] = upperhex[c>>4]
	w.line[w.i+2] = upperhex[c&0x0f]
	w.i += 3
}

// checkLastByte encodes the last byte of the line if it is a space or a
// tab: trailing white space does not survive transport.
func (w *qpWriter) checkLastByte() {
	if w.i == 0 {
		return
	}
	if c := w.line[w.i-1]; c == ' ' || c == '\t' {
		w.i--
		w.encode(c)
	}
}

func (w *qpWriter) insertSoftLineBreak() {
	w.line[w.i] = '='
	w.i++
	w.insertCRLF()
}

func (w *qpWriter) insertCRLF() {
	w.i += copy(w.line[w.i:], w.eol)
	w.flush()
}

func (w *qpWriter) flush() {
	w.b.Write(w.line[:w.i])
	w.i = 0
}
