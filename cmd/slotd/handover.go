package main

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/transport/admin"
	"github.com/slotd/slotd/transport/handover"
)

// A request for a business another node owns takes the one road of
// package transport/handover: proxied as HTTP to that node's hand-over
// listener (--cluster-handover), on the nodes' private network, where
// what arrives is served as the client's request. The cluster decides
// where a business lives and activates it there (placement.Node.Owner);
// each node publishes its hand-over address beside its cluster address in
// the registry, and Owner here turns the one into the other.

// Owner implements handover.Owners.
//
// A node places businesses only while it may serve them: it is a member
// and its lease is valid. A node that may not — paused past its lease,
// rejoining the cluster — must neither serve what it still runs (its
// state may be older than writes another node acknowledged since) nor
// hold the request while it finds its feet: it hands the request to the
// node the journal's owner record names, once, or answers 503 at once
// (handover.ErrNotNow).
func (cn *clusterNode) Owner(ctx context.Context, biz uuid.UUID) (addr string, local bool, err error) {
	n := cn.node.Load()
	if n == nil || !n.Joined() || !cn.lease.Valid() {
		return cn.recorded(biz)
	}
	at, local, err := n.Owner(ctx, biz)
	if local && !cn.lease.Valid() { // activated here, but the lease ran out meanwhile
		return cn.recorded(biz)
	}
	if err != nil || local {
		return "", local, err
	}
	to, ok := cn.registry.HandOverAddr(at)
	if !ok {
		return "", false, nil // not published yet: asked again
	}
	return to, false, nil
}

// recorded is Owner for a node that cannot place businesses now: the
// hand-over address of the node holding biz's owner record, to be tried
// once.
func (cn *clusterNode) recorded(biz uuid.UUID) (string, bool, error) {
	if to, ok := cn.registry.HolderAddr(biz, cn.f.Node); ok {
		return to, false, handover.ErrTryOnce
	}
	return "", false, handover.ErrNotNow
}

// Forget implements handover.Owners.
func (cn *clusterNode) Forget(biz uuid.UUID) {
	if n := cn.node.Load(); n != nil {
		n.Forget(biz)
	}
}

// handOverServer serves the hand-over listener with handler.
func handOverServer(handler fasthttp.RequestHandler) *fasthttp.Server {
	return &fasthttp.Server{
		Name:               "slotd-handover",
		MaxRequestBodySize: admin.MaxBody + 64<<10,
		ReadTimeout:        time.Minute,
		IdleTimeout:        5 * time.Minute,
		Handler:            handler,
	}
}
