package world

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
)

// streamCorpus is documents of every kind: valid ones, and ones broken at
// the top level, in a business, across businesses.
func streamCorpus(t *testing.T) map[string][]byte {
	example, err := os.ReadFile("testdata/world.example.json")
	require.NoError(t, err)
	a, b := minimal(), minimal()
	set(b, "id", otherID)
	set(b, "apiKeys.0.key", "sk_test_second")
	dupID, dupKey := minimal(), minimal()
	set(dupKey, "id", otherID)
	bad := minimal()
	set(bad, "currency", "eur")
	set(bad, "services.0.durationMinutes", 0)
	set(bad, "staff.0.hours", obj{"mon": arr{arr{"18:00", "09:00"}}})
	set(bad, "customers.0.email", "nope")
	docs := map[string][]byte{
		"example":             example,
		"two":                 file(a, b),
		"duplicate id":        file(minimal(), dupID),
		"duplicate key":       file(minimal(), dupKey),
		"many problems":       file(bad, b),
		"not json":            []byte(`{"businesses": [}`),
		"empty":               nil,
		"not an object":       []byte(`[]`),
		"scalar":              []byte(`7`),
		"trailing":            []byte(`{"businesses": []} {}`),
		"missing":             []byte(`{}`),
		"null":                []byte(`{"businesses": null}`),
		"not an array":        []byte(`{"businesses": {"a": [1, {"b": 2}]}}`),
		"a string":            []byte(`{"businesses": "x"}`),
		"element not object":  []byte(`{"businesses": [7, "x", null]}`),
		"unknown root":        []byte(`{"businesses": [], "version": 2}`),
		"duplicate root":      []byte(`{"businesses": [], "businesses": []}`),
		"duplicate in a biz":  []byte(`{"businesses": [{"id": "` + bizID + `", "id": "` + bizID + `"}]}`),
		"unterminated":        []byte(`{"businesses": [{"id": 1}`),
		"whitespace":          []byte(" \n "),
		"object in a biz bad": bytes.Replace(file(a), []byte(`"staff":[`), []byte(`"staff":[7,`), 1),
	}
	return docs
}

// Check reports exactly Parse's problems, and Each hands on Parse's
// businesses, for every kind of document.
func TestStreamingAgreesWithParse(t *testing.T) {
	for name, doc := range streamCorpus(t) {
		t.Run(name, func(t *testing.T) {
			specs, perr := Parse(doc)
			outline, cerr := Check(bytes.NewReader(doc))
			require.Equal(t, sortedProblems(t, perr), sortedProblems(t, cerr))
			if perr != nil {
				return
			}
			var got []model.Spec
			require.NoError(t, Each(bytes.NewReader(doc), func(s model.Spec) error {
				got = append(got, s)
				return nil
			}))
			require.Equal(t, specs, got)
			require.Len(t, outline, len(specs))
			for i := range specs {
				require.Equal(t, specs[i].Business, outline[i].Business)
				require.Equal(t, specs[i].Keys, outline[i].Keys)
			}
		})
	}
}

// sortedProblems is every problem of err, with its message and limit.
func sortedProblems(t *testing.T, err error) []string {
	if err == nil {
		return nil
	}
	var we *Error
	require.ErrorAs(t, err, &we)
	var out []string
	for _, f := range we.Fields {
		lim := ""
		if f.Limit != nil {
			lim = fmt.Sprint(*f.Limit)
		}
		out = append(out, f.Path+" "+string(f.Reason)+" "+f.Message+" "+lim)
	}
	slices.Sort(out)
	return append(out, fmt.Sprint("omitted ", we.Omitted))
}

// Each stops at a business with a problem, having handed on those before.
func TestEachStopsAtAProblem(t *testing.T) {
	b := minimal()
	set(b, "id", otherID)
	set(b, "apiKeys.0.key", "sk_test_second")
	set(b, "currency", "eur")
	var got int
	err := Each(bytes.NewReader(file(minimal(), b)), func(model.Spec) error { got++; return nil })
	require.Error(t, err)
	require.Equal(t, 1, got)
	require.True(t, strings.Contains(err.Error(), "businesses.1.currency"), err.Error())
}

// The walk reads its input in blocks; a reader that hands out one byte at
// a time puts a block boundary everywhere, and changes nothing.
func TestStreamingAtEveryBoundary(t *testing.T) {
	for name, doc := range streamCorpus(t) {
		t.Run(name, func(t *testing.T) {
			_, want := Check(bytes.NewReader(doc))
			_, got := Check(iotest.OneByteReader(bytes.NewReader(doc)))
			require.Equal(t, sortedProblems(t, want), sortedProblems(t, got))
		})
	}
}

// A failed read is reported as itself, not as a malformed document.
func TestStreamingReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader(`{"businesses": [`), iotest.ErrReader(io.ErrUnexpectedEOF))
	_, err := Check(r)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
}
