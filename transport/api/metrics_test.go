package api

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
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

// gatherer gathers the public API's metrics and the edge's request
// metrics, as /metrics serves them.
func gatherer(s *Server) prometheus.Gatherer {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(append(s.Edge.Collectors(), s.Collectors()...)...)
	return reg
}

// TestRequestMetrics: requests are counted by the route's pattern, never
// the path, with their method and status; requests that match no route
// share one route value, and a method a client made up is "other".
func TestRequestMetrics(t *testing.T) {
	s := newServer(t, model.Pro, 2)
	h := s.Handler()
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

	for _, c := range append(s.Edge.Collectors(), s.Collectors()...) {
		problems, err := testutil.CollectAndLint(c)
		require.NoError(t, err)
		require.Empty(t, problems)
	}
}

// TestRefusalMetrics: 429s are counted by the limit that refused.
func TestRefusalMetrics(t *testing.T) {
	s := newServer(t, model.Pro, 1)
	s.authLimit = quota.Check{Kind: limitFailedAuth, Window: quota.Window{N: 1, Per: time.Minute}}
	h := s.Handler()
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
