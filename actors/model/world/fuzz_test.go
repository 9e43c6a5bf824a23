package world

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/slotd/slotd/actors/model"
)

func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("testdata/world.example.json"); err == nil {
		f.Add(data)
	}
	f.Add(file(minimal()))
	f.Fuzz(func(t *testing.T, data []byte) {
		specs, err := Parse(data)
		if err == nil {
			// A valid file parses the same way every time.
			again, err2 := Parse(data)
			if err2 != nil || !reflect.DeepEqual(specs, again) {
				t.Fatal("Parse is not deterministic")
			}
			return
		}
		if specs != nil {
			t.Fatal("an invalid file must return no specs")
		}
		var we *Error
		if !errors.As(err, &we) || len(we.Fields) == 0 {
			t.Fatalf("want a *world.Error with fields, got %v", err)
		}
		for _, fl := range we.Fields {
			if fl.Path == "" || fl.Message == "" || fl.Reason == "" {
				t.Fatalf("field without path, reason or message: %+v", fl)
			}
		}
	})
}

// FuzzStream: Check reports exactly Parse's problems for any input, Each
// hands on Parse's businesses, and CheckParallel agrees with both.
func FuzzStream(f *testing.F) {
	if data, err := os.ReadFile("testdata/world.example.json"); err == nil {
		f.Add(data)
	}
	f.Add(file(minimal()))
	for _, s := range []string{`{"businesses": [}`, `[1,2`, `[] x`, `7`, `{"businesses": [{"id": 1}`, `{"b\u0075sinesses": []}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		specs, perr := Parse(data)
		_, cerr := Check(iotest.HalfReader(bytes.NewReader(data)))
		if !reflect.DeepEqual(problemsOf(perr), problemsOf(cerr)) {
			t.Fatalf("Parse: %v\nCheck: %v", perr, cerr)
		}
		// The parallel check accepts exactly what Check accepts, and
		// keeps Parse's businesses.
		_, kept, valid, err := CheckParallel(iotest.HalfReader(bytes.NewReader(data)), 2, 1<<30)
		if err != nil || valid != (cerr == nil) {
			t.Fatalf("CheckParallel: valid %v, %v; Check: %v", valid, err, cerr)
		}
		if perr != nil {
			return
		}
		if !reflect.DeepEqual(specs, kept) && !(len(specs) == 0 && len(kept) == 0) {
			t.Fatal("CheckParallel does not keep Parse's businesses")
		}
		var got []model.Spec
		if err := Each(bytes.NewReader(data), func(s model.Spec) error { got = append(got, s); return nil }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(specs, got) && !(len(specs) == 0 && len(got) == 0) {
			t.Fatal("Each does not hand on Parse's businesses")
		}
	})
}

// problemsOf is err's problems as a sorted list of strings.
func problemsOf(err error) []string {
	var we *Error
	if !errors.As(err, &we) {
		if err != nil {
			return []string{err.Error()}
		}
		return nil
	}
	var out []string
	for _, f := range we.Fields {
		out = append(out, f.Path+" "+string(f.Reason)+" "+f.Message)
	}
	slices.Sort(out)
	return append(out, strconv.Itoa(we.Omitted))
}

// FuzzValid: the scanner's grammar check is json.Valid's, plus UTF-8.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[1, -0.5e+3, "a\u00e9\n", true, null, {"a": [false]}]`, `01`, `1.`, `"\x"`, `{"a" 1}`, `[1,]`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(bytes.TrimSpace(b)) != len(b) {
			return // valid takes a value without surrounding whitespace
		}
		want := json.Valid(b) && utf8.Valid(b)
		if got := valid(b); got != want {
			t.Fatalf("valid(%q) = %v, json.Valid and utf8.Valid say %v", b, got, want)
		}
	})
}
