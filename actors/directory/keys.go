package directory

import (
	"maps"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
)

// keyTable is the single-node API-key index: key hash -> business. Every
// authenticated request reads it, so reads take no lock: the table is 256
// copy-on-write shards by the hash's first byte, and a change copies only
// the shards it touches. It was one copy-on-write map, copied whole on
// every change: loading a world of 100,000 businesses copied it 100,000
// times, 17 % of the load's CPU and quadratic in the businesses (issue 23).
type keyTable struct {
	mu     sync.Mutex // serializes changes; reads do not take it
	shards [256]atomic.Pointer[map[model.KeyHash]uuid.UUID]
}

func (t *keyTable) owner(h model.KeyHash) (uuid.UUID, bool) {
	m := t.shards[h[0]].Load()
	if m == nil {
		return uuid.UUID{}, false
	}
	id, ok := (*m)[h]
	return id, ok
}

// set makes the table hold all, at start.
func (t *keyTable) set(all map[model.KeyHash]uuid.UUID) {
	var parts [256]map[model.KeyHash]uuid.UUID
	for h, id := range all {
		if parts[h[0]] == nil {
			parts[h[0]] = map[model.KeyHash]uuid.UUID{}
		}
		parts[h[0]][h] = id
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range parts {
		if parts[i] != nil {
			t.shards[i].Store(&parts[i])
		} else {
			t.shards[i].Store(nil)
		}
	}
}

// change gives business biz the keys added and takes from it the keys
// removed (a removed key another business holds by now stays that one's).
func (t *keyTable) change(biz uuid.UUID, added, removed []model.KeyHash) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var next [256]map[model.KeyHash]uuid.UUID // the shards copied so far
	shard := func(i byte) map[model.KeyHash]uuid.UUID {
		if next[i] == nil {
			if cur := t.shards[i].Load(); cur != nil {
				next[i] = maps.Clone(*cur)
			} else {
				next[i] = map[model.KeyHash]uuid.UUID{}
			}
		}
		return next[i]
	}
	for _, h := range removed {
		if m := shard(h[0]); m[h] == biz {
			delete(m, h)
		}
	}
	for _, h := range added {
		shard(h[0])[h] = biz
	}
	for i := range next {
		if next[i] != nil {
			t.shards[i].Store(&next[i])
		}
	}
}

// keyLocks serializes the writes that claim the same keys: the check
// "this key belongs to nobody else" and the commit that claims it must not
// interleave with another write claiming it. Writes whose keys differ run
// at once, and share their journal syncs; one lock for all of them made a
// world load put its businesses one sync at a time.
type keyLocks [64]sync.Mutex

// lock takes the stripes of hashes, in ascending order so that two writes
// never wait for each other, and returns what releases them.
func (l *keyLocks) lock(hashes func(yield func(model.KeyHash) bool)) (unlock func()) {
	var set uint64
	for h := range hashes {
		set |= 1 << (h[0] % 64)
	}
	for i := range 64 {
		if set&(1<<i) != 0 {
			l[i].Lock()
		}
	}
	return func() {
		for i := range 64 {
			if set&(1<<i) != 0 {
				l[i].Unlock()
			}
		}
	}
}
