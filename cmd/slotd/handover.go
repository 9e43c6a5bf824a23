package main

import (
	"errors"
	"net"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/transport"
)

// A request handed to another node travels over a kept-alive HTTP
// connection between the two nodes' hand-over listeners
// (--cluster-handover), not as a Proto.Actor message: measured on this
// VM, a message to a grain on another node and its answer took
// ~0.9–1.1 ms (the remote's endpoint writers, gRPC streams and mailboxes
// are some ten goroutine hand-offs), an HTTP round trip on loopback about
// a tenth of that. The cluster still decides where a business lives and
// activates it there (placement.Node.Forward asks it, then takes this
// road to the node it named); each node publishes its hand-over address
// beside its cluster address in the registry. Like the cluster port, the
// hand-over port belongs on the nodes' private network: what arrives
// there is served as the client's request.

// handOverPath is the hand-over listener's one endpoint.
const handOverPath = "/slotd/handover"

// handOverTimeout bounds one hand-over: the owner's answer to a write
// includes its journal append.
const handOverTimeout = 5 * time.Second

func newHandOverClient() *fasthttp.Client {
	return &fasthttp.Client{
		Name:                "slotd-handover",
		MaxConnsPerHost:     1024,
		MaxIdleConnDuration: time.Minute,
		ReadTimeout:         handOverTimeout,
		WriteTimeout:        handOverTimeout,
		MaxResponseBodySize: 64 << 20,
		// Never repeated by the client: it may have been served
		// (placement.Node.Forward decides what may be tried again).
		RetryIfErr: func(*fasthttp.Request, int, error) (bool, bool) { return false, false },
	}
}

// handOver is placement.Config.HandOver: req to the node whose cluster
// address is addr, through its hand-over listener.
func (cn *clusterNode) handOver(addr string, req []byte) (answer []byte, handled, sent bool, err error) {
	to, ok := cn.registry.HandOverAddr(addr)
	if !ok {
		return nil, false, false, nil
	}
	r, w := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(r)
	defer fasthttp.ReleaseResponse(w)
	r.Header.SetMethod(fasthttp.MethodPost)
	r.SetRequestURI("http://" + to + handOverPath)
	r.SetBodyRaw(req)
	if err := cn.client.DoTimeout(r, w, handOverTimeout); err != nil {
		return nil, true, !refused(err), err
	}
	if w.StatusCode() != fasthttp.StatusOK {
		return nil, true, true, errors.New("hand-over answered " + fasthttp.StatusMessage(w.StatusCode()))
	}
	return append([]byte(nil), w.Body()...), true, true, nil
}

// refused reports whether err means the request never left: the node
// could not be connected to (it is gone).
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" || errors.Is(err, fasthttp.ErrDialTimeout)
}

// handOverServer serves the hand-over listener.
func (cn *clusterNode) handOverServer() *fasthttp.Server {
	return &fasthttp.Server{
		Name:               "slotd-handover",
		MaxRequestBodySize: transport.MaxAdminBody + 64<<10,
		ReadTimeout:        time.Minute,
		IdleTimeout:        5 * time.Minute,
		Handler: func(ctx *fasthttp.RequestCtx) {
			if string(ctx.Path()) != handOverPath || !ctx.IsPost() {
				ctx.SetStatusCode(fasthttp.StatusNotFound)
				return
			}
			if n := cn.node.Load(); n != nil {
				ctx.SetBody(n.ServeHandOver(ctx.PostBody()))
			} else {
				ctx.SetStatusCode(503)
			}
		},
	}
}
