package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/webhook/payment"
	"github.com/slotd/slotd/webhook/payment/paymenttest"
)

// Prepayment through the real server (decisions §5), against the
// in-process provider doubles of package paymenttest.

const (
	payAPIKey  = "sk_test_provider"
	paySecret  = "whsec_test_provider"
	payHookFmt = "/hooks/payments/"
	studioID   = "3564727f-cf75-56bf-8ff9-ba8856a3ada8"
)

// payWorld writes testdata/world.json with both businesses' payments
// blocks replaced by block (the same provider account: an event of one
// business verifies at the other's hook) and returns the file's path.
func payWorld(t *testing.T, block map[string]any) string {
	t.Helper()
	var w map[string]any
	require.NoError(t, json.Unmarshal(mustRead(t, "testdata/world.json"), &w))
	for _, b := range w["businesses"].([]any) {
		b.(map[string]any)["payments"] = block
	}
	raw, err := json.Marshal(w)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "world.json")
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	return path
}

// startPay starts a server whose salon takes prepayment through provider
// at baseURL, on data ("" for a fresh directory).
func startPay(t *testing.T, data, provider, baseURL string) *server {
	block := map[string]any{"provider": provider, "requiresPayment": true, "holdMinutes": 15, "baseUrl": baseURL,
		"apiKey": payAPIKey, "webhookSecret": paySecret, "returnUrl": "https://salon.example/thanks"}
	return start(t, data, "--world", payWorld(t, block), "--webhooks-allow-insecure")
}

// appointmentOf returns the appointment of a booking's 201.
func appointmentOf(r resp) map[string]any { return r.Body["appointment"].(map[string]any) }

func (s *server) paymentOf(apptID string) resp {
	return s.get("/api/v1/appointments/"+apptID+"/payment", keyFull)
}

// waitStatus waits until appointment id has status want.
func (s *server) waitStatus(id, want string) map[string]any {
	var got map[string]any
	require.Eventually(s.t, func() bool {
		got = s.get("/api/v1/appointments/"+id, keyFull).Body
		return got["status"] == want
	}, 10*time.Second, 5*time.Millisecond, "appointment %s never became %s: %v", id, want, func() any { return got })
	return got
}

// waitPayment waits until appointment id's payment satisfies ok.
func (s *server) waitPayment(id string, ok func(map[string]any) bool) map[string]any {
	var got map[string]any
	require.Eventually(s.t, func() bool { got = s.paymentOf(id).Body; return ok(got) },
		10*time.Second, 5*time.Millisecond, "payment of %s never settled: %v", id, func() any { return got })
	return got
}

func callsTo(d *paymenttest.Double, method, prefix string) []paymenttest.Call {
	var out []paymenttest.Call
	for _, c := range d.Calls() {
		if c.Method == method && strings.HasPrefix(c.Path, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func TestPaymentClientSecretLifecycle(t *testing.T) {
	stripe := paymenttest.NewStripe(payAPIKey, paySecret)
	t.Cleanup(stripe.Close)
	s := startPay(t, "", "client_secret", stripe.URL())
	rcv := newReceiver(t)
	epID, _ := s.register(rcv, "/pay", "appointment.created", "appointment.confirmed", "payment.succeeded", "payment.refunded")

	body := booking(haircutID, tue+"10:00:00Z", annaID, "payer@example.com")
	r := s.post("/api/v1/appointments", keyFull, "pay-1", body)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	require.Equal(t, true, r.Body["requiresPayment"])
	appt := appointmentOf(r)
	id := appt["id"].(string)
	require.Equal(t, "pending_payment", appt["status"])
	p := r.Body["payment"].(map[string]any)
	require.EqualValues(t, 3500, p["amountCents"])
	require.Equal(t, "EUR", p["currency"])
	require.Equal(t, "client_secret", p["provider"])
	require.Equal(t, "full", p["amountKind"])
	require.NotEmpty(t, p["clientSecret"])
	require.NotContains(t, p, "checkoutUrl")

	// What the provider was sent: one create, keyed by the appointment.
	creates := callsTo(stripe.Double, "POST", "/v1/payment_intents")
	require.Len(t, creates, 1)
	require.Equal(t, payment.IdempotencyKey("create", uuid.MustParse(id)), creates[0].IdempotencyKey)
	require.Equal(t, "Bearer "+payAPIKey, creates[0].Authorization)
	require.Equal(t, "3500", creates[0].Form.Get("amount"))
	require.Equal(t, "eur", creates[0].Form.Get("currency"))
	require.Equal(t, id, creates[0].Form.Get("metadata[appointment_id]"))
	require.NotContains(t, string(r.Raw), payAPIKey)

	// A replay returns the same checkout and makes no second one.
	again := s.post("/api/v1/appointments", keyFull, "pay-1", body)
	require.Equal(t, 201, again.Status)
	require.Equal(t, "true", again.Header.Get("Idempotency-Replayed"))
	require.Equal(t, string(r.Raw), string(again.Raw))
	require.Len(t, callsTo(stripe.Double, "POST", "/v1/payment_intents"), 1)

	// The slot is held while payment is pending.
	requireError(t, s.post("/api/v1/appointments", keyFull, "pay-2", booking(haircutID, tue+"10:00:00Z", annaID, "other@example.com")), 409, "SLOT_TAKEN")

	pay := s.paymentOf(id)
	require.Equal(t, 200, pay.Status, "%s", pay.Raw)
	require.Equal(t, "pending", pay.Body["status"])
	require.Equal(t, id, pay.Body["appointmentId"])
	pid := pay.Body["providerPaymentId"].(string)
	require.True(t, strings.HasPrefix(pid, "pi_"), pid)
	require.NotContains(t, pay.Body, "clientSecret")

	hook := s.base + payHookFmt + salonID
	ev, sig := stripe.Pay(pid, s.clock.Now())
	// Forged, missing and stale signatures: 400, nothing changes.
	forged := payment.Sign("whsec_someone_else", s.clock.Now(), ev)
	for _, bad := range []string{forged, "", "t=1,v1=00", payment.Sign(paySecret, s.clock.Now().Add(-time.Hour), ev)} {
		st, err := stripe.Send(hook, ev, bad)
		require.NoError(t, err)
		require.Equal(t, 400, st)
	}
	require.Equal(t, "pending_payment", s.get("/api/v1/appointments/"+id, keyFull).Body["status"])

	// Posted to another business (which verifies it: same account): 200,
	// and nothing changes anywhere; to no business: 404.
	st, err := stripe.Send(s.base+payHookFmt+studioID, ev, sig)
	require.NoError(t, err)
	require.Equal(t, 200, st)
	require.Equal(t, "pending_payment", s.get("/api/v1/appointments/"+id, keyFull).Body["status"])
	require.Equal(t, "pending", s.paymentOf(id).Body["status"])
	st, err = stripe.Send(s.base+payHookFmt+"0a4f3cb5-6e4b-5e2c-8c89-0c2c0b3f8f0e", ev, sig)
	require.NoError(t, err)
	require.Equal(t, 404, st, "an unknown business")

	// Paid: confirmed, payment.succeeded then appointment.confirmed.
	st, err = stripe.Send(hook, ev, sig)
	require.NoError(t, err)
	require.Equal(t, 200, st)
	require.Equal(t, "confirmed", s.get("/api/v1/appointments/"+id, keyFull).Body["status"])
	require.Equal(t, "succeeded", s.paymentOf(id).Body["status"])
	// The same event again: 200, nothing more.
	st, err = stripe.Send(hook, ev, sig)
	require.NoError(t, err)
	require.Equal(t, 200, st)

	// A refund issued at the provider's dashboard.
	rev, rsig := stripe.Refund(pid, 1000, s.clock.Now())
	st, err = stripe.Send(hook, rev, rsig)
	require.NoError(t, err)
	require.Equal(t, 200, st)
	refunded := s.paymentOf(id).Body
	require.Equal(t, "partially_refunded", refunded["status"])
	require.EqualValues(t, 1000, refunded["refundedCents"])
	require.Equal(t, "confirmed", s.get("/api/v1/appointments/"+id, keyFull).Body["status"])

	ds := s.waitDeliveries(epID, func(ds []map[string]any) bool { return len(ds) == 4 && settled(ds) })
	require.Equal(t, "appointment.created#1:delivered payment.succeeded#1:delivered appointment.confirmed#1:delivered payment.refunded#1:delivered",
		statuses(ds))
	_, bodies := rcv.events()
	require.Len(t, bodies, 4)
	byType := map[string]string{}
	for _, b := range bodies {
		var ev struct{ Type string }
		require.NoError(t, json.Unmarshal([]byte(b), &ev))
		byType[ev.Type] = b
	}
	require.Contains(t, byType["payment.succeeded"], `"status":"succeeded"`)
	require.Contains(t, byType["payment.succeeded"], `"providerPaymentId":"`+pid+`"`)
	require.Contains(t, byType["payment.succeeded"], `"amountKind":"full"`)
	require.Contains(t, byType["appointment.confirmed"], `"status":"confirmed"`)
	require.Contains(t, byType["payment.refunded"], `"refundedCents":1000`)
	require.Contains(t, byType["payment.refunded"], `"status":"partially_refunded"`)
	for _, b := range bodies {
		require.NotContains(t, b, payAPIKey)
		require.NotContains(t, b, paySecret)
	}
}

func TestPaymentRedirectExpiryAndLatePayment(t *testing.T) {
	mollie := paymenttest.NewMollie(payAPIKey)
	t.Cleanup(mollie.Close)
	s := startPay(t, "", "redirect", mollie.URL())
	rcv := newReceiver(t)
	epID, _ := s.register(rcv, "/pay", "appointment.updated", "payment.succeeded", "payment.refunded")

	r := s.post("/api/v1/appointments", keyFull, "r-1", booking(haircutID, tue+"10:00:00Z", annaID, "late@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	id := appointmentOf(r)["id"].(string)
	p := r.Body["payment"].(map[string]any)
	require.Equal(t, "redirect", p["provider"])
	require.True(t, strings.HasPrefix(p["checkoutUrl"].(string), mollie.URL()+"/checkout/tr_"), "%v", p)
	require.NotContains(t, p, "clientSecret")
	creates := callsTo(mollie.Double, "POST", "/v2/payments")
	require.Len(t, creates, 1)
	require.Equal(t, s.base+payHookFmt+salonID, creates[0].JSON["webhookUrl"])
	require.Equal(t, "https://salon.example/thanks", creates[0].JSON["redirectUrl"])
	require.Equal(t, map[string]any{"currency": "EUR", "value": "35.00"}, creates[0].JSON["amount"])
	pid := s.paymentOf(id).Body["providerPaymentId"].(string)

	// The payment request e-mail carries the checkout link.
	require.Eventually(t, func() bool { return outboxHas(t, s, p["checkoutUrl"].(string)) }, 10*time.Second, 10*time.Millisecond)

	// A notice for an id the business does not have: 200, nothing happens.
	st, err := mollie.Notify(s.base+payHookFmt+salonID, "tr_unknown")
	require.NoError(t, err)
	require.Equal(t, 200, st)
	st, err = mollie.Notify(s.base+payHookFmt+studioID, pid) // another business's payment
	require.NoError(t, err)
	require.Equal(t, 200, st)
	require.Empty(t, callsTo(mollie.Double, "GET", "/v2/payments/"), "nothing is read for an id the business does not have")
	st, err = mollie.Notify(s.base+payHookFmt+salonID, pid) // still open: nothing to do
	require.NoError(t, err)
	require.Equal(t, 200, st)
	require.Equal(t, "pending_payment", s.get("/api/v1/appointments/"+id, keyFull).Body["status"])

	// Unpaid after holdMinutes: payment_expired, the slot free, the
	// provider payment cancelled.
	s.clock.Advance(15*time.Minute + time.Second)
	s.waitStatus(id, "payment_expired")
	require.Eventually(t, func() bool { return len(callsTo(mollie.Double, "DELETE", "/v2/payments/"+pid)) == 1 }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, "expired", s.paymentOf(id).Body["status"])
	again := s.post("/api/v1/appointments", keyFull, "r-2", booking(haircutID, tue+"10:00:00Z", annaID, "next@example.com"))
	require.Equal(t, 201, again.Status, "the slot is bookable again: %s", again.Raw)

	// Paid after all: refunded in full at once; the appointment stays expired.
	mollie.Pay(pid)
	st, err = mollie.Notify(s.base+payHookFmt+salonID, pid)
	require.NoError(t, err)
	require.Equal(t, 200, st)
	s.waitPayment(id, func(p map[string]any) bool { return p["status"] == "refunded" })
	refunds := callsTo(mollie.Double, "POST", "/v2/payments/"+pid+"/refunds")
	require.Len(t, refunds, 1)
	require.Equal(t, map[string]any{"currency": "EUR", "value": "35.00"}, refunds[0].JSON["amount"])
	require.Equal(t, "payment_expired", s.get("/api/v1/appointments/"+id, keyFull).Body["status"])

	ds := s.waitDeliveries(epID, func(ds []map[string]any) bool { return len(ds) == 3 && settled(ds) })
	require.Equal(t, "appointment.updated#1:delivered payment.succeeded#1:delivered payment.refunded#1:delivered", statuses(ds))
}

// outboxHas reports whether an e-mail waiting in or sent from the
// outbox directory contains s.
func outboxHas(t *testing.T, s *server, text string) bool {
	for _, m := range outboxMails(s.data) {
		if strings.Contains(m, text) {
			return true
		}
	}
	return false
}

func TestPaymentProviderFailures(t *testing.T) {
	// Refusing connections: 422 PAYMENTS_UNAVAILABLE, stored; nothing booked.
	gone := paymenttest.NewStripe(payAPIKey, paySecret)
	url := gone.URL()
	gone.Close()
	s := startPay(t, "", "client_secret", url)
	body := booking(haircutID, tue+"10:00:00Z", annaID, "f@example.com")
	before := s.get("/api/v1/appointments?limit=100", keyFull).Raw
	r := s.post("/api/v1/appointments", keyFull, "f-1", body)
	requireError(t, r, 422, "PAYMENTS_UNAVAILABLE")
	again := s.post("/api/v1/appointments", keyFull, "f-1", body)
	require.Equal(t, "true", again.Header.Get("Idempotency-Replayed"))
	require.Equal(t, string(r.Raw), string(again.Raw))
	require.Equal(t, string(before), string(s.get("/api/v1/appointments?limit=100", keyFull).Raw), "nothing booked")
	s.stop()

	// Answering 500: 500 PAYMENT_ERROR, the key stays free.
	stripe := paymenttest.NewStripe(payAPIKey, paySecret)
	t.Cleanup(stripe.Close)
	s = startPay(t, "", "client_secret", stripe.URL())
	stripe.FailWith(500)
	requireError(t, s.post("/api/v1/appointments", keyFull, "f-2", body), 500, "PAYMENT_ERROR")
	stripe.FailWith(0)
	ok := s.post("/api/v1/appointments", keyFull, "f-2", body)
	require.Equal(t, 201, ok.Status, "the key was free and the slot too: %s", ok.Raw)
	require.Empty(t, ok.Header.Get("Idempotency-Replayed"))

	// No provider connected: 422 at booking, 403 on the read.
	s.stop()
	s = start(t, "", "--world", payWorld(t, map[string]any{"provider": nil, "requiresPayment": true}))
	requireError(t, s.post("/api/v1/appointments", keyFull, "f-3", body), 422, "PAYMENTS_UNAVAILABLE")
	requireError(t, s.get("/api/v1/appointments/"+annaID+"/payment", keyFull), 403, "PAYMENTS_UNAVAILABLE")
}

func TestPaymentStatusEndpointAndReads(t *testing.T) {
	stripe := paymenttest.NewStripe(payAPIKey, paySecret)
	t.Cleanup(stripe.Close)
	s := startPay(t, "", "client_secret", stripe.URL())
	book := func(key, at string) string {
		r := s.post("/api/v1/appointments", keyFull, key, booking(haircutID, tue+at, annaID, key+"@example.com"))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		return appointmentOf(r)["id"].(string)
	}
	confirmed, cancelled := book("s-1", "09:00:00Z"), book("s-2", "10:00:00Z")

	// The business took payment another way.
	r := s.post("/api/v1/appointments/"+confirmed+"/status", keyFull, "", `{"status":"confirmed"}`)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	require.Equal(t, "cancelled", s.paymentOf(confirmed).Body["status"])
	r = s.post("/api/v1/appointments/"+cancelled+"/status", keyFull, "", `{"status":"cancelled"}`)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	require.Equal(t, "cancelled", s.paymentOf(cancelled).Body["status"])
	require.Eventually(t, func() bool { return len(callsTo(stripe.Double, "POST", "/v1/payment_intents/")) == 2 }, 10*time.Second, 5*time.Millisecond,
		"both provider payments cancelled")
	for _, c := range callsTo(stripe.Double, "POST", "/v1/payment_intents/") {
		require.True(t, strings.HasSuffix(c.Path, "/cancel"), c.Path)
	}

	// Reads: 404 for an unknown appointment; scope and module as §5 says.
	requireError(t, s.paymentOf(annaID), 404, "NOT_FOUND")
	requireError(t, s.get("/api/v1/appointments/"+confirmed+"/payment", keyServices), 403, "INSUFFICIENT_SCOPE")
	require.Equal(t, 200, s.get("/api/v1/appointments/"+confirmed+"/payment", keyRead).Status)
}

func TestPaymentRestart(t *testing.T) {
	stripe := paymenttest.NewStripe(payAPIKey, paySecret)
	t.Cleanup(stripe.Close)
	data := t.TempDir()
	s := startPay(t, data, "client_secret", stripe.URL())
	book := func(key, at string) string {
		r := s.post("/api/v1/appointments", keyFull, key, booking(haircutID, tue+at, annaID, key+"@example.com"))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		return appointmentOf(r)["id"].(string)
	}
	expires, paid := book("x-1", "09:00:00Z"), book("x-2", "10:00:00Z")
	pid := s.paymentOf(paid).Body["providerPaymentId"].(string)
	s.stop()

	s = startPay(t, data, "client_secret", stripe.URL())
	ev, sig := stripe.Pay(pid, s.clock.Now())
	st, err := stripe.Send(s.base+payHookFmt+salonID, ev, sig)
	require.NoError(t, err)
	require.Equal(t, 200, st)
	require.Equal(t, "confirmed", s.get("/api/v1/appointments/"+paid, keyFull).Body["status"])

	// The other one's deadline survived the restart (no request woke it).
	s.clock.Advance(16 * time.Minute)
	s.waitStatus(expires, "payment_expired")
	require.Equal(t, "succeeded", s.paymentOf(paid).Body["status"])
}

// A cancel the provider keeps failing is an outbox row of the payment
// channel: retried with retry.Payment's waits (5 s, then 10 s), and its
// failures and next due time are kept beside it, so a restart goes on
// with the backoff where it was instead of calling again at once.
func TestPaymentCancelRetryKeepsItsBackoffAcrossARestart(t *testing.T) {
	stripe := paymenttest.NewStripe(payAPIKey, paySecret)
	t.Cleanup(stripe.Close)
	data := t.TempDir()
	s := startPay(t, data, "client_secret", stripe.URL())
	r := s.post("/api/v1/appointments", keyFull, "r-1", booking(haircutID, tue+"09:00:00Z", annaID, "r@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	id := appointmentOf(r)["id"].(string)
	cancels := func() int { return len(callsTo(stripe.Double, "POST", "/v1/payment_intents/")) }
	metric := func(name string, labels ...string) float64 {
		v, _ := value(s.scrape(), name, append([]string{"channel", "payment"}, labels...)...)
		return v
	}

	stripe.FailWith(503)
	r = s.post("/api/v1/appointments/"+id+"/status", keyFull, "", `{"status":"cancelled"}`)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	require.Eventually(t, func() bool { return metric("slotd_outbox_attempts_total", "outcome", "retry") == 1 },
		10*time.Second, 5*time.Millisecond, "the first attempt failed, and its retry is armed")
	require.Equal(t, 1, cancels())
	s.clock.Advance(5 * time.Second)
	require.Eventually(t, func() bool { return cancels() == 2 }, 10*time.Second, 5*time.Millisecond, "the retry after 5 s")
	require.Eventually(t, func() bool { return metric("slotd_outbox_attempts_total", "outcome", "retry") == 2 },
		10*time.Second, 5*time.Millisecond, "both failures counted")
	require.Equal(t, 1.0, metric("slotd_outbox_backlog"))
	s.stop()

	// The next attempt was due 10 s after the second failure. The clock
	// of the new process starts where the first one's did, 15 s before it.
	s = startPay(t, data, "client_secret", stripe.URL())
	require.Equal(t, 200, s.paymentOf(id).Status)
	require.Never(t, func() bool { return cancels() > 2 }, 300*time.Millisecond, 10*time.Millisecond,
		"a restart does not call again before the kept backoff is over")
	stripe.FailWith(0)
	s.clock.Advance(14 * time.Second)
	require.Never(t, func() bool { return cancels() > 2 }, 100*time.Millisecond, 10*time.Millisecond)
	s.clock.Advance(time.Second)
	require.Eventually(t, func() bool { return cancels() == 3 }, 10*time.Second, 5*time.Millisecond, "the kept retry")
	require.Eventually(t, func() bool {
		return metric("slotd_outbox_attempts_total", "outcome", "delivered") == 1 && metric("slotd_outbox_backlog") == 0
	}, 10*time.Second, 5*time.Millisecond, "settled, and out of the backlog")
	require.Equal(t, "cancelled", s.paymentOf(id).Body["status"])
}
