package record

import (
	"bytes"
	"encoding/hex"
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
	b, _ = EncodeMailRow(sampleOffer(nil))
	f.Add(b)
	b, _ = EncodeMailRow(sampleOffer(&MailPayment{AmountCents: 120, Currency: "EUR", CheckoutURL: "https://pay.example/c/1"}))
	f.Add(b)
	f.Add([]byte(`{"id":"x","kind":"waitlist_offer","offer":{"holdId":"h","expiresAt":"2026-01-05T10:00:00Z","entryId":"e"}}`))
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

// sampleOffer is a waitlist_offer row as the business actor writes it: the
// offered slot as the appointment (its id the hold's, no status), and the
// offer; payment is normally nil.
func sampleOffer(payment *MailPayment) *MailRow {
	m := sampleMail()
	m.Kind = "waitlist_offer"
	m.Appointment.ID = "9c2b7d4e-1f3a-4b5c-8d6e-7f8091a2b3c4"
	m.Appointment.Status = ""
	m.Appointment.BookingReference = nil
	m.Appointment.TotalPriceCents = nil
	m.Payment = payment
	m.Offer = &MailOffer{HoldID: "9c2b7d4e-1f3a-4b5c-8d6e-7f8091a2b3c4",
		ExpiresAt: time.Date(2026, 1, 2, 9, 30, 0, 0, time.UTC), EntryID: "3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7"}
	return m
}

func TestMailRowOfferRoundTrip(t *testing.T) {
	for name, p := range map[string]*MailPayment{
		"without payment":   nil,
		"with payment":      {AmountCents: 120, Currency: "EUR", CheckoutURL: "https://pay.example/c/1"},
		"with zero payment": {},
	} {
		t.Run(name, func(t *testing.T) {
			m := sampleOffer(p)
			b, err := EncodeMailRow(m)
			require.NoError(t, err)
			require.Equal(t, byte(VersionTagged), b[0], "a row with an offer is marked")
			got, err := DecodeMailRow(b)
			require.NoError(t, err)
			require.Equal(t, m, got)

			// Up to the endpoint, the layout is VersionBinary's.
			plain := *m
			plain.Offer, plain.Payment = nil, nil
			before, err := EncodeMailRow(&plain)
			require.NoError(t, err)
			require.Equal(t, byte(VersionBinary), before[0])
			require.True(t, bytes.HasPrefix(b[1:], before[1:]))

			// The offer is not optional in a VersionTagged row: every
			// truncation is refused, none reads as a shorter row.
			for cut := 0; cut < len(b); cut++ {
				_, err := DecodeMailRow(b[:cut])
				require.ErrorIs(t, err, ErrCorrupt, "cut at %d of %d", cut, len(b))
			}
			_, err = DecodeMailRow(append(b[:len(b):len(b)], 0))
			require.ErrorIs(t, err, ErrCorrupt, "a byte after the offer")

			// The JSON form carries the offer too, and re-encodes alike.
			js, err := json.Marshal(m)
			require.NoError(t, err)
			require.Contains(t, string(js), `"offer":{"holdId":"9c2b7d4e-1f3a-4b5c-8d6e-7f8091a2b3c4","expiresAt":"2026-01-02T09:30:00Z","entryId":"3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7"}`)
			got, err = DecodeMailRow(js)
			require.NoError(t, err)
			require.Equal(t, m, got)
			again, err := EncodeMailRow(got)
			require.NoError(t, err)
			require.Equal(t, b, again)
		})
	}

	// The payment's presence byte is 0 or 1, nothing else.
	b, err := EncodeMailRow(sampleOffer(nil))
	require.NoError(t, err)
	plain := sampleOffer(nil)
	plain.Offer = nil
	before, err := EncodeMailRow(plain)
	require.NoError(t, err)
	require.Equal(t, byte(0), b[len(before)])
	bad := append([]byte(nil), b...)
	bad[len(before)] = 2
	_, err = DecodeMailRow(bad)
	require.ErrorIs(t, err, ErrCorrupt)
}

// TestMailRowBytesWithoutOffer pins the bytes of rows without an offer as
// they were before offers existed: such rows, already in outboxes, decode
// as before, and new ones are written exactly alike.
func TestMailRowBytesWithoutOffer(t *testing.T) {
	confirmation := "020101943b327c7b454572e0fa4f03e1a8ac010f616e61406578616d706c652e636f6dc088e9dfef6600002430623666326331652d386434612d346335332d396135312d3366316537623264396331300553616c6f6e104575726f70652f416d7374657264616d012436613164326533662d346235632d346436652d386637302d3831393261336234633564360280afcde5f16600c0fa96e8f166000622424b2d312203416e6100034375745aa846010546656d6b650001904e000345555200"
	payment := "020101943b327c7b454572e0fa4f03e1a8ac000f7061796d656e745f726571756573740f616e61406578616d706c652e636f6dc088e9dfef6600002430623666326331652d386434612d346335332d396135312d3366316537623264396331300553616c6f6e104575726f70652f416d7374657264616d012436613164326533662d346235632d346436652d386637302d3831393261336234633564360180afcde5f16600c0fa96e8f166000622424b2d312203416e6100034375745aa846010546656d6b650001904e000345555200c0bb01034555521768747470733a2f2f7061792e6578616d706c652f632f31"
	withPayment := sampleMail()
	withPayment.Kind = "payment_request"
	withPayment.Appointment.Status = "pending_payment"
	withPayment.Payment = &MailPayment{AmountCents: 12000, Currency: "EUR", CheckoutURL: "https://pay.example/c/1"}
	for name, tc := range map[string]struct {
		hex string
		row *MailRow
	}{
		"confirmation": {confirmation, sampleMail()},
		"payment":      {payment, withPayment},
	} {
		t.Run(name, func(t *testing.T) {
			old, err := hex.DecodeString(tc.hex)
			require.NoError(t, err)
			got, err := DecodeMailRow(old)
			require.NoError(t, err)
			require.Equal(t, tc.row, got)
			require.Nil(t, got.Offer)
			b, err := EncodeMailRow(tc.row)
			require.NoError(t, err)
			require.Equal(t, old, b)
		})
	}
}
