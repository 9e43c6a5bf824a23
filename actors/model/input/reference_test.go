package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/slotd/slotd/actors/problem"
)

// The reference parser is the tree builder this package used before its
// scanner: encoding/json's Decoder.Token, one token at a time. It is kept
// here, verbatim in behaviour, as the oracle of the differential fuzz
// target (FuzzParseDifferential): for any input the scanner must accept
// exactly what it accepts, report the same whole-document problem and the
// same duplicate paths, and read back the same values.

// refNode is one value as encoding/json decoded it: strings unquoted by
// encoding/json (lone surrogates become U+FFFD), numbers as json.Number
// literals, objects with their keys in document order, first of a
// duplicate kept.
type refNode struct {
	kind  kind
	b     bool
	text  string
	items []*refNode
	keys  []string
	vals  []*refNode
}

var (
	errRefTooDeep  = errors.New("reference: nesting too deep")
	errRefTrailing = errors.New("reference: data after the top-level value")
)

// refParse is the old ParseObject: the problems it recorded and, when it
// accepted the document, the tree.
func refParse(data []byte) (*refNode, []problem.Field) {
	body := func(msg string) []problem.Field {
		return []problem.Field{{Path: problem.PathBody, Reason: problem.Invalid, Message: msg}}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, []problem.Field{{Path: problem.PathBody, Reason: problem.Required, Message: msgEmpty}}
	}
	if !utf8.Valid(data) {
		return nil, body(msgNotJSON)
	}
	p := refParser{dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	root, err := p.document()
	switch {
	case errors.Is(err, errRefTooDeep):
		return nil, body(msgTooDeep)
	case errors.Is(err, errRefTrailing):
		return nil, body(msgTrailing)
	case err != nil:
		return nil, body(msgNotJSON)
	case root.kind != kindObject:
		return nil, body(msgNotObj)
	}
	var fields []problem.Field
	for _, path := range p.dups {
		fields = append(fields, problem.Field{Path: path, Reason: problem.Invalid, Message: msgDup})
	}
	return root, fields
}

type refParser struct {
	dec  *json.Decoder
	dups []string
}

func (p *refParser) document() (*refNode, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	root, err := p.value(tok, "", 1)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, errRefTrailing
	}
	return root, nil
}

func (p *refParser) value(tok json.Token, path string, depth int) (*refNode, error) {
	switch v := tok.(type) {
	case nil:
		return &refNode{kind: kindNull}, nil
	case bool:
		return &refNode{kind: kindBool, b: v}, nil
	case json.Number:
		return &refNode{kind: kindNumber, text: string(v)}, nil
	case string:
		return &refNode{kind: kindString, text: v}, nil
	case json.Delim:
		if depth > MaxDepth {
			return nil, errRefTooDeep
		}
		if v == '{' {
			return p.object(path, depth)
		}
		if v == '[' {
			return p.array(path, depth)
		}
	}
	return nil, errors.New("reference: unexpected token")
}

func (p *refParser) object(path string, depth int) (*refNode, error) {
	n := &refNode{kind: kindObject}
	seen := map[string]bool{}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("reference: object key is not a string")
		}
		v, err := p.next(join(path, key), depth+1)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			p.dups = append(p.dups, join(path, key))
			continue
		}
		seen[key] = true
		n.keys = append(n.keys, key)
		n.vals = append(n.vals, v)
	}
	return n, p.closing('}')
}

func (p *refParser) array(path string, depth int) (*refNode, error) {
	n := &refNode{kind: kindArray}
	for p.dec.More() {
		v, err := p.next(indexPath(path, len(n.items)), depth+1)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, v)
	}
	return n, p.closing(']')
}

func (p *refParser) next(path string, depth int) (*refNode, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	return p.value(tok, path, depth)
}

func (p *refParser) closing(want json.Delim) error {
	tok, err := p.dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return errors.New("reference: unbalanced delimiter")
	}
	return nil
}
