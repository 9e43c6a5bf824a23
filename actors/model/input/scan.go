package input

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// The scanner reads a document in one pass, left to right, without
// recursion: open containers are a fixed stack of MaxDepth frames, so a
// hostile document cannot cost more stack than a well-formed one. It
// validates JSON exactly as RFC 8259 (and encoding/json) defines it and
// builds the doc's nodes as it goes.
//
// The first problem in document order decides what is reported, as it did
// when encoding/json's Decoder.Token fed the tree: a container opening past
// MaxDepth is tooDeep even if the document is broken further on, a
// complete top-level value followed by anything but whitespace is
// trailing, and every other mistake is notJSON.

// status is the scanner's verdict on a whole document.
type status uint8

const (
	done status = iota
	notJSON
	tooDeep
	trailing
)

// frame is one open container.
type frame struct {
	node  int32 // the container's node
	first int32 // where its children start in parser.stack
	obj   bool
	// set indexes the keys of an object once it has more than linearMax
	// members: key to value node.
	set map[string]int32
}

// parser is the scanner's state for one document. It lives on
// ParseObject's stack; only the doc outlives it.
type parser struct {
	d    *doc
	data []byte
	// stack holds the children of every open container, innermost last;
	// a container's are copied into doc.kids when it closes, so that each
	// container's children end up contiguous.
	stack []int32
	open  [MaxDepth]frame
	depth int
	dups  []int32 // value nodes of duplicate members, in document order

	// The key of the member whose value is being read.
	keyOff, keyLen int32
	keyBuf         bool
}

func (p *parser) start(d *doc) {
	p.d = d
	p.data = d.data
	p.stack = d.inline.stack[:0]
}

// parse scans the whole document.
func (p *parser) parse() status {
	data := p.data
	i := skipSpace(data, 0)
	for {
		// A value starts at i.
		if i >= len(data) {
			return notJSON
		}
		var cur int32 // the value just completed
		switch c := data[i]; c {
		case '{', '[':
			if p.depth == MaxDepth {
				return tooDeep
			}
			k := kindArray
			if c == '{' {
				k = kindObject
			}
			n := p.add(k)
			p.open[p.depth] = frame{node: n, first: int32(len(p.stack)), obj: k == kindObject}
			p.depth++
			i = skipSpace(data, i+1)
			if i < len(data) && data[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
				i++
				cur = p.close()
				break
			}
			if k == kindObject {
				var ok bool
				if i, ok = p.memberKey(i); !ok {
					return notJSON
				}
			}
			continue
		case '"':
			off, n, inBuf, next, ok := p.str(i)
			if !ok {
				return notJSON
			}
			cur = p.add(kindString)
			v := &p.d.nodes[cur]
			v.off, v.n = off, n
			if inBuf {
				v.flags |= flagValBuf
			}
			i = next
		case 't':
			if !bytes.HasPrefix(data[i:], litTrue) {
				return notJSON
			}
			cur = p.add(kindBool)
			p.d.nodes[cur].flags |= flagTrue
			i += len(litTrue)
		case 'f':
			if !bytes.HasPrefix(data[i:], litFalse) {
				return notJSON
			}
			cur = p.add(kindBool)
			i += len(litFalse)
		case 'n':
			if !bytes.HasPrefix(data[i:], litNull) {
				return notJSON
			}
			cur = p.add(kindNull)
			i += len(litNull)
		default:
			end, ok := number(data, i)
			if !ok {
				return notJSON
			}
			cur = p.add(kindNumber)
			v := &p.d.nodes[cur]
			v.off, v.n = int32(i), int32(end-i)
			i = end
		}
		// cur is complete: give it to its container, and close every
		// container that ends here, until a comma asks for another value.
		for {
			if p.depth == 0 {
				if skipSpace(data, i) != len(data) {
					return trailing
				}
				return done
			}
			p.adopt(cur)
			i = skipSpace(data, i)
			if i >= len(data) {
				return notJSON
			}
			f := &p.open[p.depth-1]
			if data[i] == ',' {
				i = skipSpace(data, i+1)
				if f.obj {
					var ok bool
					if i, ok = p.memberKey(i); !ok {
						return notJSON
					}
				}
				break
			}
			if f.obj && data[i] != '}' || !f.obj && data[i] != ']' {
				return notJSON
			}
			i++
			cur = p.close()
		}
	}
}

var (
	litTrue  = []byte("true")
	litFalse = []byte("false")
	litNull  = []byte("null")
)

// add appends a node of kind k as the next child of the innermost open
// container (the root when none is open), keyed by the pending key.
func (p *parser) add(k kind) int32 {
	v := node{kind: k, parent: -1}
	if p.depth > 0 {
		f := &p.open[p.depth-1]
		v.parent = f.node
		if f.obj {
			v.keyOff, v.keyLen = p.keyOff, p.keyLen
			if p.keyBuf {
				v.flags |= flagKeyBuf
			}
		} else {
			v.keyOff = int32(len(p.stack)) - f.first
		}
	}
	p.d.nodes = append(p.d.nodes, v)
	return int32(len(p.d.nodes) - 1)
}

// adopt makes the completed value cur a child of the innermost open
// container, unless it repeats a key of that object: then it is recorded
// as a duplicate and left out, so the first occurrence is what is read.
func (p *parser) adopt(cur int32) {
	f := &p.open[p.depth-1]
	if f.obj {
		key := p.d.key(cur)
		if f.set != nil {
			if _, dup := f.set[string(key)]; dup {
				p.dups = append(p.dups, cur)
				return
			}
			f.set[string(key)] = cur
		} else {
			members := p.stack[f.first:]
			for _, m := range members {
				if bytes.Equal(p.d.key(m), key) {
					p.dups = append(p.dups, cur)
					return
				}
			}
			if len(members) == linearMax {
				f.set = make(map[string]int32, 2*linearMax)
				for _, m := range members {
					f.set[string(p.d.key(m))] = m
				}
				f.set[string(key)] = cur
			}
		}
	}
	p.stack = append(p.stack, cur)
}

// close ends the innermost open container and returns its node.
func (p *parser) close() int32 {
	p.depth--
	f := &p.open[p.depth]
	d := p.d
	n := &d.nodes[f.node]
	n.off = int32(len(d.kids))
	n.n = int32(len(p.stack)) - f.first
	d.kids = append(d.kids, p.stack[f.first:]...)
	p.stack = p.stack[:f.first]
	if f.set != nil {
		if d.big == nil {
			d.big = make(map[int32]map[string]int32)
		}
		d.big[f.node] = f.set
		f.set = nil
	}
	return f.node
}

// memberKey reads `"key" :` at i, leaving the key pending for add, and
// returns where the value starts.
func (p *parser) memberKey(i int) (int, bool) {
	if i >= len(p.data) || p.data[i] != '"' {
		return i, false
	}
	off, n, inBuf, next, ok := p.str(i)
	if !ok {
		return i, false
	}
	p.keyOff, p.keyLen, p.keyBuf = off, n, inBuf
	i = skipSpace(p.data, next)
	if i >= len(p.data) || p.data[i] != ':' {
		return i, false
	}
	return skipSpace(p.data, i+1), true
}

// str reads the string whose opening quote is at i. A string without
// escapes is its span of the input; one with escapes is decoded into
// doc.buf and is a span of that (inBuf). next is the index after the
// closing quote.
func (p *parser) str(i int) (off, n int32, inBuf bool, next int, ok bool) {
	data := p.data
	for j := i + 1; j < len(data); j++ {
		for j+8 <= len(data) && !special8(binary.LittleEndian.Uint64(data[j:])) {
			j += 8
		}
		if j >= len(data) {
			break
		}
		switch c := data[j]; {
		case c == '"':
			return int32(i + 1), int32(j - i - 1), false, j + 1, true
		case c == '\\':
			return p.unescape(i+1, j)
		case c < ' ':
			return 0, 0, false, 0, false
		}
	}
	return 0, 0, false, 0, false
}

// special8 reports whether any of the eight bytes in x (a string's content,
// read eight bytes at a time) is a quote, a backslash or a control
// character, the bytes that end a plain run of a string. It is the classic
// SWAR test: a byte of x^(c·ones) is zero where x has c, and x-(n·ones)
// borrows into a byte's top bit where it is below n; the existence test is
// exact even though flags above the first hit may be spurious.
func special8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ ('"' * ones)
	backslash := x ^ ('\\' * ones)
	return ((quote-ones)&^quote|(backslash-ones)&^backslash|(x-' '*ones)&^x)&highs != 0
}

// unescape decodes the string whose content starts at start and whose first
// escape is at j into doc.buf. It follows encoding/json's unquote: a \u
// escape of a high surrogate followed by one of a low surrogate is one
// character; any other surrogate escape is U+FFFD, and an escape after it
// is read on its own.
func (p *parser) unescape(start, j int) (off, n int32, inBuf bool, next int, ok bool) {
	data := p.data
	b := p.d.buf
	first := len(b)
	b = append(b, data[start:j]...)
	for j < len(data) {
		c := data[j]
		switch {
		case c == '"':
			p.d.buf = b
			return int32(first), int32(len(b) - first), true, j + 1, true
		case c < ' ':
			return 0, 0, false, 0, false
		case c != '\\':
			k := j + 1
			for k < len(data) && data[k] != '"' && data[k] != '\\' && data[k] >= ' ' {
				k++
			}
			b = append(b, data[j:k]...)
			j = k
			continue
		}
		if j+1 >= len(data) {
			return 0, 0, false, 0, false
		}
		switch e := data[j+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := escapedRune(data, j)
			if r < 0 {
				return 0, 0, false, 0, false
			}
			j += 6
			if utf16.IsSurrogate(r) {
				r2 := escapedRune(data, j)
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					j += 6
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			return 0, 0, false, 0, false
		}
		j += 2
	}
	return 0, 0, false, 0, false
}

// escapedRune reads a \uXXXX escape at i, or returns -1.
func escapedRune(data []byte, i int) rune {
	if len(data)-i < 6 || data[i] != '\\' || data[i+1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range data[i+2 : i+6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// number reads the number literal starting at i and returns its end:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(data []byte, i int) (int, bool) {
	if data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return i, false
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		i = digits(data, i+1)
	default:
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		if i+1 >= len(data) || !isDigit(data[i+1]) {
			return i, false
		}
		i = digits(data, i+1)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return i, false
		}
		i = digits(data, i)
	}
	return i, true
}

func digits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace (space, tab, LF, CR).
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
