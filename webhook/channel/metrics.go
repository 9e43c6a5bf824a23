// Package channel measures slotd's outbound channels (webhook deliveries,
// e-mail, payment-provider calls) alike: each channel's backlog, the age
// of its oldest row and its attempts by outcome (slotd_outbox_*), so an
// operator reads every channel the same way. The rows themselves are in
// the store's outbox tables, their retry state has one form
// (record.Attempt) and the channels' retry policies are data in
// webhook/retry; the workers that drive the rows report here.
package channel

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/slotd/slotd/actors/clock"
)

// Outcome is what one attempt to send a row came to.
type Outcome int

// The outcomes, the values of the outcome label.
const (
	Delivered Outcome = iota // the destination took it
	Retry                    // it failed; another attempt is scheduled
	GivenUp                  // it failed for good: refused, exhausted or unrenderable
	outcomes
)

// outcomeNames are the label values. "given_up", not "failed": a webhook
// delivery record's "failed" means a retry is scheduled (api-v1 §3.3),
// which is this label's "retry".
var outcomeNames = [outcomes]string{"delivered", "retry", "given_up"}

// The channels, the values of the channel label.
const (
	Webhook = "webhook"
	Mail    = "mail"
	Payment = "payment"
)

var channelNames = []string{Webhook, Mail, Payment}

// Metrics are the channels' metrics; register them once. A nil *Metrics
// counts nothing.
type Metrics struct {
	clock    clock.Clock
	attempts *prometheus.CounterVec
	backlog  *prometheus.Desc
	oldest   *prometheus.Desc
	channels map[string]*Meter
}

// NewMetrics returns the metrics of every channel; c tells the age of the
// oldest row at each scrape.
func NewMetrics(c clock.Clock) *Metrics {
	m := &Metrics{
		clock: c,
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_outbox_attempts_total",
			Help: "Attempts to send an outbox row, by channel (webhook, mail, payment) and outcome (delivered; retry: failed, another attempt scheduled; given_up: failed for good).",
		}, []string{"channel", "outcome"}),
		backlog: prometheus.NewDesc("slotd_outbox_backlog",
			"Outbox rows a channel's workers hold and have not yet delivered, in flight and waiting for a retry included.", []string{"channel"}, nil),
		oldest: prometheus.NewDesc("slotd_outbox_oldest_age_seconds",
			"How long the oldest row a channel's workers hold has waited since it was written; 0 when none waits. Alert on it growing.", []string{"channel"}, nil),
		channels: map[string]*Meter{},
	}
	for _, name := range channelNames {
		ch := &Meter{name: name}
		for o := range outcomes {
			ch.attempts[o] = m.attempts.WithLabelValues(name, outcomeNames[o])
		}
		m.channels[name] = ch
	}
	return m
}

// Channel returns the metrics of channel name (Webhook, Mail, Payment); nil
// when m is nil.
func (m *Metrics) Channel(name string) *Meter {
	if m == nil {
		return nil
	}
	ch := m.channels[name]
	if ch == nil {
		panic("outbox: unknown channel " + name)
	}
	return ch
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.attempts.Describe(ch)
	ch <- m.backlog
	ch <- m.oldest
}

// Collect implements prometheus.Collector: the backlog is the sum of the
// channel's sources, the oldest row the oldest of theirs.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.attempts.Collect(ch)
	now := m.clock.Now()
	for _, name := range channelNames {
		backlog, oldest := m.channels[name].read()
		age := 0.0
		if oldest > 0 {
			age = max(now.Sub(time.UnixMilli(oldest)).Seconds(), 0)
		}
		ch <- prometheus.MustNewConstMetric(m.backlog, prometheus.GaugeValue, float64(backlog), name)
		ch <- prometheus.MustNewConstMetric(m.oldest, prometheus.GaugeValue, age, name)
	}
}

// Meter is one channel's metrics. Its workers each report through a
// Source of their own, so a worker's hot path touches only its own
// atomics; a scrape adds them up.
type Meter struct {
	name     string
	attempts [outcomes]prometheus.Counter
	sources  sync.Map // *Source -> struct{}
}

// Attempted counts one attempt that came to o.
func (c *Meter) Attempted(o Outcome) {
	if c != nil {
		c.attempts[o].Inc()
	}
}

// Source returns a new reporting source of the channel's backlog, until
// its Close; nil when c is nil.
func (c *Meter) Source() *Source {
	if c == nil {
		return nil
	}
	s := &Source{ch: c}
	c.sources.Store(s, struct{}{})
	return s
}

// Attempts returns how many attempts have come to o so far.
func (c *Meter) Attempts(o Outcome) int {
	var m dto.Metric
	if err := c.attempts[o].Write(&m); err != nil {
		return 0
	}
	return int(m.GetCounter().GetValue())
}

// Held returns what the channel's sources hold now: the rows, and when
// the oldest of them was written (zero when none).
func (c *Meter) Held() (rows int, oldest time.Time) {
	n, ms := c.read()
	if ms > 0 {
		oldest = time.UnixMilli(ms).UTC()
	}
	return int(n), oldest
}

func (c *Meter) read() (backlog int64, oldest int64) {
	c.sources.Range(func(k, _ any) bool {
		s := k.(*Source)
		backlog += s.backlog.Load()
		if o := s.oldest.Load(); o > 0 && (oldest == 0 || o < oldest) {
			oldest = o
		}
		return true
	})
	return backlog, oldest
}

// Source is one worker's share of its channel's backlog: the rows it
// holds and when the oldest of them was written.
type Source struct {
	ch      *Meter
	backlog atomic.Int64
	oldest  atomic.Int64 // Unix ms; 0: none
}

// Set reports that the worker holds rows rows, the oldest written at
// oldest (zero when it holds none, or cannot tell).
func (s *Source) Set(rows int, oldest time.Time) {
	if s == nil {
		return
	}
	s.backlog.Store(int64(rows))
	var ms int64
	if rows > 0 && !oldest.IsZero() {
		ms = max(oldest.UnixMilli(), 1)
	}
	s.oldest.Store(ms)
}

// Close takes the source out of its channel: its worker stopped, and the
// rows it held are someone else's to report (or nobody's) now.
func (s *Source) Close() {
	if s != nil {
		s.ch.sources.Delete(s)
	}
}
