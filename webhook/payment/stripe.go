package payment

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The client-secret provider: Stripe's PaymentIntents, the §5 subset.

type stripe struct{ cl *Client }

type stripeIntent struct {
	ID           string            `json:"id"`
	ClientSecret string            `json:"client_secret"`
	Status       string            `json:"status"`
	Amount       int64             `json:"amount"`
	Received     int64             `json:"amount_received"`
	Currency     string            `json:"currency"`
	Metadata     map[string]string `json:"metadata"`
}

func (a stripe) create(ctx context.Context, cfg Config, c Checkout) (Created, error) {
	form := url.Values{}
	form.Set("amount", strconv.FormatInt(c.AmountCents, 10))
	form.Set("currency", strings.ToLower(c.Currency))
	form.Set("metadata[appointment_id]", c.AppointmentID.String())
	form.Set("metadata[business_id]", c.BusinessID.String())
	form.Set("automatic_payment_methods[enabled]", "true")
	if c.Description != "" {
		form.Set("description", c.Description)
	}
	req, err := a.cl.newRequest(ctx, "POST", base(cfg)+"/v1/payment_intents", "application/x-www-form-urlencoded", form.Encode())
	if err != nil {
		return Created{}, err
	}
	body, err := a.cl.do(req, cfg, IdempotencyKey("create", c.AppointmentID))
	if err != nil {
		return Created{}, err
	}
	var pi stripeIntent
	if err := json.Unmarshal(body, &pi); err != nil || pi.ID == "" || pi.ClientSecret == "" {
		return Created{}, &RefusedError{Status: 200, Body: "a payment intent without id or client_secret: " + cut(string(body), 200)}
	}
	return Created{ProviderPaymentID: pi.ID, ClientSecret: pi.ClientSecret}, nil
}

func (a stripe) cancel(ctx context.Context, cfg Config, id string) error {
	req, err := a.cl.newRequest(ctx, "POST", base(cfg)+"/v1/payment_intents/"+url.PathEscape(id)+"/cancel", "application/x-www-form-urlencoded", "")
	if err != nil {
		return err
	}
	_, err = a.cl.do(req, cfg, "")
	return err
}

func (a stripe) refund(ctx context.Context, cfg Config, id string, _ int64, _ string) error {
	form := url.Values{"payment_intent": {id}}
	req, err := a.cl.newRequest(ctx, "POST", base(cfg)+"/v1/refunds", "application/x-www-form-urlencoded", form.Encode())
	if err != nil {
		return err
	}
	_, err = a.cl.do(req, cfg, "slotd-refund-"+id)
	return err
}

func (a stripe) get(ctx context.Context, cfg Config, id string) (State, error) {
	req, err := a.cl.newRequest(ctx, "GET", base(cfg)+"/v1/payment_intents/"+url.PathEscape(id), "", "")
	if err != nil {
		return State{}, err
	}
	body, err := a.cl.do(req, cfg, "")
	if err != nil {
		return State{}, err
	}
	var pi stripeIntent
	if err := json.Unmarshal(body, &pi); err != nil || pi.ID == "" {
		return State{}, &RefusedError{Status: 200, Body: "not a payment intent: " + cut(string(body), 200)}
	}
	return State{ProviderPaymentID: pi.ID, Paid: pi.Status == "succeeded",
		AppointmentID: pi.Metadata["appointment_id"], BusinessID: pi.Metadata["business_id"]}, nil
}

// SignatureTolerance is how far a signed event's timestamp may be from now.
const SignatureTolerance = 300 * time.Second

// Errors of VerifySignature.
var (
	ErrNoSignature  = errors.New("no Stripe-Signature header")
	ErrBadSignature = errors.New("no signature in Stripe-Signature matches the body")
	ErrStale        = errors.New("the signature's timestamp is outside the tolerance")
)

// VerifySignature checks a client-secret provider event: header is its
// Stripe-Signature, "t=<unix>,v1=<hex>[,v1=<hex>...]" (other schemes
// ignored), where a v1 is HMAC-SHA256(secret, "<t>.<body>"). Any one
// matching v1 is enough (the provider signs with old and new secrets while
// one is being rolled); the timestamp must be within SignatureTolerance of
// now.
func VerifySignature(secret, header string, body []byte, now time.Time) error {
	if header == "" {
		return ErrNoSignature
	}
	var ts string
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil && len(b) == sha256.Size {
				sigs = append(sigs, b)
			}
		}
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 || secret == "" {
		return ErrBadSignature
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	want := mac.Sum(nil)
	matched := false
	for _, s := range sigs {
		matched = matched || hmac.Equal(s, want)
	}
	if !matched {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(t, 0)); d > SignatureTolerance || d < -SignatureTolerance {
		return ErrStale
	}
	return nil
}

// Sign returns a Stripe-Signature header for body at t: for the doubles
// and for tests, which must sign as the provider does.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// EventKind is what a provider event means to slotd.
type EventKind int

const (
	EventOther    EventKind = iota // an event slotd does not act on
	EventPaid                      // the payment succeeded
	EventRefunded                  // money was returned
)

// Event is a verified client-secret provider event, read.
type Event struct {
	ID                string // the provider's event id: repeated deliveries share it
	Kind              EventKind
	ProviderPaymentID string
	AppointmentID     string // metadata.appointment_id of a PaymentIntent
	RefundedCents     int64  // a Charge's amount_refunded
}

// ErrMalformedEvent is an event body that is not the §5 shape.
var ErrMalformedEvent = errors.New("not a payment provider event")

// ParseEvent reads a client-secret provider event body (verify it first):
// {id, type, data: {object}}. Unknown members are ignored; unknown types
// are EventOther.
func ParseEvent(body []byte) (Event, error) {
	var ev struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Data struct {
			Object struct {
				Object         string            `json:"object"`
				ID             string            `json:"id"`
				PaymentIntent  json.RawMessage   `json:"payment_intent"`
				AmountRefunded int64             `json:"amount_refunded"`
				Metadata       map[string]string `json:"metadata"`
			} `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		return Event{}, fmt.Errorf("%w: %w", ErrMalformedEvent, err)
	}
	if ev.ID == "" || ev.Type == "" {
		return Event{}, fmt.Errorf("%w: no id or type", ErrMalformedEvent)
	}
	o := ev.Data.Object
	out := Event{ID: ev.ID}
	switch ev.Type {
	case "payment_intent.succeeded":
		if o.ID == "" {
			return Event{}, fmt.Errorf("%w: a payment_intent.succeeded without its PaymentIntent", ErrMalformedEvent)
		}
		out.Kind, out.ProviderPaymentID, out.AppointmentID = EventPaid, o.ID, o.Metadata["appointment_id"]
	case "charge.refunded":
		pi := intentID(o.PaymentIntent)
		if pi == "" {
			return Event{}, fmt.Errorf("%w: a charge.refunded without payment_intent", ErrMalformedEvent)
		}
		if o.AmountRefunded < 0 {
			return Event{}, fmt.Errorf("%w: a negative amount_refunded", ErrMalformedEvent)
		}
		out.Kind, out.ProviderPaymentID, out.RefundedCents = EventRefunded, pi, o.AmountRefunded
	}
	return out, nil
}

// intentID reads a Charge's payment_intent: an id, or (expanded) an
// object with one.
func intentID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return o.ID
	}
	return ""
}
