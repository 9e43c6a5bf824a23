package world

import (
	"errors"
	"os"
	"reflect"
	"testing"
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
