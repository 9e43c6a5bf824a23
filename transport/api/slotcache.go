package api

import (
	"encoding/binary"
	"hash/maphash"
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
//
// Only answers asked for a second time are kept: a first ask only leaves
// the key's hash in a bounded ring (askedBefore). Widget traffic repeats
// and is cached from its second ask; a crawl over many windows never
// repeats and no longer fills the budget with answers nobody asks again.
type slotCache struct {
	mu     sync.Mutex
	m      map[slotKey][]byte
	order  []slotKey
	bytes  int
	budget int

	seed  maphash.Seed
	asked map[uint64]struct{} // hashes of keys asked once
	ring  []uint64            // the same hashes, oldest first once full
	next  int
}

// askedRing bounds the keys remembered as asked once (8 bytes each, twice).
const askedRing = 1 << 16

type slotKey struct {
	biz    uuid.UUID
	seq    uint64
	minute int64
	query  string
}

func newSlotCache(budget int) *slotCache {
	return &slotCache{m: map[slotKey][]byte{}, budget: budget, seed: maphash.MakeSeed(),
		asked: make(map[uint64]struct{}, askedRing), ring: make([]uint64, 0, askedRing)}
}

// askedBefore reports whether k was asked (and missed) before, remembering
// it otherwise. A hash collision only caches an answer early.
func (c *slotCache) askedBefore(k slotKey) bool {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.Write(k.biz[:])
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], k.seq)
	binary.LittleEndian.PutUint64(b[8:], uint64(k.minute))
	h.Write(b[:])
	h.WriteString(k.query)
	x := h.Sum64()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.asked[x]; ok {
		return true
	}
	if len(c.ring) < askedRing {
		c.ring = append(c.ring, x)
	} else {
		delete(c.asked, c.ring[c.next])
		c.ring[c.next] = x
		c.next = (c.next + 1) % askedRing
	}
	c.asked[x] = struct{}{}
	return false
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
