package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Publishable keys and CORS (decisions §7), through a real server.

const (
	keyPublishable = "pk_live_salon_booking_page"
	pageOrigin     = "https://salon.example"
)

// startPublishableWorld starts testdata/world.json with a publishable key
// of the salon's added, with the members of extra on top.
func startPublishableWorld(t *testing.T, extra map[string]any, args ...string) *server {
	t.Helper()
	key := map[string]any{"key": keyPublishable, "kind": "publishable", "allowedOrigins": []string{pageOrigin, "http://localhost:5173"}}
	for k, v := range extra {
		key[k] = v
	}
	path := salonWorld(t, func(biz map[string]any) { biz["apiKeys"] = append(biz["apiKeys"].([]any), key) })
	return start(t, "", append([]string{"--world", path}, args...)...)
}

// pcall is one request with headers of its own, from the loopback address
// from ("" for the default).
type pcall struct {
	method, path, key, body, from string
	header                        map[string]string
}

func (s *server) request(c pcall) resp {
	s.t.Helper()
	req, err := http.NewRequest(c.method, s.base+c.path, strings.NewReader(c.body))
	require.NoError(s.t, err)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	cl := client
	if c.from != "" {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(c.from)}, Timeout: 5 * time.Second}
		cl = &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				return d.DialContext(ctx, network, addr)
			},
		}}
	}
	res, err := cl.Do(req)
	require.NoError(s.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(s.t, err)
	r := resp{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if len(raw) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		require.NoError(s.t, json.Unmarshal(bytes.TrimSpace(raw), &r.Body), "body: %s", raw)
	}
	return r
}

// A publishable key calls the booking flow's endpoints and nothing else:
// every other endpoint is 403 INSUFFICIENT_SCOPE naming its scope, and so
// is a booking that asks to skip the booking rules.
func TestPublishableKeyCallsTheBookingFlowOnly(t *testing.T) {
	s := startPublishableWorld(t, nil)
	n := 0
	pk := func(method, path, body string) resp {
		n++
		return s.request(pcall{method: method, path: path, key: keyPublishable, body: body, header: map[string]string{"Idempotency-Key": fmt.Sprint("pk-", n)}})
	}
	slots := "/api/v1/availability/slots?serviceId=" + haircutID + "&from=" + tue + "08:00:00Z&to=" + tue + "12:00:00Z"
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/v1/me", ""},
		{"GET", "/api/v1/services", ""},
		{"GET", "/api/v1/services/" + haircutID, ""},
		{"GET", "/api/v1/service-categories", ""},
		{"GET", "/api/v1/staff", ""},
		{"GET", "/api/v1/staff/" + annaID, ""},
		{"GET", slots, ""},
		{"POST", "/api/v1/availability/check", `{"serviceId":"` + haircutID + `","startTimes":["` + tue + `09:00:00Z"]}`},
	} {
		r := pk(c.method, c.path, c.body)
		assert.Equal(t, 200, r.Status, "%s %s: %s", c.method, c.path, r.Raw)
	}

	hold := pk("POST", "/api/v1/holds", `{"serviceId":"`+haircutID+`","startTime":"`+tue+`09:00:00Z","staffMemberId":"`+annaID+`"}`)
	require.Equal(t, 201, hold.Status, "%s", hold.Raw)
	holdID := hold.Body["id"].(string)
	require.Equal(t, 200, pk("GET", "/api/v1/holds/"+holdID, "").Status)
	requireScope(t, pk("PATCH", "/api/v1/holds/"+holdID, `{"ttlSeconds":600}`), "appointments:write")
	require.Equal(t, 204, pk("DELETE", "/api/v1/holds/"+holdID, "").Status)

	requireScope(t, pk("POST", "/api/v1/appointments", strings.TrimSuffix(booking(haircutID, tue+"10:00:00Z", annaID, "pk@example.com"), "}")+`,"enforceBookingRules":false}`), "appointments:write")
	booked := pk("POST", "/api/v1/appointments", booking(haircutID, tue+"10:00:00Z", annaID, "pk@example.com"))
	require.Equal(t, 201, booked.Status, "%s", booked.Raw)
	id := booked.Body["appointment"].(map[string]any)["id"].(string)

	for _, c := range []struct{ method, path, body, scope string }{
		{"GET", "/api/v1/appointments", "", "appointments:read"},
		{"GET", "/api/v1/appointments/" + id, "", "appointments:read"},
		{"PATCH", "/api/v1/appointments/" + id, `{"notes":"x"}`, "appointments:write"},
		{"POST", "/api/v1/appointments/" + id + "/status", `{"status":"cancelled"}`, "appointments:write"},
		{"POST", "/api/v1/customers", `{"firstName":"A","email":"a@example.com"}`, "customers:write"},
		{"GET", "/api/v1/waitlist-entries", "", "appointments:read"},
		{"GET", "/api/v1/webhooks", "", "webhooks:manage"},
	} {
		requireScope(t, pk(c.method, c.path, c.body), c.scope)
	}
	// The business's own key still sees the booking, untouched.
	require.Equal(t, "confirmed", s.get("/api/v1/appointments/"+id, keyFull).Body["status"])
}

func requireScope(t *testing.T, r resp, scope string) {
	t.Helper()
	requireError(t, r, 403, "INSUFFICIENT_SCOPE")
	require.Equal(t, scope, r.Body["scope"], "%s", r.Raw)
}

// Scopes given to a publishable key narrow the booking flow further.
func TestPublishableKeyScopesNarrow(t *testing.T) {
	s := startPublishableWorld(t, map[string]any{"scopes": []string{"services:read", "appointments:read"}})
	require.Equal(t, 200, s.request(pcall{method: "GET", path: "/api/v1/services", key: keyPublishable}).Status)
	requireScope(t, s.request(pcall{method: "GET", path: "/api/v1/staff", key: keyPublishable}), "staff:read")
	requireScope(t, s.request(pcall{method: "POST", path: "/api/v1/appointments", key: keyPublishable,
		body: booking(haircutID, tue+"10:00:00Z", annaID, "pk@example.com"), header: map[string]string{"Idempotency-Key": "n-1"}}), "appointments:write")
}

// Origins: a listed origin gets the CORS headers, another one 403
// ORIGIN_NOT_ALLOWED, a request without Origin neither; a secret key
// never gets CORS headers.
func TestPublishableKeyOrigins(t *testing.T) {
	s := startPublishableWorld(t, nil)
	from := func(key, origin string) resp {
		h := map[string]string{}
		if origin != "" {
			h["Origin"] = origin
		}
		return s.request(pcall{method: "GET", path: "/api/v1/services", key: key, header: h})
	}
	r := from(keyPublishable, pageOrigin)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	assert.Equal(t, pageOrigin, r.Header.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "Origin", r.Header.Get("Vary"))
	for _, h := range []string{"X-Request-Id", "X-RateLimit-Remaining", "Retry-After", "ETag", "Idempotency-Replayed"} {
		assert.Contains(t, r.Header.Get("Access-Control-Expose-Headers"), h)
	}
	r = from(keyPublishable, "http://localhost:5173")
	require.Equal(t, 200, r.Status)
	assert.Equal(t, "http://localhost:5173", r.Header.Get("Access-Control-Allow-Origin"))

	for _, other := range []string{"https://evil.example", "https://salon.example:8443", "http://salon.example", "null"} {
		r = from(keyPublishable, other)
		requireError(t, r, 403, "ORIGIN_NOT_ALLOWED")
		assert.Empty(t, r.Header.Get("Access-Control-Allow-Origin"), other)
	}
	r = from(keyPublishable, "")
	require.Equal(t, 200, r.Status)
	assert.Empty(t, r.Header.Get("Access-Control-Allow-Origin"), "no Origin, no CORS")

	r = from(keyFull, pageOrigin)
	require.Equal(t, 200, r.Status)
	assert.Empty(t, r.Header.Get("Access-Control-Allow-Origin"), "a secret key never gets CORS headers")

	// A refusal from an allowed origin is readable by the page too.
	r = s.request(pcall{method: "GET", path: "/api/v1/appointments", key: keyPublishable, header: map[string]string{"Origin": pageOrigin}})
	requireError(t, r, 403, "INSUFFICIENT_SCOPE")
	assert.Equal(t, pageOrigin, r.Header.Get("Access-Control-Allow-Origin"))
}

// A preflight is an OPTIONS with Origin and Access-Control-Request-Method:
// 204 for any origin (it carries no key). Every other OPTIONS stays 405.
func TestCORSPreflight(t *testing.T) {
	s := startPublishableWorld(t, nil)
	r := s.request(pcall{method: "OPTIONS", path: "/api/v1/appointments", header: map[string]string{
		"Origin": "https://anywhere.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type, idempotency-key"}})
	require.Equal(t, 204, r.Status, "%s", r.Raw)
	assert.Equal(t, "https://anywhere.example", r.Header.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "600", r.Header.Get("Access-Control-Max-Age"))
	assert.Equal(t, "Origin", r.Header.Get("Vary"))
	for _, m := range []string{"GET", "POST", "PATCH", "DELETE"} {
		assert.Contains(t, r.Header.Get("Access-Control-Allow-Methods"), m)
	}
	for _, h := range []string{"Authorization", "Content-Type", "Idempotency-Key", "If-Match"} {
		assert.Contains(t, r.Header.Get("Access-Control-Allow-Headers"), h)
	}
	assert.Empty(t, r.Raw)

	for _, h := range []map[string]string{
		nil,
		{"Origin": pageOrigin},
		{"Access-Control-Request-Method": "GET"},
	} {
		r := s.request(pcall{method: "OPTIONS", path: "/api/v1/services", key: keyPublishable, header: h})
		requireError(t, r, 405, "METHOD_NOT_ALLOWED")
	}
}

// A publishable key's quotas are counted per client IP: one visitor
// using up the minute leaves another's untouched. The key's limits
// override the defaults.
func TestPublishableKeyQuotaPerIP(t *testing.T) {
	s := startPublishableWorld(t, map[string]any{"limits": map[string]any{"perMinute": 3}})
	get := func(ip string) resp {
		return s.request(pcall{method: "GET", path: "/api/v1/services", key: keyPublishable, from: ip})
	}
	for i := range 3 {
		r := get("127.0.0.1")
		require.Equal(t, 200, r.Status, "request %d: %s", i, r.Raw)
		require.Equal(t, "3", r.Header.Get("X-RateLimit-Limit"))
	}
	requireError(t, get("127.0.0.1"), 429, "RATE_LIMITED")
	r := get("127.0.0.2")
	require.Equal(t, 200, r.Status, "another visitor: %s", r.Raw)
	require.Equal(t, "2", r.Header.Get("X-RateLimit-Remaining"))
	// The secret keys' quotas are their own.
	require.Equal(t, 200, s.get("/api/v1/services", keyFull).Status)
}

// The mutation ceiling of a publishable key is 10 a minute per IP by
// default, whatever the business's plan.
func TestPublishableKeyMutationCeiling(t *testing.T) {
	s := startPublishableWorld(t, nil)
	for i := range 10 {
		r := s.request(pcall{method: "POST", path: "/api/v1/holds", key: keyPublishable,
			body: `{"serviceId":"` + haircutID + `","startTime":"` + tue + `13:00:00Z"}`, header: map[string]string{"Idempotency-Key": "m-" + string(rune('a'+i))}})
		require.NotEqual(t, 429, r.Status, "mutation %d: %s", i, r.Raw)
	}
	r := s.request(pcall{method: "POST", path: "/api/v1/holds", key: keyPublishable,
		body: `{"serviceId":"` + haircutID + `","startTime":"` + tue + `13:00:00Z"}`, header: map[string]string{"Idempotency-Key": "m-last"}})
	requireError(t, r, 429, "RATE_LIMITED")
	require.Equal(t, "10", r.Header.Get("X-RateLimit-Limit"))
}

// The admin API issues publishable keys: pk_live_ and its origins, scopes
// optional; the world file's rules hold for them.
func TestAdminIssuesPublishableKeys(t *testing.T) {
	s := startWorld(t)
	path := "/admin/v1/businesses/" + salonID + "/keys"
	r := s.adminDo("POST", path, []byte(`{"kind":"publishable","allowedOrigins":["https://salon.example"]}`))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	key := r.Body["key"].(string)
	require.True(t, strings.HasPrefix(key, "pk_live_"), key)
	require.Equal(t, "publishable", r.Body["kind"])
	require.Equal(t, []any{"https://salon.example"}, r.Body["allowedOrigins"])
	got := s.request(pcall{method: "GET", path: "/api/v1/services", key: key, header: map[string]string{"Origin": "https://salon.example"}})
	require.Equal(t, 200, got.Status, "%s", got.Raw)
	requireScope(t, s.request(pcall{method: "GET", path: "/api/v1/appointments", key: key}), "appointments:read")

	secret := s.adminDo("POST", path, []byte(`{"scopes":["services:read"]}`))
	require.Equal(t, 201, secret.Status, "%s", secret.Raw)
	require.Equal(t, "secret", secret.Body["kind"])
	require.True(t, strings.HasPrefix(secret.Body["key"].(string), "sk_live_"))

	for body, field := range map[string][2]string{
		`{"kind":"publishable"}`:                                                              {"allowedOrigins", "required"},
		`{"kind":"publishable","allowedOrigins":[]}`:                                          {"allowedOrigins", "required"},
		`{"kind":"publishable","allowedOrigins":["https://salon.example/"]}`:                  {"allowedOrigins.0", "invalid_format"},
		`{"kind":"publishable","allowedOrigins":["*"]}`:                                       {"allowedOrigins.0", "invalid_format"},
		`{"kind":"publishable","allowedOrigins":["https://Salon.example"]}`:                   {"allowedOrigins.0", "invalid_format"},
		`{"kind":"publishable","allowedOrigins":["https://salon.example:443"]}`:               {"allowedOrigins.0", "invalid_format"},
		`{"kind":"publishable","allowedOrigins":["ftp://salon.example"]}`:                     {"allowedOrigins.0", "invalid_format"},
		`{"kind":"publishable","allowedOrigins":["https://a.example","https://a.example"]}`:   {"allowedOrigins.1", "invalid"},
		`{"kind":"secret","scopes":["services:read"],"allowedOrigins":["https://a.example"]}`: {"allowedOrigins", "invalid"},
		`{"kind":"other","scopes":["services:read"]}`:                                         {"kind", "invalid_option"},
	} {
		r := s.adminDo("POST", path, []byte(body))
		requireField(t, r, field[0], field[1])
	}
}
