package transport

import (
	"context"
	"net"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/transport/admin"
	"github.com/slotd/slotd/transport/api"
	"github.com/slotd/slotd/transport/handover"
)

// fakeCluster is one node's view of placement. lapsed makes Serving
// false: the node's lease ran out after Local said yes.
type fakeCluster struct{ local, lapsed bool }

func (f *fakeCluster) Local(uuid.UUID) bool { return f.local }
func (f *fakeCluster) Serving() bool        { return !f.lapsed }
func (f *fakeCluster) NotReady() string     { return "" }
func (f *fakeCluster) Businesses(func(uuid.UUID, string) error) error {
	return nil
}

// fakeOwners names the owner's hand-over address: after unknown answers
// of no address, then the addresses of addrs in turn (the last repeats).
// With err set, every answer is the first address (if any) and err.
type fakeOwners struct {
	mu      sync.Mutex
	unknown int
	addrs   []string
	local   bool
	err     error
	asked   int
	forgot  int
}

func (o *fakeOwners) Owner(context.Context, uuid.UUID) (string, bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.asked++
	if o.local {
		return "", true, nil
	}
	if o.err != nil {
		if len(o.addrs) == 0 {
			return "", false, o.err
		}
		return o.addrs[0], false, o.err
	}
	if o.unknown > 0 {
		o.unknown--
		return "", false, nil
	}
	a := o.addrs[0]
	if len(o.addrs) > 1 {
		o.addrs = o.addrs[1:]
	}
	return a, false, nil
}

func (o *fakeOwners) Forget(uuid.UUID) {
	o.mu.Lock()
	o.forgot++
	o.mu.Unlock()
}

// handOverListener serves h on a loopback port, as a node's
// --cluster-handover listener, and returns its address.
func handOverListener(t *testing.T, h fasthttp.RequestHandler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &fasthttp.Server{Handler: h, MaxRequestBodySize: admin.MaxBody + 64<<10}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Shutdown() })
	return ln.Addr().String()
}

// twoNodes returns a front node whose requests for the business are
// handed to owner over a real hand-over listener, and owner.
func twoNodes(t *testing.T) (front, owner *Server, owners *fakeOwners) {
	owner = newServer(t, model.Pro, 2)
	owner.edge.Cluster, owner.edge.NodeName = &fakeCluster{local: true}, "owner"
	owner.edge.HandOver = handover.New(&fakeOwners{local: true})
	addr := handOverListener(t, owner.HandOverHandler())
	front = newServer(t, model.Pro, 2)
	owners = &fakeOwners{addrs: []string{addr}}
	front.edge.Cluster, front.edge.NodeName, front.edge.HandOver = &fakeCluster{}, "front", handover.New(owners)
	return front, owner, owners
}

func forwardedCount(s *Server) uint64 {
	f, _ := s.edge.HandOver.Counts()
	return f
}

func TestHandOver(t *testing.T) {
	front, owner, _ := twoNodes(t)
	ctx := request(front.Public(), "GET", "/api/v1/services", "sk_all")
	require.Equal(t, 200, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
	require.Equal(t, uint64(1), forwardedCount(front))
	_, served := owner.edge.HandOver.Counts()
	require.Equal(t, uint64(1), served)
	require.Equal(t, "owner", string(ctx.Response.Header.Peek("X-Slotd-Node")), "the owner answered")
	require.NotEmpty(t, ctx.Response.Header.Peek("X-RateLimit-Limit"), "its headers as it spelled them")
	require.NotEmpty(t, ctx.Response.Header.Peek("X-Request-Id"), "the front's request id")
	direct := request(owner.Public(), "GET", "/api/v1/services", "sk_all")
	require.Equal(t, string(direct.Response.Body()), string(ctx.Response.Body()))

	// A client cannot speak for the front node: its own hand-over headers
	// are replaced.
	var c fasthttp.RequestCtx
	c.Request.Header.SetMethod("GET")
	c.Request.SetRequestURI("/api/v1/services")
	c.Request.Header.Set("Authorization", "Bearer sk_all")
	c.Request.Header.Set("X-Slotd-Too-Large", "1")
	c.Request.Header.Set("X-Slotd-Handover", "admin")
	front.Public()(&c)
	require.Equal(t, 200, c.Response.StatusCode(), "%s", c.Response.Body())

	// Unknown keys are refused on the front node: nothing to hand over.
	ctx = request(front.Public(), "GET", "/api/v1/services", "sk_nobody")
	require.Equal(t, 401, ctx.Response.StatusCode())
	require.Equal(t, uint64(2), forwardedCount(front))
}

func TestHandOverKeepsTheBodyVerdict(t *testing.T) {
	front, _, _ := twoNodes(t)
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI("/api/v1/appointments")
	ctx.Request.Header.Set("Authorization", "Bearer sk_all")
	ctx.Request.Header.Set("Idempotency-Key", "k")
	ctx.Request.SetBody([]byte(`{"x":"` + strings.Repeat("a", api.MaxBody) + `"}`))
	front.Public()(&ctx)
	require.Equal(t, 400, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
	require.Contains(t, string(ctx.Response.Body()), `"reason":"too_large"`)
	require.Equal(t, uint64(1), forwardedCount(front), "refused by the owner, after authenticating there")
	require.True(t, ctx.Response.ConnectionClose(), "the unread rest of the body closes the front's connection")
}

// The road's one retry policy: a request that went nowhere (no owner
// named yet, a node that refuses connections) is tried again; one that
// may have reached the owner is not.
func TestHandOverRetriesOnlyWhatWentNowhere(t *testing.T) {
	front, _, owners := twoNodes(t)
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	goneAddr := gone.Addr().String()
	require.NoError(t, gone.Close())
	owners.unknown, owners.addrs = 2, append([]string{goneAddr}, owners.addrs...)
	ctx := request(front.Public(), "GET", "/api/v1/services", "sk_all")
	require.Equal(t, 200, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
	require.Equal(t, 4, owners.asked, "twice unknown, once refused, then served")
	require.Equal(t, 1, owners.forgot)

	// A node that takes the request and hangs up: it may have served it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Read(make([]byte, 4096))
			_ = c.Close()
		}
	}()
	owners.asked, owners.addrs = 0, []string{ln.Addr().String()}
	ctx = request(front.Public(), "GET", "/api/v1/services", "sk_all")
	require.Equal(t, 503, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
	require.Equal(t, "1", string(ctx.Response.Header.Peek("Retry-After")))
	require.Equal(t, 1, owners.asked, "not repeated")
}

// The hand-over listener serves only handed-over requests, and refuses a
// business that moved on while its request travelled.
func TestHandOverListenerRefuses(t *testing.T) {
	_, owner, _ := twoNodes(t)
	h := owner.HandOverHandler()
	ctx := request(h, "GET", "/api/v1/services", "sk_all")
	require.Equal(t, 400, ctx.Response.StatusCode(), "no hand-over headers")

	owner.edge.Cluster = &fakeCluster{local: false}
	var c fasthttp.RequestCtx
	c.Request.Header.SetMethod("GET")
	c.Request.SetRequestURI("/api/v1/services")
	c.Request.Header.Set("Authorization", "Bearer sk_all")
	c.Request.Header.Set("X-Slotd-Handover", "public")
	c.Request.Header.Set("X-Slotd-Client-Addr", "192.0.2.7")
	h(&c)
	require.Equal(t, 503, c.Response.StatusCode(), "%s", c.Response.Body())
	require.Equal(t, "1", string(c.Response.Header.Peek("Retry-After")))
}

// FuzzHandOverListener: whatever a handed-over request says about itself,
// the owner answers without a server error and never panics.
func FuzzHandOverListener(f *testing.F) {
	f.Add("public", "192.0.2.7", "", "GET", "/api/v1/services", "")
	f.Add("admin", "::1", "1", "PUT", "/admin/v1/businesses/x", "{}")
	f.Add("nowhere", "not an ip", "yes", "POST", "/api/v1/appointments", `{"serviceId":1}`)
	owner := newServer(f, model.Pro, 1)
	owner.edge.Cluster, owner.edge.NodeName = &fakeCluster{local: true}, "owner"
	owner.edge.HandOver = handover.New(&fakeOwners{local: true})
	h := owner.HandOverHandler()
	f.Fuzz(func(t *testing.T, listener, client, tooLarge, method, uri, body string) {
		var c fasthttp.RequestCtx
		c.Request.Header.SetMethod(method)
		c.Request.SetRequestURI(uri)
		c.Request.Header.Set("Authorization", "Bearer sk_all")
		c.Request.Header.Set("X-Slotd-Handover", listener)
		c.Request.Header.Set("X-Slotd-Client-Addr", client)
		c.Request.Header.Set("X-Slotd-Too-Large", tooLarge)
		c.Request.SetBodyString(body)
		h(&c)
		if c.Response.StatusCode() >= 500 {
			t.Fatalf("%d: %s", c.Response.StatusCode(), c.Response.Body())
		}
	})
}

// A world loaded on one node puts each business on its node through the
// engine: the owner's directory, by the road's engine call, not an admin
// request.
func TestWorldPutOnTheOwner(t *testing.T) {
	front, owner, _ := twoNodes(t)
	data, err := os.ReadFile("../cmd/slotd/testdata/world.json")
	require.NoError(t, err)
	rs, err := front.PutWorldClustered(context.Background(), data)
	require.NoError(t, err)
	require.NotEmpty(t, rs)
	for _, r := range rs {
		require.Equal(t, r.ID != bizID, r.Created, "%+v (the test business exists already)", rs)
		require.True(t, r.Changed)
		h, ok := owner.api.Dir.Loaded(r.ID)
		require.True(t, ok, "on the owner")
		require.NotNil(t, h.State())
		if r.ID != bizID { // every test server has that one
			_, ok = front.api.Dir.Loaded(r.ID)
			require.False(t, ok, "not on the front")
		}
	}
	forwarded, _ := front.edge.HandOver.Counts()
	require.Equal(t, uint64(len(rs)), forwarded)

	// Again: nothing changes, and the engine call is refused on a node
	// the business moved away from.
	rs, err = front.PutWorldClustered(context.Background(), data)
	require.NoError(t, err)
	require.False(t, rs[0].Changed)
	owner.edge.Cluster = &fakeCluster{local: false}
	_, err = front.PutWorldClustered(context.Background(), data)
	var pe *admin.PutError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, 503, pe.Status)
}

// TestSettleRefusesWhatALapsedLeaseServed: a node whose lease ran out
// between routing a request to its own state and making the answer (it
// was paused meanwhile) sends a 503 instead — on its own listener and on
// the hand-over road — and the answer keeps its request id.
func TestSettleRefusesWhatALapsedLeaseServed(t *testing.T) {
	front, owner, _ := twoNodes(t)
	owner.edge.Cluster = &fakeCluster{local: true, lapsed: true}
	for name, h := range map[string]fasthttp.RequestHandler{"own listener": owner.Public(), "handed over": front.Public()} {
		ctx := request(h, "GET", "/api/v1/services", "sk_all")
		require.Equal(t, 503, ctx.Response.StatusCode(), "%s: %s", name, ctx.Response.Body())
		require.Contains(t, string(ctx.Response.Body()), `"code":"SERVICE_UNAVAILABLE"`, name)
		require.Equal(t, "1", string(ctx.Response.Header.Peek("Retry-After")), name)
		require.NotEmpty(t, ctx.Response.Header.Peek("X-Request-Id"), name)
	}
	require.Equal(t, uint64(2), owner.Withheld(), "counted")
	require.Zero(t, front.Withheld(), "the front node handed them over; it withheld nothing")
	// Valid again: served.
	owner.edge.Cluster = &fakeCluster{local: true}
	ctx := request(front.Public(), "GET", "/api/v1/services", "sk_all")
	require.Equal(t, 200, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
	// A request that is not served from a business's state (no key, no
	// business) is not this check's: a 401 stays a 401.
	owner.edge.Cluster = &fakeCluster{local: true, lapsed: true}
	ctx = request(owner.Public(), "GET", "/api/v1/services", "sk_nobody")
	require.Equal(t, 401, ctx.Response.StatusCode())
}

// TestHandOverNotNowAnswersAtOnce: a node that cannot place businesses
// (rejoining, its lease not valid) answers 503 at once — asking once —
// instead of holding the request for the hand-over's timeout; given the
// owner on record it hands the request there once, and a refused
// connection is the same 503, not a retry.
func TestHandOverNotNowAnswersAtOnce(t *testing.T) {
	front, _, owners := twoNodes(t)

	owners.err = handover.ErrNotNow
	ctx := request(front.Public(), "GET", "/api/v1/services", "sk_all")
	require.Equal(t, 503, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
	require.Contains(t, string(ctx.Response.Body()), "another node")
	require.Equal(t, 1, owners.asked, "asked once, not until the hand-over's timeout")

	owners.err, owners.asked = handover.ErrTryOnce, 0
	ctx = request(front.Public(), "GET", "/api/v1/services", "sk_all")
	require.Equal(t, 200, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
	require.Equal(t, "owner", string(ctx.Response.Header.Peek("X-Slotd-Node")))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	gone := ln.Addr().String()
	ln.Close()
	owners.addrs, owners.asked = []string{gone}, 0
	ctx = request(front.Public(), "GET", "/api/v1/services", "sk_all")
	require.Equal(t, 503, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
	require.Equal(t, 1, owners.asked, "the owner on record is tried once")
}
