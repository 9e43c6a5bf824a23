package input

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// FuzzParseDifferential holds the scanner to encoding/json. For any input:
//
//   - ParseObject records exactly the problems the reference parser (the
//     Decoder.Token tree builder the scanner replaced, reference_test.go)
//     records: the same whole-document verdict, message and duplicate paths;
//   - it accepts only what json.Valid accepts, and accepts everything
//     json.Valid accepts that is valid UTF-8, an object at the top and at
//     most MaxDepth deep;
//   - what it accepted reads back as encoding/json decodes it: the same
//     tree (keys in order, first of a duplicate kept, strings unquoted as
//     encoding/json unquotes them, numbers as their literals, bools, nulls)
//     as the reference; the same value as json.Decoder.Decode into any
//     when there are no duplicates; and the same strings, bools and
//     integers through the public readers.
//
// It is seeded with every committed corpus of the decoders built on this
// package and the example world file, plus the cases below.
func FuzzParseDifferential(f *testing.F) {
	for _, s := range differentialSeeds {
		f.Add([]byte(s))
	}
	for _, dir := range []string{"testdata/fuzz", "../testdata", "../world/testdata"} {
		addCorpus(f, dir)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDifferential(t, data)
	})
}

func checkDifferential(t *testing.T, data []byte) {
	want, wantFields := refParse(data)
	var errs Errors
	o, ok := ParseObject(data, &errs)
	got := errs.List()
	if len(got) == 0 {
		got = nil
	}
	if !reflect.DeepEqual(wantFields, got) || ok != (want != nil) {
		t.Fatalf("%q:\nreference %v %+v\nscanner   %v %+v", data, want != nil, wantFields, ok, got)
	}

	trimmed := bytes.TrimLeft(data, " \t\r\n")
	acceptable := json.Valid(data) && utf8.Valid(data) && len(trimmed) > 0 && trimmed[0] == '{' && depth(data) <= MaxDepth
	if ok != acceptable {
		t.Fatalf("%q: accepted %v, but json.Valid and our rules say %v", data, ok, acceptable)
	}
	if !ok {
		return
	}

	if tree := o.d.ref(0); !reflect.DeepEqual(want, tree) {
		t.Fatalf("%q: read back differently\nreference %s\nscanner   %s", data, dump(want), dump(tree))
	}
	if len(wantFields) == 0 { // no duplicates: encoding/json's own decoding agrees
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		require.NoError(t, dec.Decode(&v))
		require.Equal(t, v, o.d.generic(0), "%q", data)
	}
	readBack(t, o, want)
}

// readBack reads every member of o through the public readers and compares
// what they return with the reference node.
func readBack(t *testing.T, o Object, want *refNode) {
	for k, key := range want.keys {
		require.True(t, o.Has(key), "Has(%q)", key)
		readValue(t, want.vals[k], func() (Object, bool) { return o.Object(key, Optional) },
			func() (Array, bool) { return o.Array(key, Optional) },
			func() (string, bool) { return o.String(key, Optional, 1<<30) },
			func() (bool, bool) { return o.Bool(key, Optional) },
			func() (int, bool) { return o.Int(key, Optional, minInt, maxInt) },
			func() bool { s, present := o.NullableString(key, 1<<30); return s == nil && present })
	}
}

func readArray(t *testing.T, a Array, want *refNode) {
	require.Equal(t, len(want.items), a.Len())
	for i, item := range want.items {
		readValue(t, item, func() (Object, bool) { return a.Object(i) },
			func() (Array, bool) { return a.Array(i) },
			func() (string, bool) { return a.String(i, 1<<30) },
			nil, nil, nil)
	}
}

const (
	maxInt = int(^uint(0) >> 1)
	minInt = -maxInt - 1
)

func readValue(t *testing.T, want *refNode, obj func() (Object, bool), arr func() (Array, bool),
	str func() (string, bool), boolean func() (bool, bool), integer func() (int, bool), null func() bool) {
	switch want.kind {
	case kindObject:
		c, ok := obj()
		require.True(t, ok)
		require.Equal(t, nonNil(want.keys), nonNil(c.keys()))
		readBack(t, c, want)
	case kindArray:
		c, ok := arr()
		require.True(t, ok)
		readArray(t, c, want)
	case kindString:
		s, ok := str()
		require.True(t, ok)
		require.Equal(t, want.text, s)
	case kindBool:
		if boolean != nil {
			b, ok := boolean()
			require.True(t, ok)
			require.Equal(t, want.b, b)
		}
	case kindNumber:
		if integer != nil {
			n, ok := integer()
			w, err := strconv.ParseInt(want.text, 10, strconv.IntSize)
			if err != nil {
				w = 0 // out of range or not whole: the reader returns 0
			}
			require.Equal(t, err == nil, ok, want.text)
			require.Equal(t, int(w), n, want.text)
		}
	case kindNull:
		if null != nil {
			require.True(t, null())
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ref converts node i into the reference's shape.
func (d *doc) ref(i int32) *refNode {
	n := d.nodes[i]
	r := &refNode{kind: n.kind}
	switch n.kind {
	case kindBool:
		r.b = n.flags&flagTrue != 0
	case kindNumber, kindString:
		r.text = string(d.text(i))
	case kindObject:
		for _, v := range d.children(i) {
			r.keys = append(r.keys, string(d.key(v)))
			r.vals = append(r.vals, d.ref(v))
		}
	case kindArray:
		for _, v := range d.children(i) {
			r.items = append(r.items, d.ref(v))
		}
	}
	return r
}

// generic converts node i into what json.Decoder.Decode with UseNumber
// makes of it.
func (d *doc) generic(i int32) any {
	n := d.nodes[i]
	switch n.kind {
	case kindBool:
		return n.flags&flagTrue != 0
	case kindNumber:
		return json.Number(d.text(i))
	case kindString:
		return string(d.text(i))
	case kindObject:
		m := map[string]any{}
		for _, v := range d.children(i) {
			m[string(d.key(v))] = d.generic(v)
		}
		return m
	case kindArray:
		l := []any{}
		for _, v := range d.children(i) {
			l = append(l, d.generic(v))
		}
		return l
	}
	return nil
}

func dump(n *refNode) string {
	if n == nil {
		return "<nil>"
	}
	switch n.kind {
	case kindNull:
		return "null"
	case kindBool:
		return strconv.FormatBool(n.b)
	case kindNumber:
		return n.text
	case kindString:
		return strconv.Quote(n.text)
	case kindArray:
		var parts []string
		for _, it := range n.items {
			parts = append(parts, dump(it))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	var parts []string
	for i, k := range n.keys {
		parts = append(parts, strconv.Quote(k)+":"+dump(n.vals[i]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// depth is the deepest nesting of containers in valid JSON.
func depth(data []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// addCorpus adds every []byte and string argument of every committed seed
// file under dir (the "go test fuzz v1" format) as a seed.
func addCorpus(f *testing.F, dir string) {
	err := filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.HasPrefix(data, []byte("go test fuzz v1\n")) {
			f.Add(data) // a document, like the example world file
			return nil
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			for _, prefix := range []string{"[]byte(", "string("} {
				if arg, ok := strings.CutPrefix(line, prefix); ok {
					s, err := strconv.Unquote(strings.TrimSuffix(arg, ")"))
					if err != nil {
						return fmt.Errorf("%s: %w", path, err)
					}
					f.Add([]byte(s))
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		f.Fatal(err)
	}
}

// differentialSeeds are the corners of the grammar and of our rules.
var differentialSeeds = []string{
	`{}`, ` {} `, `{"a":1}`, `{"a":"b","c":[1,2,{"d":null}],"e":true,"f":false}`,
	`{"a":-0,"b":0.5,"c":1e10,"d":1E-3,"e":-1.25e+7,"f":123456789012345678901234567890}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":+1}`, `{"a":1e}`, `{"a":1e+}`, `{"a":0x1}`,
	`{"a":tru}`, `{"a":nul}`, `{"a":True}`, `{"a":truex}`, `{"a":NaN}`, `{"a":Infinity}`,
	`{"a":"\"\\\/\b\f\n\r\t"}`, `{"a":"\u00e9\u20AC"}`, `{"a":"\x"}`, `{"a":"\'"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`,
	`{"a":"\ud83d\ude00"}`, `{"a":"\ud83d"}`, `{"a":"\ude00"}`, `{"a":"\ud83dx"}`, `{"a":"\ud83d\u0041"}`,
	`{"a":"\ud83d\ud83d\ude00"}`, `{"a":"\ude00\ud83d"}`, `{"a":"\ud83d\u12"}`, `{"a":"\ud83d\\"}`,
	`{"\ud800":1,"\udc00":2}`, `{"a":1,"\u0061":2}`, `{"":1,"":2}`,
	"{\"a\":\"\t\"}", "{\"a\":\"\x7f\"}", "{\"a\":\"\u2028\"}", `{"a":"\u0000"}`,
	`{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{"a":1 "b":2}`, `{1:2}`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1 2]}`,
	`{"a":[}`, `{"a":{]}`, `{"a":1]`, `{"a":[1}`, `{`, `}`, `[`, `{"a`, `{"a":"`, `{"a":"\`,
	`{} {}`, `{}x`, `{}}`, `{}]`, `{},`, "{}\x00", "{}\u00a0", "\u00a0{}", "\ufeff{}", "\v{}", "{}\f",
	`[]`, `[{}]`, `"x"`, `1`, `-1 2`, `01`, `true`, `truex`, `null`, `nul`,
	"", " ", "\u00a0", "\xff", "{\"a\":\"\xff\"}", "{\"a\":\"\xed\xa0\x80\"}",
	`{"a":{"b":1,"b":{"c":1,"c":2}},"a":{"x":1,"x":1}}`,
	`{"a":[` + strings.Repeat("[", MaxDepth-2) + strings.Repeat("]", MaxDepth-2) + `]}`,
	`{"a":[` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + `]}`,
	`{"a":` + strings.Repeat("[", MaxDepth) + `x`,
	`{"a":` + strings.Repeat(`{"b":`, MaxDepth) + `1` + strings.Repeat("}", MaxDepth) + `}`,
	manyKeys(40, false), manyKeys(40, true), manyKeys(linearMax, true), manyKeys(linearMax+1, true),
}

// manyKeys is an object with n members k0…, repeating k3 at the end if dup.
func manyKeys(n int, dup bool) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	if dup {
		b.WriteString(`"k3":"again",`)
	}
	b.WriteString(`"last":[]}`)
	return b.String()
}
