package transport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/transport/edge"
)

// TestMetricsEndpoint: /metrics serves the text format, behind the admin
// token when one is set, like every other read of the admin listener.
func TestMetricsEndpoint(t *testing.T) {
	s := newServer(t, model.Pro, 1)
	request(s.Public(), "GET", "/api/v1/me", "sk_all")
	open := request(s.Admin(), "GET", "/metrics", "")
	require.Equal(t, 200, open.Response.StatusCode(), "no token: reads are open")
	body := string(open.Response.Body())
	require.Contains(t, body, `slotd_http_requests_total{code="200",listener="public",method="GET",route="/api/v1/me"} 1`)
	require.Contains(t, string(open.Response.Header.ContentType()), "text/plain")

	s.admin.Token = "secret"
	h := s.Admin()
	require.Equal(t, 401, request(h, "GET", "/metrics", "").Response.StatusCode())
	ctx := request(h, "GET", "/metrics", "secret")
	require.Equal(t, 200, ctx.Response.StatusCode())
	require.Contains(t, string(ctx.Response.Body()), `slotd_http_requests_total{code="401",listener="admin",method="GET",route="/metrics"} 1`)
	require.Equal(t, 200, request(h, "GET", "/healthz", "").Response.StatusCode(), "probes stay open")
}

// TestAccessLog: one line per request, with the route pattern and never
// the path, the query string, the key or anything from the body.
func TestAccessLog(t *testing.T) {
	s := newServer(t, model.Pro, 1)
	var buf bytes.Buffer
	var err error
	s.edge.AccessLog, err = edge.NewAccessLog(&buf, edge.AccessLogCompact)
	require.NoError(t, err)
	h := s.Public()
	id := s.mustState(t).Services[0].ID.String()
	ok := request(h, "GET", "/api/v1/services/"+id+"?email=noor@example.com", "sk_all")
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI("/api/v1/customers")
	ctx.Request.Header.Set("Authorization", "Bearer sk_all")
	ctx.Request.SetBodyString(`{"firstName":"Noor","email":"noor@example.com"}`)
	h(&ctx)
	request(h, "GET", "/secret/path/noor@example.com", "")

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 3, buf.String())
	rid := string(ok.Response.Header.Peek("X-Request-Id"))
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z access public GET /api/v1/services/\{id\} 400 [0-9.]+(µs|ms|s) request_id=`+rid+` business=`+bizID.String()+`$`, lines[0])
	require.Regexp(t, ` access public POST /api/v1/customers 403 \S+ request_id=\S+ business=`+bizID.String()+`$`, lines[1])
	require.Regexp(t, ` access public GET unmatched 404 \S+ request_id=\S+$`, lines[2], "no business without a key")
	for _, l := range lines {
		require.NotContains(t, l, "sk_all")
		require.NotContains(t, l, "@")
		require.NotContains(t, l, "?")
		require.NotContains(t, l, id)
		require.NotContains(t, l, "secret")
	}

	buf.Reset()
	s.edge.AccessLog, err = edge.NewAccessLog(&buf, edge.AccessLogJSON)
	require.NoError(t, err)
	request(s.Admin(), "GET", "/healthz", "")
	var rec map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), buf.String())
	require.Equal(t, "access", rec["msg"])
	require.Equal(t, "admin", rec["listener"])
	require.Equal(t, "GET", rec["method"])
	require.Equal(t, "/healthz", rec["route"])
	require.EqualValues(t, 200, rec["status"])
	require.Positive(t, rec["duration"])
	require.NotEmpty(t, rec["request_id"])
	require.NotContains(t, rec, "business")

	l, err := edge.NewAccessLog(&buf, edge.AccessLogOff)
	require.NoError(t, err)
	require.Nil(t, l)
	_, err = edge.NewAccessLog(&buf, "verbose")
	require.Error(t, err)
}
