package payment_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/webhook/payment"
	"github.com/slotd/slotd/webhook/payment/paymenttest"
)

var (
	appt = uuid.MustParse("0b5f7a4e-0000-4000-8000-000000000001")
	biz  = uuid.MustParse("0b5f7a4e-0000-4000-8000-0000000000b1")
)

func checkout() payment.Checkout {
	return payment.Checkout{AppointmentID: appt, BusinessID: biz, AmountCents: 1250, Currency: "EUR",
		Description: "Haircut", WebhookURL: "http://127.0.0.1:1/hooks/payments/" + biz.String()}
}

// The client-secret adapter sends §5's form, with the appointment's
// Idempotency-Key, and a repeat gets the same payment.
func TestClientSecretCreateCancelRefundGet(t *testing.T) {
	d := paymenttest.NewStripe("sk_test_1", "whsec_1")
	defer d.Close()
	cl := payment.NewClient(true)
	cfg := payment.Config{Provider: model.ProviderClientSecret, BaseURL: d.URL() + "/", APIKey: "sk_test_1"}
	ctx := context.Background()

	c1, err := cl.Create(ctx, cfg, checkout())
	require.NoError(t, err)
	require.NotEmpty(t, c1.ClientSecret)
	require.Empty(t, c1.CheckoutURL)
	c2, err := cl.Create(ctx, cfg, checkout())
	require.NoError(t, err)
	require.Equal(t, c1, c2, "the same appointment's create is the same payment")
	require.Len(t, d.Payments(), 1)

	call := d.Calls()[0]
	require.Equal(t, "POST", call.Method)
	require.Equal(t, "/v1/payment_intents", call.Path)
	require.Equal(t, "Bearer sk_test_1", call.Authorization)
	require.Equal(t, payment.IdempotencyKey("create", appt), call.IdempotencyKey)
	require.Equal(t, "1250", call.Form.Get("amount"))
	require.Equal(t, "eur", call.Form.Get("currency"))
	require.Equal(t, appt.String(), call.Form.Get("metadata[appointment_id]"))
	require.Equal(t, biz.String(), call.Form.Get("metadata[business_id]"))
	require.Equal(t, "true", call.Form.Get("automatic_payment_methods[enabled]"))

	st, err := cl.Get(ctx, cfg, c1.ProviderPaymentID)
	require.NoError(t, err)
	require.False(t, st.Paid)
	require.Equal(t, appt.String(), st.AppointmentID)
	d.Pay(c1.ProviderPaymentID, time.Now())
	st, _ = cl.Get(ctx, cfg, c1.ProviderPaymentID)
	require.True(t, st.Paid)

	require.NoError(t, cl.Refund(ctx, cfg, c1.ProviderPaymentID, 1250, "EUR"))
	p, _ := d.Payment(c1.ProviderPaymentID)
	require.EqualValues(t, 1250, p.RefundedCents)
	require.NoError(t, cl.Cancel(ctx, cfg, c1.ProviderPaymentID))
	p, _ = d.Payment(c1.ProviderPaymentID)
	require.Equal(t, "canceled", p.Status)

	_, err = cl.Get(ctx, cfg, "pi_nope")
	require.ErrorIs(t, err, payment.ErrNotFound)
}

// The redirect adapter sends §5's JSON and reads the checkout link, the
// paid status and the refunded amount.
func TestRedirectCreateCancelRefundGet(t *testing.T) {
	d := paymenttest.NewMollie("test_key")
	defer d.Close()
	cl := payment.NewClient(true)
	cfg := payment.Config{Provider: model.ProviderRedirect, BaseURL: d.URL(), APIKey: "test_key", ReturnURL: "https://salon.example/thanks"}
	ctx := context.Background()

	c1, err := cl.Create(ctx, cfg, checkout())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(c1.ProviderPaymentID, "tr_"))
	require.True(t, strings.HasPrefix(c1.CheckoutURL, d.URL()+"/checkout/"))
	require.Empty(t, c1.ClientSecret)
	c2, err := cl.Create(ctx, cfg, checkout())
	require.NoError(t, err)
	require.Equal(t, c1, c2)

	call := d.Calls()[0]
	require.Equal(t, "/v2/payments", call.Path)
	require.Equal(t, payment.IdempotencyKey("create", appt), call.IdempotencyKey)
	require.Equal(t, map[string]any{"currency": "EUR", "value": "12.50"}, call.JSON["amount"])
	require.Equal(t, "https://salon.example/thanks", call.JSON["redirectUrl"])
	require.Equal(t, checkout().WebhookURL, call.JSON["webhookUrl"])
	require.Equal(t, map[string]any{"appointmentId": appt.String(), "businessId": biz.String()}, call.JSON["metadata"])

	d.Pay(c1.ProviderPaymentID)
	d.Refund(c1.ProviderPaymentID, 500)
	st, err := cl.Get(ctx, cfg, c1.ProviderPaymentID)
	require.NoError(t, err)
	require.True(t, st.Paid)
	require.EqualValues(t, 500, st.RefundedCents)
	require.Equal(t, biz.String(), st.BusinessID)

	require.NoError(t, cl.Refund(ctx, cfg, c1.ProviderPaymentID, 750, "EUR"))
	st, _ = cl.Get(ctx, cfg, c1.ProviderPaymentID)
	require.EqualValues(t, 1250, st.RefundedCents)
	require.NoError(t, cl.Cancel(ctx, cfg, c1.ProviderPaymentID))
	last := d.Calls()[len(d.Calls())-1]
	require.Equal(t, "DELETE", last.Method)
}

// No answer is ErrUnreachable (PAYMENTS_UNAVAILABLE); an answer that is not
// 2xx is a RefusedError (PAYMENT_ERROR).
func TestUnreachableAndRefused(t *testing.T) {
	for _, provider := range []string{model.ProviderClientSecret, model.ProviderRedirect} {
		t.Run(provider, func(t *testing.T) {
			var d *paymenttest.Double
			if provider == model.ProviderClientSecret {
				d = paymenttest.NewStripe("k", "s").Double
			} else {
				d = paymenttest.NewMollie("k").Double
			}
			cl := payment.NewClient(true)
			cfg := payment.Config{Provider: provider, BaseURL: d.URL(), APIKey: "k"}
			d.FailWith(500)
			_, err := cl.Create(context.Background(), cfg, checkout())
			var refused *payment.RefusedError
			require.ErrorAs(t, err, &refused)
			require.Equal(t, 500, refused.Status)
			require.False(t, errors.Is(err, payment.ErrUnreachable))

			_, err = cl.Create(context.Background(), payment.Config{Provider: provider, BaseURL: d.URL(), APIKey: "wrong"}, checkout())
			require.ErrorAs(t, err, &refused, "a 401 is an answer")

			d.Close()
			_, err = cl.Create(context.Background(), cfg, checkout())
			require.ErrorIs(t, err, payment.ErrUnreachable)
		})
	}
}

// Without --webhooks-allow-insecure a loopback provider is never dialled.
func TestGuardRefusesLoopback(t *testing.T) {
	d := paymenttest.NewStripe("k", "s")
	defer d.Close()
	_, err := payment.NewClient(false).Create(context.Background(),
		payment.Config{Provider: model.ProviderClientSecret, BaseURL: d.URL(), APIKey: "k"}, checkout())
	require.ErrorIs(t, err, payment.ErrUnreachable)
	require.Empty(t, d.Calls())
}

// A provider that accepts the connection but never answers is unreachable
// after the timeout; the caller's context bounds it in tests.
func TestNoAnswerIsUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = payment.NewClient(true).Create(ctx, payment.Config{Provider: model.ProviderRedirect, BaseURL: "http://" + ln.Addr().String(), APIKey: "k"}, checkout())
	require.ErrorIs(t, err, payment.ErrUnreachable)
}

func TestAmounts(t *testing.T) {
	for _, c := range []struct {
		cents    int64
		currency string
		text     string
	}{{1250, "EUR", "12.50"}, {5, "eur", "0.05"}, {100, "USD", "1.00"}, {1250, "JPY", "1250"}, {0, "EUR", "0.00"}} {
		require.Equal(t, c.text, payment.FormatAmount(c.cents, c.currency))
		got, ok := payment.ParseAmount(c.text, c.currency)
		require.True(t, ok)
		require.Equal(t, c.cents, got)
	}
	got, ok := payment.ParseAmount("12.5", "EUR")
	require.True(t, ok)
	require.EqualValues(t, 1250, got)
	for _, bad := range []string{"", "12.", "12.505", "-1.00", "+1.00", "1e3", ".50", "abc"} {
		_, ok := payment.ParseAmount(bad, "EUR")
		require.False(t, ok, bad)
	}
}
