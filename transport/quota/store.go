package quota

import (
	"context"
	"hash/maphash"
	"strings"
	"sync"
	"time"

	"github.com/slotd/slotd/storage/clock"
)

// store is the GCRA state of every limited key: its theoretical arrival
// time (TAT), in nanoseconds, as throttled's GCRAStoreCtx wants it, read
// against the injected clock so tests move time instead of sleeping.
//
// A TAT at or before now carries no information: the key is back to its
// full allowance, exactly as if it had never been seen. So idle state can
// be dropped without changing any answer, and the store does: a shard that
// has doubled since its last sweep deletes every entry whose TAT has
// passed. Memory is bounded by the keys active within the longest window
// (an hour), not by every key ever seen.
type store struct {
	clock  clock.Clock
	seed   maphash.Seed
	shards [64]shard
}

type shard struct {
	mu        sync.Mutex
	tat       map[string]int64
	lastSwept int // size after the last sweep
}

func newStore(c clock.Clock) *store {
	s := &store{clock: c, seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].tat = map[string]int64{}
	}
	return s
}

func (s *store) shard(key string) *shard {
	return &s.shards[maphash.String(s.seed, key)%uint64(len(s.shards))]
}

// GetWithTime implements throttled.GCRAStoreCtx. The time is the call's
// instant when the limiter passes one.
func (s *store) GetWithTime(ctx context.Context, key string) (int64, time.Time, error) {
	sh := s.shard(key)
	sh.mu.Lock()
	v, ok := sh.tat[key]
	sh.mu.Unlock()
	if !ok {
		v = -1
	}
	if at, isAt := ctx.(*instant); isAt {
		at.read = tatState{v, ok}
		return v, at.now, nil
	}
	return v, s.clock.Now(), nil
}

// tat returns the TAT of kind+subject, without building the key string.
func (s *store) tat(kind byte, subject string) (int64, bool) {
	var a [64]byte
	b := append(append(a[:0], kind), subject...)
	sh := &s.shards[maphash.Bytes(s.seed, b)%uint64(len(s.shards))]
	sh.mu.Lock()
	v, ok := sh.tat[string(b)]
	sh.mu.Unlock()
	return v, ok
}

// SetIfNotExistsWithTTL implements throttled.GCRAStoreCtx.
func (s *store) SetIfNotExistsWithTTL(_ context.Context, key string, value int64, _ time.Duration) (bool, error) {
	sh := s.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, ok := sh.tat[key]; ok {
		return false, nil
	}
	sh.tat[strings.Clone(key)] = value // key may share its bytes with other keys (Take)
	if len(sh.tat) > 2*max(sh.lastSwept, 64) {
		sh.sweep(s.clock.Now().UnixNano())
	}
	return true, nil
}

// CompareAndSwapWithTTL implements throttled.GCRAStoreCtx.
func (s *store) CompareAndSwapWithTTL(_ context.Context, key string, old, new int64, _ time.Duration) (bool, error) {
	sh := s.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if v, ok := sh.tat[key]; !ok || v != old {
		return false, nil
	}
	sh.tat[key] = new
	return true, nil
}

// tatState is a key's entry as it was: its TAT, if it had one.
type tatState struct {
	tat int64
	ok  bool
}

// restore puts key's entry back as it was (absent, if it was). A sweep in
// between may have dropped a lapsed entry; restoring it changes no answer.
func (s *store) restore(key string, st tatState) {
	sh := s.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if st.ok {
		sh.tat[key] = st.tat
	} else {
		delete(sh.tat, key)
	}
}

// sweep drops the entries whose TAT has passed. The caller holds sh.mu.
func (sh *shard) sweep(now int64) {
	for k, v := range sh.tat {
		if v <= now {
			delete(sh.tat, k)
		}
	}
	sh.lastSwept = len(sh.tat)
}

// size is the number of keys held, for tests and metrics.
func (s *store) size() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.tat)
		sh.mu.Unlock()
	}
	return n
}
