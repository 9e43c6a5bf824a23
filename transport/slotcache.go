package transport

import (
	"sync"
	"time"

	"github.com/google/uuid"
)

// slotCache memoizes encoded availability answers. An answer is a pure
// function of the business's state version (every write makes a new one),
// the query, and the time. The time enters only through the notice and
// advance rules, which compare whole-minute start times with now + whole
// minutes; such a comparison can change only when now passes a whole
// minute. So answers computed at any two instants in the same bucket
// (m, m+1min] are identical, and the key (business, state seq, minute
// bucket, query) never serves an answer that differs from a fresh one.
//
// Booking platforms ask the same questions over and over; with this, a
// repeated question costs a map lookup and a copy, like a static file.
// Memory is bounded by a byte budget; entries leave in insertion order.
type slotCache struct {
	mu     sync.Mutex
	m      map[slotKey][]byte
	order  []slotKey
	bytes  int
	budget int
}

type slotKey struct {
	biz    uuid.UUID
	seq    uint64
	minute int64
	query  string
}

func newSlotCache(budget int) *slotCache {
	return &slotCache{m: map[slotKey][]byte{}, budget: budget}
}

// minuteBucket returns the bucket of now: answers are equal within
// (m, m+1min], so the bucket is now rounded up to the minute.
func minuteBucket(now time.Time) int64 {
	ms := now.UnixMilli()
	b := ms / 60000
	if ms%60000 != 0 {
		b++
	}
	return b
}

func (c *slotCache) get(k slotKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[k]
	return b, ok
}

// put stores body (which the cache now owns) under k.
func (c *slotCache) put(k slotKey, body []byte) {
	if len(body) > c.budget/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	for c.bytes+len(body) > c.budget && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.m[old])
		delete(c.m, old)
	}
	c.m[k] = body
	c.order = append(c.order, k)
	c.bytes += len(body)
}
