package channel

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
)

func TestChannelsAddUpTheirSources(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	m := NewMetrics(clock.NewFake(now))
	hooks := m.Channel(Webhook)
	a, b := hooks.Source(), hooks.Source()
	a.Set(3, now.Add(-90*time.Second))
	b.Set(2, now.Add(-30*time.Second))
	m.Channel(Mail).Source().Set(0, now.Add(-time.Hour)) // nothing held: no age
	hooks.Attempted(Delivered)
	hooks.Attempted(Retry)
	m.Channel(Payment).Attempted(GivenUp)

	want := `
# HELP slotd_outbox_backlog Outbox rows a channel's workers hold and have not yet delivered, in flight and waiting for a retry included.
# TYPE slotd_outbox_backlog gauge
slotd_outbox_backlog{channel="mail"} 0
slotd_outbox_backlog{channel="payment"} 0
slotd_outbox_backlog{channel="webhook"} 5
# HELP slotd_outbox_oldest_age_seconds How long the oldest row a channel's workers hold has waited since it was written; 0 when none waits. Alert on it growing.
# TYPE slotd_outbox_oldest_age_seconds gauge
slotd_outbox_oldest_age_seconds{channel="mail"} 0
slotd_outbox_oldest_age_seconds{channel="payment"} 0
slotd_outbox_oldest_age_seconds{channel="webhook"} 90
`
	require.NoError(t, testutil.CollectAndCompare(m, strings.NewReader(want), "slotd_outbox_backlog", "slotd_outbox_oldest_age_seconds"))
	require.Equal(t, 1.0, testutil.ToFloat64(m.attempts.WithLabelValues("webhook", "delivered")))
	require.Equal(t, 1.0, testutil.ToFloat64(m.attempts.WithLabelValues("webhook", "retry")))
	require.Equal(t, 1.0, testutil.ToFloat64(m.attempts.WithLabelValues("payment", "given_up")))
	require.Equal(t, 0.0, testutil.ToFloat64(m.attempts.WithLabelValues("mail", "delivered")), "every series exists from the start")

	a.Close()
	backlog, oldest := hooks.read()
	require.EqualValues(t, 2, backlog, "a closed source no longer counts")
	require.Equal(t, now.Add(-30*time.Second).UnixMilli(), oldest)

	var none *Metrics
	none.Channel(Mail).Source().Set(1, now) // a nil Metrics counts nothing, and does not panic
	none.Channel(Mail).Attempted(Delivered)
}
