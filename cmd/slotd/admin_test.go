package main

import (
	"testing"

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
