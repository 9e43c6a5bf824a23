package payment_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/webhook/payment"
	"github.com/slotd/slotd/webhook/payment/paymenttest"
)

func TestVerifySignature(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":"evt_1","type":"payment_intent.succeeded"}`)
	good := payment.Sign("whsec_1", now, body)
	require.NoError(t, payment.VerifySignature("whsec_1", good, body, now))
	require.NoError(t, payment.VerifySignature("whsec_1", good, body, now.Add(299*time.Second)))

	other := payment.Sign("whsec_old", now, body)
	_, v1old, _ := strings.Cut(other, ",")
	require.NoError(t, payment.VerifySignature("whsec_1", good+","+v1old, body, now), "any matching v1 will do")
	require.NoError(t, payment.VerifySignature("whsec_1", "t="+good[2:12]+","+v1old+","+strings.Split(good, ",")[1]+",v0=zz", body, now))

	for name, c := range map[string]struct {
		secret, header string
		body           []byte
		at             time.Time
		want           error
	}{
		"missing":         {"whsec_1", "", body, now, payment.ErrNoSignature},
		"wrong secret":    {"whsec_2", good, body, now, payment.ErrBadSignature},
		"changed body":    {"whsec_1", good, append([]byte(nil), append(body, ' ')...), now, payment.ErrBadSignature},
		"stale":           {"whsec_1", good, body, now.Add(301 * time.Second), payment.ErrStale},
		"future":          {"whsec_1", good, body, now.Add(-301 * time.Second), payment.ErrStale},
		"no timestamp":    {"whsec_1", strings.Split(good, ",")[1], body, now, payment.ErrBadSignature},
		"no v1":           {"whsec_1", strings.Split(good, ",")[0], body, now, payment.ErrBadSignature},
		"garbage":         {"whsec_1", "nonsense", body, now, payment.ErrBadSignature},
		"no secret":       {"", good, body, now, payment.ErrBadSignature},
		"other timestamp": {"whsec_1", "t=1800000001," + strings.Split(good, ",")[1], body, now, payment.ErrBadSignature},
	} {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, payment.VerifySignature(c.secret, c.header, c.body, c.at), c.want)
		})
	}
}

// The doubles' events read as §5 says: the PaymentIntent's id and
// metadata; a Charge's payment_intent and amount_refunded.
func TestParseEvent(t *testing.T) {
	d := paymenttest.NewStripe("k", "whsec")
	defer d.Close()
	c, err := payment.NewClient(true).Create(context.Background(),
		payment.Config{Provider: model.ProviderClientSecret, BaseURL: d.URL(), APIKey: "k"}, checkout())
	require.NoError(t, err)
	body, sig := d.Pay(c.ProviderPaymentID, time.Now())
	require.NoError(t, payment.VerifySignature("whsec", sig, body, time.Now()))
	ev, err := payment.ParseEvent(body)
	require.NoError(t, err)
	require.Equal(t, payment.Event{ID: ev.ID, Kind: payment.EventPaid, ProviderPaymentID: c.ProviderPaymentID, AppointmentID: appt.String()}, ev)
	body, _ = d.Refund(c.ProviderPaymentID, 300, time.Now())
	ev, err = payment.ParseEvent(body)
	require.NoError(t, err)
	require.Equal(t, payment.EventRefunded, ev.Kind)
	require.EqualValues(t, 300, ev.RefundedCents)

	ev, err = payment.ParseEvent([]byte(`{"id":"evt_9","type":"payment_intent.succeeded","data":{"object":{"id":"pi_3","metadata":{"appointment_id":"a"},"extra":1}}}`))
	require.NoError(t, err)
	require.Equal(t, payment.Event{ID: "evt_9", Kind: payment.EventPaid, ProviderPaymentID: "pi_3", AppointmentID: "a"}, ev)

	ev, err = payment.ParseEvent([]byte(`{"id":"evt_10","type":"charge.refunded","data":{"object":{"id":"ch_1","payment_intent":"pi_3","amount_refunded":700}}}`))
	require.NoError(t, err)
	require.Equal(t, payment.Event{ID: "evt_10", Kind: payment.EventRefunded, ProviderPaymentID: "pi_3", RefundedCents: 700}, ev)

	ev, err = payment.ParseEvent([]byte(`{"id":"evt_11","type":"charge.refunded","data":{"object":{"payment_intent":{"id":"pi_4"},"amount_refunded":1}}}`))
	require.NoError(t, err)
	require.Equal(t, "pi_4", ev.ProviderPaymentID, "an expanded payment_intent")

	ev, err = payment.ParseEvent([]byte(`{"id":"evt_12","type":"customer.created","data":{"object":{}}}`))
	require.NoError(t, err)
	require.Equal(t, payment.EventOther, ev.Kind)

	for _, bad := range []string{``, `[]`, `{}`, `{"id":"e"}`, `{"id":"e","type":"payment_intent.succeeded","data":{"object":{}}}`,
		`{"id":"e","type":"charge.refunded","data":{"object":{"amount_refunded":5}}}`,
		`{"id":"e","type":"charge.refunded","data":{"object":{"payment_intent":"pi","amount_refunded":-5}}}`} {
		_, err := payment.ParseEvent([]byte(bad))
		require.ErrorIs(t, err, payment.ErrMalformedEvent, bad)
	}
}

func TestParseHook(t *testing.T) {
	id, err := payment.ParseHook([]byte("id=tr_WDqYK6vllg"))
	require.NoError(t, err)
	require.Equal(t, "tr_WDqYK6vllg", id)
	for _, bad := range []string{"", "id=", "x=tr_1", "id=tr_1/../x", "id=%zz", "id=" + strings.Repeat("a", 101)} {
		_, err := payment.ParseHook([]byte(bad))
		require.ErrorIs(t, err, payment.ErrMalformedEvent, bad)
	}
}
