package input

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestString(t *testing.T) {
	req := func(o Object) (string, bool) { return o.String("s", Required, 5) }
	opt := func(o Object) (string, bool) { return o.String("s", Optional, 5) }
	runReaderCases(t, []readerCase[string]{
		{"required ok", `{"s":"abc"}`, req, "abc", true, nil},
		{"at limit in runes", `{"s":"ééééé"}`, req, "ééééé", true, nil},
		{"over limit", `{"s":"abcdef"}`, req, "", false, []string{"s too_long 5"}},
		{"over limit in runes", `{"s":"éééééé"}`, req, "", false, []string{"s too_long 5"}},
		{"required absent", `{}`, req, "", false, []string{"s required"}},
		{"required null", `{"s":null}`, req, "", false, []string{"s required"}},
		{"required empty", `{"s":""}`, req, "", false, []string{"s required"}},
		{"required blank", `{"s":"  "}`, req, "", false, []string{"s required"}},
		{"wrong type number", `{"s":5}`, req, "", false, []string{"s invalid"}},
		{"wrong type object", `{"s":{}}`, req, "", false, []string{"s invalid"}},
		{"optional absent", `{}`, opt, "", false, nil},
		{"optional empty", `{"s":""}`, opt, "", true, nil},
		{"optional null", `{"s":null}`, opt, "", false, []string{"s invalid"}},
		{"optional wrong type", `{"s":true}`, opt, "", false, []string{"s invalid"}},
		{"escapes decoded", `{"s":"a\u00e9\n"}`, req, "aé\n", true, nil},
	})
}

func TestNullableString(t *testing.T) {
	fn := func(o Object) (*string, bool) { return o.NullableString("s", 3) }
	abc := "abc"
	runReaderCases(t, []readerCase[*string]{
		{"value", `{"s":"abc"}`, fn, &abc, true, nil},
		{"null", `{"s":null}`, fn, nil, true, nil},
		{"absent", `{}`, fn, nil, false, nil},
		{"too long", `{"s":"abcd"}`, fn, nil, false, []string{"s too_long 3"}},
		{"wrong type", `{"s":1}`, fn, nil, false, []string{"s invalid"}},
	})
}

func TestInt(t *testing.T) {
	req := func(o Object) (int, bool) { return o.Int("n", Required, -5, 100) }
	opt := func(o Object) (int, bool) { return o.Int("n", Optional, 1, 100) }
	runReaderCases(t, []readerCase[int]{
		{"ok", `{"n":42}`, req, 42, true, nil},
		{"min", `{"n":-5}`, req, -5, true, nil},
		{"max", `{"n":100}`, req, 100, true, nil},
		{"negative zero", `{"n":-0}`, req, 0, true, nil},
		{"below", `{"n":-6}`, req, 0, false, []string{"n too_small -5"}},
		{"above", `{"n":101}`, req, 0, false, []string{"n too_large 100"}},
		{"huge", `{"n":123456789012345678901234567890}`, req, 0, false, []string{"n too_large 100"}},
		{"huge negative", `{"n":-123456789012345678901234567890}`, req, 0, false, []string{"n too_small -5"}},
		{"fraction", `{"n":1.5}`, req, 0, false, []string{"n invalid"}},
		{"integral fraction", `{"n":1.0}`, req, 0, false, []string{"n invalid"}},
		{"exponent", `{"n":1e2}`, req, 0, false, []string{"n invalid"}},
		{"huge exponent", `{"n":1e400}`, req, 0, false, []string{"n invalid"}},
		{"string", `{"n":"5"}`, req, 0, false, []string{"n invalid"}},
		{"required absent", `{}`, req, 0, false, []string{"n required"}},
		{"required null", `{"n":null}`, req, 0, false, []string{"n required"}},
		{"optional absent", `{}`, opt, 0, false, nil},
		{"optional null", `{"n":null}`, opt, 0, false, []string{"n invalid"}},
		{"optional below", `{"n":0}`, opt, 0, false, []string{"n too_small 1"}},
	})
}

func TestNullableInt(t *testing.T) {
	fn := func(o Object) (*int, bool) { return o.NullableInt("n", 0, 10) }
	seven := 7
	runReaderCases(t, []readerCase[*int]{
		{"value", `{"n":7}`, fn, &seven, true, nil},
		{"null", `{"n":null}`, fn, nil, true, nil},
		{"absent", `{}`, fn, nil, false, nil},
		{"below", `{"n":-1}`, fn, nil, false, []string{"n too_small 0"}},
		{"wrong type", `{"n":"7"}`, fn, nil, false, []string{"n invalid"}},
	})
}

func TestBool(t *testing.T) {
	req := func(o Object) (bool, bool) { return o.Bool("b", Required) }
	opt := func(o Object) (bool, bool) { return o.Bool("b", Optional) }
	runReaderCases(t, []readerCase[bool]{
		{"true", `{"b":true}`, req, true, true, nil},
		{"false", `{"b":false}`, req, false, true, nil},
		{"string", `{"b":"true"}`, req, false, false, []string{"b invalid"}},
		{"number", `{"b":1}`, req, false, false, []string{"b invalid"}},
		{"required absent", `{}`, req, false, false, []string{"b required"}},
		{"optional absent", `{}`, opt, false, false, nil},
		{"optional null", `{"b":null}`, opt, false, false, []string{"b invalid"}},
	})
}

func TestUUID(t *testing.T) {
	req := func(o Object) (uuid.UUID, bool) { return o.UUID("id", Required) }
	opt := func(o Object) (uuid.UUID, bool) { return o.UUID("id", Optional) }
	u := uuid.MustParse("f719a757-6018-5706-847c-e556c8b6c4b7")
	runReaderCases(t, []readerCase[uuid.UUID]{
		{"lower", `{"id":"f719a757-6018-5706-847c-e556c8b6c4b7"}`, req, u, true, nil},
		{"upper", `{"id":"F719A757-6018-5706-847C-E556C8B6C4B7"}`, req, u, true, nil},
		{"nil uuid", `{"id":"00000000-0000-0000-0000-000000000000"}`, req, uuid.Nil, true, nil},
		{"no dashes", `{"id":"f719a75760185706847ce556c8b6c4b7"}`, req, uuid.Nil, false, []string{"id invalid_format"}},
		{"braces", `{"id":"{f719a757-6018-5706-847c-e556c8b6c4b7}"}`, req, uuid.Nil, false, []string{"id invalid_format"}},
		{"urn", `{"id":"urn:uuid:f719a757-6018-5706-847c-e556c8b6c4b7"}`, req, uuid.Nil, false, []string{"id invalid_format"}},
		{"dash moved", `{"id":"f719a75-76018-5706-847c-e556c8b6c4b7"}`, req, uuid.Nil, false, []string{"id invalid_format"}},
		{"not hex", `{"id":"g719a757-6018-5706-847c-e556c8b6c4b7"}`, req, uuid.Nil, false, []string{"id invalid_format"}},
		{"number", `{"id":12}`, req, uuid.Nil, false, []string{"id invalid_format"}},
		{"required empty", `{"id":""}`, req, uuid.Nil, false, []string{"id required"}},
		{"required absent", `{}`, req, uuid.Nil, false, []string{"id required"}},
		{"optional empty", `{"id":""}`, opt, uuid.Nil, false, []string{"id invalid_format"}},
		{"optional absent", `{}`, opt, uuid.Nil, false, nil},
	})
}

func TestNullableUUID(t *testing.T) {
	fn := func(o Object) (*uuid.UUID, bool) { return o.NullableUUID("id") }
	u := uuid.MustParse("f719a757-6018-5706-847c-e556c8b6c4b7")
	runReaderCases(t, []readerCase[*uuid.UUID]{
		{"value", `{"id":"f719a757-6018-5706-847c-e556c8b6c4b7"}`, fn, &u, true, nil},
		{"null", `{"id":null}`, fn, nil, true, nil},
		{"absent", `{}`, fn, nil, false, nil},
		{"bad", `{"id":"x"}`, fn, nil, false, []string{"id invalid_format"}},
	})
}

func TestTime(t *testing.T) {
	req := func(o Object) (time.Time, bool) { return o.Time("t", Required) }
	want := time.Date(2026, 1, 2, 14, 4, 5, 0, time.UTC)
	runReaderCases(t, []readerCase[time.Time]{
		{"utc", `{"t":"2026-01-02T14:04:05Z"}`, req, want, true, nil},
		{"offset normalised", `{"t":"2026-01-02T15:04:05+01:00"}`, req, want, true, nil},
		{"fraction", `{"t":"2026-01-02T14:04:05.250Z"}`, req, want.Add(250 * time.Millisecond), true, nil},
		{"no zone", `{"t":"2026-01-02T14:04:05"}`, req, time.Time{}, false, []string{"t invalid_date"}},
		{"date only", `{"t":"2026-01-02"}`, req, time.Time{}, false, []string{"t invalid_date"}},
		{"no seconds", `{"t":"2026-01-02T14:04Z"}`, req, time.Time{}, false, []string{"t invalid_date"}},
		{"space separator", `{"t":"2026-01-02 14:04:05Z"}`, req, time.Time{}, false, []string{"t invalid_date"}},
		{"impossible day", `{"t":"2026-02-30T14:04:05Z"}`, req, time.Time{}, false, []string{"t invalid_date"}},
		{"hour 24", `{"t":"2026-01-02T24:00:00Z"}`, req, time.Time{}, false, []string{"t invalid_date"}},
		{"number", `{"t":1767362645}`, req, time.Time{}, false, []string{"t invalid_date"}},
		{"required absent", `{}`, req, time.Time{}, false, []string{"t required"}},
		{"required empty", `{"t":""}`, req, time.Time{}, false, []string{"t required"}},
	})
}

func TestNullableTime(t *testing.T) {
	fn := func(o Object) (*time.Time, bool) { return o.NullableTime("t") }
	want := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	runReaderCases(t, []readerCase[*time.Time]{
		{"value", `{"t":"2025-01-01T00:00:00Z"}`, fn, &want, true, nil},
		{"null", `{"t":null}`, fn, nil, true, nil},
		{"absent", `{}`, fn, nil, false, nil},
		{"bad", `{"t":"soon"}`, fn, nil, false, []string{"t invalid_date"}},
	})
}

func TestEmail(t *testing.T) {
	req := func(o Object) (string, bool) { return o.Email("e", Required) }
	opt := func(o Object) (string, bool) { return o.Email("e", Optional) }
	long := `"` + strings.Repeat("a", 60) + "@" + strings.Repeat("b", 200) + `.nl"`
	runReaderCases(t, []readerCase[string]{
		{"ok", `{"e":"eva@example.com"}`, req, "eva@example.com", true, nil},
		{"trimmed", `{"e":"  Eva@Example.com \n"}`, req, "Eva@Example.com", true, nil},
		{"no at", `{"e":"eva.example.com"}`, req, "", false, []string{"e invalid_email"}},
		{"two ats", `{"e":"eva@x@example.com"}`, req, "", false, []string{"e invalid_email"}},
		{"no dot in domain", `{"e":"eva@localhost"}`, req, "", false, []string{"e invalid_email"}},
		{"inner space", `{"e":"e va@example.com"}`, req, "", false, []string{"e invalid_email"}},
		{"header injection", `{"e":"eva@example.com\r\nBcc: x@y.z"}`, req, "", false, []string{"e invalid_email"}},
		{"too long", `{"e":` + long + `}`, req, "", false, []string{"e too_long 254"}},
		{"number", `{"e":5}`, req, "", false, []string{"e invalid_email"}},
		{"required empty", `{"e":""}`, req, "", false, []string{"e required"}},
		{"required blank", `{"e":"   "}`, req, "", false, []string{"e required"}},
		{"required absent", `{}`, req, "", false, []string{"e required"}},
		{"optional empty", `{"e":""}`, opt, "", true, nil},
		{"optional absent", `{}`, opt, "", false, nil},
	})
}

func TestOption(t *testing.T) {
	fn := func(o Object) (string, bool) { return o.Option("k", Required, "active", "gap") }
	runReaderCases(t, []readerCase[string]{
		{"ok", `{"k":"gap"}`, fn, "gap", true, nil},
		{"case matters", `{"k":"Gap"}`, fn, "", false, []string{"k invalid_option"}},
		{"other", `{"k":"idle"}`, fn, "", false, []string{"k invalid_option"}},
		{"wrong type", `{"k":1}`, fn, "", false, []string{"k invalid_option"}},
		{"absent", `{}`, fn, "", false, []string{"k required"}},
	})
	_, _, _ = readDoc(t, `{"k":"x"}`, func(o Object) (string, bool) {
		var errs Errors
		checkOption(&errs, o.take("k"), []string{"a", "b"})
		require.Equal(t, "Must be one of: a, b.", errs.List()[0].Message)
		return o.String("k", Required, 1)
	})
}

func TestObjectAndArrayMembers(t *testing.T) {
	type out struct{ inner, first string }
	fn := func(o Object) (out, bool) {
		c, ok1 := o.Object("c", Required)
		inner, _ := c.String("inner", Required, 10)
		c.Done()
		l, ok2 := o.Array("l", Optional)
		first, _ := l.String(0, 10)
		return out{inner, first}, ok1 && ok2
	}
	runReaderCases(t, []readerCase[out]{
		{"ok", `{"c":{"inner":"x"},"l":["y"]}`, fn, out{"x", "y"}, true, nil},
		{"object wrong type", `{"c":[],"l":[]}`, fn, out{}, false, []string{"c invalid"}},
		{"array wrong type", `{"c":{"inner":"x"},"l":{}}`, fn, out{}, false, []string{"l invalid"}},
		{"object null", `{"c":null}`, fn, out{}, false, []string{"c required"}},
		{"array null", `{"c":{"inner":"x"},"l":null}`, fn, out{}, false, []string{"l invalid"}},
		{"nested paths", `{"c":{"inner":7,"extra":1},"l":[3]}`, fn, out{}, true, []string{"c.inner invalid", "c.extra unknown_field", "l.0 invalid"}},
	})
}

func TestArrayElements(t *testing.T) {
	var errs Errors
	o, ok := ParseObject([]byte(`{"a":[{"x":1},[1],"s",null,"f719a757-6018-5706-847c-e556c8b6c4b7","gap",1]}`), &errs)
	require.True(t, ok)
	a, ok := o.Array("a", Required)
	require.True(t, ok)
	require.Equal(t, 7, a.Len())
	require.Equal(t, "a", a.Path())
	require.Equal(t, "a.3", a.PathOf(3))

	obj, ok := a.Object(0)
	require.True(t, ok)
	require.Equal(t, "a.0", obj.Path())
	n, _ := obj.Int("x", Required, 0, 5)
	require.Equal(t, 1, n)
	inner, ok := a.Array(1)
	require.True(t, ok)
	require.Equal(t, 1, inner.Len())
	s, ok := a.String(2, 5)
	require.True(t, ok)
	require.Equal(t, "s", s)
	_, ok = a.String(3, 5) // null is the wrong type for an element
	require.False(t, ok)
	u, ok := a.UUID(4)
	require.True(t, ok)
	require.Equal(t, "f719a757-6018-5706-847c-e556c8b6c4b7", u.String())
	k, ok := a.Option(5, "active", "gap")
	require.True(t, ok)
	require.Equal(t, "gap", k)
	_, ok = a.Object(6)
	require.False(t, ok)
	_, ok = a.String(99, 5)
	require.False(t, ok)
	o.Done()
	require.Equal(t, []string{"a.3 invalid", "a.6 invalid"}, summary(errs.List()))
}

func TestPathOfRoot(t *testing.T) {
	var errs Errors
	o, _ := ParseObject([]byte(`{}`), &errs)
	require.Equal(t, "", o.Path())
	require.Equal(t, "x", o.PathOf("x"))
}
