package payment

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// The redirect provider: Mollie's Payments v2, the §5 subset.

type mollie struct{ cl *Client }

// amount is the provider's money: a currency and a decimal string with
// the currency's minor digits ("12.50", "1250" for JPY).
type amount struct {
	Currency string `json:"currency"`
	Value    string `json:"value"`
}

type molliePayment struct {
	ID             string            `json:"id"`
	Status         string            `json:"status"`
	Amount         *amount           `json:"amount"`
	AmountRefunded *amount           `json:"amountRefunded"`
	Metadata       map[string]string `json:"metadata"`
	Links          struct {
		Checkout struct {
			Href string `json:"href"`
		} `json:"checkout"`
	} `json:"_links"`
}

// zeroDecimal are the ISO 4217 currencies without minor units that the
// provider takes; every other is written with two decimals.
var zeroDecimal = map[string]bool{"JPY": true, "KRW": true, "ISK": true, "CLP": true, "VND": true, "UGX": true, "XAF": true, "XOF": true}

// FormatAmount writes cents of currency as the provider's decimal string.
func FormatAmount(cents int64, currency string) string {
	if zeroDecimal[strings.ToUpper(currency)] {
		return strconv.FormatInt(cents, 10)
	}
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

// ParseAmount reads the provider's decimal string as cents of currency;
// false if it is not one.
func ParseAmount(value, currency string) (int64, bool) {
	digits := 2
	if zeroDecimal[strings.ToUpper(currency)] {
		digits = 0
	}
	whole, frac, hasFrac := strings.Cut(value, ".")
	if whole == "" || len(frac) > digits || (hasFrac && frac == "") {
		return 0, false
	}
	for len(frac) < digits {
		frac += "0"
	}
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || n < 0 || strings.ContainsAny(whole, "+-") {
		return 0, false
	}
	return n, true
}

func (a mollie) create(ctx context.Context, cfg Config, c Checkout) (Created, error) {
	body, _ := json.Marshal(map[string]any{
		"amount":      amount{Currency: strings.ToUpper(c.Currency), Value: FormatAmount(c.AmountCents, c.Currency)},
		"description": c.Description,
		"redirectUrl": cfg.ReturnURL,
		"webhookUrl":  c.WebhookURL,
		"metadata":    map[string]string{"appointmentId": c.AppointmentID.String(), "businessId": c.BusinessID.String()},
	})
	req, err := a.cl.newRequest(ctx, "POST", base(cfg)+"/v2/payments", "application/json", string(body))
	if err != nil {
		return Created{}, err
	}
	answer, err := a.cl.do(req, cfg, IdempotencyKey("create", c.AppointmentID))
	if err != nil {
		return Created{}, err
	}
	var p molliePayment
	if err := json.Unmarshal(answer, &p); err != nil || p.ID == "" || p.Links.Checkout.Href == "" {
		return Created{}, &RefusedError{Status: 200, Body: "a payment without id or checkout link: " + cut(string(answer), 200)}
	}
	return Created{ProviderPaymentID: p.ID, CheckoutURL: p.Links.Checkout.Href}, nil
}

func (a mollie) cancel(ctx context.Context, cfg Config, id string) error {
	req, err := a.cl.newRequest(ctx, "DELETE", base(cfg)+"/v2/payments/"+url.PathEscape(id), "", "")
	if err != nil {
		return err
	}
	_, err = a.cl.do(req, cfg, "")
	return err
}

func (a mollie) refund(ctx context.Context, cfg Config, id string, cents int64, currency string) error {
	body, _ := json.Marshal(map[string]any{"amount": amount{Currency: strings.ToUpper(currency), Value: FormatAmount(cents, currency)}})
	req, err := a.cl.newRequest(ctx, "POST", base(cfg)+"/v2/payments/"+url.PathEscape(id)+"/refunds", "application/json", string(body))
	if err != nil {
		return err
	}
	_, err = a.cl.do(req, cfg, "slotd-refund-"+id)
	return err
}

func (a mollie) get(ctx context.Context, cfg Config, id string) (State, error) {
	req, err := a.cl.newRequest(ctx, "GET", base(cfg)+"/v2/payments/"+url.PathEscape(id), "", "")
	if err != nil {
		return State{}, err
	}
	answer, err := a.cl.do(req, cfg, "")
	if err != nil {
		return State{}, err
	}
	var p molliePayment
	if err := json.Unmarshal(answer, &p); err != nil || p.ID == "" {
		return State{}, &RefusedError{Status: 200, Body: "not a payment: " + cut(string(answer), 200)}
	}
	st := State{ProviderPaymentID: p.ID, Paid: p.Status == "paid",
		AppointmentID: p.Metadata["appointmentId"], BusinessID: p.Metadata["businessId"]}
	if p.AmountRefunded != nil {
		st.RefundedCents, _ = ParseAmount(p.AmountRefunded.Value, p.AmountRefunded.Currency)
	}
	return st, nil
}

// ParseHook reads a redirect provider's event: a form body id=tr_...,
// unsigned, as the real provider sends it. Only the id is trusted: the
// state comes from Get.
func ParseHook(body []byte) (string, error) {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrMalformedEvent, err)
	}
	id := form.Get("id")
	if id == "" || len(id) > 100 || strings.ContainsAny(id, "/?#%\\ ") {
		return "", fmt.Errorf("%w: no usable id", ErrMalformedEvent)
	}
	return id, nil
}
