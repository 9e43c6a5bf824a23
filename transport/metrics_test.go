package transport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/quota"
)

// series returns the metric of family name whose labels include want, or nil.
func series(t *testing.T, g prometheus.Gatherer, name string, want map[string]string) *dto.Metric {
	t.Helper()
	mfs, err := g.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, lp := range m.GetLabel() {
				have[lp.GetName()] = lp.GetValue()
			}
			for k, v := range want {
				if have[k] != v {
					continue next
				}
			}
			return m
		}
	}
	return nil
}

func gatherer(s *Server) prometheus.Gatherer {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(s.Collector())
	return reg
}

// TestRequestMetrics: requests are counted by the route's pattern, never
// the path, with their method and status; requests that match no route
// share one route value, and a method a client made up is "other".
func TestRequestMetrics(t *testing.T) {
	s := newServer(t, model.Pro, 2)
	h := s.Public()
	id := s.mustState(t).Services[1].ID.String()
	for range 3 {
		require.Equal(t, 200, request(h, "GET", "/api/v1/services/"+id, "sk_all").Response.StatusCode())
	}
	require.Equal(t, 404, request(h, "GET", "/api/v1/services/nope", "sk_all").Response.StatusCode())
	require.Equal(t, 404, request(h, "GET", "/api/v1/nothing/here", "sk_all").Response.StatusCode())
	require.Equal(t, 405, request(h, "BREW", "/api/v1/services", "sk_all").Response.StatusCode())
	require.Equal(t, 401, request(h, "GET", "/api/v1/services", "").Response.StatusCode())
	g := gatherer(s)

	count := func(route, method, code string) float64 {
		m := series(t, g, "slotd_http_requests_total", map[string]string{"listener": "public", "route": route, "method": method, "code": code})
		if m == nil {
			return 0
		}
		return m.GetCounter().GetValue()
	}
	require.Equal(t, 3.0, count("/api/v1/services/{id}", "GET", "200"))
	require.Equal(t, 1.0, count("/api/v1/services/{id}", "GET", "404"), "an id that names nothing is still the route")
	require.Equal(t, 1.0, count("unmatched", "GET", "404"))
	require.Equal(t, 1.0, count("unmatched", "other", "405"))
	require.Equal(t, 1.0, count("/api/v1/services", "GET", "401"))
	lat := series(t, g, "slotd_http_request_duration_seconds", map[string]string{"listener": "public", "route": "/api/v1/services/{id}", "method": "GET"})
	require.NotNil(t, lat)
	require.EqualValues(t, 4, lat.GetHistogram().GetSampleCount())
	require.Len(t, lat.GetHistogram().GetBucket(), 16, "the buckets of the edge's durationBuckets")
	require.Nil(t, series(t, g, "slotd_http_request_duration_seconds", map[string]string{"route": "/api/v1/staff"}),
		"a route shows once it has answered")

	cls := series(t, g, "slotd_http_responses_total", map[string]string{"class": "2xx"})
	require.Equal(t, 3.0, cls.GetCounter().GetValue())
	cls = series(t, g, "slotd_http_responses_total", map[string]string{"class": "4xx"})
	require.Equal(t, 4.0, cls.GetCounter().GetValue())

	problems, err := testutil.CollectAndLint(s.Collector())
	require.NoError(t, err)
	require.Empty(t, problems)
}

// TestRefusalMetrics: 429s are counted by the limit that refused.
func TestRefusalMetrics(t *testing.T) {
	s := newServer(t, model.Pro, 1)
	s.authLimit = quota.Check{Kind: limitFailedAuth, Window: quota.Window{N: 1, Per: time.Minute}}
	h := s.Public()
	require.Equal(t, 401, request(h, "GET", "/api/v1/me", "sk_wrong").Response.StatusCode())
	require.Equal(t, 429, request(h, "GET", "/api/v1/me", "sk_wrong").Response.StatusCode(), "this 401 is one too many")
	require.Equal(t, 429, request(h, "GET", "/api/v1/me", "sk_all").Response.StatusCode(), "the IP is over its limit")
	m := series(t, gatherer(s), "slotd_ratelimit_refusals_total", map[string]string{"limiter": "failed_auth"})
	require.Equal(t, 2.0, m.GetCounter().GetValue())

	s.metrics.refused(limitMutations)
	s.metrics.refused(limitPings)
	for _, l := range []string{"mutations", "pings"} {
		require.Equal(t, 1.0, series(t, gatherer(s), "slotd_ratelimit_refusals_total", map[string]string{"limiter": l}).GetCounter().GetValue())
	}
}

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
	s.AccessLog, err = edge.NewAccessLog(&buf, edge.AccessLogCompact)
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
	s.AccessLog, err = edge.NewAccessLog(&buf, edge.AccessLogJSON)
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
