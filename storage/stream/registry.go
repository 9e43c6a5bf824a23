package stream

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/slotd/slotd/actors/model"
)

// Registry is the cluster-wide index every node routes by: which
// business each API key belongs to, and which businesses exist. One entry
// per business in a replicated KV bucket (its name and its keys' hashes),
// written by the business's owner after every write that changes its
// keys and again whenever a node takes it over (so an owner lost between
// a write and its entry is repaired by the next), and watched by every
// node, which keeps the index in memory: routing a request reads a map.
//
// The entry follows the journal, it is not part of it: for the moments
// after a key change the other nodes may still route by the old entry.
// A key added is then refused as unknown (401) a moment longer; a key
// removed is forwarded to its business's owner, which refuses it, since
// the owner authenticates from the business's own state.
type Registry struct {
	kv  jetstream.KeyValue
	log *slog.Logger

	mu      sync.Mutex
	entries map[uuid.UUID]entry
	nodes   map[string]string    // cluster address -> hand-over address
	named   map[string]string    // node name -> hand-over address
	holders map[uuid.UUID]string // business -> the node whose incarnation holds its owner record (owner.go)
	views   map[string]viewEntry // node name -> its view of the membership (views.go)
	leases  map[string]leaseSeen // node name -> its lease key's last revision seen (views.go)
	keys    atomic.Pointer[map[model.KeyHash]uuid.UUID]
	synced  chan struct{} // closed once the watch delivered every entry
	built   bool          // the key index is built (after synced); under mu
}

type entry struct {
	Name string   `json:"name"`
	Keys []string `json:"keys"` // hex SHA-256 of each key
}

// OpenRegistry opens (creating if needed) the registry bucket and starts
// watching it; it returns once the index holds every entry.
func OpenRegistry(ctx context.Context, j *Journal, bucket string, log *slog.Logger) (*Registry, error) {
	if bucket == "" {
		bucket = "slotd-businesses"
	}
	kv, err := openBucket(ctx, j.js, jetstream.KeyValueConfig{Bucket: bucket, Replicas: j.cfg.Replicas,
		Storage: jetstream.FileStorage, History: 1})
	if err != nil {
		return nil, fmt.Errorf("stream: creating %s: %w", bucket, err)
	}
	r := &Registry{kv: kv, log: log, entries: map[uuid.UUID]entry{}, nodes: map[string]string{}, named: map[string]string{}, holders: map[uuid.UUID]string{}, views: map[string]viewEntry{}, leases: map[string]leaseSeen{}, synced: make(chan struct{})}
	empty := map[model.KeyHash]uuid.UUID{}
	r.keys.Store(&empty)
	w, err := kv.WatchAll(context.Background())
	if err != nil {
		return nil, err
	}
	go r.watch(w)
	select {
	case <-r.synced:
		return r, nil
	case <-ctx.Done():
		_ = w.Stop()
		return nil, ctx.Err()
	}
}

func (r *Registry) watch(w jetstream.KeyWatcher) {
	initial := true
	for e := range w.Updates() {
		if e == nil {
			if initial {
				initial = false
				r.mu.Lock()
				r.keys.Store(keyIndex(r.entries))
				r.built = true
				r.mu.Unlock()
				close(r.synced)
			}
			continue
		}
		if strings.HasPrefix(e.Key(), nodePrefix) {
			r.setNode(e)
			continue
		}
		if strings.HasPrefix(e.Key(), viewPrefix) {
			r.setView(e)
			continue
		}
		if strings.HasPrefix(e.Key(), leasePrefix) {
			r.setLease(e)
			continue
		}
		if strings.HasPrefix(e.Key(), ownerPrefix) {
			r.setHolder(e)
			continue
		}
		id, err := uuid.Parse(e.Key())
		if err != nil {
			continue
		}
		var en entry
		if e.Operation() == jetstream.KeyValuePut {
			if err := json.Unmarshal(e.Value(), &en); err != nil {
				r.log.Warn("unreadable registry entry", "business", id, "err", err)
				continue
			}
		}
		r.set(id, en, e.Operation() == jetstream.KeyValuePut)
	}
}

// set replaces business id's entry in the index. While the watch
// delivers the bucket's first contents (not yet built) only the
// entries are kept, and the key index is built once at the end: rebuilt
// per entry, a start would cost O(businesses²).
func (r *Registry) set(id uuid.UUID, en entry, present bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.entries[id]
	if present {
		r.entries[id] = en
	} else {
		delete(r.entries, id)
	}
	if !r.built {
		return
	}
	next := maps.Clone(*r.keys.Load()) // copy-on-write: readers never lock
	for _, h := range hashes(old.Keys) {
		if next[h] == id {
			delete(next, h)
		}
	}
	for _, h := range hashes(en.Keys) {
		next[h] = id
	}
	r.keys.Store(&next)
}

// keyIndex builds the key index of entries.
func keyIndex(entries map[uuid.UUID]entry) *map[model.KeyHash]uuid.UUID {
	idx := map[model.KeyHash]uuid.UUID{}
	for biz, e := range entries {
		for _, h := range hashes(e.Keys) {
			idx[h] = biz
		}
	}
	return &idx
}

// hashes decodes hex key hashes, skipping any that is not one.
func hashes(keys []string) []model.KeyHash {
	out := make([]model.KeyHash, 0, len(keys))
	for _, k := range keys {
		var h model.KeyHash
		if b, err := hex.DecodeString(k); err == nil && len(b) == len(h) {
			copy(h[:], b)
			out = append(out, h)
		}
	}
	return out
}

// Owner implements business.KeyIndex.
func (r *Registry) Owner(h model.KeyHash) (uuid.UUID, bool) {
	id, ok := (*r.keys.Load())[h]
	return id, ok
}

// Changed implements business.KeyIndex: the owner of biz changed its
// keys. The index is updated here at once and the entry written behind.
func (r *Registry) Changed(biz uuid.UUID, name string, added, removed []model.KeyHash) {
	r.mu.Lock()
	en := r.entries[biz]
	en.Name = name
	set := map[string]bool{}
	for _, k := range en.Keys {
		set[k] = true
	}
	for _, h := range removed {
		delete(set, hex.EncodeToString(h[:]))
	}
	for _, h := range added {
		set[hex.EncodeToString(h[:])] = true
	}
	r.mu.Unlock()
	r.Publish(biz, en.Name, slices.Sorted(maps.Keys(set)))
}

// Publish writes business biz's entry: its name and its keys' hex hashes.
func (r *Registry) Publish(biz uuid.UUID, name string, keys []string) {
	en := entry{Name: name, Keys: keys}
	r.set(biz, en, true)
	val, _ := json.Marshal(en)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := r.kv.Put(ctx, biz.String(), val); err != nil {
		r.log.Warn("registry entry not written; the next take-over writes it", "business", biz, "err", err)
	}
}

// PublishHashes is Publish for key hashes.
func (r *Registry) PublishHashes(biz uuid.UUID, name string, hashes []model.KeyHash) {
	keys := make([]string, len(hashes))
	for i, h := range hashes {
		keys[i] = hex.EncodeToString(h[:])
	}
	slices.Sort(keys)
	r.Publish(biz, name, keys)
}

// nodePrefix starts the key of a node's entry: its cluster address and
// the address of its hand-over listener.
const nodePrefix = "node."

type nodeEntry struct {
	Cluster  string `json:"cluster"`
	HandOver string `json:"handover"`
}

func (r *Registry) setNode(e jetstream.KeyValueEntry) {
	var n nodeEntry
	if e.Operation() != jetstream.KeyValuePut || json.Unmarshal(e.Value(), &n) != nil {
		return
	}
	r.mu.Lock()
	r.nodes[n.Cluster] = n.HandOver
	r.named[e.Key()[len(nodePrefix):]] = n.HandOver
	r.mu.Unlock()
}

// PublishNode writes node name's entry: where the cluster reaches it and
// where its hand-over listener is.
func (r *Registry) PublishNode(ctx context.Context, name, cluster, handOver string) error {
	val, _ := json.Marshal(nodeEntry{Cluster: cluster, HandOver: handOver})
	return retry(ctx, func(ctx context.Context) error {
		_, err := r.kv.Put(ctx, nodePrefix+name, val)
		return err
	})
}

// HandOverAddr returns the hand-over address of the node whose cluster
// address is cluster.
func (r *Registry) HandOverAddr(cluster string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.nodes[cluster]
	return a, ok
}

// setHolder keeps which node holds a business's owner record: the node
// of the incarnation a "held" record names; none for a released one.
func (r *Registry) setHolder(e jetstream.KeyValueEntry) {
	id, err := uuid.Parse(e.Key()[len(ownerPrefix):])
	if err != nil {
		return
	}
	holder, ok := strings.CutPrefix(string(e.Value()), held)
	node, _, _ := strings.Cut(holder, "/")
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.Operation() != jetstream.KeyValuePut || !ok || node == "" {
		delete(r.holders, id)
		return
	}
	r.holders[id] = node
}

// HolderAddr returns the hand-over address of the node whose lease
// incarnation holds business biz's owner record, as this node's watch
// last delivered it, unless that is node self. It is where biz was being
// served a moment ago: a node that cannot place businesses itself (its
// lease is not valid, it is rejoining the cluster) hands a request there
// rather than hold it; the holder serves it only if it still may.
func (r *Registry) HolderAddr(biz uuid.UUID, self string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	node, ok := r.holders[biz]
	if !ok || node == self {
		return "", false
	}
	a, ok := r.named[node]
	return a, ok
}

// Has reports whether business id has an entry: whether it was ever put.
func (r *Registry) Has(id uuid.UUID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.entries[id]
	return ok
}

// Businesses calls fn with every business of the cluster, in id order.
func (r *Registry) Businesses(fn func(id uuid.UUID, name string) error) error {
	r.mu.Lock()
	ids := slices.SortedFunc(maps.Keys(r.entries), func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = r.entries[id].Name
	}
	r.mu.Unlock()
	for i, id := range ids {
		if err := fn(id, names[i]); err != nil {
			return err
		}
	}
	return nil
}

// Secret returns the cluster-wide value of name, making it with make the
// first time any node asks (the cursor-sealing secret: a cursor one node
// sealed opens on every other).
func (r *Registry) Secret(ctx context.Context, name string, make func() []byte) ([]byte, error) {
	key := "secret-" + name
	var v []byte
	err := retry(ctx, func(ctx context.Context) error {
		e, err := r.kv.Get(ctx, key)
		if err == nil {
			v = e.Value()
			return nil
		}
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			// Another node may create it first: the next attempt reads
			// what won.
			_, _ = r.kv.Create(ctx, key, make())
		}
		return err
	})
	return v, err
}
