package record

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// The binary form of prepayments (payment.go): payments, reservations and
// the trailing payment section of a Change, snapshots and mail rows.

var payAt = time.Date(2026, 11, 21, 10, 0, 0, 123e6, time.UTC)

// samplePayments returns a payment with every field set and one with the
// least: no provider id yet, no expiry, nothing seen, unknown texts.
func samplePayments(appt uuid.UUID) []model.Payment {
	return []model.Payment{
		{ID: uuid.New(), AppointmentID: appt, Provider: "client_secret", ProviderPaymentID: "pi_3Nab",
			AmountCents: 2000, Currency: "EUR", AmountKind: model.AmountDeposit, Status: model.PaymentPartiallyRefunded,
			RefundedCents: 500, CreatedAt: payAt, UpdatedAt: payAt.Add(time.Minute),
			CheckoutURL: "https://pay.example/tr_1", ClientSecret: "pi_3Nab_secret_x",
			ExpiresAt: payAt.Add(15*time.Minute + 7), CancelOwed: true, RefundOwed: 1500,
			Seen: []string{"evt_1", "evt_2", "ünïcode"}},
		{ID: uuid.New(), AppointmentID: uuid.New(), Provider: "acme", AmountCents: 0, Currency: "",
			AmountKind: "other", Status: "disputed", CreatedAt: payAt, UpdatedAt: payAt},
	}
}

// sampleCheckouts returns a reservation with a new customer and its
// request, and one with a customer on file and no request.
func sampleCheckouts() []Checkout {
	ch := sampleChange(payAt)
	a := ch.Appointments[0]
	a.Status = model.PendingPayment
	b := a
	b.ID, b.Staff, b.Segments, b.Notes = uuid.New(), nil, nil, nil
	cu := ch.Customers[0]
	ps := samplePayments(a.ID)
	ps[0].Status, ps[0].ProviderPaymentID, ps[0].ExpiresAt, ps[0].Seen = model.PaymentPending, "", time.Time{}, nil
	idem := *ch.Idempotency
	idem.Refused = &problem.Error{Code: problem.PaymentsUnavailable, Message: "no provider"}
	return []Checkout{
		{Appointment: a, Customer: &cu, Payment: ps[0], Idem: idem},
		{Appointment: b, Payment: ps[1]},
	}
}

// paymentChange is a change touching every part of the payment section,
// on top of a booking's record.
func paymentChange() *Change {
	c := sampleChange(payAt)
	c.Payments = samplePayments(c.Appointments[0].ID)
	c.Checkouts = sampleCheckouts()
	c.Closed = []uuid.UUID{uuid.New(), c.Appointments[0].ID}
	return c
}

func encodeChange1(t testing.TB, c *Change) []byte {
	t.Helper()
	b, err := Encode(nil, &Record{Kind: KindChange, Change: c})
	require.NoError(t, err)
	return b
}

func TestPaymentChangeRoundTrip(t *testing.T) {
	only := func(f func(c *Change)) *Change {
		c := &Change{At: payAt}
		f(c)
		return c
	}
	for name, c := range map[string]*Change{
		"everything":     paymentChange(),
		"payments only":  only(func(c *Change) { c.Payments = samplePayments(uuid.New()) }),
		"checkouts only": only(func(c *Change) { c.Checkouts = sampleCheckouts() }),
		"closed only":    only(func(c *Change) { c.Closed = []uuid.UUID{uuid.New()} }),
		"zero expiry":    only(func(c *Change) { c.Payments = samplePayments(uuid.New())[1:] }),
	} {
		t.Run(name, func(t *testing.T) {
			b := encodeChange1(t, c)
			got, err := Decode(b)
			require.NoError(t, err)
			require.Equal(t, &Record{Kind: KindChange, Change: c}, got)
		})
	}
	got, err := Decode(encodeChange1(t, paymentChange()))
	require.NoError(t, err)
	require.True(t, got.Change.Payments[1].ExpiresAt.IsZero())
	require.Equal(t, payAt.Add(15*time.Minute+7), got.Change.Payments[0].ExpiresAt, "to the nanosecond")
	require.Nil(t, got.Change.Checkouts[1].Customer)
}

// A change that touches no payment is written exactly as before payments
// existed: no trailing section, empty lists included.
func TestChangeWithoutPaymentsHasNoSection(t *testing.T) {
	for name, base := range map[string]*Change{
		"booking":  sampleChange(payAt),
		"endpoint": sample()[5].Change,
		"bare":     {At: payAt},
	} {
		t.Run(name, func(t *testing.T) {
			before := encodeChange1(t, base)
			empty := *base
			empty.Payments, empty.Checkouts, empty.Closed = []model.Payment{}, []Checkout{}, []uuid.UUID{}
			require.Equal(t, before, encodeChange1(t, &empty), "empty payment lists write nothing")

			with := *base
			with.Payments = samplePayments(uuid.New())
			after := encodeChange1(t, &with)
			require.Greater(t, len(after), len(before))
			require.True(t, bytes.HasPrefix(after, before), "the section is appended, nothing before it moves")

			got, err := Decode(before)
			require.NoError(t, err)
			require.Nil(t, got.Change.Payments)
			require.Nil(t, got.Change.Checkouts)
			require.Nil(t, got.Change.Closed)
		})
	}
}

func TestTruncatedPaymentSectionIsCorrupt(t *testing.T) {
	c := paymentChange()
	full := encodeChange1(t, c)
	old := *c
	old.Payments, old.Checkouts, old.Closed = nil, nil, nil
	boundary := len(encodeChange1(t, &old))
	for cut := 2; cut < len(full); cut++ {
		var err error
		require.NotPanics(t, func() { _, err = Decode(full[:cut]) }, "cut at %d", cut)
		if cut == boundary {
			require.NoError(t, err, "a record that ends before the section is an older one")
			continue
		}
		require.ErrorIs(t, err, ErrCorrupt, "cut at %d of %d (section from %d)", cut, len(full), boundary)
	}
	for name, tail := range map[string][]byte{
		"trailing byte":   append(bytes.Clone(full), 0),
		"huge count":      append(bytes.Clone(full[:boundary]), 0xff, 0xff, 0xff, 0xff, 0x0f),
		"bad enum":        append(bytes.Clone(full[:boundary]), 1, 0x7f),
		"counts but none": append(bytes.Clone(full[:boundary]), 0, 0),
	} {
		_, err := Decode(tail)
		require.ErrorIs(t, err, ErrCorrupt, name)
	}
}

func TestSnapshotWithPaymentsRoundTrip(t *testing.T) {
	withPay := sampleSnapshot()
	withPay.Payments = samplePayments(withPay.Appointments[0].ID)
	withPay.Checkouts = sampleCheckouts()
	onlyCheckouts := sampleSnapshot()
	onlyCheckouts.Checkouts = sampleCheckouts()[1:]
	for name, s := range map[string]*Snapshot{"payments and checkouts": withPay, "checkouts only": onlyCheckouts} {
		t.Run(name, func(t *testing.T) {
			b, err := EncodeSnapshot(s)
			require.NoError(t, err)
			got, err := DecodeSnapshot(b)
			require.NoError(t, err)
			require.Equal(t, s, got)
			old := *s
			old.Payments, old.Checkouts = nil, nil
			plain, err := EncodeSnapshot(&old)
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(b, plain), "older snapshots end where the payments begin")
			for cut := len(plain) + 1; cut < len(b); cut++ {
				_, err := DecodeSnapshot(b[:cut])
				require.ErrorIs(t, err, ErrCorrupt, "cut at %d", cut)
			}
		})
	}
}

func TestMailRowPaymentRoundTrip(t *testing.T) {
	plain, err := EncodeMailRow(sampleMail())
	require.NoError(t, err)
	for name, p := range map[string]*MailPayment{
		"none":          nil,
		"redirect":      {AmountCents: 2000, Currency: "EUR", CheckoutURL: "https://pay.example/checkout/tr_1"},
		"client secret": {AmountCents: 4500, Currency: "EUR"},
		"zero":          {},
	} {
		t.Run(name, func(t *testing.T) {
			m := sampleMail()
			m.Kind, m.Payment = "payment_request", p
			b, err := EncodeMailRow(m)
			require.NoError(t, err)
			got, err := DecodeMailRow(b)
			require.NoError(t, err)
			require.Equal(t, m, got)
			if p == nil {
				return
			}
			noPay := *m
			noPay.Payment = nil
			before, err := EncodeMailRow(&noPay)
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(b, before), "the payment is last")
			for cut := len(before) + 1; cut < len(b); cut++ {
				_, err := DecodeMailRow(b[:cut])
				require.ErrorIs(t, err, ErrCorrupt, "cut at %d", cut)
			}
		})
	}
	got, err := DecodeMailRow(plain)
	require.NoError(t, err)
	require.Nil(t, got.Payment, "a row without a payment")
}

// FuzzDecodePaymentChange: no input makes Decode panic, and a binary
// change it accepts re-encodes to a record that decodes to the same
// value (other records: stable after one round trip, as in FuzzDecode).
func FuzzDecodePaymentChange(f *testing.F) {
	f.Add(encodeChange1(f, paymentChange()))
	f.Add(encodeChange1(f, &Change{At: payAt, Closed: []uuid.UUID{uuid.New()}}))
	f.Add(encodeChange1(f, &Change{At: payAt, Payments: samplePayments(uuid.New())}))
	f.Add(encodeChange1(f, &Change{At: payAt, Checkouts: sampleCheckouts()[1:]}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			return
		}
		again, err := Encode(nil, r)
		require.NoError(t, err)
		r2, err := Decode(again)
		require.NoError(t, err, "a decoded record encodes to one that decodes")
		if (b[0] == VersionBinary || b[0] == VersionTagged) && r.Kind == KindChange {
			require.Equal(t, r, r2)
			return
		}
		third, err := Encode(nil, r2)
		require.NoError(t, err)
		require.Equal(t, again, third)
	})
}
