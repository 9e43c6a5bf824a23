package api

import (
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/transport/quota"
)

// pingBucket is the per-business allowance of webhook test pings and
// delivery replays (api-v1 §6.5, §8): at most 10 in any 60 seconds, one
// bucket shared by both. It keeps the times of the last ten spends per
// business, so the limit is exact at the window's edge; a business whose
// spends are all older than a minute is forgotten on the next take.
type pingBucket struct {
	mu    sync.Mutex
	spent map[uuid.UUID][]time.Time
}

const (
	pingLimit  = 10
	pingWindow = time.Minute
)

func newPingBucket() *pingBucket { return &pingBucket{spent: map[uuid.UUID][]time.Time{}} }

// take spends one unit of biz's allowance at now, or refuses when none is
// left. The verdict is the bucket's, as the X-RateLimit headers report it:
// Reset is when the last spend leaves the window (the bucket is full
// again), RetryAfter on a refusal when the oldest does.
func (b *pingBucket) take(biz uuid.UUID, now time.Time) quota.Verdict {
	b.mu.Lock()
	defer b.mu.Unlock()
	recent := b.spent[biz]
	for len(recent) > 0 && !recent[0].After(now.Add(-pingWindow)) {
		recent = recent[1:]
	}
	if len(recent) >= pingLimit {
		b.spent[biz] = recent
		return quota.Verdict{Limit: pingLimit, Reset: recent[len(recent)-1].Add(pingWindow), RetryAfter: recent[0].Add(pingWindow).Sub(now)}
	}
	recent = append(recent, now)
	b.spent[biz] = recent
	if len(b.spent) > 4096 {
		b.forgetIdle(now)
	}
	return quota.Verdict{Allowed: true, Limit: pingLimit, Remaining: pingLimit - len(recent), Reset: now.Add(pingWindow)}
}

// forgetIdle drops businesses with no spend in the window.
func (b *pingBucket) forgetIdle(now time.Time) {
	for id, ts := range b.spent {
		if len(ts) == 0 || !ts[len(ts)-1].After(now.Add(-pingWindow)) {
			delete(b.spent, id)
		}
	}
}
