package main

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// call sends method path with body (may be empty) and the given headers,
// as the full key.
func (s *server) call(method, path, body string, headers ...string) resp {
	req, err := http.NewRequest(method, s.base+path, bytes.NewReader([]byte(body)))
	require.NoError(s.t, err)
	req.Header.Set("Authorization", "Bearer "+keyFull)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return send(s.t, req)
}

// TestVersions: decisions §6 "Versions" — version 1 at creation, +1 on
// every change, ETag on GET, If-Match on PATCH and status refusing a stale
// edit with 412 and changing nothing.
func TestVersions(t *testing.T) {
	s := startWorld(t, "--webhooks-allow-insecure")
	rcv := newReceiver(t)
	ep, _ := s.register(rcv, "/v", "appointment.created", "appointment.updated", "appointment.cancelled")

	r := s.post("/api/v1/appointments", keyFull, "v-1", booking(haircutID, tue+"10:00:00Z", annaID, "noor@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	a := r.Body["appointment"].(map[string]any)
	require.EqualValues(t, 1, a["version"])
	id := a["id"].(string)
	path := "/api/v1/appointments/" + id

	got := s.get(path, keyFull)
	require.Equal(t, `"1"`, got.Header.Get("ETag"))
	require.EqualValues(t, 1, got.Body["version"])

	// A notes edit against version 1 makes version 2.
	p := s.call("PATCH", path, `{"notes":"fringe only"}`, "If-Match", `"1"`)
	require.Equal(t, 200, p.Status, "%s", p.Raw)
	require.EqualValues(t, 2, p.Body["version"])
	require.Equal(t, `"2"`, p.Header.Get("ETag"))

	// A second edit still made against version 1 is refused; nothing changes.
	stale := s.call("PATCH", path, `{"startTime":"`+tue+`11:00:00Z"}`, "If-Match", `"1"`)
	requireError(t, stale, 412, "PRECONDITION_FAILED")
	requireError(t, s.call("POST", path+"/status", `{"status":"cancelled"}`, "If-Match", `W/"1"`), 412, "PRECONDITION_FAILED")
	now := s.get(path, keyFull)
	require.Equal(t, "fringe only", now.Body["notes"])
	require.Equal(t, tue+"10:00:00.000Z", now.Body["startTime"])
	require.Equal(t, "confirmed", now.Body["status"])
	require.Equal(t, `"2"`, now.Header.Get("ETag"))

	// A no-op edit changes nothing, version included.
	same := s.call("PATCH", path, `{"notes":"fringe only"}`, "If-Match", `"2"`)
	require.Equal(t, 200, same.Status, "%s", same.Raw)
	require.EqualValues(t, 2, same.Body["version"])

	// Moving and cancelling against the current version; "*" and a list match.
	mv := s.call("PATCH", path, `{"startTime":"`+tue+`11:00:00Z"}`, "If-Match", `"7", "2"`)
	require.Equal(t, 200, mv.Status, "%s", mv.Raw)
	require.EqualValues(t, 3, mv.Body["version"])
	cx := s.call("POST", path+"/status", `{"status":"cancelled"}`, "If-Match", `*`)
	require.Equal(t, 200, cx.Status, "%s", cx.Raw)
	require.EqualValues(t, 4, cx.Body["version"])

	// Without If-Match: as before. A malformed one is a validation error.
	requireField(t, s.call("POST", path+"/status", `{"status":"confirmed"}`, "If-Match", `abc`), "If-Match", "invalid")
	ok := s.call("POST", path+"/status", `{"status":"confirmed"}`)
	require.Equal(t, 200, ok.Status, "%s", ok.Raw)
	require.EqualValues(t, 5, ok.Body["version"])

	// Every event carries the version its appointment had then.
	ds := s.waitDeliveries(ep, func(ds []map[string]any) bool { return len(ds) >= 3 && settled(ds) })
	require.Len(t, ds, 3, statuses(ds))
	_, bodies := rcv.events()
	var versions []float64
	for _, b := range bodies {
		var ev map[string]any
		require.NoError(t, jsonUnmarshal([]byte(b), &ev))
		versions = append(versions, ev["data"].(map[string]any)["version"].(float64))
	}
	require.ElementsMatch(t, []float64{1, 3, 4}, versions, "created v1, updated (moved) v3, cancelled v4")
}
