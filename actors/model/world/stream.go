package world

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

// Reading a world file business by business. Parse holds the whole
// document's values at once, which for a file of a million appointments is
// gigabytes; Check and Each read the businesses array one element at a
// time, so memory holds the largest business, never the file. They report
// the problems Parse reports (the same paths, reasons and messages; the
// whole-document ones come after those of the businesses).
//
// The document is walked with a scanner (scan.go) that hands out whole
// values; each business element is handed whole to input.ParseObjectAt and read by the same code
// as Parse's. What remains of the document — its members, with each
// business element replaced by {} — is then read by input as Parse reads
// the whole, so the rules on the top level (unknown members, a missing or
// mistyped businesses array, elements that are not objects) are one
// implementation, not two.

// Check reads the world file in r and returns nil, or an *Error listing
// every problem, and an outline of its businesses in file order: each
// spec with only its profile and keys, so a caller can check across the
// whole file what needs no more (key ownership) before putting any of it.
func Check(r io.Reader) ([]model.Spec, error) {
	var outline []model.Spec
	err := walkFile(r, func(spec model.Spec) error {
		outline = append(outline, model.Spec{Business: spec.Business, Keys: spec.Keys})
		return nil
	}, true)
	return outline, err
}

// Each reads the world file in r, as Check does, and calls fn with each
// business in file order, stopping at fn's first error. Run it on a file
// Check accepted: should it find a problem after all (the file changed
// between the two readings), the businesses before it have been handed
// to fn already.
func Each(r io.Reader, fn func(model.Spec) error) error { return walkFile(r, fn, false) }

// errStop ends a walk whose problems are reported in errs.
var errStop = errors.New("world: stop")

// walker is one walk over a document.
type walker struct {
	s        *scanner
	raw      []byte       // the value being read, reused from value to value
	parser   input.Reader // reads each business into the last one's memory
	errs     input.Errors
	skel     bytes.Buffer // the document, business elements replaced by {}
	seenKeys map[model.KeyHash]bool
	seenIDs  map[uuid.UUID]bool
	fn       func(model.Spec) error
	all      bool // hand fn every business, even after a problem (Check)
	// rawFn, when set, takes each business object's bytes (its own copy)
	// in place of reading them here: the parallel walks (parallel.go).
	rawFn func(i int, raw []byte) error
}

func walkFile(r io.Reader, fn func(model.Spec) error, all bool) error {
	return (&walker{s: newScanner(r), seenKeys: map[model.KeyHash]bool{}, seenIDs: map[uuid.UUID]bool{}, fn: fn, all: all}).walk()
}

// walk walks the document and reports its problems.
func (w *walker) walk() error {
	err := w.document()
	if rerr := w.s.readErr(); rerr != nil {
		return rerr // a failed read is not a malformed document
	}
	if err != nil {
		if errors.Is(err, errStop) {
			return newError(&w.errs)
		}
		return err
	}
	// The top level, with the businesses elided, read as Parse reads it.
	root, ok := input.ParseObject(w.skel.Bytes(), &w.errs)
	if ok {
		list, _ := root.Array("businesses", input.Required)
		for i := 0; i < list.Len(); i++ {
			list.Object(i) // a {} stand-in reads clean; anything else is reported
		}
		root.Done()
	}
	if !w.errs.Empty() {
		return newError(&w.errs)
	}
	return nil
}

// document walks the top-level object. A malformed document is reported
// as Parse reports it, alone.
func (w *walker) document() error {
	c, ok := w.s.peek()
	switch {
	case !ok:
		return w.whole([]byte(""))
	case c != '{':
		// Not an object: whatever it is, Parse's report on it.
		return w.whole(w.rest())
	}
	w.s.pos++
	w.skel.WriteByte('{')
	if !w.s.take('}') {
		for n := 0; ; n++ {
			if err := w.member(n); err != nil {
				return err
			}
			if w.s.take('}') {
				break
			}
			if !w.s.take(',') {
				return w.whole([]byte("{"))
			}
		}
	}
	w.skel.WriteByte('}')
	if _, more := w.s.peek(); more {
		return w.trailing()
	}
	return nil
}

// trailing reports data after the document's value, as Parse does: as
// trailing data, or as not JSON if it is not UTF-8 (everything before it
// was checked value by value).
func (w *walker) trailing() error {
	if !utf8.Valid(w.rest()) {
		return w.whole([]byte("{"))
	}
	return w.whole([]byte("{} {}"))
}

// rest reads what is left of the input; only for reporting a malformed
// document.
func (w *walker) rest() []byte {
	rest, _ := io.ReadAll(io.MultiReader(bytes.NewReader(w.s.buf[w.s.pos:]), w.s.r))
	return rest
}

// whole reports a problem of the whole document: the one input reports for
// a document like like.
func (w *walker) whole(like []byte) error {
	w.errs = input.Errors{}
	input.ParseObject(like, &w.errs)
	return errStop
}

// member walks the n-th top-level member: the businesses array element by
// element, anything else copied whole into the skeleton.
func (w *walker) member(n int) error {
	var ok bool
	if w.raw, ok = w.s.value(w.raw); !ok || w.raw[0] != '"' || !w.s.take(':') {
		return w.whole([]byte("{"))
	}
	if n > 0 {
		w.skel.WriteByte(',')
	}
	w.skel.Write(w.raw)
	w.skel.WriteByte(':')
	var key string
	if json.Unmarshal(w.raw, &key) == nil && key == "businesses" {
		return w.businesses()
	}
	if w.raw, ok = w.s.value(w.raw); !ok {
		return w.whole([]byte("{"))
	}
	w.skel.Write(w.raw)
	return nil
}

// businesses walks the value of "businesses": an array is read element by
// element; anything else goes to the skeleton (where input reports it),
// an object as {} so that its contents are not held.
func (w *walker) businesses() error {
	c, _ := w.s.peek()
	if c != '[' {
		var ok bool
		if w.raw, ok = w.s.value(w.raw); !ok {
			return w.whole([]byte("{"))
		}
		if c == '{' {
			w.skel.WriteString("{}")
		} else {
			w.skel.Write(w.raw)
		}
		return nil
	}
	w.s.pos++
	w.skel.WriteByte('[')
	if !w.s.take(']') {
		for i := 0; ; i++ {
			if i > 0 {
				w.skel.WriteByte(',')
			}
			if err := w.element(i); err != nil {
				return err
			}
			if w.s.take(']') {
				break
			}
			if !w.s.take(',') {
				return w.whole([]byte("{"))
			}
		}
	}
	w.skel.WriteByte(']')
	return nil
}

// element reads business i and hands it on.
func (w *walker) element(i int) error {
	var ok bool
	if w.rawFn != nil {
		w.raw, ok = w.s.extent(w.raw) // checked where it is read
	} else {
		w.raw, ok = w.s.value(w.raw)
	}
	if !ok || len(w.raw) == 0 {
		return w.whole([]byte("{"))
	}
	if w.raw[0] != '{' {
		w.skel.Write(w.raw) // not an object: the skeleton's reading says so
		return nil
	}
	w.skel.WriteString("{}")
	if w.rawFn != nil {
		return w.rawFn(i, bytes.Clone(w.raw))
	}
	o, ok := w.parser.ParseObjectAt(w.raw, "businesses."+strconv.Itoa(i), &w.errs)
	if !ok {
		return nil
	}
	spec, idOK := readBusiness(o, &w.errs, w.seenKeys)
	if idOK && w.seenIDs[spec.Business.ID] {
		w.errs.Add(o.PathOf("id"), problem.Invalid, "Another business in the file has this id.")
	}
	if idOK {
		w.seenIDs[spec.Business.ID] = true
	}
	o.Done()
	if !w.all && !w.errs.Empty() {
		return errStop
	}
	return w.fn(spec)
}
