package deliver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/slotd/slotd/webhook"
	"github.com/slotd/slotd/webhook/retry"
)

// testSecret is a fixed, valid signing secret.
var testSecret = func() string {
	s, err := webhook.NewSecret(bytes.NewReader(bytes.Repeat([]byte{7}, 32)))
	if err != nil {
		panic(err)
	}
	return s
}()

// request is a delivery of a small envelope to url.
func request(url string) Request {
	return Request{
		URL:       url,
		ID:        "evt_01JQ8Z6W3Y9K2M4N6P8R0T2V4X",
		Timestamp: time.Now(),
		Body:      []byte(`{"id":"evt_01JQ8Z6W3Y9K2M4N6P8R0T2V4X","type":"webhook.test","apiVersion":"v1","data":{"object":"test"}}`),
		Secret:    testSecret,
	}
}

// insecure is a Client that may reach the loopback test servers.
func insecure(t *testing.T, timeout time.Duration) *Client {
	c := New(Config{AllowInsecure: true, Timeout: timeout})
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func TestSendSignsAndSetsHeaders(t *testing.T) {
	type seen struct {
		method string
		header http.Header
		body   []byte
	}
	got := make(chan seen, 1)
	s := server(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.Header.Clone(), body}
		w.WriteHeader(http.StatusNoContent)
	})
	req := request(s.URL + "/hooks")
	res := insecure(t, 0).Send(context.Background(), req)
	if res.Status != 204 || res.Err != nil || res.ErrMessage != "" {
		t.Fatalf("Send = %+v, want a clean 204", res)
	}
	r := <-got
	if r.method != http.MethodPost {
		t.Errorf("method %s, want POST", r.method)
	}
	if !bytes.Equal(r.body, req.Body) {
		t.Errorf("body %q, want %q", r.body, req.Body)
	}
	for name, want := range map[string]string{
		"webhook-id":        req.ID,
		"webhook-timestamp": itoa(req.Timestamp.Unix()),
		"user-agent":        "slotd-webhooks/1.0",
		"content-type":      "application/json",
	} {
		if v := r.header.Get(name); v != want {
			t.Errorf("%s: %q, want %q", name, v, want)
		}
	}
	if _, ok := r.header["Idempotency-Key"]; ok {
		t.Errorf("Idempotency-Key sent on the wire: it only marks the request replayable")
	}
	sig := r.header.Get("webhook-signature")
	if !strings.HasPrefix(sig, "v1,") {
		t.Errorf("webhook-signature %q, want v1,...", sig)
	}
	v, err := webhook.NewVerifier(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Verify(r.header.Get("webhook-id"), r.header.Get("webhook-timestamp"), sig, r.body, time.Now()); err != nil {
		t.Errorf("signature does not verify: %v", err)
	}
}

func TestSendUserAgentConfigurable(t *testing.T) {
	ua := make(chan string, 1)
	s := server(t, func(w http.ResponseWriter, r *http.Request) { ua <- r.UserAgent() })
	c := New(Config{AllowInsecure: true, UserAgent: "slotd-webhooks/1.0 (test)"})
	defer c.CloseIdleConnections()
	c.Send(context.Background(), request(s.URL))
	if got := <-ua; got != "slotd-webhooks/1.0 (test)" {
		t.Errorf("user-agent %q", got)
	}
}

func TestSendStatuses(t *testing.T) {
	tests := []struct {
		status     int
		retryAfter string
		body       string
		want       retry.Decision // after attempt 1, scale 1, at t0
	}{
		{200, "", "ok", retry.Decision{Delivered: true}},
		{204, "", "", retry.Decision{Delivered: true}},
		{500, "", "boom", retry.Decision{Retry: true, NextAt: t0.Add(time.Minute)}},
		{503, "120", "", retry.Decision{Retry: true, NextAt: t0.Add(time.Minute)}},
		{429, "120", "slow down", retry.Decision{Retry: true, NextAt: t0.Add(2 * time.Minute)}},
		{408, "", "", retry.Decision{Retry: true, NextAt: t0.Add(time.Minute)}},
		{404, "", "no such hook", retry.Decision{Final: true}},
		{410, "", "", retry.Decision{Final: true}},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			s := server(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			res := insecure(t, 0).Send(context.Background(), request(s.URL))
			if res.Status != tt.status || res.Body != tt.body || res.RetryAfter != tt.retryAfter ||
				res.Err != nil || res.ErrMessage != "" {
				t.Errorf("Send = %+v, want status %d body %q Retry-After %q", res, tt.status, tt.body, tt.retryAfter)
			}
			if res.Duration <= 0 {
				t.Errorf("Duration %v, want > 0", res.Duration)
			}
			if d := retry.Next(1, res.Outcome(), t0, 1); d != tt.want {
				t.Errorf("retry.Next = %+v, want %+v", d, tt.want)
			}
		})
	}
}

var t0 = time.Date(2026, 3, 30, 10, 0, 0, 0, time.UTC)

func TestSendDoesNotFollowRedirects(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			var followed atomic.Int32
			mux := http.NewServeMux()
			mux.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "/elsewhere", status)
			})
			mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) { followed.Add(1) })
			s := server(t, mux.ServeHTTP)
			res := insecure(t, 0).Send(context.Background(), request(s.URL+"/hook"))
			if res.Status != status || res.Err != nil || res.ErrMessage != "redirect not followed" {
				t.Errorf("Send = %+v, want %d, redirect not followed", res, status)
			}
			if n := followed.Load(); n != 0 {
				t.Errorf("redirect target hit %d times", n)
			}
			if d := retry.Next(1, res.Outcome(), t0, 1); !d.Final {
				t.Errorf("retry.Next = %+v, want Final", d)
			}
		})
	}
}

func TestSendTruncatesBody(t *testing.T) {
	long := strings.Repeat("a", 5000)
	// "é" is two bytes; starting it one byte before the limit straddles it.
	straddle := strings.Repeat("a", MaxBody-1) + "é" + "tail"
	tests := []struct {
		name, body, want string
	}{
		{"short", "fine", "fine"},
		{"exactly 2 KB", long[:MaxBody], long[:MaxBody]},
		{"one byte over", long[:MaxBody+1], long[:MaxBody] + TruncatedMark},
		{"far over", long, long[:MaxBody] + TruncatedMark},
		{"cut inside a rune", straddle, straddle[:MaxBody-1] + TruncatedMark},
		{"invalid UTF-8", "ok\xff\xfe", "ok\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := server(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(500)
				io.WriteString(w, tt.body)
			})
			res := insecure(t, 0).Send(context.Background(), request(s.URL))
			if res.Body != tt.want {
				t.Errorf("Body = %d bytes %.40q…, want %d bytes %.40q…", len(res.Body), res.Body, len(tt.want), tt.want)
			}
			if !utf8.ValidString(res.Body) {
				t.Errorf("Body is not valid UTF-8")
			}
			if res.Status != 500 || res.ErrMessage != "" {
				t.Errorf("Send = status %d, ErrMessage %q", res.Status, res.ErrMessage)
			}
		})
	}
}

func TestSendTimesOut(t *testing.T) {
	release := make(chan struct{})
	s := server(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release) // before s.Close, which waits for the handler
	const timeout = 200 * time.Millisecond
	res := insecure(t, timeout).Send(context.Background(), request(s.URL))
	if res.Status != 0 || res.Err == nil || res.ErrMessage != "timed out after 200ms" {
		t.Errorf("Send = %+v, want no status, timed out after 200ms", res)
	}
	if res.Duration < timeout || res.Duration > 5*time.Second {
		t.Errorf("Duration %v, want about %v", res.Duration, timeout)
	}
	if d := retry.Next(1, res.Outcome(), t0, 1); !d.Retry {
		t.Errorf("retry.Next = %+v, want Retry", d)
	}
}

func TestSendTimesOutReadingBody(t *testing.T) {
	release := make(chan struct{})
	s := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	res := insecure(t, 200*time.Millisecond).Send(context.Background(), request(s.URL))
	// The consumer answered 200 in time: that counts, the body is a bonus.
	if res.Status != 200 || res.Err != nil || res.Body != "partial" ||
		res.ErrMessage != "response body incomplete: timed out after 200ms" {
		t.Errorf("Send = %+v", res)
	}
}

func TestSendConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	res := insecure(t, 0).Send(context.Background(), request("http://"+addr+"/"))
	if res.Status != 0 || res.Err == nil || res.ErrMessage != "connection refused" {
		t.Errorf("Send = %+v, want connection refused", res)
	}
	if d := retry.Next(1, res.Outcome(), t0, 1); !d.Retry {
		t.Errorf("retry.Next = %+v, want Retry", d)
	}
}

func TestSendCancelled(t *testing.T) {
	s := server(t, func(w http.ResponseWriter, r *http.Request) {})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := insecure(t, 0).Send(ctx, request(s.URL))
	if res.Status != 0 || !errors.Is(res.Err, context.Canceled) || res.ErrMessage != "delivery cancelled" {
		t.Errorf("Send = %+v, want delivery cancelled", res)
	}
}

func TestSendRefusesBadRequests(t *testing.T) {
	var hits atomic.Int32
	s := server(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
	bad := request(s.URL)
	bad.Secret = "whsec_short"
	res := insecure(t, 0).Send(context.Background(), bad)
	if res.Err == nil || res.ErrMessage != "invalid signing secret" {
		t.Errorf("bad secret: %+v", res)
	}
	// Registered under --webhooks-allow-insecure, sent without it.
	res = New(Config{}).Send(context.Background(), request(s.URL))
	if !errors.Is(res.Err, ErrInvalidURL) || res.ErrMessage != "invalid webhook URL: scheme must be https" {
		t.Errorf("http URL without AllowInsecure: %+v", res)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server hit %d times", n)
	}
}

func TestSendDefaultTimestamp(t *testing.T) {
	ts := make(chan string, 1)
	s := server(t, func(w http.ResponseWriter, r *http.Request) { ts <- r.Header.Get("webhook-timestamp") })
	req := request(s.URL)
	req.Timestamp = time.Time{}
	before := time.Now().Unix()
	insecure(t, 0).Send(context.Background(), req)
	if got := <-ts; got < itoa(before) || len(got) != len(itoa(before)) {
		t.Errorf("webhook-timestamp %q, want about %d", got, before)
	}
}

func TestCutBody(t *testing.T) {
	// A run of continuation bytes at the cut: the back-off is bounded.
	b := append(bytes.Repeat([]byte{'a'}, MaxBody-8), bytes.Repeat([]byte{0x80}, 20)...)
	got := cutBody(b)
	if !strings.HasSuffix(got, TruncatedMark) || !utf8.ValidString(got) {
		t.Errorf("cutBody of continuation bytes = %q", got)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestSendTLSFailures(t *testing.T) {
	tlsServer := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	tlsServer.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	tlsServer.StartTLS()
	defer tlsServer.Close()
	plain := server(t, func(http.ResponseWriter, *http.Request) {})
	tests := []struct{ url, want string }{
		// httptest's certificate is signed by nobody slotd trusts.
		{tlsServer.URL, "TLS certificate not trusted (unknown authority)"},
		// https:// to a server that speaks plain HTTP.
		{strings.Replace(plain.URL, "http://", "https://", 1), "delivery failed: http: server gave HTTP response to HTTPS client"},
	}
	for _, tt := range tests {
		res := insecure(t, 0).Send(context.Background(), request(tt.url))
		if res.Status != 0 || res.Err == nil || res.ErrMessage != tt.want {
			t.Errorf("Send(%s) = %+v, want %q", tt.url, res, tt.want)
		}
	}
}
