package record

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func sampleMail() *MailRow {
	total := 5000
	return &MailRow{ID: "01JGXK4Z3V8N2Q5R7T9W1Y3A5C", Kind: "booking_confirmation", To: "ana@example.com",
		At:       time.Date(2026, 1, 2, 9, 15, 0, 0, time.UTC),
		Business: MailBusiness{ID: "0b6f2c1e-8d4a-4c53-9a51-3f1e7b2d9c10", Name: "Salon", Timezone: "Europe/Amsterdam"},
		Appointment: &MailAppointment{ID: "6a1d2e3f-4b5c-4d6e-8f70-8192a3b4c5d6", Status: "confirmed",
			StartTime: time.Date(2026, 1, 5, 13, 30, 0, 0, time.UTC), EndTime: time.Date(2026, 1, 5, 14, 15, 0, 0, time.UTC),
			BookingReference: json.RawMessage(`"BK-1"`), Customer: MailPerson{FirstName: "Ana"},
			Service: MailService{Name: "Cut", DurationMinutes: 45, PriceCents: 4500}, StaffMember: &MailStaff{Name: "Femke"},
			TotalPriceCents: &total, Currency: "EUR"}}
}

func TestMailRowRoundTrip(t *testing.T) {
	b, err := EncodeMailRow(sampleMail())
	require.NoError(t, err)
	got, err := DecodeMailRow(b)
	require.NoError(t, err)
	require.Equal(t, sampleMail(), got)
	require.Less(t, len(b), 260, "a confirmation's row")
	_, err = DecodeMailRow([]byte(`{"appointment":[]}`))
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = DecodeMailRow(b[:len(b)-1])
	require.ErrorIs(t, err, ErrCorrupt)

	// A row written as JSON, before the binary form, still decodes.
	js, err := json.Marshal(sampleMail())
	require.NoError(t, err)
	got, err = DecodeMailRow(js)
	require.NoError(t, err)
	require.Equal(t, sampleMail(), got)
}

// FuzzDecodeMailRow checks that no outbox row makes the decoder panic, and
// that what it accepts is stable after one round trip (the first may
// normalize, e.g. drop unknown members or re-space raw JSON).
func FuzzDecodeMailRow(f *testing.F) {
	b, _ := EncodeMailRow(sampleMail())
	f.Add(b)
	f.Add([]byte(`{"id":"x","endpoint":{"id":"e","url":"https://h/","consecutiveFailures":10}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMailRow(b)
		if err != nil {
			return
		}
		once, err := EncodeMailRow(m)
		if err != nil {
			return // raw JSON members are kept as given; an invalid one cannot be written back
		}
		m2, err := DecodeMailRow(once)
		require.NoError(t, err)
		twice, err := EncodeMailRow(m2)
		require.NoError(t, err)
		require.Equal(t, once, twice)
	})
}
