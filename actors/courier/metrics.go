package courier

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/slotd/slotd/actors/model"
)

// Metrics are the couriers' metrics, shared by every courier of a server
// (Env.Metrics): delivery records by the outcome they were written with,
// and the deliveries open. A nil *Metrics counts nothing.
type Metrics struct {
	deliveries *prometheus.CounterVec
	open       prometheus.Gauge
	// the children of deliveries, by kind (ladder, replay) and outcome
	byOutcome [2][3]prometheus.Counter
}

// Outcome indexes of Metrics.byOutcome, and the statuses they count: a
// record's status once it has its outcome (model.DeliveryStatuses).
const (
	outDelivered = iota
	outFailed
	outExhausted
)

var outcomeStatus = [...]string{outDelivered: model.DeliveryDelivered, outFailed: model.DeliveryFailed, outExhausted: model.DeliveryExhausted}

// NewMetrics returns the couriers' metrics; register them once.
func NewMetrics() *Metrics {
	m := &Metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_webhook_deliveries_total",
			Help: "Webhook delivery attempts by the outcome their record was written with (delivered, failed: a retry is scheduled, exhausted: none follows), for ladder attempts and replays (kind).",
		}, []string{"kind", "outcome"}),
		open: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "slotd_webhook_deliveries_open",
			Help: "Webhook deliveries open in the couriers: pending, in flight, or failed with a retry still to come.",
		}),
	}
	for k, kind := range []string{"ladder", "replay"} {
		for o, outcome := range outcomeStatus {
			m.byOutcome[k][o] = m.deliveries.WithLabelValues(kind, outcome)
		}
	}
	return m
}

func (m *Metrics) written(replay bool, outcome int) {
	if m == nil {
		return
	}
	k := 0
	if replay {
		k = 1
	}
	m.byOutcome[k][outcome].Inc()
}

func (m *Metrics) addOpen(n int) {
	if m != nil && n != 0 {
		m.open.Add(float64(n))
	}
}

// Collectors are the couriers' metrics, for the registry /metrics serves:
// register them once.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.deliveries, m.open}
}
