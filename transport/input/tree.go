package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/slotd/slotd/storage/problem"
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

var errTooDeep = errors.New("input: nesting too deep")

type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
)

// node is one parsed JSON value. Numbers keep their literal text so that
// integers are checked exactly instead of through float64.
type node struct {
	kind  kind
	b     bool
	text  string // string value or number literal
	items []*node

	// Object members in document order; read marks the ones a reader asked
	// for, so Done can report the rest.
	keys  []string
	vals  []*node
	read  []bool
	index map[string]int
}

func (n *node) member(key string) (int, bool) {
	i, ok := n.index[key]
	return i, ok
}

// ParseObject parses data, whose top-level value must be a JSON object, and
// returns it for reading. Whole-document problems (not JSON, not an object,
// trailing data, too deep) are recorded at problem.PathBody and make ok
// false. Duplicate keys are recorded at their path but leave ok true, so the
// caller still reports everything else wrong; the first occurrence is kept.
// errs must not be nil; every Object read from the result reports into it.
func ParseObject(data []byte, errs *Errors) (obj Object, ok bool) {
	if len(bytes.TrimSpace(data)) == 0 {
		errs.Add(problem.PathBody, problem.Required, msgEmpty)
		return Object{}, false
	}
	// encoding/json would quietly replace invalid UTF-8 with U+FFFD, storing
	// text the client never sent.
	if !utf8.Valid(data) {
		errs.Add(problem.PathBody, problem.Invalid, msgNotJSON)
		return Object{}, false
	}
	p := parser{dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	root, err := p.document()
	switch {
	case errors.Is(err, errTooDeep):
		errs.Add(problem.PathBody, problem.Invalid, msgTooDeep)
		return Object{}, false
	case errors.Is(err, errTrailing):
		errs.Add(problem.PathBody, problem.Invalid, msgTrailing)
		return Object{}, false
	case err != nil:
		errs.Add(problem.PathBody, problem.Invalid, msgNotJSON)
		return Object{}, false
	case root.kind != kindObject:
		errs.Add(problem.PathBody, problem.Invalid, msgNotObj)
		return Object{}, false
	}
	for _, path := range p.dups {
		errs.Add(path, problem.Invalid, msgDup)
	}
	return Object{n: root, errs: errs}, true
}

var errTrailing = errors.New("input: data after the top-level value")

// parser builds the tree from the decoder's token stream. Using tokens
// rather than Unmarshal into any is what lets it see duplicate keys and stop
// at MaxDepth before recursing further.
type parser struct {
	dec  *json.Decoder
	dups []string
}

func (p *parser) document() (*node, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	root, err := p.value(tok, "", 1)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, errTrailing
	}
	return root, nil
}

func (p *parser) value(tok json.Token, path string, depth int) (*node, error) {
	switch v := tok.(type) {
	case nil:
		return &node{kind: kindNull}, nil
	case bool:
		return &node{kind: kindBool, b: v}, nil
	case json.Number:
		return &node{kind: kindNumber, text: string(v)}, nil
	case string:
		return &node{kind: kindString, text: v}, nil
	case json.Delim:
		if depth > MaxDepth {
			return nil, errTooDeep
		}
		if v == '{' {
			return p.object(path, depth)
		}
		if v == '[' {
			return p.array(path, depth)
		}
	}
	return nil, errors.New("input: unexpected token")
}

func (p *parser) object(path string, depth int) (*node, error) {
	n := &node{kind: kindObject, index: map[string]int{}}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("input: object key is not a string")
		}
		v, err := p.next(join(path, key), depth+1)
		if err != nil {
			return nil, err
		}
		if _, dup := n.index[key]; dup {
			p.dups = append(p.dups, join(path, key))
			continue
		}
		n.index[key] = len(n.keys)
		n.keys = append(n.keys, key)
		n.vals = append(n.vals, v)
	}
	n.read = make([]bool, len(n.keys))
	return n, p.closing('}')
}

func (p *parser) array(path string, depth int) (*node, error) {
	n := &node{kind: kindArray}
	for p.dec.More() {
		v, err := p.next(indexPath(path, len(n.items)), depth+1)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, v)
	}
	return n, p.closing(']')
}

func (p *parser) next(path string, depth int) (*node, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	return p.value(tok, path, depth)
}

func (p *parser) closing(want json.Delim) error {
	tok, err := p.dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return errors.New("input: unbalanced delimiter")
	}
	return nil
}
