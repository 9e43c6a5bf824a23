package business

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// Metrics are the business actors' metrics of a server (Env.Metrics):
// checkouts by provider and outcome, payments, holds and waitlist offers
// by what happened to them. A nil *Metrics counts nothing.
type Metrics struct {
	checkouts *prometheus.CounterVec
	payments  *prometheus.CounterVec
	holds     *prometheus.CounterVec
	offers    *prometheus.CounterVec
	sources   *prometheus.CounterVec
	reminders *prometheus.CounterVec
}

// NewMetrics returns the business metrics; register them once.
func NewMetrics() *Metrics {
	return &Metrics{
		checkouts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_payment_checkouts_total",
			Help: "Checkouts asked of payment providers, by provider kind and outcome: created; unreachable (422 PAYMENTS_UNAVAILABLE); refused (500 PAYMENT_ERROR).",
		}, []string{"provider", "outcome"}),
		payments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_payments_total",
			Help: "Payments by what happened to them: succeeded (paid, on time or late), expired (unpaid after holdMinutes), refunded (a refund reported or made).",
		}, []string{"outcome"}),
		holds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_holds_total",
			Help: "Holds by what happened to them: created (waitlist offers included), booked, released, expired.",
		}, []string{"outcome"}),
		offers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_waitlist_offers_total",
			Help: "Waitlist offers by what happened to them: offered, booked, lapsed (expired or released unused).",
		}, []string{"outcome"}),
		sources: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_calendar_source_fetches_total",
			Help: "Fetches of calendar sources by outcome: updated (busy time replaced), unchanged (304), unreachable (no answer, refused address, an error status, over 5 MB), invalid (not a calendar slotd can expand).",
		}, []string{"outcome"}),
		reminders: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_reminders_total",
			Help: "Reminders that came due, by channel (email, webhook) and outcome: sent (in the outbox within a minute of its time), late (in the outbox later: the business was down or moving), skipped (the appointment was not confirmed, or an e-mail's customer has no address), missed (it had started before the reminder could go).",
		}, []string{"channel", "outcome"}),
	}
}

// reminded counts what became of reminders that came due: those that
// went into the outbox once their write is durable (journalled true), the
// others when they are passed over.
func (m *Metrics) reminded(outcomes []ledger.ReminderOutcome, journalled bool) {
	if m == nil {
		return
	}
	for _, o := range outcomes {
		if sent := o.Outcome == ledger.ReminderSent || o.Outcome == ledger.ReminderLate; sent == journalled {
			m.reminders.WithLabelValues(o.Channel, o.Outcome).Inc()
		}
	}
}

// fetched counts a calendar source's fetch.
func (m *Metrics) fetched(outcome string) {
	if m != nil {
		m.sources.WithLabelValues(outcome).Inc()
	}
}

func (m *Metrics) checkout(provider, outcome string) {
	if m != nil {
		m.checkouts.WithLabelValues(provider, outcome).Inc()
	}
}

// decided counts what a payment decision did.
func (m *Metrics) decided(ch *record.Change) {
	if m == nil {
		return
	}
	for _, ev := range ch.Events {
		switch ev.Type {
		case model.EventPaymentSucceeded:
			m.payments.WithLabelValues("succeeded").Inc()
		case model.EventPaymentRefunded:
			m.payments.WithLabelValues("refunded").Inc()
		}
	}
	for i := range ch.Appointments {
		if ch.Appointments[i].Status == model.PaymentExpired {
			m.payments.WithLabelValues("expired").Inc()
		}
	}
}

// holdsChanged counts what a durable change did to holds and offers.
func (m *Metrics) holdsChanged(ch *record.Change) {
	if m == nil {
		return
	}
	for i := range ch.Holds {
		h := &ch.Holds[i]
		outcome := string(h.Status)
		if h.Status == model.HoldActive {
			if h.CreatedAt != h.UpdatedAt {
				continue // extended
			}
			outcome = "created"
		}
		m.holds.WithLabelValues(outcome).Inc()
		if h.Entry == nil {
			continue
		}
		switch h.Status {
		case model.HoldActive:
			m.offers.WithLabelValues("offered").Inc()
		case model.HoldBooked:
			m.offers.WithLabelValues("booked").Inc()
		default:
			m.offers.WithLabelValues("lapsed").Inc()
		}
	}
}

// Collectors are the business actors' metrics, for the registry /metrics
// serves: register them once.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.checkouts, m.payments, m.holds, m.offers, m.sources, m.reminders}
}
