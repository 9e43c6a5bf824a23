package main

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/transport/admin"
)

// A request for a business another node owns takes the one road of
// package transport/handover: proxied as HTTP to that node's hand-over
// listener (--cluster-handover), on the nodes' private network, where
// what arrives is served as the client's request. The cluster decides
// where a business lives and activates it there (placement.Node.Owner);
// each node publishes its hand-over address beside its cluster address in
// the registry, and Owner here turns the one into the other.

// Owner implements handover.Owners.
func (cn *clusterNode) Owner(ctx context.Context, biz uuid.UUID) (addr string, local bool, err error) {
	n := cn.node.Load()
	if n == nil {
		return "", false, errNotMember
	}
	at, local, err := n.Owner(ctx, biz)
	if err != nil || local {
		return "", local, err
	}
	to, ok := cn.registry.HandOverAddr(at)
	if !ok {
		return "", false, nil // not published yet: asked again
	}
	return to, false, nil
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
