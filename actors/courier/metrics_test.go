package courier

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/webhook/channel"
)

// TestMetrics: every delivery record written with an outcome is counted by
// kind and outcome, and the open gauge follows the deliveries the courier
// holds, back to 0 when it stops.
func TestMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, "", down503, ok200)
		m := r.env.Metrics
		count := func(kind, outcome string) float64 {
			return testutil.ToFloat64(m.deliveries.WithLabelValues(kind, outcome))
		}
		settle := func(kind, outcome string, want, open float64) {
			t.Helper()
			require.Eventually(t, func() bool {
				return count(kind, outcome) == want && testutil.ToFloat64(m.open) == open
			}, 5*time.Second, time.Millisecond, "%s %s: %v, open %v", kind, outcome, count(kind, outcome), testutil.ToFloat64(m.open))
			// The outbox metrics hold the same open deliveries, the oldest
			// since its first record was written.
			rows, oldest := r.env.Outbox.Held()
			require.Equal(t, int(open), rows)
			if open > 0 {
				require.False(t, oldest.IsZero())
				require.False(t, oldest.After(r.clock.Now()))
			}
		}

		r.fresh("evt_01")
		r.awaitSend()
		first := r.awaitLog(1, model.DeliveryFailed)[0]
		settle("ladder", "failed", 1, 1)
		_, since := r.env.Outbox.Held()
		require.Equal(t, first.CreatedAt, since, "the row has waited since its first attempt, not its latest")
		r.clock.Advance(time.Minute)
		r.awaitSend()
		r.awaitLog(2, model.DeliveryDelivered)
		settle("ladder", "delivered", 1, 0)

		r.replay(first.ID)
		r.awaitSend()
		r.awaitLog(3, model.DeliveryDelivered)
		settle("replay", "delivered", 1, 0)
		require.Zero(t, count("ladder", "exhausted"))

		// An open delivery leaves the gauge when its courier stops.
		r.send.answer(down503)
		r.fresh("evt_02")
		r.awaitSend()
		settle("ladder", "failed", 2, 1)
		r.stop()
		require.Zero(t, testutil.ToFloat64(m.open))
		rows, _ := r.env.Outbox.Held()
		require.Zero(t, rows, "a stopped courier's deliveries leave the outbox backlog")
		assert.Equal(t, [3]int{2, 2, 0}, [3]int{r.env.Outbox.Attempts(channel.Delivered), r.env.Outbox.Attempts(channel.Retry), r.env.Outbox.Attempts(channel.GivenUp)},
			"attempts delivered, retried, failed")
	})
}
