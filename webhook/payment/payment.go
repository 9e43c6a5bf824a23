// Package payment owns slotd's side of the two payment providers of
// decisions §5: the calls slotd makes to them (create a checkout, cancel
// it, refund it, read its state) and the reading of the events they send
// back. It speaks exactly the subset of each real API that §5 names: the
// client-secret provider is shaped like Stripe's PaymentIntents, the
// redirect provider like Mollie's Payments v2, so a business can point
// slotd at the real provider or at a double (package paymenttest).
//
// The adapters are written here rather than with the providers' SDKs
// (stripe-go, mollie-api-go). §5 needs four calls and two event shapes per
// provider, while the SDKs bring their own retry loops and error types
// between slotd and the one distinction §5 turns on (no answer at all is
// PAYMENTS_UNAVAILABLE, an answer that is not 2xx is PAYMENT_ERROR), global
// or per-client configuration built for one account rather than one per
// business with its own base URL, and, for stripe-go, a very large module
// pinned to one API version. What is left to write by hand is a form or
// JSON body per call and an HMAC check.
//
// Every connection goes through the webhook guard (package deliver): a
// provider's base URL is typed in by an operator, and without
// --webhooks-allow-insecure it must be https on a public address.
package payment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/webhook/deliver"
)

// Timeout is how long slotd waits for a provider: no answer within it is
// an unreachable provider (decisions §5: 10 s).
const Timeout = 10 * time.Second

// maxAnswer bounds how much of a provider's answer is read.
const maxAnswer = 1 << 20

// Config is one business's connection to its provider.
type Config struct {
	Provider  string // model.ProviderRedirect or model.ProviderClientSecret
	BaseURL   string // the provider API's base URL, without a trailing slash
	APIKey    string // sent as Authorization: Bearer
	ReturnURL string // redirect: where the customer lands after checkout
}

// Checkout asks the provider for a payment of one appointment.
type Checkout struct {
	AppointmentID uuid.UUID
	BusinessID    uuid.UUID
	AmountCents   int64
	Currency      string // ISO 4217, upper case
	Description   string // redirect: shown to the customer
	WebhookURL    string // redirect: where the provider reports changes
}

// Created is the provider's payment for a Checkout.
type Created struct {
	ProviderPaymentID string
	CheckoutURL       string // redirect
	ClientSecret      string // client_secret
}

// State is a payment as the provider reports it now.
type State struct {
	ProviderPaymentID string
	Paid              bool
	RefundedCents     int64
	AppointmentID     string // from the payment's metadata; "" if absent
	BusinessID        string
}

// ErrUnreachable wraps every failure to get an answer from the provider:
// refused, DNS, TLS, the guard, or no answer within Timeout
// (PAYMENTS_UNAVAILABLE).
var ErrUnreachable = errors.New("payment provider unreachable")

// RefusedError is a provider answer that is not 2xx (PAYMENT_ERROR).
type RefusedError struct {
	Status int
	Body   string // the start of the answer, for the log
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("payment provider answered %d: %s", e.Status, e.Body)
}

// ErrNotFound is a provider's 404 for a payment slotd asked about.
var ErrNotFound = errors.New("payment provider does not know this payment")

// Client calls providers. It is safe for concurrent use; make one per
// process.
type Client struct {
	http *http.Client
}

// NewClient returns a Client; allowInsecure (--webhooks-allow-insecure)
// lets it reach http and loopback providers, as in tests.
func NewClient(allowInsecure bool) *Client {
	return &Client{http: &http.Client{
		Transport:     deliver.NewTransport(allowInsecure, Timeout),
		Timeout:       Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// adapter is one provider kind's side of the four calls.
type adapter interface {
	create(ctx context.Context, cfg Config, c Checkout) (Created, error)
	cancel(ctx context.Context, cfg Config, id string) error
	refund(ctx context.Context, cfg Config, id string, cents int64, currency string) error
	get(ctx context.Context, cfg Config, id string) (State, error)
}

var errNoProvider = fmt.Errorf("%w: no provider configured", ErrUnreachable)

// adapter returns cfg's provider kind's adapter, or nil.
func (cl *Client) adapter(cfg Config) adapter {
	switch cfg.Provider {
	case model.ProviderClientSecret:
		return stripe{cl}
	case model.ProviderRedirect:
		return mollie{cl}
	}
	return nil
}

// Create makes the provider's payment for c. The call carries an
// Idempotency-Key derived from the appointment, so repeating it (after a
// crash, or a lost answer) returns the same payment instead of a second.
func (cl *Client) Create(ctx context.Context, cfg Config, c Checkout) (Created, error) {
	if a := cl.adapter(cfg); a != nil {
		return a.create(ctx, cfg, c)
	}
	return Created{}, errNoProvider
}

// Cancel cancels the provider's payment id.
func (cl *Client) Cancel(ctx context.Context, cfg Config, id string) error {
	if a := cl.adapter(cfg); a != nil {
		return a.cancel(ctx, cfg, id)
	}
	return errNoProvider
}

// Refund refunds amountCents of the provider's payment id (the whole
// payment: slotd refunds only a payment that came too late).
func (cl *Client) Refund(ctx context.Context, cfg Config, id string, amountCents int64, currency string) error {
	if a := cl.adapter(cfg); a != nil {
		return a.refund(ctx, cfg, id, amountCents, currency)
	}
	return errNoProvider
}

// Get reads the provider's payment id.
func (cl *Client) Get(ctx context.Context, cfg Config, id string) (State, error) {
	if a := cl.adapter(cfg); a != nil {
		return a.get(ctx, cfg, id)
	}
	return State{}, errNoProvider
}

// IdempotencyKey is the key of a call that creates something at the
// provider on behalf of appointment id: the same call for the same
// appointment always carries the same key.
func IdempotencyKey(op string, id uuid.UUID) string { return "slotd-" + op + "-" + id.String() }

// do sends req and returns the answer's body when it is 2xx.
func (cl *Client) do(req *http.Request, cfg Config, idem string) ([]byte, error) {
	req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "slotd-payments/1.0")
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the answer: %w", ErrUnreachable, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("%w (%s)", ErrNotFound, req.URL.Path)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, &RefusedError{Status: resp.StatusCode, Body: cut(string(body), 200)}
	}
	return body, nil
}

func (cl *Client) newRequest(ctx context.Context, method, url, contentType string, body string) (*http.Request, error) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req, nil
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// base is the configured base URL without trailing slashes.
func base(cfg Config) string { return strings.TrimRight(cfg.BaseURL, "/") }
