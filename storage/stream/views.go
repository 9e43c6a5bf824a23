package stream

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Each node publishes its view of the membership — its own cluster
// address and the addresses of the members it sees — in the registry
// bucket every second (key view.<node>), and reads everyone's from the
// registry's watch. So a node can tell not only whether it sees a
// majority, but whether a majority sees it: a node whose membership port
// the others cannot reach, while it reaches theirs, sees them all and
// would keep its lease, while they have dropped it and want its
// businesses. It serves only while both hold (cmd/slotd).
//
// Views only decide whether a node may hold its lease; they are not what
// keeps a business on one node (owner records are, owner.go). A stale or
// missing view costs availability, never safety.

// viewPrefix starts the key of a node's view.
const viewPrefix = "view."

// viewEntry is a published view.
type viewEntry struct {
	Addr string   `json:"addr"` // the node's own cluster address
	Sees []string `json:"sees"` // the members' cluster addresses it sees, its own included
}

func (r *Registry) setView(e jetstream.KeyValueEntry) {
	name := e.Key()[len(viewPrefix):]
	var v viewEntry
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.Operation() != jetstream.KeyValuePut || json.Unmarshal(e.Value(), &v) != nil {
		delete(r.views, name)
		return
	}
	r.views[name] = v
}

// PublishView writes node name's view: its cluster address and those of
// the members it sees.
func (r *Registry) PublishView(ctx context.Context, name, addr string, sees []string) error {
	val, _ := json.Marshal(viewEntry{Addr: addr, Sees: sees})
	_, err := r.kv.Put(ctx, viewPrefix+name, val)
	return err
}

// SeenBy returns how many of the nodes whose cluster addresses are among
// list addr in their latest views. Latest, not recent: a journal between
// leaders delays everyone's views alike, and must not make a node look
// unseen; the nodes counted are those in the caller's own view, so a lost
// node's last view does not count for long.
func (r *Registry) SeenBy(addr string, among []string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, v := range r.views {
		if slices.Contains(among, v.Addr) && slices.Contains(v.Sees, addr) {
			n++
		}
	}
	return n
}

// leaseSeen is a lease key's revision and when this node's watch
// delivered it.
type leaseSeen struct {
	rev uint64
	at  time.Time
}

func (r *Registry) setLease(e jetstream.KeyValueEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leases[e.Key()[len(leasePrefix):]] = leaseSeen{rev: e.Revision(), at: time.Now()}
}

// leaseSince returns when this node's watch delivered revision rev of
// node's lease key — a time after the renewal was sent — if it did.
func (r *Registry) leaseSince(node string, rev uint64) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.leases[node]
	return l.at, ok && l.rev == rev
}
