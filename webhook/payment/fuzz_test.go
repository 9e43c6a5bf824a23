package payment

import (
	"testing"
	"time"
)

// FuzzParseEvent: any body reads as an event or a malformed-event error,
// never a panic; a paid or refunded event always names its payment.
func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"id":"evt_9","type":"payment_intent.succeeded","data":{"object":{"id":"pi_3","metadata":{"appointment_id":"a"}}}}`))
	f.Add([]byte(`{"id":"evt_10","type":"charge.refunded","data":{"object":{"payment_intent":{"id":"pi_4"},"amount_refunded":700}}}`))
	f.Add([]byte(`{"id":"e","type":"x","data":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := ParseEvent(body)
		if err != nil {
			return
		}
		if ev.ID == "" || (ev.Kind != EventOther && ev.ProviderPaymentID == "") || ev.RefundedCents < 0 {
			t.Fatalf("accepted %q as %+v", body, ev)
		}
	})
}

// FuzzVerifySignature: no header panics the check, and a header that
// passes for a body fails for any other body (here: one byte longer).
func FuzzVerifySignature(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	f.Add("t=1800000000,v1=00", []byte(`{}`))
	f.Add(Sign("whsec", now, []byte(`{"a":1}`)), []byte(`{"a":1}`))
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		if VerifySignature("whsec", header, body, now) == nil &&
			VerifySignature("whsec", header, append(body[:len(body):len(body)], 'x'), now) == nil {
			t.Fatalf("%q passes for two bodies", header)
		}
	})
}

// FuzzParseHook: any body gives an id safe to put in a URL path, or an
// error.
func FuzzParseHook(f *testing.F) {
	f.Add([]byte("id=tr_WDqYK6vllg"))
	f.Add([]byte("id=a&id=b"))
	f.Fuzz(func(t *testing.T, body []byte) {
		id, err := ParseHook(body)
		if err == nil && (id == "" || len(id) > 100) {
			t.Fatalf("accepted %q", id)
		}
	})
}
