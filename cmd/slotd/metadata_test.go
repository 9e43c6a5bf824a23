package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Appointment metadata (decisions §7) through a real server: given at
// booking, returned wherever the appointment is, replaced whole by PATCH,
// kept across a restart, and validated.
func TestAppointmentMetadata(t *testing.T) {
	s := startWorld(t)
	withMeta := func(b, meta string) string { return strings.TrimSuffix(b, "}") + `,"metadata":` + meta + `}` }
	r := s.post("/api/v1/appointments", keyFull, "meta-1",
		withMeta(booking(haircutID, tue+"10:00:00Z", annaID, "meta@example.com"), `{"utm_source":"newsletter","order.ref":"A-17","empty":""}`))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	a := r.Body["appointment"].(map[string]any)
	id := a["id"].(string)
	want := map[string]any{"utm_source": "newsletter", "order.ref": "A-17", "empty": ""}
	require.Equal(t, want, a["metadata"])
	require.Contains(t, string(r.Raw), `"metadata":{"empty":"","order.ref":"A-17","utm_source":"newsletter"}`, "keys sorted")

	got := s.get("/api/v1/appointments/"+id, keyFull)
	require.Equal(t, want, got.Body["metadata"])
	list := s.get("/api/v1/appointments?from="+tue+"00:00:00Z&to="+tue+"23:59:59Z", keyFull)
	require.Equal(t, 200, list.Status, "%s", list.Raw)
	found := false
	for _, x := range list.Body["data"].([]any) {
		if m := x.(map[string]any); m["id"] == id {
			found = true
			require.Equal(t, want, m["metadata"])
		} else {
			require.Equal(t, map[string]any{}, m["metadata"], "an appointment without metadata shows {}")
		}
	}
	require.True(t, found)

	// PATCH replaces it whole; a metadata-only edit moves the version.
	v := got.Body["version"].(float64)
	p := s.call("PATCH", "/api/v1/appointments/"+id, `{"metadata":{"crm":"42"}}`)
	require.Equal(t, 200, p.Status, "%s", p.Raw)
	require.Equal(t, map[string]any{"crm": "42"}, p.Body["metadata"])
	require.Equal(t, v+1, p.Body["version"])
	same := s.call("PATCH", "/api/v1/appointments/"+id, `{"metadata":{"crm":"42"}}`)
	require.Equal(t, v+1, same.Body["version"], "the same metadata again changes nothing")

	s.stop()
	s2 := start(t, s.data)
	require.Equal(t, map[string]any{"crm": "42"}, s2.get("/api/v1/appointments/"+id, keyFull).Body["metadata"], "kept across a restart")
	cleared := s2.call("PATCH", "/api/v1/appointments/"+id, `{"metadata":{}}`)
	require.Equal(t, 200, cleared.Status, "%s", cleared.Raw)
	require.Equal(t, map[string]any{}, cleared.Body["metadata"])

	many := map[string]string{}
	for i := range 21 {
		many["k"+string(rune('a'+i))] = "v"
	}
	for meta, field := range map[string][2]string{
		`{"bad key":"x"}`: {"metadata.bad key", "invalid_format"},
		`{"":"x"}`:        {`metadata.""`, "invalid_format"},
		`{"k":7}`:         {"metadata.k", "invalid"},
		`{"k":null}`:      {"metadata.k", "invalid"},
		`{"k":"` + strings.Repeat("x", 501) + `"}`: {"metadata.k", "too_long"},
		`{"` + strings.Repeat("k", 41) + `":"x"}`:  {"metadata." + strings.Repeat("k", 41), "invalid_format"},
		`["k"]`:             {"metadata", "invalid"},
		`null`:              {"metadata", "invalid"},
		jsonObject(t, many): {"metadata", "too_large"},
	} {
		r := s2.post("/api/v1/appointments", keyFull, "bad-"+meta[:min(len(meta), 30)],
			withMeta(booking(haircutID, tue+"14:00:00Z", annaID, "bad@example.com"), meta))
		requireField(t, r, field[0], field[1])
		requireField(t, s2.call("PATCH", "/api/v1/appointments/"+id, `{"metadata":`+meta+`}`), field[0], field[1])
	}
}

// A booking page passes the visitor's UTM parameters as metadata, with a
// publishable key.
func TestPublishableBookingKeepsMetadata(t *testing.T) {
	s := startPublishableWorld(t, nil)
	body := strings.TrimSuffix(booking(haircutID, tue+"11:00:00Z", annaID, "utm@example.com"), "}") +
		`,"metadata":{"utm_source":"instagram","utm_campaign":"spring"}}`
	r := s.request(pcall{method: "POST", path: "/api/v1/appointments", key: keyPublishable, body: body,
		header: map[string]string{"Idempotency-Key": "utm-1", "Origin": pageOrigin}})
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	id := r.Body["appointment"].(map[string]any)["id"].(string)
	require.Equal(t, map[string]any{"utm_source": "instagram", "utm_campaign": "spring"},
		s.get("/api/v1/appointments/"+id, keyFull).Body["metadata"])
}

func jsonObject(t *testing.T, m map[string]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("{")
	first := true
	for k, v := range m {
		if !first {
			b.WriteString(",")
		}
		first = false
		b.WriteString(`"` + k + `":"` + v + `"`)
	}
	b.WriteString("}")
	return b.String()
}
