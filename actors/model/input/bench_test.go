package input

import (
	"os"
	"testing"
)

// createBody is a full POST /appointments body, as a booking client sends
// it: the hot path the allocation budget is about.
var createBody = []byte(`{"serviceId":"f2000000-0000-4000-8000-000000000003",` +
	`"startTime":"2031-03-04T10:00:00+01:00",` +
	`"customer":{"firstName":"Eva","lastName":"de Vries","email":" eva@example.com ","phone":"+31 6 1234 5678"},` +
	`"staffMemberId":"f2000000-0000-4000-8000-000000000004","staffLocked":true,` +
	`"enforceBookingRules":false,"notes":"Bring a towel."}`)

// BenchmarkParseCreateBody is ParseObject alone on a booking body.
func BenchmarkParseCreateBody(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(createBody)))
	for b.Loop() {
		var errs Errors
		if _, ok := ParseObject(createBody, &errs); !ok {
			b.Fatal(errs.List())
		}
	}
}

// TestParseCreateBodyAllocs holds the allocation budget of the hot path: a
// booking body is parsed into one allocation (the doc and its node arrays),
// and reading a member that is absent, wrong or a UUID, bool or number
// allocates nothing more; only strings handed to the caller are copied.
func TestParseCreateBodyAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		var errs Errors
		ParseObject(createBody, &errs)
	}); n > 1 {
		t.Errorf("ParseObject: %v allocations, want at most 1", n)
	}
	var errs Errors
	o, _ := ParseObject(createBody, &errs)
	if n := testing.AllocsPerRun(100, func() {
		o.UUID("serviceId", Required)
		o.Bool("staffLocked", Optional)
		o.Has("nothing")
		o.Int("absent", Optional, 0, 1)
		c, _ := o.Object("customer", Required)
		c.Option("firstName", Required, "Eva")
	}); n > 0 {
		t.Errorf("readers: %v allocations, want 0", n)
	}
}

// BenchmarkParseWorld is ParseObject on the example world file: a larger
// document, whose node slices outgrow the doc's inline arrays.
func BenchmarkParseWorld(b *testing.B) {
	data, err := os.ReadFile("../world/testdata/world.example.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var errs Errors
		if _, ok := ParseObject(data, &errs); !ok {
			b.Fatal(errs.List())
		}
	}
}
