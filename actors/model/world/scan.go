package world

import (
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// scanner hands out the values of a JSON document read from an io.Reader,
// each as its own bytes. It replaces encoding/json's Decoder on the walk
// over a world file: Decoder.Token and Decode(&RawMessage) ran its
// byte-at-a-time state machine two or three times over every byte, a
// third of the CPU of loading a large file. Here a value's end is found by
// a string-aware bracket count and the value is then checked against the
// JSON grammar in one tight pass (valid), so anything the scanner hands
// out is a well-formed value, as Decoder's were.
type scanner struct {
	r   io.Reader
	buf []byte // unread input is buf[pos:]
	pos int
	err error // the reader's error, once it returned one
}

// scanBlock is the size of a read: large enough that a world file is a
// few thousand reads, small enough not to matter beside the business
// being read.
const scanBlock = 1 << 20

func newScanner(r io.Reader) *scanner { return &scanner{r: r, buf: make([]byte, 0, scanBlock)} }

// fill reads more input, keeping what is unread. It reports whether there
// is any.
func (s *scanner) fill() bool {
	if s.err != nil {
		return false
	}
	n := copy(s.buf[:cap(s.buf)], s.buf[s.pos:])
	s.buf, s.pos = s.buf[:n], 0
	for s.err == nil {
		m, err := s.r.Read(s.buf[n:cap(s.buf)])
		s.buf = s.buf[:n+m]
		s.err = err
		if m > 0 {
			return true
		}
	}
	return false
}

// readErr is the reader's error other than the end of input.
func (s *scanner) readErr() error {
	if s.err == nil || errors.Is(s.err, io.EOF) {
		return nil
	}
	return s.err
}

// peek returns the next byte that is not whitespace, without consuming
// it; false at the end of the input.
func (s *scanner) peek() (byte, bool) {
	for {
		for ; s.pos < len(s.buf); s.pos++ {
			if c := s.buf[s.pos]; !isSpace(c) {
				return c, true
			}
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// take consumes the next non-whitespace byte if it is c.
func (s *scanner) take(c byte) bool {
	if b, ok := s.peek(); ok && b == c {
		s.pos++
		return true
	}
	return false
}

// value reads the next value and returns its bytes, appended to dst[:0];
// false if the input ends first or the value is not well-formed JSON.
func (s *scanner) value(dst []byte) ([]byte, bool) {
	dst, ok := s.extent(dst)
	return dst, ok && valid(dst)
}

// extent is value without checking that the value is well-formed: only
// that it ends. The parallel walks check each business on the goroutine
// that reads it.
func (s *scanner) extent(dst []byte) ([]byte, bool) {
	dst = dst[:0]
	c, ok := s.peek()
	if !ok {
		return dst, false
	}
	var end int
	switch c {
	case '{', '[':
		end = s.compound(&dst)
	case '"':
		s.pos++
		dst = append(dst, '"')
		end = s.str(&dst)
	default:
		end = s.scalar(&dst)
	}
	return dst, end >= 0
}

// compound appends the bytes of an object or array up to its matching
// close; -1 if the input ends first. Strings are skipped whole, so their
// brackets do not count; whether the brackets match in kind is valid's
// business.
func (s *scanner) compound(dst *[]byte) int {
	depth := 0
	for {
		start := s.pos
		for i := s.pos; i < len(s.buf); i++ {
			switch s.buf[i] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					*dst = append(*dst, s.buf[start:i+1]...)
					s.pos = i + 1
					return len(*dst)
				}
			case '"':
				*dst = append(*dst, s.buf[start:i+1]...)
				s.pos = i + 1
				if s.str(dst) < 0 {
					return -1
				}
				start, i = s.pos, s.pos-1 // str may have refilled buf
			}
		}
		*dst = append(*dst, s.buf[start:]...)
		s.pos = len(s.buf)
		if !s.fill() {
			return -1
		}
	}
}

// str appends the rest of a string whose opening quote was consumed, up to
// and including its closing quote; -1 if the input ends first. A quote
// closes the string unless an odd run of backslashes precedes it; the run
// is counted in dst, which holds everything read before the quote even
// across a refill.
func (s *scanner) str(dst *[]byte) int {
	for {
		j := bytes.IndexByte(s.buf[s.pos:], '"')
		if j < 0 {
			*dst = append(*dst, s.buf[s.pos:]...)
			s.pos = len(s.buf)
			if !s.fill() {
				return -1
			}
			continue
		}
		*dst = append(*dst, s.buf[s.pos:s.pos+j+1]...)
		s.pos += j + 1
		if oddBackslashes((*dst)[:len(*dst)-1]) {
			continue // an escaped quote
		}
		return len(*dst)
	}
}

// oddBackslashes reports whether b ends in an odd number of backslashes.
func oddBackslashes(b []byte) bool {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// scalar appends a number or literal: the bytes up to the next delimiter.
func (s *scanner) scalar(dst *[]byte) int {
	for {
		for ; s.pos < len(s.buf); s.pos++ {
			switch c := s.buf[s.pos]; {
			case isSpace(c), c == ',', c == ':', c == ']', c == '}', c == '[', c == '{', c == '"':
				return len(*dst)
			default:
				*dst = append(*dst, c)
			}
		}
		if !s.fill() {
			return len(*dst) // the end of the input ends a scalar too
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// valid reports whether b is exactly one JSON value (RFC 8259), without
// surrounding whitespace, in valid UTF-8. It agrees with json.Valid on
// every input without surrounding whitespace (FuzzValid).
func valid(b []byte) bool {
	v := validator{b: b}
	return v.value() && v.i == len(b) && utf8.Valid(b)
}

// validator is a recursive-descent check of the JSON grammar. Nesting is
// bounded by maxDepth so that a hostile file cannot exhaust the stack.
type validator struct {
	b     []byte
	i     int
	depth int
}

const maxDepth = 10000

func (v *validator) ws() {
	for v.i < len(v.b) && isSpace(v.b[v.i]) {
		v.i++
	}
}

func (v *validator) value() bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '{':
		return v.object()
	case c == '[':
		return v.array()
	case c == '"':
		return v.str()
	case c == 't':
		return v.lit("true")
	case c == 'f':
		return v.lit("false")
	case c == 'n':
		return v.lit("null")
	default:
		return v.number()
	}
}

func (v *validator) lit(s string) bool {
	if len(v.b)-v.i < len(s) || string(v.b[v.i:v.i+len(s)]) != s {
		return false
	}
	v.i += len(s)
	return true
}

func (v *validator) nest() bool {
	v.depth++
	v.i++
	return v.depth <= maxDepth
}

func (v *validator) object() bool { return v.list('}', v.member) }

func (v *validator) array() bool { return v.list(']', v.value) }

// member checks `"key": value`.
func (v *validator) member() bool {
	if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
		return false
	}
	v.ws()
	if v.i >= len(v.b) || v.b[v.i] != ':' {
		return false
	}
	v.i++
	v.ws()
	return v.value()
}

// list checks the rest of an object or array whose opening bracket is at
// v.i: items separated by commas up to close.
func (v *validator) list(close byte, item func() bool) bool {
	if !v.nest() {
		return false
	}
	v.ws()
	if v.i < len(v.b) && v.b[v.i] == close {
		v.i++
		v.depth--
		return true
	}
	for {
		v.ws()
		if !item() {
			return false
		}
		v.ws()
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
		case close:
			v.i++
			v.depth--
			return true
		default:
			return false
		}
	}
}

// str checks a string at v.i (its opening quote). UTF-8 is checked once
// for the whole value by valid.
func (v *validator) str() bool {
	for v.i++; v.i < len(v.b); v.i++ {
		switch c := v.b[v.i]; {
		case c == '"':
			v.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			v.i++
			if v.i >= len(v.b) {
				return false
			}
			switch v.b[v.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(v.b)-v.i < 5 || !isHex4(v.b[v.i+1:v.i+5]) {
					return false
				}
				v.i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (v *validator) number() bool {
	if v.i < len(v.b) && v.b[v.i] == '-' {
		v.i++
	}
	switch {
	case v.i < len(v.b) && v.b[v.i] == '0':
		v.i++
	case v.digits() == 0:
		return false
	}
	if v.i < len(v.b) && v.b[v.i] == '.' {
		v.i++
		if v.digits() == 0 {
			return false
		}
	}
	if v.i < len(v.b) && (v.b[v.i] == 'e' || v.b[v.i] == 'E') {
		v.i++
		if v.i < len(v.b) && (v.b[v.i] == '+' || v.b[v.i] == '-') {
			v.i++
		}
		if v.digits() == 0 {
			return false
		}
	}
	return true
}

func (v *validator) digits() int {
	n := 0
	for v.i < len(v.b) && '0' <= v.b[v.i] && v.b[v.i] <= '9' {
		v.i++
		n++
	}
	return n
}
