package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAllowNamesOnlyServedMethods: a 405 lists in Allow the methods the
// path serves, and never OPTIONS, which is itself refused 405 (api-v1 §4.1
// rule 7), on both listeners.
func TestAllowNamesOnlyServedMethods(t *testing.T) {
	s := startWorld(t)
	for _, c := range []struct{ method, url, key, allow string }{
		{"DELETE", s.base + "/api/v1/services", keyFull, "GET"},
		{"OPTIONS", s.base + "/api/v1/services", "", "GET"},
		{"OPTIONS", s.base + "/api/v1/appointments", keyFull, "GET, POST"},
		{"PUT", s.base + "/api/v1/webhooks/" + annaID, keyFull, "DELETE, GET, PATCH"},
		{"OPTIONS", s.admin + "/healthz", "", "GET"},
		{"DELETE", s.admin + "/admin/v1/businesses/" + salonID + "/keys", testAdminToken, "GET, POST"},
		{"OPTIONS", s.admin + "/admin/v1/world", testAdminToken, "POST"},
	} {
		r := do(t, c.method, c.url, c.key, nil)
		requireError(t, r, 405, "METHOD_NOT_ALLOWED")
		require.Equal(t, c.allow, r.Header.Get("Allow"), "%s %s", c.method, c.url)
	}
}

// TestAdminErrorsSpeakToTheOperator: the admin listener answers in the
// §7.1 shape with the public API's codes, in sentences that are true of
// an operator holding an admin token.
func TestAdminErrorsSpeakToTheOperator(t *testing.T) {
	s := startWorld(t)
	for _, auth := range []string{"", "wrong", keyFull} {
		r := do(t, "GET", s.admin+"/admin/v1/businesses", auth, nil)
		requireError(t, r, 401, "UNAUTHORIZED")
		require.Equal(t, "A valid admin token is required: send Authorization: Bearer <admin token>.", r.Body["error"])
		require.NotEmpty(t, r.Header.Get("X-Request-Id"))
	}
	for _, path := range []string{"/admin/v1/nothing", "/api/v1/me", "/admin/v1/businesses/" + salonID + "/nothing"} {
		r := s.adminDo("GET", path, nil)
		requireError(t, r, 404, "NOT_FOUND")
		require.Equal(t, "No such admin resource.", r.Body["error"], path)
	}
	r := s.adminDo("PUT", "/admin/v1/businesses/not-a-uuid", []byte(`{}`))
	requireError(t, r, 404, "NOT_FOUND")
	require.Equal(t, "No such admin resource.", r.Body["error"])
	const nobody = "00000000-0000-4000-8000-000000000000"
	for _, c := range []struct{ method, path string }{
		{"GET", "/admin/v1/businesses/" + nobody + "/keys"},
		{"POST", "/admin/v1/businesses/" + nobody + "/keys"},
		{"POST", "/admin/v1/businesses/" + nobody + "/keys/" + nobody + "/revoke"},
	} {
		r := s.adminDo(c.method, c.path, []byte(`{"scopes":["staff:read"]}`))
		requireError(t, r, 404, "NOT_FOUND")
		require.Equal(t, "No such business.", r.Body["error"], c.path)
	}
	for _, keyID := range []string{nobody, "not-a-uuid"} {
		r := s.adminDo("POST", "/admin/v1/businesses/"+salonID+"/keys/"+keyID+"/revoke", nil)
		requireError(t, r, 404, "NOT_FOUND")
		require.Equal(t, "No such key.", r.Body["error"])
	}
	// A public API key on the admin listener is not charged for its 404:
	// the admin listener meters nothing.
	r = do(t, "GET", s.admin+"/nothing", keyFull, nil)
	requireError(t, r, 404, "NOT_FOUND")
	require.Empty(t, r.Header.Get("X-RateLimit-Limit"))
}

// TestPprof: the index and every profile are served on the admin
// listener, behind the admin token when one is set.
func TestPprof(t *testing.T) {
	s := startWorld(t)
	paths := []string{"/debug/pprof/", "/debug/pprof/heap", "/debug/pprof/goroutine?debug=1", "/debug/pprof/allocs",
		"/debug/pprof/block", "/debug/pprof/mutex", "/debug/pprof/threadcreate", "/debug/pprof/cmdline",
		"/debug/pprof/symbol", "/debug/pprof/profile?seconds=1", "/debug/pprof/trace?seconds=0.1"}
	for _, p := range paths {
		requireError(t, do(t, "GET", s.admin+p, "", nil), 401, "UNAUTHORIZED")
		requireError(t, do(t, "GET", s.admin+p, "wrong", nil), 401, "UNAUTHORIZED")
		r := s.adminDo("GET", p, nil)
		require.Equal(t, 200, r.Status, "%s: %.200s", p, r.Raw)
		require.NotEmpty(t, r.Raw, p)
		require.NotEmpty(t, r.Header.Get("X-Request-Id"), p)
	}
	index := string(s.adminDo("GET", "/debug/pprof/", nil).Raw)
	for _, name := range []string{"heap", "goroutine", "allocs", "profile", "trace"} {
		require.Contains(t, index, name, "the index links every profile")
	}
	for _, p := range []string{"/debug/pprof/nothing", "/debug/pprof/heap/"} {
		r := s.adminDo("GET", p, nil)
		requireError(t, r, 404, "NOT_FOUND")
		require.Equal(t, "No such admin resource.", r.Body["error"])
	}

	// Without a token pprof is open, as the other admin reads are.
	c, err := parseConfig([]string{"--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
		"--world", "testdata/world.json"}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	open := startConfig(t, c)
	for _, p := range []string{"/debug/pprof/", "/debug/pprof/heap"} {
		r := do(t, "GET", open.admin+p, "", nil)
		require.Equal(t, 200, r.Status, p)
	}
	require.True(t, strings.Contains(string(do(t, "GET", open.admin+"/debug/pprof/", "", nil).Raw), "goroutine"))
}

// fieldsOf returns the fields of a VALIDATION_ERROR, each path prefixed.
func fieldsOf(r resp, prefix string) []map[string]any {
	var out []map[string]any
	for _, f := range r.Body["fields"].([]any) {
		m := f.(map[string]any)
		m["path"] = prefix + m["path"].(string)
		out = append(out, m)
	}
	return out
}

// TestIssuedKeysFollowTheWorldFileRules: the admin API refuses a key the
// world file would refuse, naming the same member with the same reason and
// message, and also a key that could never be used as issued: no scope,
// or already expired. Nothing refused is issued.
func TestIssuedKeysFollowTheWorldFileRules(t *testing.T) {
	s := startWorld(t)
	issue := func(body string) resp {
		return s.adminDo("POST", "/admin/v1/businesses/"+salonID+"/keys", []byte(body))
	}
	const other = "11111111-2222-4333-8444-555555555555"
	declare := func(members string) resp {
		return s.adminDo("PUT", "/admin/v1/businesses/"+other, []byte(`{"id":"`+other+`","name":"Rules","timezone":"Europe/Amsterdam",`+
			`"currency":"EUR","plan":"groei","apiKeys":[{"key":"sk_rules_test_key",`+members+`}]}`))
	}
	keysBefore := len(s.adminDo("GET", "/admin/v1/businesses/"+salonID+"/keys", nil).Body["data"].([]any))

	for _, members := range []string{
		`"scopes":["everything"]`,
		`"scopes":["staff:read","Staff:Read","staff:read"]`,
		`"scopes":"staff:read"`,
		`"scopes":[7,"a:b:c"]`,
		`"scopes":["staff:read"],"expiresAt":"tomorrow"`,
		`"scopes":["staff:read"],"expiresAt":"2027-01-01T00:00:00"`,
		`"scopes":["staff:read"],"limits":{"perMinute":0,"perHour":-1,"perDay":5}`,
		`"scopes":["staff:read"],"limits":[]`,
	} {
		issued, declared := issue("{"+members+"}"), declare(members)
		requireError(t, issued, 400, "VALIDATION_ERROR")
		requireError(t, declared, 400, "VALIDATION_ERROR")
		require.Equal(t, fieldsOf(declared, ""), fieldsOf(issued, "apiKeys.0."), "%s", members)
	}
	requireField(t, issue(`{"scopes":["everything"]}`), "scopes.0", "invalid_format")
	requireField(t, issue(`{"scopes":["staff:read","staff:read"]}`), "scopes.1", "invalid")

	// Rules of issuing only: a world file may describe such keys as they are.
	for body, field := range map[string][2]string{
		`{}`:                             {"scopes", "required"},
		`{"scopes":null}`:                {"scopes", "required"},
		`{"scopes":[]}`:                  {"scopes", "required"},
		`{"scopes":[],"expiresAt":null}`: {"scopes", "required"},
		`{"scopes":["staff:read"],"expiresAt":"2020-01-01T00:00:00Z"}`:                   {"expiresAt", "invalid"},
		`{"scopes":["staff:read"],"expiresAt":"` + testEpoch.Format(time.RFC3339) + `"}`: {"expiresAt", "invalid"},
		`{"key":"sk_chosen_by_me","scopes":["staff:read"]}`:                              {"key", "unknown_field"},
		`{"scopes":["staff:read"],"revoked":false}`:                                      {"revoked", "unknown_field"},
		``: {"(body)", "required"},
	} {
		requireField(t, issue(body), field[0], field[1])
	}
	r := declare(`"scopes":[],"expiresAt":"2020-01-01T00:00:00Z"`)
	require.Equal(t, 201, r.Status, "the world file takes them: %s", r.Raw)
	require.Len(t, s.adminDo("GET", "/admin/v1/businesses/"+salonID+"/keys", nil).Body["data"], keysBefore, "nothing refused was issued")

	// A valid request issues a key that works as asked, until it expires.
	r = issue(`{"scopes":["staff:read"],"expiresAt":"2026-12-02T00:00:00Z","limits":{"perMinute":5}}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	key := r.Body["key"].(string)
	got := s.get("/api/v1/staff", key)
	require.Equal(t, 200, got.Status)
	require.Equal(t, "5", got.Header.Get("X-RateLimit-Limit"))
	requireError(t, s.get("/api/v1/services", key), 403, "INSUFFICIENT_SCOPE")
	s.clock.Advance(24 * time.Hour)
	requireError(t, s.get("/api/v1/staff", key), 401, "KEY_EXPIRED")
}
