// Package handover is the one road between cluster nodes. A request that
// arrives on a node for a business that lives on another is proxied, as
// the plain HTTP request it is, to the owner's hand-over listener
// (--cluster-handover, on the nodes' private network), which serves it
// with the very routes of its public or admin listener: authentication,
// quotas, idempotency and the refusal order are all decided where the
// business's state is. The answer comes back as it was written.
//
// The front end asks one question of the cluster, Owners.Owner: is this
// business mine, and if not, at which hand-over address is its owner? This
// package does the rest, with one timeout (Timeout) and one retry policy:
// a request that certainly went nowhere (no owner known yet, its address
// not published yet, the connection refused) is tried again with a
// growing pause until the timeout; one that may have reached the owner is
// never repeated, since it may have been served: the client gets a 503
// and retries, with its Idempotency-Key where it matters.
//
// What the receiving node knows about the request travels in headers the
// hand-over listener takes off again: which listener it came in on, the
// client's address (per-address limits on the owner see the client, not
// the node), and that its body was over the limit.
package handover

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/problem"
)

// Timeout bounds one hand-over, the owner's answer included: a write's
// answer waits for its journal append.
const Timeout = 5 * time.Second

// Owners is the cluster's answer to where a business lives.
type Owners interface {
	// Owner returns the hand-over address (host:port) of business biz's
	// node, activating the business there if need be; local reports that
	// it is this node. An error or an empty address means no owner can be
	// named yet, and Forward asks again until its timeout — except
	// ErrNotNow, answered at once, and ErrTryOnce with an address, sent
	// there once.
	Owner(ctx context.Context, biz uuid.UUID) (addr string, local bool, err error)
	// Forget drops what Owner remembered of biz's node, after the address
	// it gave could not be reached.
	Forget(biz uuid.UUID)
}

// Listener says which of the receiving node's listeners a request came in
// on: its routes are the ones the owner serves it with.
type Listener string

// The listeners. Engine is none of the receiving node's: it carries the
// cluster's own calls of a business's engine on its node (a world file's
// business put where it lives), never a client's request.
const (
	Public Listener = "public"
	Admin  Listener = "admin"
	Engine Listener = "engine"
)

// The headers of a handed-over request. The hand-over listener takes them
// off before the routes see the request; the public and admin listeners
// never look at them (a client that sends them gains nothing).
const (
	headerListener = "X-Slotd-Handover"
	headerClient   = "X-Slotd-Client-Addr"
	headerTooLarge = "X-Slotd-Too-Large"
)

// ErrMoving is the answer to a request that could not be handed to its
// business's node within Timeout, or that may have been served there
// without an answer coming back.
var ErrMoving = problem.Moving(nil)

// ErrNotNow is Owner's answer when this node cannot place businesses now
// and will not within a hand-over's time (it is rejoining the cluster, or
// its lease is not valid): the request is answered 503 at once, for the
// client (or its load balancer, once /readyz says the same) to try
// another node, rather than held for Timeout.
var ErrNotNow = problem.New(problem.Unavailable, "This node cannot serve the business at the moment; retry, or send the request to another node.")

// ErrTryOnce comes with an address Owner did not find by placement but
// read from the journal's owner record: where the business was being
// served a moment ago, given by a node that cannot place businesses
// itself now. The request is sent there once: a refused connection is
// ErrNotNow, one that may have been served ErrMoving, as any.
var ErrTryOnce = errors.New("handover: the owner on record, to be tried once")

// Request is what the receiving node knows of a request besides its bytes.
type Request struct {
	Listener Listener
	Client   net.IP // the client's address
	TooLarge bool   // the body was over the listener's limit
}

// Node is this node's end of the road: it hands requests to their
// businesses' nodes (Forward) and serves those handed to it (Handler).
type Node struct {
	owners    Owners
	http      *fasthttp.Client
	forwarded atomic.Uint64
	served    atomic.Uint64
}

// New returns a Node asking owners where businesses live.
func New(owners Owners) *Node {
	return &Node{owners: owners, http: &fasthttp.Client{
		Name:                "slotd-handover",
		MaxConnsPerHost:     1024,
		MaxIdleConnDuration: time.Minute,
		ReadTimeout:         Timeout,
		WriteTimeout:        Timeout,
		MaxResponseBodySize: 64 << 20,
		// Never repeated by the client: it may have been served (Forward
		// decides what may be tried again).
		RetryIfErr:                    func(*fasthttp.Request, int, error) (bool, bool) { return false, false },
		DisableHeaderNamesNormalizing: true,
		DisablePathNormalizing:        true,
	}}
}

// CloseIdleConnections closes the kept-alive connections to other nodes.
func (c *Node) CloseIdleConnections() { c.http.CloseIdleConnections() }

// Counts returns the requests this node handed to others and those others
// handed to it.
func (c *Node) Counts() (forwarded, served uint64) { return c.forwarded.Load(), c.served.Load() }

// Forward proxies req, which arrived as r says, to business biz's node and
// writes its answer to resp. local reports that the business turned out
// to live here: nothing was sent, and the caller serves req itself.
func (c *Node) Forward(ctx context.Context, biz uuid.UUID, r Request, req *fasthttp.Request, resp *fasthttp.Response) (local bool, err error) {
	c.forwarded.Add(1)
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	out := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(out)
	req.CopyTo(out)
	// Whatever the client sent under these names is replaced: only this
	// node says what it knows.
	out.Header.Set(headerListener, string(r.Listener))
	out.Header.Set(headerClient, r.Client.String())
	out.Header.Del(headerTooLarge)
	if r.TooLarge {
		out.Header.Set(headerTooLarge, "1")
	}
	for attempt := 0; ; attempt++ {
		addr, here, err := c.owners.Owner(ctx, biz)
		switch {
		case here:
			return true, nil
		case errors.Is(err, ErrNotNow):
			return false, ErrNotNow
		case errors.Is(err, ErrTryOnce) && addr != "":
			if err := c.send(ctx, addr, out, resp); err != nil {
				if refused(err) {
					return false, ErrNotNow
				}
				return false, ErrMoving // it may have been served
			}
			return false, nil
		}
		if err == nil && addr != "" {
			err = c.send(ctx, addr, out, resp)
			if err == nil {
				return false, nil
			}
			if !refused(err) {
				return false, ErrMoving // it may have been served
			}
			c.owners.Forget(biz)
		}
		wait := min(time.Duration(attempt+1)*50*time.Millisecond, 500*time.Millisecond)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, ErrMoving
		case <-t.C:
		}
	}
}

func (c *Node) send(ctx context.Context, addr string, req *fasthttp.Request, resp *fasthttp.Response) error {
	req.SetHost(addr)
	req.URI().SetScheme("http")
	dl, _ := ctx.Deadline()
	return c.http.DoDeadline(req, resp, dl)
}

// refused reports whether err means the request never left: the node
// could not be connected to (it is gone, or not listening yet).
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" || errors.Is(err, fasthttp.ErrDialTimeout)
}

// Handler returns the hand-over listener's handler: it takes the hand-over
// headers off a request, restores the client's address, and serves it
// with the routes of the listener it came in on. A request without the
// headers, or naming no listener, is refused 400.
func (c *Node) Handler(routes func(Listener) fasthttp.RequestHandler, handedOver func(ctx *fasthttp.RequestCtx, tooLarge bool)) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		c.served.Add(1)
		h := &ctx.Request.Header
		l := Listener(h.Peek(headerListener))
		client := net.ParseIP(string(h.Peek(headerClient)))
		tooLarge := len(h.Peek(headerTooLarge)) > 0
		h.Del(headerListener)
		h.Del(headerClient)
		h.Del(headerTooLarge)
		handler := routes(l)
		if handler == nil || client == nil {
			ctx.Error("not a handed-over request", fasthttp.StatusBadRequest)
			return
		}
		ctx.SetRemoteAddr(&net.TCPAddr{IP: client})
		// The answer goes back with its header names as the routes spell
		// them, as the receiving node's own listener would write them.
		ctx.Response.Header.DisableNormalizing()
		handedOver(ctx, tooLarge)
		handler(ctx)
	}
}
