package input

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/storage/problem"
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
