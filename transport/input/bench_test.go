package input

import "testing"

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
