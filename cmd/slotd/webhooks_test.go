package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/webhook"
	"github.com/slotd/slotd/webhook/mail/mailtest"
)

// receiver is a local webhook consumer recording what it is sent.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	status int
	got    []*http.Request
	bodies [][]byte
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{status: 200}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got, r.bodies = append(r.got, req), append(r.bodies, body)
		st := r.status
		r.mu.Unlock()
		w.WriteHeader(st)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) answer(status int) { r.mu.Lock(); r.status = status; r.mu.Unlock() }

func (s *server) hook(method, path, body string) resp {
	req, err := http.NewRequest(method, s.base+path, bytes.NewReader([]byte(body)))
	require.NoError(s.t, err)
	req.Header.Set("Authorization", "Bearer "+keyFull)
	return send(s.t, req)
}

func TestWebhookEndpoints(t *testing.T) {
	s := startWorld(t, "--webhooks-allow-insecure")
	rcv := newReceiver(t)
	reg := `{"url":%q,"eventTypes":["appointment.created","customer.created"],"description":"CRM sync"}`
	r := s.hook("POST", "/api/v1/webhooks", fmt.Sprintf(reg, rcv.URL+"/hook"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	secret := r.Body["secret"].(string)
	require.Regexp(t, `^whsec_`, secret)
	require.Equal(t, "active", r.Body["status"])
	require.Equal(t, "full", r.Body["payloadStyle"])
	id := r.Body["id"].(string)

	// The signed ping arrived before the answer and verifies.
	require.Len(t, rcv.got, 1)
	ping := rcv.got[0]
	v, err := webhook.NewVerifier(secret)
	require.NoError(t, err)
	require.NoError(t, v.Verify(ping.Header.Get("webhook-id"), ping.Header.Get("webhook-timestamp"), ping.Header.Get("webhook-signature"), rcv.bodies[0], s.clock.Now()))
	require.Contains(t, string(rcv.bodies[0]), `"type":"webhook.test"`)
	require.Contains(t, string(rcv.bodies[0]), `"data":{"object":"test"}`)

	// Never readable again.
	got := s.get("/api/v1/webhooks/"+id, keyFull)
	require.Equal(t, 200, got.Status)
	require.NotContains(t, got.Body, "secret")
	list := s.get("/api/v1/webhooks", keyFull)
	require.Equal(t, false, list.Body["hasMore"])
	require.Nil(t, list.Body["nextCursor"])
	require.Len(t, list.Body["data"], 1)
	require.NotContains(t, string(list.Raw), secret)
	requireField(t, s.get("/api/v1/webhooks?limit=5", keyFull), "limit", "unknown_field")

	// Refusals.
	requireError(t, s.hook("POST", "/api/v1/webhooks", fmt.Sprintf(reg, rcv.URL+"/hook")), 409, "CONFLICT")
	requireField(t, s.hook("POST", "/api/v1/webhooks", `{"url":"`+rcv.URL+`/x","eventTypes":["webhook.test"]}`), "eventTypes.0", "invalid_option")
	requireField(t, s.hook("POST", "/api/v1/webhooks", `{"url":"`+rcv.URL+`/x","eventTypes":["appointment.moved"]}`), "eventTypes.0", "invalid_option")
	requireField(t, s.hook("POST", "/api/v1/webhooks", `{"url":"ftp://x","eventTypes":[]}`), "url", "invalid_url")
	req, _ := http.NewRequest("POST", s.base+"/api/v1/webhooks", bytes.NewReader([]byte(fmt.Sprintf(reg, rcv.URL+"/y"))))
	req.Header.Set("Authorization", "Bearer "+keyFull)
	req.Header.Set("Idempotency-Key", "k")
	requireField(t, send(t, req), "Idempotency-Key", "unknown_field")
	rcv.answer(404)
	pings := len(rcv.got)
	requireField(t, s.hook("POST", "/api/v1/webhooks", fmt.Sprintf(reg, rcv.URL+"/gone")), "url", "invalid")
	require.Len(t, rcv.got, pings+1, "the ping was sent")
	require.Len(t, s.get("/api/v1/webhooks", keyFull).Body["data"], 1, "nothing stored")

	// PATCH: a URL change pings; a failing ping changes nothing.
	p := s.hook("PATCH", "/api/v1/webhooks/"+id, fmt.Sprintf(`{"url":%q}`, rcv.URL+"/new"))
	requireField(t, p, "url", "invalid")
	rcv.answer(204)
	p = s.hook("PATCH", "/api/v1/webhooks/"+id, fmt.Sprintf(`{"url":%q,"description":"moved","isActive":false}`, rcv.URL+"/new"))
	require.Equal(t, 200, p.Status, "%s", p.Raw)
	require.Equal(t, rcv.URL+"/new", p.Body["url"])
	require.Equal(t, false, p.Body["isActive"])
	require.NotContains(t, p.Body, "secret")

	require.Equal(t, 204, s.hook("DELETE", "/api/v1/webhooks/"+id, "").Status)
	requireError(t, s.get("/api/v1/webhooks/"+id, keyFull), 404, "NOT_FOUND")

	// Studio Small has neither the plan nor the module.
	requireError(t, s.get("/api/v1/webhooks", keyStudio), 403, "PLAN_UPGRADE_REQUIRED")
}

func TestWebhookLimits(t *testing.T) {
	s := startWorld(t, "--webhooks-allow-insecure")
	rcv := newReceiver(t)
	// The bucket is a limiter the request consulted, and with far less left
	// than the key's quotas, its numbers are the headers'.
	full := strconv.FormatInt(s.clock.Now().Add(time.Minute).Unix(), 10)
	bucketHeaders := func(r resp, remaining int) {
		t.Helper()
		require.Equal(t, "10", r.Header.Get("X-RateLimit-Limit"))
		require.Equal(t, strconv.Itoa(remaining), r.Header.Get("X-RateLimit-Remaining"))
		require.Equal(t, full, r.Header.Get("X-RateLimit-Reset"), "full again a minute after the last spend")
	}
	for i := 0; i < 5; i++ {
		r := s.hook("POST", "/api/v1/webhooks", fmt.Sprintf(`{"url":"%s/%d","eventTypes":["appointment.created"]}`, rcv.URL, i))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		bucketHeaders(r, 9-i)
	}
	pings := len(rcv.got)
	r := s.hook("POST", "/api/v1/webhooks", fmt.Sprintf(`{"url":"%s/6","eventTypes":["appointment.created"]}`, rcv.URL))
	requireError(t, r, 409, "CONFLICT")
	require.Len(t, rcv.got, pings, "refused before its ping")
	require.NotEqual(t, "10", r.Header.Get("X-RateLimit-Limit"), "the bucket was not consulted: the key's headers")

	// Five pings spent; five more allowed in the minute, then 429.
	ids := s.get("/api/v1/webhooks", keyFull).Body["data"].([]any)
	first := ids[0].(map[string]any)["id"].(string)
	for i := 0; i < 5; i++ {
		r := s.hook("PATCH", "/api/v1/webhooks/"+first, fmt.Sprintf(`{"url":"%s/moved%d"}`, rcv.URL, i))
		require.Equal(t, 200, r.Status, "%s", r.Raw)
		bucketHeaders(r, 4-i)
	}
	r = s.hook("PATCH", "/api/v1/webhooks/"+first, fmt.Sprintf(`{"url":"%s/moved-again"}`, rcv.URL))
	requireError(t, r, 429, "RATE_LIMITED")
	bucketHeaders(r, 0)
	require.Equal(t, "60", r.Header.Get("Retry-After"))
	s.clock.Advance(59 * time.Second)
	r = s.hook("PATCH", "/api/v1/webhooks/"+first, fmt.Sprintf(`{"url":"%s/moved-again"}`, rcv.URL))
	requireError(t, r, 429, "RATE_LIMITED")
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	s.clock.Advance(time.Second) // a minute after the spends: the bucket is full again
	require.Equal(t, 200, s.hook("PATCH", "/api/v1/webhooks/"+first, fmt.Sprintf(`{"url":"%s/moved-again"}`, rcv.URL)).Status)
}

func TestWebhookSSRFAtRegistration(t *testing.T) {
	s := startWorld(t)
	rcv := newReceiver(t)
	// Without --webhooks-allow-insecure: plain http and other ports are
	// refused outright; an https URL to a loopback or private address is
	// refused by the destination guard when its ping dials, and the answer
	// says so rather than blaming the consumer.
	for _, url := range []string{rcv.URL, "http://127.0.0.1:9999/hook", "https://localhost:8443/x"} {
		f := requireField(t, s.hook("POST", "/api/v1/webhooks", fmt.Sprintf(`{"url":%q,"eventTypes":["appointment.created"]}`, url)), "url", "invalid_url")
		require.Contains(t, f["message"], "--webhooks-allow-insecure", "the refusal names the development flag")
	}
	for url, class := range map[string]string{"https://localhost/x?token=t0ps3cret": "a loopback address", "https://10.1.2.3/x": "a private address"} {
		r := s.hook("POST", "/api/v1/webhooks", fmt.Sprintf(`{"url":%q,"eventTypes":["appointment.created"]}`, url))
		f := requireField(t, r, "url", "invalid_url")
		require.Equal(t, "The destination is not allowed: the URL's host is "+class+", and webhooks are only sent to public internet addresses. (For local testing, a server started with --webhooks-allow-insecure accepts http://, any port and private or loopback addresses.)", f["message"])
		require.NotContains(t, string(r.Raw), "10.1.2.3", "the message does not echo the address")
	}
	require.Empty(t, s.hook("GET", "/api/v1/webhooks", "").Body["data"], "nothing stored")
	log := s.log.String()
	require.Contains(t, log, `msg="webhook ping refused by the destination guard"`)
	require.Regexp(t, `host=localhost cause="destination refused: (127\.0\.0\.1|::1) is a loopback address \(localhost\)"`, log)
	require.Contains(t, log, `host=10.1.2.3 cause="destination refused: 10.1.2.3 is a private address"`)
	require.NotContains(t, log, "t0ps3cret", "only the host of a URL is logged")
}

// TestWebhookPingFailureIsLogged: a ping the consumer answers with an
// error, or does not answer, is 400 invalid on url, and the log says why.
func TestWebhookPingFailureIsLogged(t *testing.T) {
	s := startWorld(t, "--webhooks-allow-insecure")
	rcv := newReceiver(t)
	rcv.answer(503)
	r := s.hook("POST", "/api/v1/webhooks", fmt.Sprintf(`{"url":%q,"eventTypes":["appointment.created"]}`, rcv.URL+"/down"))
	requireField(t, r, "url", "invalid")
	require.Regexp(t, `msg="webhook ping failed" request_id=`+r.Header.Get("X-Request-Id")+` business=`+salonID+` host=127\.0\.0\.1 cause="HTTP 503"`, s.log.String())

	closed := newReceiver(t)
	url := closed.URL
	closed.Close()
	requireField(t, s.hook("POST", "/api/v1/webhooks", fmt.Sprintf(`{"url":%q,"eventTypes":["appointment.created"]}`, url+"/gone")), "url", "invalid")
	require.Contains(t, s.log.String(), `cause="connection refused"`)
}

// TestConfirmationMailIsWritten books without --smtp: the confirmation
// is appended to the day's mailbox, DATA/outbox/YYYY-MM-DD.mbox (UTC), and
// a status change appends another to the same file.
func TestConfirmationMailIsWritten(t *testing.T) {
	s := startWorld(t)
	r := s.post("/api/v1/appointments", keyFull, "mail-1", booking(haircutID, tue+"10:00:00Z", annaID, "mail@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	id := r.Body["appointment"].(map[string]any)["id"].(string)
	waitMails := func(n int) []mailtest.MboxMessage {
		var found []mailtest.MboxMessage
		require.Eventually(t, func() bool {
			found, _ = mailtest.ReadOutbox(s.data)
			return len(found) >= n
		}, 10*time.Second, 20*time.Millisecond)
		return found
	}
	first := waitMails(1)[0]
	require.Equal(t, s.clock.Now().UTC().Format(time.DateOnly)+".mbox", first.File, "the day of the server's clock")
	require.Contains(t, string(first.Data), "To: <mail@example.com>")
	require.Contains(t, string(first.Data), "Haircut")
	require.Regexp(t, `^From \S+@\S+ \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$`, first.FromLine)
	require.Equal(t, 200, s.post("/api/v1/appointments/"+id+"/status", keyFull, "", `{"status":"cancelled"}`).Status)
	all := waitMails(2)
	require.Len(t, all, 2)
	require.Equal(t, first.File, all[1].File, "one mailbox per day")
	require.Contains(t, string(all[1].Data), "cancelled")
}

// outboxMails returns the messages in data's outbox mailboxes, none while
// a mailbox cannot be read whole.
func outboxMails(data string) []string {
	ms, err := mailtest.ReadOutbox(data)
	if err != nil {
		return nil
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m.Data)
	}
	return out
}
