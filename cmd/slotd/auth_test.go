package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAuthenticationOutcomes(t *testing.T) {
	s := startWorld(t)
	for _, tc := range []struct {
		name   string
		header string
		status int
		code   string
	}{
		{"missing", "", 401, "UNAUTHORIZED"},
		{"other scheme", "Basic " + keyFull, 401, "UNAUTHORIZED"},
		{"empty bearer", "Bearer ", 401, "UNAUTHORIZED"},
		{"unknown key", "Bearer sk_nobody_has_this_key", 401, "UNAUTHORIZED"},
		{"key with junk", "Bearer " + keyFull + " x", 401, "UNAUTHORIZED"},
		{"revoked", "Bearer " + keyRevoked, 401, "KEY_REVOKED"},
		{"expired", "Bearer " + keyExpired, 401, "KEY_EXPIRED"},
		{"lower-case scheme", "bearer " + keyFull, 200, ""},
		{"valid", "Bearer " + keyFull, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.base+"/api/v1/services", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			res, err := client.Do(req)
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, tc.status, res.StatusCode)
			require.NotEmpty(t, res.Header.Get("X-Request-Id"))
		})
	}
	requireError(t, s.get("/api/v1/me", keyRevoked), 401, "KEY_REVOKED")
	requireError(t, s.get("/api/v1/me", keyExpired), 401, "KEY_EXPIRED")
	require.Equal(t, 200, s.get("/api/v1/staff", "sk_test_salon_future_expiry").Status)
}

func TestEntitlements(t *testing.T) {
	s := startWorld(t, "--disable-module", "webhooks")
	r := s.get("/api/v1/staff", keyServices)
	requireError(t, r, 403, "INSUFFICIENT_SCOPE")
	require.Equal(t, "staff:read", r.Body["scope"])
	require.NotContains(t, r.Body, "requiredPlan")

	// Studio Small lacks the customers module.
	requireError(t, s.get("/api/v1/customers/"+evaID, keyStudio), 403, "FORBIDDEN")
	// The salon has it, and the read-only key lacks customers:read.
	r = s.get("/api/v1/customers/"+evaID, keyRead)
	requireError(t, r, 403, "INSUFFICIENT_SCOPE")
	require.Equal(t, "customers:read", r.Body["scope"])
	r = s.get("/api/v1/customers/"+evaID, keyFull)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	require.Equal(t, map[string]any{
		"id": evaID, "firstName": "Eva", "lastName": "de Vries", "email": "eva@example.com", "phone": "+31600000001",
		"createdAt": r.Body["createdAt"], "updatedAt": r.Body["updatedAt"],
	}, r.Body)

	t2 := start(t, "", "--world", "testdata/world.json", "--disable-module", "customers")
	requireError(t, t2.get("/api/v1/customers/"+evaID, keyFull), 503, "MODULE_UNAVAILABLE")
	// A switched-off module does not hide other endpoints.
	require.Equal(t, 200, t2.get("/api/v1/services", keyFull).Status)
}

func TestMe(t *testing.T) {
	s := startWorld(t)
	r := s.get("/api/v1/me", keyRead)
	require.Equal(t, 200, r.Status)
	require.Equal(t, map[string]any{
		"id": salonID, "name": "Salon Example", "timezone": "Europe/Amsterdam", "currency": "EUR", "plan": "pro",
		"scopes": []any{"appointments:read", "services:read", "staff:read"},
	}, r.Body)
	// /me needs no particular scope.
	require.Equal(t, 200, s.get("/api/v1/me", keyServices).Status)
}

func TestRoutingErrors(t *testing.T) {
	s := startWorld(t)
	requireError(t, s.get("/api/v1/nothing-here", keyFull), 404, "NOT_FOUND")
	requireError(t, s.get("/nothing", ""), 404, "NOT_FOUND")
	requireError(t, s.get("/api/v1/services/", keyFull), 404, "NOT_FOUND")
	for _, m := range []string{"OPTIONS", "DELETE", "PUT", "POST", "PATCH"} {
		r := do(t, m, s.base+"/api/v1/services", keyFull, nil)
		requireError(t, r, 405, "METHOD_NOT_ALLOWED")
	}
	requireError(t, do(t, "OPTIONS", s.base+"/api/v1/staff/"+annaID, keyFull, nil), 405, "METHOD_NOT_ALLOWED")
	// Ids that are not UUIDs name no record.
	requireError(t, s.get("/api/v1/services/not-a-uuid", keyFull), 404, "NOT_FOUND")
	requireError(t, s.get("/api/v1/staff/"+strings.ToUpper(annaID)+"x", keyFull), 404, "NOT_FOUND")
}

// TestBodyLimit: a body over 64 KiB is refused 400 on (body), too_large,
// but only once the request was routed and authenticated: it is charged
// to its key and carries its rate-limit headers, like any request, and
// stores nothing under its Idempotency-Key.
func TestBodyLimit(t *testing.T) {
	s := startWorld(t)
	r := s.adminDo("POST", "/admin/v1/businesses/"+salonID+"/keys", []byte(`{"scopes":["customers:write"],"limits":{"perMinute":5}}`))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	key := r.Body["key"].(string)

	big := make([]byte, 64<<10+1)
	for i, remaining := range []string{"4", "3"} {
		r = s.post("/api/v1/customers", key, "big-1", string(big))
		m := requireField(t, r, "(body)", "too_large")
		require.EqualValues(t, 65536, m["limit"])
		require.NotEmpty(t, r.Header.Get("X-Request-Id"))
		require.Equal(t, "5", r.Header.Get("X-RateLimit-Limit"), "request %d", i)
		require.Equal(t, remaining, r.Header.Get("X-RateLimit-Remaining"), "charged like any request")
		require.NotEmpty(t, r.Header.Get("X-RateLimit-Reset"))
	}
	// Sent chunked, its length shows only as it is read: the same answer.
	req, err := http.NewRequest("POST", s.base+"/api/v1/customers", io.MultiReader(bytes.NewReader(big)))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Idempotency-Key", "big-1")
	r = send(t, req)
	requireField(t, r, "(body)", "too_large")
	require.Equal(t, "2", r.Header.Get("X-RateLimit-Remaining"))

	// The refusals stored nothing under the key; 64 KiB exactly is read.
	exact := `{"firstName":"Big","email":"big@example.com","lastName":"` + strings.Repeat("x", 64<<10-59) + `"}`
	require.Equal(t, 64<<10, len(exact))
	requireField(t, s.post("/api/v1/customers", key, "big-1", exact), "lastName", "too_long")
	r = s.post("/api/v1/customers", key, "big-1", `{"firstName":"Big","email":"big@example.com"}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)

	// Refusals that come first still do: an unknown key, another method.
	r = do(t, "POST", s.base+"/api/v1/customers", "sk_nobody_has_this_key", big)
	requireError(t, r, 401, "UNAUTHORIZED")
	require.Equal(t, "20", r.Header.Get("X-RateLimit-Limit"))
	r = do(t, "POST", s.base+"/api/v1/services", keyFull, big)
	requireError(t, r, 405, "METHOD_NOT_ALLOWED")
	require.NotEmpty(t, r.Header.Get("X-Request-Id"))

	// The admin listener takes up to 32 MiB, with the token checked first.
	huge := make([]byte, 32<<20+1)
	requireError(t, do(t, "POST", s.admin+"/admin/v1/world", "wrong", huge), 401, "UNAUTHORIZED")
	r = s.adminDo("POST", "/admin/v1/world", huge)
	m := requireField(t, r, "(body)", "too_large")
	require.EqualValues(t, 32<<20, m["limit"])
	require.NotEmpty(t, r.Header.Get("X-Request-Id"))
}

func TestCrossBusinessIsNotFound(t *testing.T) {
	s := startWorld(t)
	missing := s.get("/api/v1/services/00000000-0000-4000-8000-000000000000", keyFull)
	requireError(t, missing, 404, "NOT_FOUND")
	for _, path := range []string{"/api/v1/services/" + massageID, "/api/v1/staff/" + eliID, "/api/v1/services/" + deletedSvcID} {
		r := s.get(path, keyFull)
		requireError(t, r, 404, "NOT_FOUND")
		require.Equal(t, string(missing.Raw), string(r.Raw), path)
	}
	// And the other way round.
	requireError(t, s.get("/api/v1/services/"+haircutID, keyStudio), 404, "NOT_FOUND")
	requireError(t, s.get("/api/v1/staff/"+annaID, keyStudio), 404, "NOT_FOUND")
}
