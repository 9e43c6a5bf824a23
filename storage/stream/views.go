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

// view is a view as this node holds it: with when it arrived.
type view struct {
	viewEntry
	at time.Time
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
	r.views[name] = view{viewEntry: v, at: time.Now()}
}

// PublishView writes node name's view: its cluster address and those of
// the members it sees.
func (r *Registry) PublishView(ctx context.Context, name, addr string, sees []string) error {
	val, _ := json.Marshal(viewEntry{Addr: addr, Sees: sees})
	_, err := r.kv.Put(ctx, viewPrefix+name, val)
	return err
}

// SeenBy returns how many nodes' views, each received within fresh, list
// addr among the members they see.
func (r *Registry) SeenBy(addr string, fresh time.Duration) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, v := range r.views {
		if time.Since(v.at) < fresh && slices.Contains(v.Sees, addr) {
			n++
		}
	}
	return n
}
