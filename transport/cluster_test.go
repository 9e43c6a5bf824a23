package transport

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/storage/catalog"
)

// fakeCluster is two nodes' view of placement: the business lives on
// owner; a hand-over is owner.ServeForwarded.
type fakeCluster struct {
	local     bool
	owner     *Server
	forwarded int
}

func (f *fakeCluster) Local(uuid.UUID) bool { return f.local }
func (f *fakeCluster) NotReady() string     { return "" }
func (f *fakeCluster) Businesses(func(uuid.UUID, string) error) error {
	return nil
}

func (f *fakeCluster) Forward(_ context.Context, _ uuid.UUID, req []byte) ([]byte, error) {
	f.forwarded++
	return f.owner.ServeForwarded(req), nil
}

// twoNodes returns a front node whose requests for the business are
// handed to owner, and owner.
func twoNodes(t *testing.T) (front, owner *Server, fc *fakeCluster) {
	owner = newServer(t, catalog.Pro, 2)
	owner.Cluster, owner.NodeName = &fakeCluster{local: true}, "owner"
	front = newServer(t, catalog.Pro, 2)
	fc = &fakeCluster{owner: owner}
	front.Cluster, front.NodeName = fc, "front"
	return front, owner, fc
}

func TestHandOver(t *testing.T) {
	front, owner, fc := twoNodes(t)
	ctx := request(front.Public(), "GET", "/api/v1/services", "sk_all")
	require.Equal(t, 200, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
	require.Equal(t, 1, fc.forwarded)
	require.Equal(t, "owner", string(ctx.Response.Header.Peek(nodeHeader)), "the owner answered")
	require.NotEmpty(t, ctx.Response.Header.Peek("X-RateLimit-Limit"), "its headers as it spelled them")
	require.NotEmpty(t, ctx.Response.Header.Peek(requestIDHeader), "the front's request id")
	direct := request(owner.Public(), "GET", "/api/v1/services", "sk_all")
	require.Equal(t, string(direct.Response.Body()), string(ctx.Response.Body()))

	// Unknown keys are refused on the front node: nothing to hand over.
	ctx = request(front.Public(), "GET", "/api/v1/services", "sk_nobody")
	require.Equal(t, 401, ctx.Response.StatusCode())
	require.Equal(t, 1, fc.forwarded)
}

func TestHandOverKeepsTheBodyVerdict(t *testing.T) {
	front, _, fc := twoNodes(t)
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI("/api/v1/appointments")
	ctx.Request.Header.Set("Authorization", "Bearer sk_all")
	ctx.Request.Header.Set("Idempotency-Key", "k")
	ctx.Request.SetBody([]byte(`{"x":"` + strings.Repeat("a", MaxBody) + `"}`))
	front.Public()(&ctx)
	require.Equal(t, 400, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
	require.Contains(t, string(ctx.Response.Body()), `"reason":"too_large"`)
	require.Equal(t, 1, fc.forwarded, "refused by the owner, after authenticating there")
}

func TestServeForwardedRefuses(t *testing.T) {
	_, owner, _ := twoNodes(t)
	status := func(raw []byte) int {
		var resp fasthttp.Response
		require.NoError(t, resp.Read(bufio.NewReader(bytes.NewReader(owner.ServeForwarded(raw)))))
		return resp.StatusCode()
	}
	require.Equal(t, 400, status(nil))
	require.Equal(t, 400, status([]byte("p\x00\x09127.0.0.1not http")))

	// A business that moved on while the request travelled.
	owner.Cluster = &fakeCluster{local: false}
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.SetRequestURI("/api/v1/services")
	ctx.Request.Header.Set("Authorization", "Bearer sk_all")
	raw, err := encodeForward(&ctx, fwdPublic)
	require.NoError(t, err)
	var resp fasthttp.Response
	require.NoError(t, resp.Read(bufio.NewReader(bytes.NewReader(owner.ServeForwarded(raw)))))
	require.Equal(t, 503, resp.StatusCode())
	require.Equal(t, "1", string(resp.Header.Peek("Retry-After")))
}

// FuzzServeForwarded: whatever bytes arrive as a handed-over request, the
// owner answers with a well-formed HTTP response and never panics.
func FuzzServeForwarded(f *testing.F) {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.SetRequestURI("/api/v1/services")
	ctx.Request.Header.Set("Authorization", "Bearer sk_all")
	for _, l := range []byte{fwdPublic, fwdAdmin} {
		raw, err := encodeForward(&ctx, l)
		require.NoError(f, err)
		f.Add(raw)
	}
	f.Add([]byte("p\x01\x03::1POST /api/v1/appointments HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"))
	owner := newServer(f, catalog.Pro, 1)
	owner.Cluster, owner.NodeName = &fakeCluster{local: true}, "owner"
	f.Fuzz(func(t *testing.T, raw []byte) {
		var resp fasthttp.Response
		if err := resp.Read(bufio.NewReader(bytes.NewReader(owner.ServeForwarded(raw)))); err != nil {
			t.Fatalf("the answer is no HTTP response: %v", err)
		}
		if resp.StatusCode() >= 500 {
			t.Fatalf("%d: %s", resp.StatusCode(), resp.Body())
		}
	})
}
