package retry

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The channels' waits, spelled out: the table is the policy, so a change
// to it must change this test too.
func TestPolicyWaits(t *testing.T) {
	for _, tc := range []struct {
		p     *Policy
		waits []time.Duration // after failure 1, 2, …
		after time.Duration   // from then on
	}{
		{&Webhook, []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 12 * time.Hour}, 12 * time.Hour},
		{&Mail, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second,
			32 * time.Second, 64 * time.Second, 128 * time.Second, 256 * time.Second}, 5 * time.Minute},
		{&Payment, []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
			160 * time.Second, 320 * time.Second, 640 * time.Second, 1280 * time.Second, 2560 * time.Second}, time.Hour},
	} {
		for i, w := range tc.waits {
			require.Equal(t, w, tc.p.Wait(i+1), "%s after failure %d", tc.p.Channel, i+1)
		}
		for _, n := range []int{len(tc.waits) + 1, 64, 1 << 30} {
			require.Equal(t, tc.after, tc.p.Wait(n), "%s after failure %d", tc.p.Channel, n)
		}
		require.Equal(t, tc.waits[0], tc.p.Wait(0), "failure counts below 1 read as 1")
	}
}

func TestPolicyAttempts(t *testing.T) {
	require.False(t, Webhook.Exhausted(MaxAttempts-1))
	require.True(t, Webhook.Exhausted(MaxAttempts))
	require.False(t, Mail.Exhausted(1<<30), "an e-mail is retried until it is sent")
	require.False(t, Payment.Exhausted(1<<30), "a refund is retried until the provider takes it")
	require.Len(t, Policies, 3)
}

// The webhook policy is the ladder Next climbs, not a copy of it.
func TestWebhookPolicyIsTheLadder(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	for attempt := 1; attempt < MaxAttempts; attempt++ {
		d := Next(attempt, Outcome{Status: 503}, now, 1)
		require.True(t, d.Retry)
		require.Equal(t, Webhook.Wait(attempt), d.NextAt.Sub(now), "after attempt %d", attempt)
	}
	require.True(t, Next(MaxAttempts, Outcome{Status: 503}, now, 1).Final)
}
