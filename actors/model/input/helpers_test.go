package input

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/problem"
)

// summary renders problems as "path reason" or "path reason limit" so
// tables can state them compactly.
func summary(fields []problem.Field) []string {
	out := []string{}
	for _, f := range fields {
		s := f.Path + " " + string(f.Reason)
		if f.Limit != nil {
			s += fmt.Sprintf(" %d", *f.Limit)
		}
		out = append(out, s)
	}
	return out
}

// readDoc parses doc, runs fn on the top-level object, calls Done and
// returns what fn returned plus the problems found.
func readDoc[T any](t *testing.T, doc string, fn func(o Object) (T, bool)) (T, bool, []string) {
	t.Helper()
	var errs Errors
	o, ok := ParseObject([]byte(doc), &errs)
	require.True(t, ok, "parse: %v", errs.List())
	v, ok := fn(o)
	o.Done()
	for _, f := range errs.List() {
		require.NotEmpty(t, f.Message, "every problem carries a message")
	}
	return v, ok, summary(errs.List())
}

// readerCase is one row of a reader table: doc is read with fn; want is
// the value on success; fields the expected problems.
type readerCase[T any] struct {
	name   string
	doc    string
	fn     func(o Object) (T, bool)
	want   T
	ok     bool
	fields []string
}

func runReaderCases[T any](t *testing.T, cases []readerCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, fields := readDoc(t, tc.doc, tc.fn)
			require.Equal(t, tc.ok, ok)
			if tc.ok {
				require.Equal(t, tc.want, got)
			}
			if tc.fields == nil {
				tc.fields = []string{}
			}
			require.Equal(t, tc.fields, fields)
		})
	}
}

// keys are the object's member keys in document order (the first of a
// duplicate), decoded.
func (o Object) keys() []string {
	if o.d == nil {
		return nil
	}
	var keys []string
	for _, v := range o.d.children(o.i) {
		keys = append(keys, string(o.d.key(v)))
	}
	return keys
}
