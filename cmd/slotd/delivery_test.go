package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/webhook"
)

// The delivery tests run the real server against a local receiver with
// --webhooks-allow-insecure and a small --webhook-retry-scale. The server's
// clock is a fake the test moves, so a retry rung passes in no real time.

const retryScale = "0.001" // the 1-minute rung is 60 ms of (fake) time

// register registers rcv (path p) for eventTypes and returns id and secret.
func (s *server) register(rcv *receiver, p string, eventTypes ...string) (id, secret string) {
	types, _ := json.Marshal(eventTypes)
	r := s.hook("POST", "/api/v1/webhooks", fmt.Sprintf(`{"url":%q,"eventTypes":%s}`, rcv.URL+p, types))
	require.Equal(s.t, 201, r.Status, "%s", r.Raw)
	return r.Body["id"].(string), r.Body["secret"].(string)
}

// deliveries lists the delivery log of endpoint id (one page).
func (s *server) deliveries(id string) []map[string]any {
	r := s.get("/api/v1/webhooks/"+id+"/deliveries?limit=100", keyFull)
	require.Equal(s.t, 200, r.Status, "%s", r.Raw)
	var out []map[string]any
	for _, d := range r.Body["data"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

// waitDeliveries waits until endpoint id's log satisfies ok.
func (s *server) waitDeliveries(id string, ok func([]map[string]any) bool) []map[string]any {
	var ds []map[string]any
	require.Eventually(s.t, func() bool { ds = s.deliveries(id); return ok(ds) }, 10*time.Second, 10*time.Millisecond,
		"delivery log never settled: %v", func() any { return ds })
	return ds
}

// settled reports whether every delivery of ds is delivered: the log
// lists a delivery (pending) before its receiver has had it.
func settled(ds []map[string]any) bool {
	for _, d := range ds {
		if d["status"] != "delivered" {
			return false
		}
	}
	return true
}

func statuses(ds []map[string]any) string {
	var b []string
	for _, d := range ds {
		b = append(b, fmt.Sprintf("%v#%v:%v", d["eventType"], d["attempt"], d["status"]))
	}
	return strings.Join(b, " ")
}

// events returns the deliveries (not pings) rcv received, in order.
func (r *receiver) events() (ids, bodies []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, req := range r.got {
		if !strings.Contains(string(r.bodies[i]), `"webhook.test"`) {
			ids = append(ids, req.Header.Get("webhook-id"))
			bodies = append(bodies, string(r.bodies[i]))
		}
	}
	return ids, bodies
}

func TestWebhookDeliverySignedAndLogged(t *testing.T) {
	s := startWorld(t, "--webhooks-allow-insecure", "--webhook-retry-scale", retryScale)
	rcv := newReceiver(t)
	id, secret := s.register(rcv, "/crm", "appointment.created", "customer.created")
	other, _ := s.register(rcv, "/cancels", "appointment.cancelled")

	r := s.post("/api/v1/appointments", keyFull, "d-1", booking(haircutID, tue+"10:00:00Z", annaID, "d1@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	appt := r.Body["appointment"].(map[string]any)["id"].(string)

	ds := s.waitDeliveries(id, func(ds []map[string]any) bool {
		return len(ds) == 2 && ds[0]["status"] == "delivered" && ds[1]["status"] == "delivered"
	})
	require.Equal(t, "customer.created", ds[0]["eventType"], "creation order")
	require.Equal(t, "appointment.created", ds[1]["eventType"])
	for _, d := range ds {
		require.EqualValues(t, 1, d["attempt"])
		require.EqualValues(t, 200, d["responseStatus"])
		require.Equal(t, id, d["endpointId"])
		require.NotNil(t, d["deliveredAt"])
		require.Nil(t, d["nextRetryAt"])
		require.Nil(t, d["errorMessage"])
		require.Equal(t, d["eventId"], d["payload"].(map[string]any)["id"])
		require.Equal(t, "v1", d["payload"].(map[string]any)["apiVersion"])
	}
	data := ds[1]["payload"].(map[string]any)["data"].(map[string]any)
	require.Equal(t, appt, data["id"])
	// The payload's Appointment is the API's, manage link included
	// (decisions §7; the OpenAPI schema requires it).
	link := r.Body["appointment"].(map[string]any)["manageUrl"]
	require.NotEmpty(t, link)
	require.Equal(t, link, data["manageUrl"])
	require.Equal(t, link, s.get("/api/v1/appointments/"+appt, keyFull).Body["manageUrl"])
	require.Empty(t, s.deliveries(other), "not subscribed: no rows")

	// What arrived is signed per Standard Webhooks and matches the log.
	v, err := webhook.NewVerifier(secret)
	require.NoError(t, err)
	rcv.mu.Lock()
	var seen []string
	for i, req := range rcv.got {
		if strings.Contains(string(rcv.bodies[i]), `"webhook.test"`) {
			continue
		}
		require.Equal(t, "/crm", req.URL.Path)
		require.Equal(t, "application/json", req.Header.Get("content-type"))
		require.Contains(t, req.Header.Get("user-agent"), "/1.0")
		require.NoError(t, v.Verify(req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp"),
			req.Header.Get("webhook-signature"), rcv.bodies[i], s.clock.Now()))
		seen = append(seen, req.Header.Get("webhook-id"))
	}
	rcv.mu.Unlock()
	require.ElementsMatch(t, []string{ds[0]["eventId"].(string), ds[1]["eventId"].(string)}, seen)

	// Paging: one record a page, then a cursor from another list is refused.
	p1 := s.get("/api/v1/webhooks/"+id+"/deliveries?limit=1", keyFull)
	require.Equal(t, true, p1.Body["hasMore"])
	p2 := s.get("/api/v1/webhooks/"+id+"/deliveries?limit=1&cursor="+p1.Body["nextCursor"].(string), keyFull)
	require.Equal(t, ds[1]["id"], p2.Body["data"].([]any)[0].(map[string]any)["id"])
	require.Equal(t, false, p2.Body["hasMore"])
	requireField(t, s.get("/api/v1/webhooks/"+other+"/deliveries?cursor="+p1.Body["nextCursor"].(string), keyFull), "cursor", "invalid")
	requireError(t, s.get("/api/v1/webhooks/00000000-0000-4000-8000-000000000000/deliveries", keyFull), 404, "NOT_FOUND")

	// Cancelling reaches the other endpoint only.
	require.Equal(t, 200, s.post("/api/v1/appointments/"+appt+"/status", keyFull, "", `{"status":"cancelled"}`).Status)
	s.waitDeliveries(other, func(ds []map[string]any) bool { return len(ds) == 1 && ds[0]["status"] == "delivered" })
	require.Len(t, s.deliveries(id), 2)
}

func TestWebhookRetriesThenReplay(t *testing.T) {
	s := startWorld(t, "--webhooks-allow-insecure", "--webhook-retry-scale", retryScale)
	rcv := newReceiver(t)
	id, _ := s.register(rcv, "/flaky", "appointment.created")
	rcv.answer(503)
	require.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "r-1", booking(haircutID, tue+"10:00:00Z", annaID, "r1@example.com")).Status)

	ds := s.waitDeliveries(id, func(ds []map[string]any) bool { return len(ds) == 1 && ds[0]["status"] == "failed" })
	first := ds[0]
	require.EqualValues(t, 503, first["responseStatus"])
	next, err := time.Parse(time.RFC3339Nano, first["nextRetryAt"].(string))
	require.NoError(t, err)
	created, _ := time.Parse(time.RFC3339Nano, first["createdAt"].(string))
	require.Equal(t, 60*time.Millisecond, next.Sub(created).Round(time.Millisecond), "the 1-minute rung, scaled")

	// The second rung fails too; the third is delivered.
	s.clock.Advance(60 * time.Millisecond)
	ds = s.waitDeliveries(id, func(ds []map[string]any) bool { return len(ds) == 2 && ds[1]["status"] == "failed" })
	require.EqualValues(t, 2, ds[1]["attempt"])
	require.Equal(t, "failed", ds[0]["status"], "an attempt's record keeps its own outcome")
	rcv.answer(200)
	s.clock.Advance(300 * time.Millisecond)
	ds = s.waitDeliveries(id, func(ds []map[string]any) bool { return len(ds) == 3 && ds[2]["status"] == "delivered" })
	require.EqualValues(t, 3, ds[2]["attempt"], statuses(ds))
	eventIDs, _ := rcv.events()
	require.Len(t, eventIDs, 3)
	require.Equal(t, eventIDs[0], eventIDs[2], "every attempt carries the event id")

	// Replay: 202 with the new pending record, same event id, attempt 7, then 8.
	r := s.hook("POST", "/api/v1/webhooks/"+id+"/deliveries/"+first["id"].(string)+"/replay", "")
	require.Equal(t, 202, r.Status, "%s", r.Raw)
	require.Equal(t, "pending", r.Body["status"])
	require.EqualValues(t, 7, r.Body["attempt"])
	require.Equal(t, first["eventId"], r.Body["eventId"])
	ds = s.waitDeliveries(id, func(ds []map[string]any) bool { return len(ds) == 4 && ds[3]["status"] == "delivered" })
	r = s.hook("POST", "/api/v1/webhooks/"+id+"/deliveries/"+ds[3]["id"].(string)+"/replay", "{}")
	require.Equal(t, 202, r.Status, "%s", r.Raw)
	require.EqualValues(t, 8, r.Body["attempt"])
	s.waitDeliveries(id, func(ds []map[string]any) bool { return len(ds) == 5 && ds[4]["status"] == "delivered" })
	eventIDs, _ = rcv.events()
	require.Equal(t, []string{eventIDs[0], eventIDs[0]}, eventIDs[3:], "replays reuse the original event id")

	// A replay of an unknown delivery, or with a body, spends nothing.
	requireError(t, s.hook("POST", "/api/v1/webhooks/"+id+"/deliveries/00000000-0000-4000-8000-000000000000/replay", ""), 404, "NOT_FOUND")
	requireField(t, s.hook("POST", "/api/v1/webhooks/"+id+"/deliveries/"+first["id"].(string)+"/replay", `{"force":true}`), "force", "unknown_field")
	// The bucket is shared with pings: 1 ping + 2 replays spent, 7 left.
	for i := 0; i < 7; i++ {
		r = s.hook("POST", "/api/v1/webhooks/"+id+"/deliveries/"+first["id"].(string)+"/replay", "")
		require.Equal(t, 202, r.Status)
		require.Equal(t, "10", r.Header.Get("X-RateLimit-Limit"), "the bucket is the tightest limiter consulted")
		require.Equal(t, strconv.Itoa(6-i), r.Header.Get("X-RateLimit-Remaining"))
	}
	r = s.hook("POST", "/api/v1/webhooks/"+id+"/deliveries/"+first["id"].(string)+"/replay", "")
	requireError(t, r, 429, "RATE_LIMITED")
	require.Equal(t, "0", r.Header.Get("X-RateLimit-Remaining"))
	require.NotEmpty(t, r.Header.Get("Retry-After"))
}

func TestWebhookPendingRetrySurvivesRestart(t *testing.T) {
	data := t.TempDir()
	s := start(t, data, "--world", "testdata/world.json", "--webhooks-allow-insecure", "--webhook-retry-scale", retryScale)
	rcv := newReceiver(t)
	id, _ := s.register(rcv, "/down", "appointment.created")
	rcv.answer(500)
	require.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "s-1", booking(haircutID, tue+"10:00:00Z", annaID, "s1@example.com")).Status)
	ds := s.waitDeliveries(id, func(ds []map[string]any) bool { return len(ds) == 1 && ds[0]["status"] == "failed" })
	s.stop()

	rcv.answer(200)
	s = start(t, data, "--webhooks-allow-insecure", "--webhook-retry-scale", retryScale)
	defer s.stop()
	next, _ := time.Parse(time.RFC3339Nano, ds[0]["nextRetryAt"].(string))
	s.clock.Set(next)
	// No request touches the business: the server woke its courier at start.
	require.Eventually(t, func() bool { ids, _ := rcv.events(); return len(ids) == 2 }, 10*time.Second, 5*time.Millisecond)
	ds = s.waitDeliveries(id, func(ds []map[string]any) bool { return len(ds) == 2 && ds[1]["status"] == "delivered" })
	require.EqualValues(t, 2, ds[1]["attempt"])
	require.Equal(t, ds[0]["eventId"], ds[1]["eventId"])
}

func TestWebhookAutoDisableAndReenable(t *testing.T) {
	s := startWorld(t, "--webhooks-allow-insecure", "--webhook-retry-scale", retryScale)
	rcv := newReceiver(t)
	id, _ := s.register(rcv, "/gone", "appointment.created")
	rcv.answer(410) // not retryable: every delivery is exhausted at once
	starts := []string{"08:00", "08:30", "09:00", "09:30", "10:00", "10:30", "11:00", "12:00", "12:30", "13:00", "13:30"}
	for i, at := range starts[:10] {
		r := s.post("/api/v1/appointments", keyFull, fmt.Sprintf("a-%d", i), booking(haircutID, tue+at+":00Z", annaID, "ad@example.com"))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		// One at a time, so that the count is of deliveries in a row.
		s.waitDeliveries(id, func(ds []map[string]any) bool { return len(ds) == i+1 && ds[i]["status"] == "exhausted" })
	}
	var ep map[string]any
	require.Eventually(t, func() bool {
		ep = s.get("/api/v1/webhooks/"+id, keyFull).Body
		return ep["status"] == "auto_disabled"
	}, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, false, ep["isActive"])
	require.EqualValues(t, 10, ep["consecutiveFailures"])

	// The owner is told, with the endpoint's URL.
	var notice string
	require.Eventually(t, func() bool {
		for _, m := range outboxMails(s.data) {
			if strings.Contains(m, "has been disabled") {
				notice = m
				return true
			}
		}
		return false
	}, 10*time.Second, 20*time.Millisecond)
	require.Contains(t, notice, "/gone")

	// Nothing is logged (or backfilled) while disabled.
	require.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "a-10", booking(haircutID, tue+starts[10]+":00Z", annaID, "ad@example.com")).Status)
	rcv.answer(200)
	r := s.hook("PATCH", "/api/v1/webhooks/"+id, `{"isActive":true}`)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	require.Equal(t, "active", r.Body["status"])
	require.EqualValues(t, 0, r.Body["consecutiveFailures"])
	require.Len(t, s.deliveries(id), 10)
}
