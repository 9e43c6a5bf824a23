package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/textproto"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the Drainer's metrics (Drainer.Metrics): the outbox backlog
// as of its last look, and what became of each message it tried. A nil
// *Metrics counts nothing.
type Metrics struct {
	backlog  prometheus.Gauge
	oldest   prometheus.Gauge
	sends    *prometheus.CounterVec
	failures *prometheus.CounterVec

	sent, failed, dropped prometheus.Counter
}

// Causes of a failed send, the values of slotd_mail_send_failures_total's
// cause label (FailureCause).
const (
	CauseTimeout           = "timeout"
	CauseConnectionRefused = "connection_refused"
	CauseDNS               = "dns"
	CauseTLS               = "tls"
	CauseSMTP4xx           = "smtp_4xx"
	CauseSMTP5xx           = "smtp_5xx"
	CauseFile              = "file"
	CauseOther             = "other"
)

// NewMetrics returns the Drainer's metrics; register them once.
func NewMetrics() *Metrics {
	m := &Metrics{
		backlog: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "slotd_mail_outbox_backlog",
			Help: "E-mails in the outbox that the drainer knows of and has not yet sent (or whose row it has not yet deleted), as of its last pass.",
		}),
		oldest: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "slotd_mail_outbox_oldest_age_seconds",
			Help: "How long the oldest e-mail the mailer knows of and has not sent has waited, by the time in its id, as of its last look (at most once a second); 0 when none waits.",
		}),
		sends: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_mail_sends_total",
			Help: "E-mail send attempts by outcome: sent, failed (retried with backoff), dropped (a row that cannot be rendered, logged and deleted).",
		}, []string{"outcome"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_mail_send_failures_total",
			Help: "Failed e-mail sends by cause: timeout, connection_refused, dns, tls, smtp_4xx, smtp_5xx, file (the DATA/outbox mailbox), other.",
		}, []string{"cause"}),
	}
	m.sent, m.failed, m.dropped = m.sends.WithLabelValues("sent"), m.sends.WithLabelValues("failed"), m.sends.WithLabelValues("dropped")
	return m
}

func (m *Metrics) oldestIs(age time.Duration) {
	if m != nil {
		m.oldest.Set(max(age, 0).Seconds())
	}
}

func (m *Metrics) backlogIs(rows int) {
	if m != nil {
		m.backlog.Set(float64(rows))
	}
}

func (m *Metrics) countSent() {
	if m != nil {
		m.sent.Inc()
	}
}

func (m *Metrics) countDropped() {
	if m != nil {
		m.dropped.Inc()
	}
}

func (m *Metrics) countFailed(cause string) {
	if m != nil {
		m.failed.Inc()
		m.failures.WithLabelValues(cause).Inc()
	}
}

// FailureCause classifies why a send failed, in the words of
// slotd_mail_send_failures_total's cause label and the "cause" of the
// drainer's log line; the error itself is logged beside it.
func FailureCause(err error) string {
	var tp *textproto.Error
	var dns *net.DNSError
	var nerr net.Error
	var cert *tls.CertificateVerificationError
	var rec tls.RecordHeaderError
	var perr *os.PathError
	switch {
	case errors.As(err, &tp):
		if tp.Code >= 400 && tp.Code < 500 {
			return CauseSMTP4xx
		}
		if tp.Code >= 500 && tp.Code < 600 {
			return CauseSMTP5xx
		}
		return CauseOther
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		return CauseTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return CauseConnectionRefused
	case errors.As(err, &dns):
		return CauseDNS
	case errors.As(err, &cert), errors.As(err, &rec):
		return CauseTLS
	case errors.As(err, &perr):
		return CauseFile
	}
	return CauseOther
}

// causeAttrs are the log attributes of a failed send: its cause, and the
// SMTP server's reply code when it answered with one.
func causeAttrs(cause string, err error) []any {
	attrs := []any{"cause", cause}
	var tp *textproto.Error
	if errors.As(err, &tp) {
		attrs = append(attrs, "smtp_code", strconv.Itoa(tp.Code))
	}
	return attrs
}

// Collectors are the mailer's metrics, for the registry /metrics serves:
// register them once.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.backlog, m.oldest, m.sends, m.failures}
}
