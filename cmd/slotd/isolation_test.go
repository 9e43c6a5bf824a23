package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
)

// Tenant isolation: a key of one business must learn nothing about the
// records of another. Every route that takes an id answers the other
// business's real id exactly as it answers an id that was never used (same
// status, byte-identical body, same headers apart from the per-request
// ones), list filters and write references behave the same way, nothing of
// the other business changes, and webhook secrets and API keys never show up
// in a response or in the server's log after they were handed out.

const isoStudioID = "3564727f-cf75-56bf-8ff9-ba8856a3ada8"

// isoPerRequestHeaders are the only response headers allowed to differ
// between two otherwise identical requests.
var isoPerRequestHeaders = []string{"X-Request-Id", "Date", "X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset"}

// isoTenant holds one business's key and the ids of its real records.
type isoTenant struct {
	name, key                  string
	service, staff, category   string
	customer, customerEmail    string
	appointment                string
	endpoint, secret, delivery string
	slot                       string // a free start for service with staff
	apptCursor                 string // nextCursor of GET /appointments?limit=1
}

// isoClient records every response so that the test can scan them all for
// secrets afterwards.
type isoClient struct {
	t    *testing.T
	s    *server
	seen []resp
}

func (c *isoClient) call(method, path, key, idem, body string) resp {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.s.base+path, rd)
	require.NoError(c.t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	r := send(c.t, req)
	c.seen = append(c.seen, r)
	return r
}

// startIsolationWorld starts testdata/world.json with Studio Small raised
// to the pro plan with every module, so that it has customers, bookings and
// webhook endpoints of its own. Unlike startConfig it keeps the server's
// log (stderr), which the secret checks read.
func startIsolationWorld(t *testing.T) (*server, *syncBuffer) {
	t.Helper()
	var w map[string]any
	require.NoError(t, json.Unmarshal(mustRead(t, "testdata/world.json"), &w))
	studio := w["businesses"].([]any)[1].(map[string]any)
	require.Equal(t, isoStudioID, studio["id"])
	studio["plan"] = "pro"
	studio["modules"] = []string{"appointments", "customers", "webhooks", "payments"}
	doc, err := json.Marshal(w)
	require.NoError(t, err)
	worldFile := filepath.Join(t.TempDir(), "world.json")
	require.NoError(t, os.WriteFile(worldFile, doc, 0o644))

	args := []string{"--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
		"--admin-token", testAdminToken, "--world", worldFile, "--webhooks-allow-insecure"}
	c, err := parseConfig(args, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	fake := clock.NewFake(testEpoch)
	c.clock = fake
	logs := &syncBuffer{}
	s := &server{t: t, data: c.Data, cancel: cancel, done: make(chan error, 1), stdout: &syncBuffer{}, clock: fake}
	ready := make(chan addrs, 1)
	go func() { s.done <- serve(ctx, c, s.stdout, logs, func(a addrs) { ready <- a }) }()
	select {
	case a := <-ready:
		s.base, s.admin = "http://"+a.Public, "http://"+a.Admin
	case err := <-s.done:
		t.Fatalf("server did not start: %v\n%s", err, logs.String())
	case <-time.After(20 * time.Second):
		t.Fatal("server did not start within 20 s")
	}
	t.Cleanup(s.stop)
	return s, logs
}

// isoSame asserts that a (the other business's real id) and b (an unknown
// id) got the same answer: status, byte-identical body, and the same
// headers apart from the per-request ones.
func isoSame(t *testing.T, label string, a, b resp) {
	t.Helper()
	require.Equal(t, b.Status, a.Status, "%s: status differs\nreal id:    %s\nunknown id: %s", label, a.Raw, b.Raw)
	require.Equal(t, string(b.Raw), string(a.Raw), "%s: body differs", label)
	names := map[string]bool{}
	for k := range a.Header {
		names[k] = true
	}
	for k := range b.Header {
		names[k] = true
	}
	var differ []string
	for k := range names {
		if !slices.Equal(a.Header.Values(k), b.Header.Values(k)) {
			differ = append(differ, k)
		}
	}
	sort.Strings(differ)
	for _, k := range differ {
		require.Contains(t, isoPerRequestHeaders, http.CanonicalHeaderKey(k),
			"%s: header %s differs: real id %q, unknown id %q (all differing: %v)", label, k, a.Header.Values(k), b.Header.Values(k), differ)
	}
}

func isoRandom() string { return uuid.NewString() }

func TestTenantIsolation(t *testing.T) {
	s, logs := startIsolationWorld(t)
	c := &isoClient{t: t, s: s}
	rcv := newReceiver(t)

	salon := &isoTenant{name: "salon", key: keyFull, service: haircutID, staff: annaID, category: hairCatID, slot: tue + "10:00:00Z"}
	studio := &isoTenant{name: "studio", key: keyStudio, service: massageID, staff: eliID, category: "a5e68e97-7735-52ad-9ef6-bf2cc8a93424", slot: tue + "10:00:00Z"}

	// --- 1. Real records of both businesses -------------------------------
	for _, b := range []*isoTenant{salon, studio} {
		r := c.call("POST", "/api/v1/webhooks", b.key, "",
			fmt.Sprintf(`{"url":%q,"eventTypes":["customer.created","appointment.created"]}`, rcv.URL+"/"+b.name))
		require.Equal(t, 201, r.Status, "%s: %s", b.name, r.Raw)
		b.endpoint, b.secret = r.Body["id"].(string), r.Body["secret"].(string)
		require.True(t, strings.HasPrefix(b.secret, "whsec_"), b.secret)
	}
	registrations := len(c.seen) // the only answers allowed to carry a secret

	// The studio: a customer, then two bookings (one customer each).
	studio.customerEmail = "iso-studio-cust@example.com"
	r := c.call("POST", "/api/v1/customers", studio.key, "iso-studio-c", `{"firstName":"Iso","lastName":"Studio","email":"`+studio.customerEmail+`"}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	studio.customer = r.Body["id"].(string)
	for i, at := range []string{tue + "08:00:00Z", tue + "09:00:00Z"} {
		r = c.call("POST", "/api/v1/appointments", studio.key, fmt.Sprint("iso-studio-a", i), booking(massageID, at, eliID, fmt.Sprintf("iso-studio-%d@example.com", i)))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		if i == 0 {
			studio.appointment = r.Body["appointment"].(map[string]any)["id"].(string)
		}
	}
	// The same Idempotency-Key in two businesses is two requests: the salon
	// reusing the studio's key gets its own answer, not a replay or a
	// reuse conflict.
	r = c.call("POST", "/api/v1/customers", salon.key, "iso-studio-c", `{"firstName":"Iso","lastName":"Studio","email":"`+studio.customerEmail+`"}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	require.Empty(t, r.Header.Get("Idempotency-Replayed"))
	require.NotEqual(t, studio.customer, r.Body["id"])

	// The salon: a customer of its own, and a booking made with the e-mail
	// of the studio's customer, which must be a salon customer (the one
	// just made above), never the studio's.
	salon.customerEmail = "iso-salon-cust@example.com"
	r = c.call("POST", "/api/v1/customers", salon.key, "iso-salon-c", `{"firstName":"Iso","lastName":"Salon","email":"`+salon.customerEmail+`"}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	salon.customer = r.Body["id"].(string)
	r = c.call("POST", "/api/v1/appointments", salon.key, "iso-salon-a", booking(haircutID, tue+"10:00:00Z", annaID, studio.customerEmail))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	appt := r.Body["appointment"].(map[string]any)
	salon.appointment = appt["id"].(string)
	require.NotEqual(t, studio.customer, appt["customer"].(map[string]any)["id"], "a booking must never attach another business's customer")
	// And the other way round: the studio books with the salon's Eva.
	r = c.call("POST", "/api/v1/appointments", studio.key, "iso-studio-eva", booking(massageID, tue+"10:00:00Z", eliID, "eva@example.com"))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	require.NotEqual(t, evaID, r.Body["appointment"].(map[string]any)["customer"].(map[string]any)["id"])

	// Deliveries: each endpoint has its customer.created and
	// appointment.created records, all delivered.
	for _, b := range []*isoTenant{salon, studio} {
		var data []any
		for deadline := time.Now().Add(10 * time.Second); ; {
			r := c.call("GET", "/api/v1/webhooks/"+b.endpoint+"/deliveries?limit=100", b.key, "", "")
			require.Equal(t, 200, r.Status, "%s", r.Raw)
			data = r.Body["data"].([]any)
			settled := len(data) >= 2
			for _, d := range data {
				settled = settled && d.(map[string]any)["status"] == "delivered"
			}
			if settled {
				break
			}
			require.True(t, time.Now().Before(deadline), "%s deliveries never settled: %s", b.name, r.Raw)
			time.Sleep(10 * time.Millisecond)
		}
		b.delivery = data[0].(map[string]any)["id"].(string)
		r := c.call("GET", "/api/v1/appointments?limit=1", b.key, "", "")
		require.Equal(t, 200, r.Status, "%s", r.Raw)
		require.Equal(t, true, r.Body["hasMore"], "%s", r.Raw)
		b.apptCursor = r.Body["nextCursor"].(string)
	}

	// What each business can see of itself, to prove afterwards that the
	// other business's probes changed nothing.
	snapshot := func(b *isoTenant) map[string]string {
		out := map[string]string{}
		for _, p := range []string{
			"/api/v1/services/" + b.service, "/api/v1/staff/" + b.staff, "/api/v1/customers/" + b.customer,
			"/api/v1/appointments/" + b.appointment, "/api/v1/appointments?limit=100", "/api/v1/webhooks",
			"/api/v1/webhooks/" + b.endpoint, "/api/v1/webhooks/" + b.endpoint + "/deliveries?limit=100",
		} {
			r := c.call("GET", p, b.key, "", "")
			require.Equal(t, 200, r.Status, "%s %s: %s", b.name, p, r.Raw)
			out[p] = string(r.Raw)
		}
		return out
	}
	before := map[string]map[string]string{salon.name: snapshot(salon), studio.name: snapshot(studio)}

	// --- 2. Every id-taking route, both directions ------------------------
	from, to := "2026-12-08T00:00:00Z", "2026-12-09T00:00:00Z"
	idem := 0
	walk := func(att, vic *isoTenant) {
		label := func(s string) string { return att.name + " → " + vic.name + ": " + s }
		pair := func(name, method, realPath, unknownPath, body string, status int, code string) {
			t.Helper()
			a := c.call(method, realPath, att.key, "", body)
			b := c.call(method, unknownPath, att.key, "", body)
			isoSame(t, label(name), a, b)
			if code != "" {
				requireError(t, a, status, code)
			} else {
				require.Equal(t, status, a.Status, "%s: %s", label(name), a.Raw)
			}
		}
		nf := func(method, tmpl, vicID, body string) {
			t.Helper()
			pair(method+" "+tmpl, method, fmt.Sprintf(tmpl, vicID), fmt.Sprintf(tmpl, isoRandom()), body, 404, "NOT_FOUND")
		}
		nf("GET", "/api/v1/services/%s", vic.service, "")
		nf("GET", "/api/v1/staff/%s", vic.staff, "")
		nf("GET", "/api/v1/customers/%s", vic.customer, "")
		nf("GET", "/api/v1/appointments/%s", vic.appointment, "")
		nf("PATCH", "/api/v1/appointments/%s", vic.appointment, `{"notes":"isolation probe"}`)
		nf("PATCH", "/api/v1/appointments/%s", vic.appointment, `{"startTime":"`+vic.slot+`"}`)
		nf("GET", "/api/v1/webhooks/%s", vic.endpoint, "")
		nf("PATCH", "/api/v1/webhooks/%s", vic.endpoint, `{"description":"isolation probe","isActive":false}`)
		nf("PATCH", "/api/v1/webhooks/%s", vic.endpoint, fmt.Sprintf(`{"url":%q}`, rcv.URL+"/hijack"))
		nf("GET", "/api/v1/webhooks/%s/deliveries", vic.endpoint, "")
		nf("GET", "/api/v1/webhooks/%s/deliveries?limit=1", vic.endpoint, "")
		// Replay: the other business's endpoint and delivery, then the
		// other business's delivery under an endpoint of one's own.
		pair("POST replay (their endpoint, their delivery)", "POST",
			"/api/v1/webhooks/"+vic.endpoint+"/deliveries/"+vic.delivery+"/replay",
			"/api/v1/webhooks/"+isoRandom()+"/deliveries/"+isoRandom()+"/replay", "{}", 404, "NOT_FOUND")
		pair("POST replay (own endpoint, their delivery)", "POST",
			"/api/v1/webhooks/"+att.endpoint+"/deliveries/"+vic.delivery+"/replay",
			"/api/v1/webhooks/"+att.endpoint+"/deliveries/"+isoRandom()+"/replay", "", 404, "NOT_FOUND")
		// Destructive ones last.
		nf("POST", "/api/v1/appointments/%s/status", vic.appointment, `{"status":"cancelled"}`)
		nf("DELETE", "/api/v1/webhooks/%s", vic.endpoint, "")

		// List filters naming the other business's ids.
		for _, f := range []string{"customerId", "staffMemberId", "serviceId"} {
			id := map[string]string{"customerId": vic.customer, "staffMemberId": vic.staff, "serviceId": vic.service}[f]
			pair("GET /appointments?"+f, "GET", "/api/v1/appointments?"+f+"="+id, "/api/v1/appointments?"+f+"="+isoRandom(), "", 200, "")
		}
		pair("GET /appointments?customerId&staffMemberId&serviceId", "GET",
			fmt.Sprintf("/api/v1/appointments?customerId=%s&staffMemberId=%s&serviceId=%s", vic.customer, vic.staff, vic.service),
			fmt.Sprintf("/api/v1/appointments?customerId=%s&staffMemberId=%s&serviceId=%s", isoRandom(), isoRandom(), isoRandom()), "", 200, "")
		r := c.call("GET", "/api/v1/appointments?customerId="+vic.customer, att.key, "", "")
		require.Empty(t, r.Body["data"], label("their customer's appointments"))
		pair("GET /availability/slots?serviceId", "GET",
			"/api/v1/availability/slots?serviceId="+vic.service+"&from="+from+"&to="+to,
			"/api/v1/availability/slots?serviceId="+isoRandom()+"&from="+from+"&to="+to, "", 400, "VALIDATION_ERROR")
		requireField(t, c.call("GET", "/api/v1/availability/slots?serviceId="+vic.service+"&from="+from+"&to="+to, att.key, "", ""), "serviceId", "invalid")
		pair("GET /availability/slots?staffMemberId", "GET",
			"/api/v1/availability/slots?serviceId="+att.service+"&staffMemberId="+vic.staff+"&from="+from+"&to="+to,
			"/api/v1/availability/slots?serviceId="+att.service+"&staffMemberId="+isoRandom()+"&from="+from+"&to="+to, "", 400, "VALIDATION_ERROR")
		pair("GET /services?categoryId", "GET", "/api/v1/services?categoryId="+vic.category, "/api/v1/services?categoryId="+isoRandom(), "", 200, "")
		// A cursor the other business was given is as good as a forged one.
		pair("GET /appointments?cursor", "GET", "/api/v1/appointments?limit=1&cursor="+url.QueryEscape(vic.apptCursor),
			"/api/v1/appointments?limit=1&cursor="+url.QueryEscape(flip(vic.apptCursor)), "", 400, "VALIDATION_ERROR")

		// Writes referencing the other business's ids: as unknown ids,
		// 400 VALIDATION_ERROR naming the field. The calls differ only in
		// the id and in an Idempotency-Key of the same length.
		write := func(name, realBody, unknownBody, field string) {
			t.Helper()
			idem++
			a := c.call("POST", "/api/v1/appointments", att.key, fmt.Sprintf("iso-w-%03d-a", idem), realBody)
			b := c.call("POST", "/api/v1/appointments", att.key, fmt.Sprintf("iso-w-%03d-b", idem), unknownBody)
			isoSame(t, label(name), a, b)
			requireField(t, a, field, "invalid")
		}
		write("POST /appointments serviceId", booking(vic.service, att.slot, att.staff, "iso-w@example.com"),
			booking(isoRandom(), att.slot, att.staff, "iso-w@example.com"), "serviceId")
		write("POST /appointments staffMemberId", booking(att.service, att.slot, vic.staff, "iso-w@example.com"),
			booking(att.service, att.slot, isoRandom(), "iso-w@example.com"), "staffMemberId")
		for _, f := range []struct{ field, id string }{{"serviceId", vic.service}, {"staffMemberId", vic.staff}} {
			a := c.call("PATCH", "/api/v1/appointments/"+att.appointment, att.key, "", fmt.Sprintf(`{%q:%q}`, f.field, f.id))
			b := c.call("PATCH", "/api/v1/appointments/"+att.appointment, att.key, "", fmt.Sprintf(`{%q:%q}`, f.field, isoRandom()))
			isoSame(t, label("PATCH /appointments/{own} "+f.field), a, b)
			requireField(t, a, f.field, "invalid")
		}
		// customerId is not a member of any write (a booking names its
		// customer by e-mail; see the cross-business e-mail bookings above).
		a := c.call("POST", "/api/v1/appointments", att.key, "iso-cust-a",
			`{"serviceId":"`+att.service+`","startTime":"`+att.slot+`","customerId":"`+vic.customer+`","customer":{"firstName":"X","email":"x@example.com"}}`)
		b := c.call("POST", "/api/v1/appointments", att.key, "iso-cust-b",
			`{"serviceId":"`+att.service+`","startTime":"`+att.slot+`","customerId":"`+isoRandom()+`","customer":{"firstName":"X","email":"x@example.com"}}`)
		isoSame(t, label("POST /appointments customerId"), a, b)
		requireField(t, a, "customerId", "unknown_field")
	}
	walk(salon, studio)
	walk(studio, salon)

	// Nothing of either business changed.
	for _, b := range []*isoTenant{salon, studio} {
		after := snapshot(b)
		for p, raw := range before[b.name] {
			require.Equal(t, raw, after[p], "%s: %s changed", b.name, p)
		}
	}
	rcv.mu.Lock()
	for _, req := range rcv.got {
		require.NotEqual(t, "/hijack", req.URL.Path, "a PATCH through another business's key pinged its URL")
	}
	rcv.mu.Unlock()

	// --- 3. Timing (coarse): an id of the other business costs what an
	// unknown id costs. Interleaved, medians of 200 each, within 3x + 1 ms.
	for _, tc := range []struct{ tmpl, id string }{
		{"/api/v1/appointments/%s", studio.appointment},
		{"/api/v1/customers/%s", studio.customer},
	} {
		var theirs, unknown []time.Duration
		for i := 0; i < 220; i++ {
			paths := [2]string{fmt.Sprintf(tc.tmpl, tc.id), fmt.Sprintf(tc.tmpl, isoRandom())}
			order := [2]int{0, 1}
			if i%2 == 1 { // alternate which goes first
				order = [2]int{1, 0}
			}
			for _, j := range order {
				t0 := time.Now()
				r := do(t, "GET", s.base+paths[j], salon.key, nil)
				d := time.Since(t0)
				require.Equal(t, 404, r.Status, "%s", r.Raw)
				switch {
				case i < 20: // warm-up
				case j == 0:
					theirs = append(theirs, d)
				default:
					unknown = append(unknown, d)
				}
			}
		}
		mr, mu := isoMedian(theirs), isoMedian(unknown)
		t.Logf("timing %s: median %v for the other business's id, %v for an unknown id (%d each)", tc.tmpl, mr, mu, len(theirs))
		require.LessOrEqual(t, mr, 3*mu+time.Millisecond, tc.tmpl)
		require.LessOrEqual(t, mu, 3*mr+time.Millisecond, tc.tmpl)
	}

	// --- 4. Secrets ------------------------------------------------------
	// Every place an endpoint is shown after its registration.
	for _, b := range []*isoTenant{salon, studio} {
		for _, p := range []string{"/api/v1/webhooks", "/api/v1/webhooks/" + b.endpoint, "/api/v1/webhooks/" + b.endpoint + "/deliveries?limit=100"} {
			r := c.call("GET", p, b.key, "", "")
			require.Equal(t, 200, r.Status, "%s", r.Raw)
		}
		r := c.call("PATCH", "/api/v1/webhooks/"+b.endpoint, b.key, "", `{"description":"patched by the isolation test"}`)
		require.Equal(t, 200, r.Status, "%s", r.Raw)
		r = c.call("PATCH", "/api/v1/webhooks/"+b.endpoint, b.key, "", fmt.Sprintf(`{"url":%q}`, rcv.URL+"/"+b.name+"-moved"))
		require.Equal(t, 200, r.Status, "%s", r.Raw)
		r = c.call("POST", "/api/v1/webhooks/"+b.endpoint+"/deliveries/"+b.delivery+"/replay", b.key, "", "")
		require.Equal(t, 202, r.Status, "%s", r.Raw)
	}
	// Failed requests with a valid key, and failed authentications (a few:
	// the failed-auth limit is 20 a minute per IP).
	wrongKey := "sk_iso_wrong_" + strings.ReplaceAll(isoRandom(), "-", "")
	c.call("GET", "/api/v1/nowhere", keyFull, "", "")
	c.call("DELETE", "/api/v1/services", keyFull, "", "")
	c.call("GET", "/api/v1/services?bogus=1", keyFull, "", "")
	c.call("POST", "/api/v1/appointments", keyFull, "iso-bad", `{"serviceId":`)
	requireError(t, c.call("GET", "/api/v1/me", wrongKey, "", ""), 401, "UNAUTHORIZED")
	requireError(t, c.call("GET", "/api/v1/me", keyFull+"x", "", ""), 401, "UNAUTHORIZED")
	requireError(t, c.call("GET", "/api/v1/me", keyFull+" extra", "", ""), 401, "UNAUTHORIZED")

	type secret struct{ what, s string }
	var secrets []secret
	for _, b := range []*isoTenant{salon, studio} {
		secrets = append(secrets, secret{b.name + " webhook secret", b.secret},
			secret{b.name + " webhook secret (without prefix)", strings.TrimPrefix(b.secret, "whsec_")})
	}
	keys := []secret{{"salon API key", keyFull}, {"studio API key", keyStudio}, {"wrong API key", wrongKey}}
	for i, r := range c.seen {
		if i < registrations {
			continue
		}
		var hdr bytes.Buffer
		_ = r.Header.Write(&hdr)
		for _, x := range append(slices.Clone(secrets), keys...) {
			isoNotLeaked(t, string(r.Raw), x.s, fmt.Sprintf("response %d (%d) body shows the %s", i, r.Status, x.what))
			isoNotLeaked(t, hdr.String(), x.s, fmt.Sprintf("response %d (%d) headers show the %s", i, r.Status, x.what))
		}
	}
	// What the receiver got is signed with the secret, never carries it.
	rcv.mu.Lock()
	for i, req := range rcv.got {
		var hdr bytes.Buffer
		_ = req.Header.Write(&hdr)
		for _, x := range secrets {
			isoNotLeaked(t, string(rcv.bodies[i]), x.s, "a webhook request's body carries the "+x.what)
			isoNotLeaked(t, hdr.String(), x.s, "a webhook request's headers carry the "+x.what)
		}
	}
	rcv.mu.Unlock()

	// The server's output, up to and including its shutdown.
	s.stop()
	out := logs.String() + s.stdout.String()
	require.Contains(t, logs.String(), "--webhooks-allow-insecure", "the log is captured")
	for _, x := range append(secrets, keys...) {
		isoNotLeaked(t, out, x.s, "the server's log shows the "+x.what)
	}
	// API keys are kept hashed: no file of the data directory (journal,
	// WAL, tables, outbox) holds one in plain text. (Webhook secrets are
	// stored: they sign every delivery.)
	require.NoError(t, filepath.WalkDir(s.data, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, x := range keys {
			require.False(t, bytes.Contains(b, []byte(x.s)), "%s holds the %s in plain text", p, x.what)
		}
		return nil
	}))
}

// isoNotLeaked fails when needle occurs in haystack, quoting the line.
func isoNotLeaked(t *testing.T, haystack, needle, what string) {
	t.Helper()
	i := strings.Index(haystack, needle)
	if i < 0 {
		return
	}
	start := strings.LastIndexByte(haystack[:i], '\n') + 1
	end := len(haystack)
	if j := strings.IndexByte(haystack[i:], '\n'); j >= 0 {
		end = i + j
	}
	line := haystack[start:end]
	if len(line) > 600 {
		line = line[:600] + "…"
	}
	t.Fatalf("%s (%d occurrences): %s", what, strings.Count(haystack, needle), line)
}

func isoMedian(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
