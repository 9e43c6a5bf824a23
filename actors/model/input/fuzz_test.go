package input

import (
	"testing"

	"github.com/slotd/slotd/actors/problem"
)

// reasons are the reasons of api-v1 §7.1; a field with any other reason is
// a bug a client could not branch on.
var reasons = map[problem.Reason]bool{
	problem.Required: true, problem.InvalidEmail: true, problem.InvalidURL: true,
	problem.InvalidDate: true, problem.InvalidFormat: true, problem.TooShort: true,
	problem.TooLong: true, problem.TooSmall: true, problem.TooLarge: true,
	problem.InvalidOption: true, problem.UnknownField: true, problem.Invalid: true,
}

func FuzzParseObject(f *testing.F) {
	f.Add([]byte(`{"customer":{"email":" a@b.co ","firstName":"Eva"},"eventTypes":["x",1,null]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var errs Errors
		o, ok := ParseObject(data, &errs)
		if ok {
			exercise(o, 0)
		} else if errs.Empty() {
			t.Fatal("a refused document must say why")
		}
		for _, fl := range errs.List() {
			if fl.Path == "" || fl.Message == "" || !reasons[fl.Reason] {
				t.Fatalf("bad field %+v", fl)
			}
			bound := fl.Reason == problem.TooShort || fl.Reason == problem.TooLong ||
				fl.Reason == problem.TooSmall || fl.Reason == problem.TooLarge
			if bound != (fl.Limit != nil) {
				t.Fatalf("limit must come with exactly the bound reasons: %+v", fl)
			}
		}
	})
}

// exercise reads every member of o with a reader picked from the key, so
// the fuzzer drives each reader with arbitrary values, then calls Done.
func exercise(o Object, depth int) {
	keys := o.keys()
	for i, k := range keys {
		p := Presence(i % 2)
		switch len(k) % 13 {
		case 0:
			o.String(k, p, 5)
		case 1:
			o.NullableString(k, 3)
		case 2:
			o.Int(k, p, -10, 10)
		case 3:
			o.NullableInt(k, 0, 1)
		case 4:
			o.Bool(k, p)
		case 5:
			o.UUID(k, p)
		case 6:
			o.NullableUUID(k)
		case 7:
			o.Time(k, p)
		case 8:
			o.NullableTime(k)
		case 9:
			o.Email(k, p)
		case 10:
			o.Option(k, p, "a", "b")
		case 11:
			if c, ok := o.Object(k, p); ok {
				exercise(c, depth+1)
			}
		case 12:
			if a, ok := o.Array(k, p); ok {
				exerciseArray(a, depth+1)
			}
		}
	}
	o.Done()
}

func exerciseArray(a Array, depth int) {
	for i := 0; i < a.Len(); i++ {
		switch i % 5 {
		case 0:
			if c, ok := a.Object(i); ok {
				exercise(c, depth+1)
			}
		case 1:
			if c, ok := a.Array(i); ok {
				exerciseArray(c, depth+1)
			}
		case 2:
			a.String(i, 4)
		case 3:
			a.UUID(i)
		case 4:
			a.Option(i, "x")
		}
	}
}
