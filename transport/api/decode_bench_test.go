package api

import "testing"

// benchCreateBody is a full POST /appointments body (every member set).
var benchCreateBody = []byte(`{"serviceId":"f2000000-0000-4000-8000-000000000003",` +
	`"startTime":"2031-03-04T10:00:00+01:00",` +
	`"customer":{"firstName":"Eva","lastName":"de Vries","email":" eva@example.com ","phone":"+31 6 1234 5678"},` +
	`"staffMemberId":"f2000000-0000-4000-8000-000000000004","staffLocked":true,` +
	`"enforceBookingRules":false,"notes":"Bring a towel."}`)

// BenchmarkDecodeCreate is the whole decoding of a booking body: parse,
// read every member into a directory.CreateInput, check for unknown members.
func BenchmarkDecodeCreate(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchCreateBody)))
	for b.Loop() {
		if _, err := decodeCreate(benchCreateBody); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecodeCreateAllocs: decoding a full booking body costs the
// CreateInput and its two pointers (3), and one copy per string kept out
// of the request buffer: startTime on its way to time.Parse, the four
// customer strings and the notes (6). The parse itself reuses a pooled
// reader's memory.
func TestDecodeCreateAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops what is put back")
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = decodeCreate(benchCreateBody) }); n > 9 {
		t.Errorf("decodeCreate: %v allocations, want at most 9", n)
	}
}
