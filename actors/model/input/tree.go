package input

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/slotd/slotd/actors/problem"
)

// MaxDepth is how deeply objects and arrays may nest. Nothing we accept needs
// more than a handful of levels; the bound keeps a hostile document from
// costing stack or time proportional to its nesting.
const MaxDepth = 32

// Messages for whole-document problems.
const (
	msgEmpty    = "A JSON body is required."
	msgNotJSON  = "The body is not valid JSON."
	msgTrailing = "The body has data after the JSON value."
	msgNotObj   = "The body must be a JSON object."
	msgDup      = "Appears more than once."
)

var msgTooDeep = fmt.Sprintf("The body nests deeper than %d levels.", MaxDepth)

// A parsed document is a flat slice of nodes, not a tree of pointers.
//
// The scanner (scan.go) appends one node per value in document order, so
// the root is node 0. A container's direct children are contiguous in
// doc.kids (kids[off : off+n], in document order), which gives arrays
// random access and objects a short slice to search. Every node knows its
// parent and its key (or, in an array, its index): that is all a dotted
// path needs, so paths are built only when a problem is recorded, by
// walking up (doc.path), never while parsing or reading.
//
// Strings and numbers are spans. A string without escapes, and every number
// literal, is a span of the input itself; a string with escapes is decoded
// once, while scanning, into doc.buf and is a span of that. Nothing is
// copied into a Go string until a reader returns one, so a value nobody
// reads costs no allocation, and what a reader returns never aliases the
// input (which may be a fasthttp buffer reused for the next request).
//
// Objects are searched by a linear scan over their members: request
// bodies have a handful, and comparing a few short keys is cheaper than
// hashing. An object with more than linearMax members also gets an index
// (doc.big), built while scanning because duplicate keys are found then.
//
// A small document (the usual request body) fits in arrays inside the doc,
// so parsing it is one allocation; a larger one grows the slices.

type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
)

const (
	flagRead   uint8 = 1 << iota // a reader (or Done) has taken this member
	flagTrue                     // the value of a bool
	flagValBuf                   // the string's span is in doc.buf (it had escapes)
	flagKeyBuf                   // the member's key is in doc.buf (it had escapes)
)

// node is one value. Spans are int32 offsets: a document is at most
// maxDocLen bytes.
type node struct {
	kind  kind
	flags uint8
	// parent is the container holding this value, -1 for the root.
	parent int32
	// key is the member's key span; in an array keyOff is the index and
	// keyLen is 0.
	keyOff, keyLen int32
	// off, n: a string's or number literal's span, or a container's
	// children kids[off : off+n].
	off, n int32
}

// linearMax is the member count up to which an object is searched by a
// linear scan; larger objects are indexed in doc.big.
const linearMax = 16

// inlineNodes is how many values a document may have before its slices
// leave the arrays inside doc. A full POST /appointments body has 12.
const inlineNodes = 24

// maxDocLen is the longest document ParseObject reads: spans are int32.
// Request bodies are limited far below it; a world file that size would
// not fit the process anyway.
const maxDocLen = math.MaxInt32

// doc is one parsed document, shared by every Object and Array read from
// it. Readers mark members read (flagRead); nothing else changes after
// ParseObject returns.
type doc struct {
	base  string  // the path of the root in a larger document (ParseObjectAt); "" for a whole one
	data  []byte  // the input, never written
	buf   []byte  // decoded strings that had escapes
	nodes []node  // every value, in document order; the root is 0
	kids  []int32 // children of containers, each container's contiguous
	// big indexes objects with more than linearMax members: key to value
	// node. Nil when there are none.
	big map[int32]map[string]int32

	inline struct {
		nodes [inlineNodes]node
		kids  [inlineNodes]int32
		stack [inlineNodes]int32 // the parser's scratch (parser.stack)
	}
}

func newDoc(data []byte) *doc {
	d := &doc{data: data}
	d.nodes = d.inline.nodes[:0]
	d.kids = d.inline.kids[:0]
	return d
}

// reset makes d hold nothing, keeping its memory, for data.
func (d *doc) reset(data []byte) {
	d.data = data
	d.buf, d.nodes, d.kids, d.big = d.buf[:0], d.nodes[:0], d.kids[:0], nil
}

// reserve sizes the node and child slices of a large document at once.
// Every value but the root follows a ':', a ',' or a '[' (strings holding
// those make it an overestimate, bounded by the length), and counting
// bytes is far cheaper than growing the slices by doubling: on a world
// file's businesses the growth was half of all the bytes parsing
// allocated.
func (d *doc) reserve() {
	if len(d.data) <= 1024 {
		return // the inline arrays or a growth or two
	}
	n := 1 + bytes.Count(d.data, []byte{':'}) + bytes.Count(d.data, []byte{','}) + bytes.Count(d.data, []byte{'['})
	d.nodes = make([]node, 0, n)
	d.kids = make([]int32, 0, n)
}

// text is the content of a string, or the literal of a number.
func (d *doc) text(i int32) []byte {
	n := &d.nodes[i]
	if n.flags&flagValBuf != 0 {
		return d.buf[n.off : n.off+n.n]
	}
	return d.data[n.off : n.off+n.n]
}

// key is the decoded key of member i.
func (d *doc) key(i int32) []byte {
	n := &d.nodes[i]
	if n.flags&flagKeyBuf != 0 {
		return d.buf[n.keyOff : n.keyOff+n.keyLen]
	}
	return d.data[n.keyOff : n.keyOff+n.keyLen]
}

// children are the members or elements of container i, in document order.
func (d *doc) children(i int32) []int32 {
	n := &d.nodes[i]
	return d.kids[n.off : n.off+n.n]
}

// member finds key in object obj: the value's node, or false.
func (d *doc) member(obj int32, key string) (int32, bool) {
	if d.nodes[obj].n > linearMax {
		v, ok := d.big[obj][key]
		return v, ok
	}
	for _, v := range d.children(obj) {
		if string(d.key(v)) == key {
			return v, true
		}
	}
	return 0, false
}

// path is the dotted path of node i ("" for the root): its ancestors' keys
// and indexes, outermost first, as join and indexPath would have built them.
func (d *doc) path(i int32) string {
	var chain [MaxDepth + 1]int32 // a scalar can sit one level below the deepest container
	depth := 0
	for ; d.nodes[i].parent >= 0; i = d.nodes[i].parent {
		chain[depth] = i
		depth++
	}
	var b []byte
	if d.base != "" {
		if depth == 0 {
			return d.base
		}
		b = append(b, d.base...)
		b = append(b, '.')
	}
	for k := depth - 1; k >= 0; k-- {
		if k != depth-1 {
			b = append(b, '.')
		}
		n := &d.nodes[chain[k]]
		switch {
		case d.nodes[n.parent].kind == kindArray:
			b = strconv.AppendInt(b, int64(n.keyOff), 10)
		case n.keyLen == 0:
			b = append(b, emptyKey...)
		default:
			b = append(b, d.key(chain[k])...)
		}
	}
	return string(b)
}

// ParseObjectAt parses data, the value at path base of a larger document
// that is read piece by piece (a world file, business by business), as
// ParseObject parses a whole one: problems are recorded under base, and a
// value that is not an object is reported at base as an object member
// would be. Depth counts from data's own top level.
func ParseObjectAt(data []byte, base string, errs *Errors) (Object, bool) {
	return parseObjectAt(data, base, errs, nil)
}

// Reader parses documents one after another into the same memory, for a
// caller that reads many large ones in turn and is done with each before
// the next (a world file, business by business): a business's node slices
// are tens of kilobytes, and making them afresh for each was most of what
// reading a world file allocated. An Object read through a Reader is valid
// until the Reader's next ParseObjectAt; the values read from it are
// copies, as always, and stay valid.
type Reader struct{ d *doc }

// ParseObjectAt is the package's ParseObjectAt, into r's memory.
func (r *Reader) ParseObjectAt(data []byte, base string, errs *Errors) (Object, bool) {
	if r.d == nil {
		r.d = newDoc(nil)
	}
	return parseObjectAt(data, base, errs, r.d)
}

// ParseObject is the package's ParseObject, into r's memory: for a
// request's body, with r from a pool and given back once the body is
// read.
func (r *Reader) ParseObject(data []byte, errs *Errors) (Object, bool) {
	if r.d == nil {
		r.d = newDoc(nil)
	}
	return parseObject(data, "", errs, r.d)
}

func parseObjectAt(data []byte, base string, errs *Errors, reuse *doc) (Object, bool) {
	var own Errors
	obj, ok := parseObject(data, base, &own, reuse)
	errs.total += own.total - len(own.fields) // those beyond MaxFields
	for _, f := range own.fields {
		if f.Path == problem.PathBody {
			f.Path = base
			if f.Message == msgNotObj {
				f.Message = msgObject
			}
		}
		errs.add(f)
	}
	if ok {
		obj.errs = errs
	}
	return obj, ok
}

// ParseObject parses data, whose top-level value must be a JSON object, and
// returns it for reading. Whole-document problems (not JSON, not an object,
// trailing data, too deep) are recorded at problem.PathBody and make ok
// false. Duplicate keys are recorded at their path but leave ok true, so the
// caller still reports everything else wrong; the first occurrence is kept.
// errs must not be nil; every Object read from the result reports into it.
//
// The document is read in place: data must not change while the result is
// being read. Values a reader returns are copies.
//
// JSON is read as RFC 8259 defines it and encoding/json accepts it, with
// three rules of our own: the whole document must be valid UTF-8 (encoding/json
// would quietly replace invalid bytes with U+FFFD, storing text the client
// never sent), it may nest at most MaxDepth levels, and it may be at most
// 2 GiB − 1 bytes. A \u escape of a lone UTF-16 surrogate (\ud800 not followed
// by a low surrogate escape, or a low one on its own) reads as U+FFFD, as
// encoding/json has it; the text the client wrote was not a character.
func ParseObject(data []byte, errs *Errors) (obj Object, ok bool) {
	return parseObject(data, "", errs, nil)
}

// parseObject parses data into reuse, or into a new doc if reuse is nil.
func parseObject(data []byte, base string, errs *Errors, reuse *doc) (obj Object, ok bool) {
	if len(bytes.TrimSpace(data)) == 0 {
		errs.Add(problem.PathBody, problem.Required, msgEmpty)
		return Object{}, false
	}
	if !utf8.Valid(data) || len(data) > maxDocLen {
		errs.Add(problem.PathBody, problem.Invalid, msgNotJSON)
		return Object{}, false
	}
	d := reuse
	if d == nil {
		d = newDoc(data)
		d.reserve()
	} else {
		d.reset(data)
	}
	d.base = base
	var p parser
	p.start(d)
	switch p.parse() {
	case tooDeep:
		errs.Add(problem.PathBody, problem.Invalid, msgTooDeep)
		return Object{}, false
	case trailing:
		errs.Add(problem.PathBody, problem.Invalid, msgTrailing)
		return Object{}, false
	case notJSON:
		errs.Add(problem.PathBody, problem.Invalid, msgNotJSON)
		return Object{}, false
	}
	if d.nodes[0].kind != kindObject {
		errs.Add(problem.PathBody, problem.Invalid, msgNotObj)
		return Object{}, false
	}
	for _, v := range p.dups {
		errs.Add(d.path(v), problem.Invalid, msgDup)
	}
	return Object{d: d, i: 0, errs: errs}, true
}
