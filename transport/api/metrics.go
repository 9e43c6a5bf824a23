package api

import (
	"github.com/prometheus/client_golang/prometheus"
)

// The public API's own metrics, beside the request metrics of the edge:
// rate-limit refusals by limiter, webhook test pings by outcome and the
// start times POST /availability/check judged. /metrics serves them with
// everything else the server registered.

// metrics are the public API's metric vectors and their resolved
// children.
type metrics struct {
	refusals *prometheus.CounterVec // limiter
	pings    *prometheus.CounterVec // outcome
	checked  prometheus.Counter     // start times judged by POST /availability/check
	feeds    *prometheus.CounterVec // outcome
	feedBy   [numFeedOutcomes]prometheus.Counter

	refusedBy [256]prometheus.Counter
	pingOK    prometheus.Counter
	pingRefd  prometheus.Counter
	pingFail  prometheus.Counter
}

// limiterNames are the limiter label values by limit kind.
var limiterNames = map[byte]string{
	limitMinute:     "minute",
	limitHour:       "hour",
	limitMutations:  "mutations",
	limitFailedAuth: "failed_auth",
	limitPings:      "pings",
}

func newMetrics() *metrics {
	m := &metrics{
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_ratelimit_refusals_total",
			Help: "Requests refused 429 by a rate limit, by limiter: minute, hour, mutations (a key's quotas), failed_auth (a client IP's failed authentications), pings (a business's test pings and replays).",
		}, []string{"limiter"}),
		pings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_webhook_pings_total",
			Help: "Signed webhook.test pings of registrations and URL changes by outcome: ok (answered 2xx), refused (the destination guard refused the address), failed (any other answer, timeout or connection error).",
		}, []string{"outcome"}),
		checked: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "slotd_availability_checks_total",
			Help: "Start times judged by POST /api/v1/availability/check (a call judges 1 to 100).",
		}),
		feeds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_calendar_feed_requests_total",
			Help: "Requests for calendar feeds (GET /feeds/{token}.ics) by outcome: served (200), not_modified (304 to If-None-Match), unknown (404: a token that names no feed, revoked ones included).",
		}, []string{"outcome"}),
	}
	for o, name := range feedOutcomes {
		m.feedBy[o] = m.feeds.WithLabelValues(name)
	}
	for k, name := range limiterNames {
		m.refusedBy[k] = m.refusals.WithLabelValues(name)
	}
	m.pingOK, m.pingRefd, m.pingFail = m.pings.WithLabelValues("ok"), m.pings.WithLabelValues("refused"), m.pings.WithLabelValues("failed")
	return m
}

// The outcomes of a calendar feed request.
const (
	feedServed = iota
	feedNotModified
	feedUnknown
	numFeedOutcomes
)

var feedOutcomes = [numFeedOutcomes]string{feedServed: "served", feedNotModified: "not_modified", feedUnknown: "unknown"}

// feed counts a calendar feed request by outcome.
func (m *metrics) feed(outcome int) { m.feedBy[outcome].Inc() }

// refused counts a 429 of the limit kind.
func (m *metrics) refused(kind byte) {
	if c := m.refusedBy[kind]; c != nil {
		c.Inc()
	}
}

// Collectors are the public API's own metrics.
func (m *metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.refusals, m.pings, m.checked, m.feeds}
}
