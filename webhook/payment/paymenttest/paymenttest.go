// Package paymenttest holds in-process doubles of the two payment
// providers of decisions §5, speaking the subset of their APIs slotd
// uses: a client-secret provider shaped like Stripe's PaymentIntents and a
// redirect provider shaped like Mollie's Payments v2. Each records what it
// was sent, answers creates idempotently (the same Idempotency-Key gets the
// same payment), and can be told to fail, pay, refund and send the events
// the real provider would.
package paymenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/slotd/slotd/webhook/payment"
)

// Call is one request a double received.
type Call struct {
	Method, Path   string
	Authorization  string
	IdempotencyKey string
	Form           url.Values     // form-encoded bodies
	JSON           map[string]any // JSON bodies
}

// Payment is a double's payment.
type Payment struct {
	ID            string
	AmountCents   int64
	Currency      string
	Status        string // the provider's own word
	RefundedCents int64
	Metadata      map[string]string
}

// Double is what both doubles share: the server, the calls, the payments
// and the failure switch.
type Double struct {
	Server *httptest.Server
	APIKey string

	mu       sync.Mutex
	calls    []Call
	payments map[string]*Payment
	byKey    map[string]string // Idempotency-Key -> payment id
	status   int               // answer every call with this status, when not 0
	next     int
}

func newDouble(apiKey string, h func(d *Double, w http.ResponseWriter, r *http.Request, c Call)) *Double {
	d := &Double{APIKey: apiKey, payments: map[string]*Payment{}, byKey: map[string]string{}}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := Call{Method: r.Method, Path: r.URL.Path, Authorization: r.Header.Get("Authorization"),
			IdempotencyKey: r.Header.Get("Idempotency-Key")}
		body, _ := io.ReadAll(r.Body)
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			_ = json.Unmarshal(body, &c.JSON)
		} else {
			c.Form, _ = url.ParseQuery(string(body))
		}
		d.mu.Lock()
		d.calls = append(d.calls, c)
		status := d.status
		d.mu.Unlock()
		switch {
		case r.Header.Get("Authorization") != "Bearer "+d.APIKey:
			writeJSON(w, 401, map[string]any{"error": "unauthorized"})
		case status != 0:
			writeJSON(w, status, map[string]any{"error": "failing on purpose"})
		default:
			h(d, w, r, c)
		}
	}))
	return d
}

// URL is the double's base URL, for a business's payments.baseUrl.
func (d *Double) URL() string { return d.Server.URL }

// Close stops the double: from then on it refuses connections.
func (d *Double) Close() { d.Server.Close() }

// FailWith makes every later call answer status (0: answer normally).
func (d *Double) FailWith(status int) {
	d.mu.Lock()
	d.status = status
	d.mu.Unlock()
}

// Calls returns the calls so far.
func (d *Double) Calls() []Call {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Call(nil), d.calls...)
}

// Payment returns a copy of payment id.
func (d *Double) Payment(id string) (Payment, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.payments[id]
	if !ok {
		return Payment{}, false
	}
	return *p, true
}

// Payments returns copies of every payment.
func (d *Double) Payments() []Payment {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Payment, 0, len(d.payments))
	for _, p := range d.payments {
		out = append(out, *p)
	}
	return out
}

// create records a payment under key, or returns the one already there.
func (d *Double) create(key, prefix string, p Payment) (*Payment, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if id, ok := d.byKey[key]; ok && key != "" {
		return d.payments[id], false
	}
	d.next++
	p.ID = prefix + strconv.Itoa(d.next)
	d.payments[p.ID] = &p
	if key != "" {
		d.byKey[key] = p.ID
	}
	return &p, true
}

func (d *Double) update(id string, fn func(p *Payment)) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.payments[id]
	if ok {
		fn(p)
	}
	return ok
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// post sends body to url with headers, for the events a double sends.
func post(url, contentType string, body []byte, header map[string]string) (int, error) {
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// Stripe is the client-secret provider double.
type Stripe struct {
	*Double
	WebhookSecret string
	events        int
}

// NewStripe starts a client-secret provider double.
func NewStripe(apiKey, webhookSecret string) *Stripe {
	return &Stripe{Double: newDouble(apiKey, serveStripe), WebhookSecret: webhookSecret}
}

func serveStripe(d *Double, w http.ResponseWriter, r *http.Request, c Call) {
	path := strings.TrimPrefix(r.URL.Path, "/v1/")
	switch {
	case r.Method == "POST" && path == "payment_intents":
		amt, err := strconv.ParseInt(c.Form.Get("amount"), 10, 64)
		if err != nil || c.Form.Get("currency") == "" {
			writeJSON(w, 400, map[string]any{"error": map[string]any{"message": "amount and currency are required"}})
			return
		}
		p, _ := d.create(c.IdempotencyKey, "pi_", Payment{AmountCents: amt, Currency: c.Form.Get("currency"),
			Status: "requires_payment_method", Metadata: map[string]string{
				"appointment_id": c.Form.Get("metadata[appointment_id]"), "business_id": c.Form.Get("metadata[business_id]")}})
		writeJSON(w, 200, stripeIntent(p))
	case r.Method == "POST" && strings.HasSuffix(path, "/cancel"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "payment_intents/"), "/cancel")
		if !d.update(id, func(p *Payment) { p.Status = "canceled" }) {
			writeJSON(w, 404, map[string]any{"error": "no such payment_intent"})
			return
		}
		p, _ := d.Payment(id)
		writeJSON(w, 200, stripeIntent(&p))
	case r.Method == "POST" && path == "refunds":
		id := c.Form.Get("payment_intent")
		if !d.update(id, func(p *Payment) { p.RefundedCents = p.AmountCents }) {
			writeJSON(w, 404, map[string]any{"error": "no such payment_intent"})
			return
		}
		writeJSON(w, 200, map[string]any{"id": "re_" + id, "object": "refund", "payment_intent": id, "status": "succeeded"})
	case r.Method == "GET" && strings.HasPrefix(path, "payment_intents/"):
		p, ok := d.Payment(strings.TrimPrefix(path, "payment_intents/"))
		if !ok {
			writeJSON(w, 404, map[string]any{"error": "no such payment_intent"})
			return
		}
		writeJSON(w, 200, stripeIntent(&p))
	default:
		writeJSON(w, 404, map[string]any{"error": "unknown route"})
	}
}

func stripeIntent(p *Payment) map[string]any {
	return map[string]any{"id": p.ID, "object": "payment_intent", "client_secret": p.ID + "_secret_test",
		"status": p.Status, "amount": p.AmountCents, "currency": p.Currency, "metadata": p.Metadata}
}

// Pay marks payment id succeeded and returns the payment_intent.succeeded
// event the provider sends, signed at t.
func (s *Stripe) Pay(id string, t time.Time) (body []byte, signature string) {
	s.update(id, func(p *Payment) { p.Status = "succeeded" })
	p, _ := s.Payment(id)
	return s.event("payment_intent.succeeded", stripeIntent(&p), t)
}

// Refund records a refund of cents issued at the provider and returns the
// charge.refunded event, signed at t.
func (s *Stripe) Refund(id string, cents int64, t time.Time) (body []byte, signature string) {
	s.update(id, func(p *Payment) { p.RefundedCents += cents })
	p, _ := s.Payment(id)
	return s.event("charge.refunded", map[string]any{"id": "ch_" + id, "object": "charge", "payment_intent": id,
		"amount": p.AmountCents, "amount_refunded": p.RefundedCents}, t)
}

func (s *Stripe) event(typ string, object map[string]any, t time.Time) ([]byte, string) {
	s.mu.Lock()
	s.events++
	n := s.events
	s.mu.Unlock()
	body, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("evt_%d", n), "object": "event", "type": typ,
		"created": t.Unix(), "data": map[string]any{"object": object}})
	return body, payment.Sign(s.WebhookSecret, t, body)
}

// Send posts a signed event to slotd's hook URL and returns the status.
func (s *Stripe) Send(hookURL string, body []byte, signature string) (int, error) {
	return post(hookURL, "application/json", body, map[string]string{"Stripe-Signature": signature})
}

// Mollie is the redirect provider double.
type Mollie struct{ *Double }

// NewMollie starts a redirect provider double.
func NewMollie(apiKey string) *Mollie { return &Mollie{newDouble(apiKey, serveMollie)} }

func serveMollie(d *Double, w http.ResponseWriter, r *http.Request, c Call) {
	path := strings.TrimPrefix(r.URL.Path, "/v2/payments")
	id, sub, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	switch {
	case r.Method == "POST" && path == "":
		amt, _ := c.JSON["amount"].(map[string]any)
		cur, _ := amt["currency"].(string)
		val, _ := amt["value"].(string)
		cents, ok := payment.ParseAmount(val, cur)
		if !ok {
			writeJSON(w, 422, map[string]any{"status": 422, "title": "Unprocessable Entity", "detail": "bad amount"})
			return
		}
		meta := map[string]string{}
		if m, ok := c.JSON["metadata"].(map[string]any); ok {
			for k, v := range m {
				meta[k], _ = v.(string)
			}
		}
		p, _ := d.create(c.IdempotencyKey, "tr_", Payment{AmountCents: cents, Currency: cur, Status: "open", Metadata: meta})
		writeJSON(w, 201, molliePayment(d, p))
	case r.Method == "GET" && sub == "":
		p, ok := d.Payment(id)
		if !ok {
			writeJSON(w, 404, map[string]any{"status": 404, "title": "Not Found"})
			return
		}
		writeJSON(w, 200, molliePayment(d, &p))
	case r.Method == "DELETE" && sub == "":
		if !d.update(id, func(p *Payment) { p.Status = "canceled" }) {
			writeJSON(w, 404, map[string]any{"status": 404, "title": "Not Found"})
			return
		}
		p, _ := d.Payment(id)
		writeJSON(w, 200, molliePayment(d, &p))
	case r.Method == "POST" && sub == "refunds":
		amt, _ := c.JSON["amount"].(map[string]any)
		cur, _ := amt["currency"].(string)
		val, _ := amt["value"].(string)
		cents, ok := payment.ParseAmount(val, cur)
		if !ok || !d.update(id, func(p *Payment) { p.RefundedCents += cents }) {
			writeJSON(w, 422, map[string]any{"status": 422, "title": "Unprocessable Entity"})
			return
		}
		writeJSON(w, 201, map[string]any{"resource": "refund", "id": "re_" + id, "paymentId": id, "status": "pending"})
	default:
		writeJSON(w, 404, map[string]any{"status": 404, "title": "Not Found"})
	}
}

func molliePayment(d *Double, p *Payment) map[string]any {
	return map[string]any{"resource": "payment", "id": p.ID, "status": p.Status,
		"amount":         map[string]string{"currency": p.Currency, "value": payment.FormatAmount(p.AmountCents, p.Currency)},
		"amountRefunded": map[string]string{"currency": p.Currency, "value": payment.FormatAmount(p.RefundedCents, p.Currency)},
		"metadata":       p.Metadata,
		"_links":         map[string]any{"checkout": map[string]string{"href": d.Server.URL + "/checkout/" + p.ID, "type": "text/html"}}}
}

// Pay marks payment id paid; the provider then calls the webhookUrl, which
// Notify does.
func (m *Mollie) Pay(id string) { m.update(id, func(p *Payment) { p.Status = "paid" }) }

// Refund records a refund of cents issued at the provider.
func (m *Mollie) Refund(id string, cents int64) {
	m.update(id, func(p *Payment) { p.RefundedCents += cents })
}

// Notify posts id=<id> to slotd's hook URL, as the provider does after
// any change, and returns the status.
func (m *Mollie) Notify(hookURL, id string) (int, error) {
	return post(hookURL, "application/x-www-form-urlencoded", []byte(url.Values{"id": {id}}.Encode()), nil)
}
