package input

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/problem"
)

func nested(depth int) string {
	// depth levels in total, the outermost an object.
	return `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
}

func TestParseObjectDocument(t *testing.T) {
	cases := []struct {
		name   string
		doc    string
		ok     bool
		fields []string
	}{
		{"empty object", `{}`, true, []string{}},
		{"whitespace around", " \n{ } \t\n", true, []string{}},
		{"empty body", ``, false, []string{"(body) required"}},
		{"blank body", "  \n ", false, []string{"(body) required"}},
		{"not json", `hello`, false, []string{"(body) invalid"}},
		{"truncated", `{"a":`, false, []string{"(body) invalid"}},
		{"trailing comma", `{"a":1,}`, false, []string{"(body) invalid"}},
		{"single quotes", `{'a':1}`, false, []string{"(body) invalid"}},
		{"bad number", `{"a":01}`, false, []string{"(body) invalid"}},
		{"invalid utf8", "{\"a\":\"\xff\"}", false, []string{"(body) invalid"}},
		{"array", `[1,2]`, false, []string{"(body) invalid"}},
		{"string", `"x"`, false, []string{"(body) invalid"}},
		{"null", `null`, false, []string{"(body) invalid"}},
		{"two objects", `{}{}`, false, []string{"(body) invalid"}},
		{"trailing garbage", `{} x`, false, []string{"(body) invalid"}},
		{"trailing bracket", `{}}`, false, []string{"(body) invalid"}},
		{"duplicate key", `{"a":1,"a":2}`, true, []string{"a invalid"}},
		{"duplicate nested", `{"b":{"a":1,"b":2,"a":3}}`, true, []string{"b.a invalid"}},
		{"duplicate in array", `{"l":[{},{"x":1,"x":1}]}`, true, []string{"l.1.x invalid"}},
		{"duplicate in broken doc", `{"a":1,"a":2`, false, []string{"(body) invalid"}},
		{"depth at limit", nested(MaxDepth), true, []string{}},
		{"depth over limit", nested(MaxDepth + 1), false, []string{"(body) invalid"}},
		{"very deep", `{"a":` + strings.Repeat("[", 1_000_000), false, []string{"(body) invalid"}},
		{"huge numbers parse", `{"a":1e400,"b":-123456789012345678901234567890}`, true, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var errs Errors
			o, ok := ParseObject([]byte(tc.doc), &errs)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.fields, summary(errs.List()))
			if ok {
				for _, k := range []string{"a", "b", "l"} {
					o.take(k) // the test is about the document, not its keys
				}
				o.Done()
			}
		})
	}
}

func TestDepthMessageNamesLimit(t *testing.T) {
	var errs Errors
	_, ok := ParseObject([]byte(nested(MaxDepth+1)), &errs)
	require.False(t, ok)
	require.Equal(t, "The body nests deeper than 32 levels.", errs.List()[0].Message)
}

func TestNotJSONMessage(t *testing.T) {
	var errs Errors
	ParseObject([]byte(`{"a"`), &errs)
	require.Equal(t, []problem.Field{{Path: problem.PathBody, Reason: problem.Invalid, Message: "The body is not valid JSON."}}, errs.List())
}

func TestDoneReportsUnknownSorted(t *testing.T) {
	_, _, fields := readDoc(t, `{"z":1,"keep":"x","b":null,"a":{"inner":1},"a2":[]}`, func(o Object) (string, bool) {
		return o.String("keep", Required, 10)
	})
	require.Equal(t, []string{"a unknown_field", "a2 unknown_field", "b unknown_field", "z unknown_field"}, fields)
}

func TestDoneNestedAndOnce(t *testing.T) {
	var errs Errors
	o, _ := ParseObject([]byte(`{"c":{"x":1,"y":2},"l":[{"k":1}]}`), &errs)
	c, ok := o.Object("c", Required)
	require.True(t, ok)
	c.Int("x", Required, 0, 9)
	c.Done()
	c.Done()
	l, _ := o.Array("l", Required)
	e, _ := l.Object(0)
	e.Done()
	o.Done()
	require.Equal(t, []string{"c.y unknown_field", "l.0.k unknown_field"}, summary(errs.List()))
}

func TestHasDoesNotRead(t *testing.T) {
	_, _, fields := readDoc(t, `{"a":null}`, func(o Object) (bool, bool) {
		return o.Has("a") && !o.Has("b"), true
	})
	require.Equal(t, []string{"a unknown_field"}, fields)
}

func TestZeroObjectAndArrayAreQuiet(t *testing.T) {
	var o Object
	_, ok := o.String("x", Required, 5)
	require.False(t, ok)
	require.False(t, o.Has("x"))
	o.Done()
	var a Array
	require.Equal(t, 0, a.Len())
	_, ok = a.Object(3)
	require.False(t, ok)
}

func TestErrorsCapAndErr(t *testing.T) {
	var errs Errors
	require.NoError(t, errs.Err())
	for i := 0; i < MaxFields+5; i++ {
		errs.Add("x", problem.Invalid, "Bad.")
	}
	require.Len(t, errs.List(), MaxFields)
	require.Equal(t, MaxFields+5, errs.Len())
	require.False(t, errs.Empty())
	pe := problem.As(errs.Err())
	require.Equal(t, problem.Validation, pe.Code)
	require.Len(t, pe.Fields, MaxFields)
}

func TestManyUnknownKeysAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 500; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strings.Repeat("x", i) + `":1`)
	}
	b.WriteString("}")
	var errs Errors
	o, ok := ParseObject([]byte(b.String()), &errs)
	require.True(t, ok)
	o.Done()
	require.Len(t, errs.List(), MaxFields)
	require.Equal(t, 500, errs.Len())
}

func TestEmptyKeyHasAPath(t *testing.T) {
	var errs Errors
	o, ok := ParseObject([]byte(`{"":1,"a":{"":2}}`), &errs)
	require.True(t, ok)
	a, _ := o.Object("a", Required)
	a.Done()
	o.Done()
	require.Equal(t, []string{`a."" unknown_field`, `"" unknown_field`}, summary(errs.List()))
}

// TestGrammar: the scanner's verdicts on the corners of RFC 8259, the same
// as encoding/json's (FuzzParseDifferential holds it to them for any input).
func TestGrammar(t *testing.T) {
	bad := []string{
		`{"a":tru}`, `{"a":True}`, `{"a":nul}`, `{"a":NaN}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`,
		`{"a":+1}`, `{"a":1e}`, `{"a":1e+}`, `{"a":0x1}`, `{"a":"\x"}`, `{"a":"\'"}`, `{"a":"\u12"}`,
		`{"a":"\u12g4"}`, "{\"a\":\"\t\"}", "{\"a\":\"\x1f\"}", `{"a" 1}`, `{"a":1 "b":2}`, `{1:2}`,
		`{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1 2]}`, `{"a":[}`, `{"a":1]`, `{"a`, `{"a":"\`, "\ufeff{}", "\v{}",
	}
	for _, doc := range bad {
		var errs Errors
		_, ok := ParseObject([]byte(doc), &errs)
		require.False(t, ok, doc)
		require.Equal(t, []string{"(body) invalid"}, summary(errs.List()), doc)
		require.Equal(t, msgNotJSON, errs.List()[0].Message, doc)
	}
	good := []string{
		`{"a":-0,"b":0.5,"c":1e10,"d":1E-3,"e":-1.25e+7}`, `{"a":"\"\\\/\b\f\n\r\t\u00e9"}`,
		"{\"a\":\"\x7f\u2028\"}", " \t\r\n{ \"a\" : [ 1 , { } , [ ] ] } \t\r\n",
	}
	for _, doc := range good {
		var errs Errors
		_, ok := ParseObject([]byte(doc), &errs)
		require.True(t, ok, doc)
	}
	var errs Errors
	ParseObject([]byte("{}\u00a0"), &errs) // Unicode space is not JSON whitespace
	require.Equal(t, msgTrailing, errs.List()[0].Message)
}

// TestSurrogates: a \u escape pair of a high and a low surrogate is one
// character; a lone surrogate reads as U+FFFD (as encoding/json has it) and
// the escape after it is read on its own. Keys follow the same rule, so two
// different lone surrogates are the same key.
func TestSurrogates(t *testing.T) {
	cases := map[string]string{
		`\ud83d\ude00`:       "😀",
		`\uD83D\uDE00`:       "😀",
		`\ud83d`:             "\uFFFD",
		`\ude00`:             "\uFFFD",
		`\ud83dx`:            "\uFFFDx",
		`\ud83d\u0041`:       "\uFFFDA",
		`\ud83d\ud83d\ude00`: "\uFFFD😀",
		`\ude00\ud83d`:       "\uFFFD\uFFFD",
		`\ud83d\n`:           "\uFFFD\n",
		`\u0000`:             "\x00",
	}
	for esc, want := range cases {
		got, ok, fields := readDoc(t, `{"s":"`+esc+`"}`, func(o Object) (string, bool) { return o.String("s", Optional, 10) })
		require.True(t, ok, esc)
		require.Equal(t, want, got, esc)
		require.Empty(t, fields)
	}
	var errs Errors
	ParseObject([]byte(`{"\ud800":1,"\udc00":2}`), &errs)
	require.Equal(t, []string{"\uFFFD invalid"}, summary(errs.List()))
}

// TestLargeObject: past linearMax members an object is indexed; lookups,
// duplicates and Done behave as for a small one.
func TestLargeObject(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"x":{`)
	for i := range 3 * linearMax {
		b.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i) + `,`)
	}
	b.WriteString(`"k3":-1,"k\u0034":-2,"k40":-3}}`)
	var errs Errors
	o, ok := ParseObject([]byte(b.String()), &errs)
	require.True(t, ok)
	x, _ := o.Object("x", Required)
	for i := range 3 * linearMax {
		if i == 20 {
			continue
		}
		n, ok := x.Int("k"+strconv.Itoa(i), Required, 0, 1000)
		require.True(t, ok)
		require.Equal(t, i, n)
	}
	require.False(t, x.Has("k48"))
	x.Done()
	o.Done()
	require.Equal(t, []string{"x.k3 invalid", "x.k4 invalid", "x.k40 invalid", "x.k20 unknown_field"}, summary(errs.List()))
}

// TestPathsAreBuiltFromTheTree: a problem deep in the document names every
// level, keys and indexes, the way join and indexPath spell them.
func TestPathsAreBuiltFromTheTree(t *testing.T) {
	var errs Errors
	o, _ := ParseObject([]byte(`{"a":[{"":{"b":[null,[{"c":"x"}]]}}]}`), &errs)
	a, _ := o.Array("a", Required)
	e, _ := a.Object(0)
	m, _ := e.Object("", Required)
	l, _ := m.Array("b", Required)
	inner, _ := l.Array(1)
	c, _ := inner.Object(0)
	require.Equal(t, `a.0."".b.1.0`, c.Path())
	c.Int("c", Required, 0, 1)
	require.Equal(t, []string{`a.0."".b.1.0.c invalid`}, summary(errs.List()))
}

func TestParseObjectAtReportsUnderItsPath(t *testing.T) {
	var errs Errors
	o, ok := ParseObjectAt([]byte(`{"a": {"b": 1}, "a": 2}`), "businesses.3", &errs)
	require.True(t, ok)
	in, _ := o.Object("a", Required)
	in.String("b", Required, 10)
	in.Done()
	o.Done()
	require.Equal(t, []string{"businesses.3.a invalid", "businesses.3.a.b invalid"}, pathsAndReasons(errs.List()))

	errs = Errors{}
	_, ok = ParseObjectAt([]byte(`7`), "businesses.0", &errs)
	require.False(t, ok)
	require.Equal(t, []problem.Field{{Path: "businesses.0", Reason: problem.Invalid, Message: "Must be an object."}}, errs.List())
}

func pathsAndReasons(fs []problem.Field) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path+" "+string(f.Reason))
	}
	return out
}

// A Reader reads each document into the last one's memory: what was read
// from the first stays as it was, and the second reads as ParseObjectAt
// reads it, escapes, big objects and problems included.
func TestReaderReuses(t *testing.T) {
	var r Reader
	var errs Errors
	big := `{"a":"x\u00e9","list":[1,2,{"k":"v"}],` + ""
	for i := 0; i < 20; i++ {
		big += `"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i) + `,`
	}
	big += `"z":true}`
	o, ok := r.ParseObjectAt([]byte(big), "businesses.0", &errs)
	require.True(t, ok)
	a, _ := o.String("a", Required, 10)
	k19, _ := o.Int("k19", Required, 0, 100)
	require.True(t, errs.Empty(), "%v", errs.fields)

	second := `{"a":"y","a":"dup"}`
	var want Errors
	_, okWant := ParseObjectAt([]byte(second), "businesses.1", &want)
	errs = Errors{}
	o2, ok2 := r.ParseObjectAt([]byte(second), "businesses.1", &errs)
	require.Equal(t, okWant, ok2)
	b, _ := o2.String("a", Required, 10)
	o2.Done()
	require.Equal(t, "xé", a, "a value read before the reuse is a copy")
	require.Equal(t, 19, k19)
	require.Equal(t, "y", b)
	require.Equal(t, want.fields, errs.fields)
}
