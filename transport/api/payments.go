package api

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/handover"
	"github.com/slotd/slotd/webhook/payment"
)

// Payments (decisions §5): the Payment read, and the endpoint at which
// providers report what happened to a payment.

var (
	errNoProvider = problem.New(problem.PaymentsUnavailable, "The business has no payment provider connected.")
	errSignature  = problem.FieldError("Stripe-Signature", problem.Invalid,
		"The Stripe-Signature header is missing, malformed, stale or does not match the body under the business's webhook secret.")
	errBadEvent = problem.FieldError(problem.PathBody, problem.Invalid, "The body is not a payment provider event.")
	errBadHook  = problem.FieldError(problem.PathBody, problem.Invalid, "The body must be form-encoded with the payment's id (id=tr_…).")
)

// hookReceived is the body of a provider event's 200.
var hookReceived = []byte(`{"received":true}`)

// getPayment serves GET /api/v1/appointments/{id}/payment: 403
// PAYMENTS_UNAVAILABLE when the business has no provider, 404 when the
// appointment does not exist or has no payment.
func (s *Server) getPayment(c *call) {
	if c.st.Business().Payments.Provider == "" {
		writeErrorStatus(c.ctx, 403, errNoProvider)
		return
	}
	getOne(c, c.st.Payment, wire.AppendPayment)
}

// paymentHook serves POST /hooks/payments/{businessId}. It needs no API
// key: a client_secret provider's event is authenticated by its
// Stripe-Signature (400 when that fails, and nothing changes); a redirect
// provider's notice carries nothing but an id, which the business actor
// looks up and reads back from the provider itself. An event about a
// payment the business does not have is answered 200 like any other, so
// the endpoint reveals nothing about other businesses' payments.
func (s *Server) paymentHook(ctx *fasthttp.RequestCtx) {
	raw, _ := ctx.UserValue("businessId").(string)
	biz, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		edge.WriteError(ctx, edge.ErrNoBusiness)
		return
	}
	if s.Elsewhere(ctx, biz, handover.Public) {
		return
	}
	if edge.TooLarge(ctx) {
		edge.WriteError(ctx, errBodyTooLarge)
		return
	}
	rctx, cancel := context.WithTimeout(context.Background(), directory.BookPaymentWait+edge.RequestTimeout)
	defer cancel()
	st, ok, err := s.Dir.ExistingView(rctx, biz)
	if err != nil {
		s.Fail(ctx, err)
		return
	}
	if !ok {
		edge.WriteError(ctx, edge.ErrNoBusiness)
		return
	}
	body := ctx.PostBody()
	switch st.Business().Payments.Provider {
	case model.ProviderClientSecret:
		pays := st.Business().Payments
		sig := string(ctx.Request.Header.Peek("Stripe-Signature"))
		if pays.WebhookSecret == "" || payment.VerifySignature(pays.WebhookSecret, sig, body, s.Clock.Now()) != nil {
			edge.WriteError(ctx, errSignature)
			return
		}
		ev, err := payment.ParseEvent(body)
		if err != nil {
			edge.WriteError(ctx, errBadEvent)
			return
		}
		if ev.Kind != payment.EventOther {
			_, err = directory.Ask(rctx, s.Dir, biz, &directory.PaymentEvent{Event: ev})
		}
		s.hookAnswer(ctx, err)
	case model.ProviderRedirect:
		id, err := payment.ParseHook(body)
		if err != nil {
			edge.WriteError(ctx, errBadHook)
			return
		}
		_, err = directory.Ask(rctx, s.Dir, biz, &directory.PaymentNotice{ProviderPaymentID: id})
		s.hookAnswer(ctx, err)
	default:
		// No provider: there is no payment to change.
		edge.WriteJSON(ctx, 200, hookReceived)
	}
}

func (s *Server) hookAnswer(ctx *fasthttp.RequestCtx, err error) {
	if err != nil {
		var pe *problem.Error
		if errors.As(err, &pe) && pe.Code == problem.Unavailable {
			ctx.Response.Header.Set("Retry-After", "5")
		}
		s.Fail(ctx, err)
		return
	}
	edge.WriteJSON(ctx, 200, hookReceived)
}

// writeErrorStatus writes e with a status other than its code's usual
// one: PAYMENTS_UNAVAILABLE is 403 on a read (no provider connected) and
// 422 on a booking (api-v1 §7.2 lists both).
func writeErrorStatus(ctx *fasthttp.RequestCtx, status int, e *problem.Error) {
	edge.WriteError(ctx, e)
	ctx.SetStatusCode(status)
}

// paymentRoutes adds the payment endpoints to the public router.
func (s *Server) paymentRoutes(add func(method, path string, h fasthttp.RequestHandler)) {
	add(fasthttp.MethodGet, "/api/v1/appointments/{id}/payment",
		s.api(route{scope: "appointments:read", module: model.ModPayments, fn: s.getPayment}))
	add(fasthttp.MethodPost, "/hooks/payments/{businessId}", s.paymentHook)
}
