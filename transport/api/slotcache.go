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
// the key's hash in a bounded ring. Widget traffic repeats and is cached
// from its second ask; a crawl over many windows never repeats and no
// longer fills the budget with answers nobody asks again.
//
// A request hashes its key once and takes one shard's lock once (look);
// only an answer being kept copies the query. Shards keep the lock off
// every other connection's path: in the 1-day availability phase of the
// harness the single lock's two acquisitions and the key's string were
// 4.7 % of slotd's CPU (2026-11-27).
type slotCache struct {
	seed   maphash.Seed
	shards [slotShards]slotShard
}

const (
	slotShards = 16
	// askedRing bounds the keys remembered as asked once (8 bytes each,
	// twice), over all shards.
	askedRing = 1 << 16
)

// slotShard is one shard: the kept answers by key hash, and the hashes
// asked once.
type slotShard struct {
	mu     sync.Mutex
	m      map[uint64]*slotEntry
	order  []uint64
	bytes  int
	budget int

	asked map[uint64]struct{} // hashes of keys asked once
	ring  []uint64            // the same hashes, oldest first once full
	next  int
}

// slotKey names one answer: its query string is the request's raw bytes,
// which the cache copies only to keep an answer.
type slotKey struct {
	biz    uuid.UUID
	seq    uint64
	minute int64
	query  []byte
}

// slotEntry is a kept answer with the whole key it answers: two keys
// whose hashes collide only miss each other.
type slotEntry struct {
	biz    uuid.UUID
	seq    uint64
	minute int64
	query  string
	body   []byte
}

func (e *slotEntry) is(k *slotKey) bool {
	return e.biz == k.biz && e.seq == k.seq && e.minute == k.minute && e.query == string(k.query)
}

func newSlotCache(budget int) *slotCache {
	c := &slotCache{seed: maphash.MakeSeed()}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.m = map[uint64]*slotEntry{}
		sh.budget = budget / slotShards
		sh.asked = make(map[uint64]struct{}, askedRing/slotShards)
		sh.ring = make([]uint64, 0, askedRing/slotShards)
	}
	return c
}

func (c *slotCache) hash(k *slotKey) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	var b [32]byte
	copy(b[:16], k.biz[:])
	binary.LittleEndian.PutUint64(b[16:24], k.seq)
	binary.LittleEndian.PutUint64(b[24:], uint64(k.minute))
	h.Write(b[:])
	h.Write(k.query)
	return h.Sum64()
}

// look returns the kept answer for k, if there is one. On a miss, again
// reports whether k was asked (and missed) before, and k is remembered as
// asked otherwise; h is k's hash, for put. A hash collision only keeps an
// answer early.
func (c *slotCache) look(k *slotKey) (h uint64, body []byte, hit, again bool) {
	h = c.hash(k)
	sh := &c.shards[h%slotShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e, ok := sh.m[h]; ok && e.is(k) {
		return h, e.body, true, false
	}
	if _, ok := sh.asked[h]; ok {
		return h, nil, false, true
	}
	if len(sh.ring) < cap(sh.ring) {
		sh.ring = append(sh.ring, h)
	} else {
		delete(sh.asked, sh.ring[sh.next])
		sh.ring[sh.next] = h
		sh.next = (sh.next + 1) % len(sh.ring)
	}
	sh.asked[h] = struct{}{}
	return h, nil, false, false
}

// put keeps body (which the cache now owns) as the answer to k, whose
// hash is h.
func (c *slotCache) put(h uint64, k *slotKey, body []byte) {
	sh := &c.shards[h%slotShards]
	if len(body) > sh.budget/2 {
		return
	}
	e := &slotEntry{biz: k.biz, seq: k.seq, minute: k.minute, query: string(k.query), body: body}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, ok := sh.m[h]; ok {
		return
	}
	for sh.bytes+len(body) > sh.budget && len(sh.order) > 0 {
		old := sh.order[0]
		sh.order = sh.order[1:]
		sh.bytes -= len(sh.m[old].body)
		delete(sh.m, old)
	}
	sh.m[h] = e
	sh.order = append(sh.order, h)
	sh.bytes += len(body)
}

// bytes is the size of every kept answer, for tests.
func (c *slotCache) bytes() int {
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		n += sh.bytes
		sh.mu.Unlock()
	}
	return n
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
