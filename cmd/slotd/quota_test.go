package main

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// keyTiny has limits of 5 a minute, 7 an hour and 2 mutations a minute
// (testdata/world.json), so every limit can be reached in a few requests.
const keyTiny = "sk_test_salon_tiny_quota"

func requireRate(t *testing.T, r resp, limit, remaining int) {
	t.Helper()
	require.Equal(t, strconv.Itoa(limit), r.Header.Get("X-RateLimit-Limit"), "limit on %d %s", r.Status, r.Raw)
	require.Equal(t, strconv.Itoa(remaining), r.Header.Get("X-RateLimit-Remaining"), "remaining on %d %s", r.Status, r.Raw)
	reset, err := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
	require.NoError(t, err)
	require.Greater(t, reset, int64(0))
}

func TestKeyQuotasThroughHTTP(t *testing.T) {
	s := startWorld(t)
	// Errors count too, and carry the headers: a 404 and a 403.
	requireRate(t, s.get("/api/v1/services", keyTiny), 5, 4)
	r := s.get("/api/v1/services/00000000-0000-4000-8000-000000000000", keyTiny)
	requireError(t, r, 404, "NOT_FOUND")
	requireRate(t, r, 5, 3)
	r = s.get("/api/v1/staff", keyTiny)
	requireError(t, r, 403, "INSUFFICIENT_SCOPE")
	requireRate(t, r, 5, 2)
	r = s.get("/api/v1/nowhere", keyTiny)
	requireError(t, r, 404, "NOT_FOUND")
	requireRate(t, r, 5, 1)
	first := s.get("/api/v1/me", keyTiny)
	requireRate(t, first, 5, 0)
	reset, _ := strconv.ParseInt(first.Header.Get("X-RateLimit-Reset"), 10, 64)
	require.Equal(t, s.clock.Now().Add(time.Minute).Unix(), reset, "full again a minute after the first request")

	r = s.get("/api/v1/me", keyTiny)
	requireError(t, r, 429, "RATE_LIMITED")
	requireRate(t, r, 5, 0)
	require.Equal(t, "12", r.Header.Get("Retry-After"), "one request comes back every 60/5 s")
	requireRate(t, s.get("/api/v1/me", keyFull), 1000000, 999999) // other keys are untouched

	// The hour (7) is now the tightest once the minute has come back.
	s.clock.Advance(time.Minute)
	requireRate(t, s.get("/api/v1/me", keyTiny), 7, 1)
	requireRate(t, s.get("/api/v1/me", keyTiny), 7, 0)
	r = do(t, "HEAD", s.base+"/api/v1/me", "", nil)
	require.Equal(t, 405, r.Status)
	requireRate(t, r, 20, 20) // no key: the IP limit's headers, nothing spent
	r = s.get("/api/v1/me", keyTiny)
	requireError(t, r, 429, "RATE_LIMITED")
	requireRate(t, r, 7, 0)
	require.Equal(t, strconv.Itoa(int((time.Hour/7-time.Minute).Seconds())+1), r.Header.Get("Retry-After"))

	// Mutations: a ceiling of 2 a minute on top.
	s.clock.Advance(2 * time.Hour)
	for i := 0; i < 2; i++ {
		r = s.post("/api/v1/customers", keyTiny, fmt.Sprint("q", i), fmt.Sprintf(`{"firstName":"Q","email":"q%d@example.com"}`, i))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
	}
	requireRate(t, r, 2, 0)
	r = s.post("/api/v1/customers", keyTiny, "q2", `{"firstName":"Q","email":"q2@example.com"}`)
	requireError(t, r, 429, "RATE_LIMITED")
	require.Equal(t, "30", r.Header.Get("Retry-After"))
	requireRate(t, s.get("/api/v1/me", keyTiny), 5, 2) // reads go on
	// The refused request spent nothing and stored nothing under its key.
	s.clock.Advance(30 * time.Second)
	r = s.post("/api/v1/customers", keyTiny, "q2", `{"firstName":"Q","email":"q2@example.com"}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	require.Empty(t, r.Header.Get("Idempotency-Replayed"))
}

func TestFailedAuthLimitedPerIP(t *testing.T) {
	s := startWorld(t)
	for i := 1; i <= 20; i++ {
		r := s.get("/api/v1/me", "sk_wrong_"+strconv.Itoa(i))
		requireError(t, r, 401, "UNAUTHORIZED")
		requireRate(t, r, 20, 20-i)
	}
	// Over the limit, the IP is refused before any key is looked at: the
	// answer is the same for a valid key, an unknown one and none.
	for _, key := range []string{keyFull, "sk_wrong", ""} {
		r := s.get("/api/v1/me", key)
		requireError(t, r, 429, "RATE_LIMITED")
		requireRate(t, r, 20, 0)
		require.Equal(t, "3", r.Header.Get("Retry-After"))
	}
	s.clock.Advance(3 * time.Second)
	r := s.get("/api/v1/me", keyFull)
	require.Equal(t, 200, r.Status, "one attempt came back")
	require.Equal(t, "1000000", r.Header.Get("X-RateLimit-Limit"), "an authenticated request reports its key's limits")
	requireError(t, s.get("/api/v1/me", "sk_wrong"), 401, "UNAUTHORIZED")
	requireError(t, s.get("/api/v1/me", keyFull), 429, "RATE_LIMITED")
}
