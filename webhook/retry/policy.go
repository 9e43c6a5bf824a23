package retry

import "time"

// Policy is one outbound channel's retry policy, as data: how long a row
// of its outbox waits after each failed attempt, and how many attempts it
// gets. Every channel that leaves slotd (webhook deliveries, e-mail,
// payment-provider calls) has one, in Policies; a row's attempt count and
// next-attempt time are persisted with it, so the wait is re-derived from
// the table after a restart rather than started over.
type Policy struct {
	// Channel names the channel, as the outbox metrics label it.
	Channel string
	// Waits is the wait after the n-th consecutive failure, indexed n-1.
	// Past its end a Doubling policy doubles the last wait up to Ceiling;
	// any other repeats the last wait.
	Waits []time.Duration
	// Doubling: each wait past Waits is twice the one before, at most
	// Ceiling.
	Doubling bool
	Ceiling  time.Duration
	// MaxAttempts is the number of attempts a row gets; 0 means until it
	// succeeds.
	MaxAttempts int
}

// The channels' policies.
var (
	// Webhook is api-v1 §6.5's ladder: six attempts, the waits of Ladder
	// (a consumer's 429 Retry-After may replace a rung: Next).
	Webhook = Policy{Channel: "webhook", Waits: Ladder[1:], MaxAttempts: MaxAttempts}
	// Mail retries an e-mail whose send failed after 1 s, doubling to at
	// most 5 minutes, until it is sent.
	Mail = Policy{Channel: "mail", Waits: []time.Duration{time.Second}, Doubling: true, Ceiling: 5 * time.Minute}
	// Payment retries a cancel or refund the provider did not take after
	// 5 s, doubling to at most an hour, until it takes it.
	Payment = Policy{Channel: "payment", Waits: []time.Duration{5 * time.Second}, Doubling: true, Ceiling: time.Hour}
)

// Policies lists every channel's policy.
var Policies = []*Policy{&Webhook, &Mail, &Payment}

// Wait returns the wait after the failures-th consecutive failed attempt
// (values below 1 are read as 1).
func (p *Policy) Wait(failures int) time.Duration {
	n := max(failures, 1)
	if n <= len(p.Waits) {
		return p.Waits[n-1]
	}
	last := p.Waits[len(p.Waits)-1]
	if !p.Doubling {
		return last
	}
	for i := len(p.Waits); i < n && last < p.Ceiling; i++ {
		last *= 2
	}
	return min(last, p.Ceiling)
}

// Exhausted reports whether a row that has had attempts attempts gets no
// further one.
func (p *Policy) Exhausted(attempts int) bool {
	return p.MaxAttempts > 0 && attempts >= p.MaxAttempts
}
