package wire

import "github.com/slotd/slotd/actors/model"

// AppendPayment appends the Payment resource of decisions §5: the data of
// payment events and GET /api/v1/appointments/{id}/payment. What the
// customer pays with (checkout link, client secret) is not part of it:
// only the booking's 201 shows that (appendCheckout).
func AppendPayment(b []byte, p *model.Payment) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, p.ID)
	b = AppendKey(b, "appointmentId")
	b = AppendUUID(b, p.AppointmentID)
	b = AppendKey(b, "provider")
	b = AppendString(b, p.Provider)
	b = AppendKey(b, "providerPaymentId")
	b = AppendString(b, p.ProviderPaymentID)
	b = AppendKey(b, "amountCents")
	b = AppendInt(b, p.AmountCents)
	b = AppendKey(b, "currency")
	b = AppendString(b, p.Currency)
	b = AppendKey(b, "amountKind")
	b = AppendString(b, p.AmountKind)
	b = AppendKey(b, "status")
	b = AppendString(b, string(p.Status))
	b = AppendKey(b, "refundedCents")
	b = AppendInt(b, p.RefundedCents)
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, p.CreatedAt)
	b = AppendKey(b, "updatedAt")
	b = AppendTime(b, p.UpdatedAt)
	return append(b, '}')
}

// appendCheckout appends the payment object of the booking's 201 (api-v1
// §2.8): the amount, and exactly one of checkoutUrl and clientSecret.
func appendCheckout(b []byte, p *model.Payment) []byte {
	b = append(b, '{')
	b = AppendKey(b, "amountCents")
	b = AppendInt(b, p.AmountCents)
	b = AppendKey(b, "currency")
	b = AppendString(b, p.Currency)
	b = AppendKey(b, "provider")
	b = AppendString(b, p.Provider)
	b = AppendKey(b, "amountKind")
	b = AppendString(b, p.AmountKind)
	if p.Provider == model.ProviderClientSecret {
		b = AppendKey(b, "clientSecret")
		b = AppendString(b, p.ClientSecret)
	} else {
		b = AppendKey(b, "checkoutUrl")
		b = AppendString(b, p.CheckoutURL)
	}
	return append(b, '}')
}
