package business

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/slotd/slotd/actors/tenant"
	"github.com/slotd/slotd/storage/catalog"
	"github.com/slotd/slotd/storage/record"
)

// PayMetrics are the prepayment metrics of every business of a server
// (Env.PayMetrics): checkouts by provider and outcome, and payments by
// what happened to them. A nil *PayMetrics counts nothing.
type PayMetrics struct {
	checkouts *prometheus.CounterVec
	payments  *prometheus.CounterVec
}

// NewPayMetrics returns the prepayment metrics; register them once.
func NewPayMetrics() *PayMetrics {
	return &PayMetrics{
		checkouts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_payment_checkouts_total",
			Help: "Checkouts asked of payment providers, by provider kind and outcome: created; unreachable (422 PAYMENTS_UNAVAILABLE); refused (500 PAYMENT_ERROR).",
		}, []string{"provider", "outcome"}),
		payments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_payments_total",
			Help: "Payments by what happened to them: succeeded (paid, on time or late), expired (unpaid after holdMinutes), refunded (a refund reported or made).",
		}, []string{"outcome"}),
	}
}

// Describe implements prometheus.Collector.
func (m *PayMetrics) Describe(ch chan<- *prometheus.Desc) {
	m.checkouts.Describe(ch)
	m.payments.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *PayMetrics) Collect(ch chan<- prometheus.Metric) {
	m.checkouts.Collect(ch)
	m.payments.Collect(ch)
}

func (m *PayMetrics) checkout(provider, outcome string) {
	if m != nil {
		m.checkouts.WithLabelValues(provider, outcome).Inc()
	}
}

// decided counts what a payment decision did.
func (m *PayMetrics) decided(ch *record.Change) {
	if m == nil {
		return
	}
	for _, ev := range ch.Events {
		switch ev.Type {
		case tenant.EventPaymentSucceeded:
			m.payments.WithLabelValues("succeeded").Inc()
		case tenant.EventPaymentRefunded:
			m.payments.WithLabelValues("refunded").Inc()
		}
	}
	for i := range ch.Appointments {
		if ch.Appointments[i].Status == catalog.PaymentExpired {
			m.payments.WithLabelValues("expired").Inc()
		}
	}
}
