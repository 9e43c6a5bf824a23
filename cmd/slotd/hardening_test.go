package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The front end's connection limits, seen from raw TCP clients. The server
// runs with short timeouts so that a test waits a fraction of a second, not
// the default 30 s; what is asserted is that a connection is cut off and
// how, never how fast the server is.

const shortTimeout = 300 * time.Millisecond

func startShortTimeouts(t *testing.T) *server {
	return startWorld(t, "--read-timeout", shortTimeout.String(), "--write-timeout", "5s", "--idle-timeout", shortTimeout.String())
}

// dial opens a raw connection to the public API; reads give up after 10 s,
// so a server that never cuts the client off fails the test instead of
// hanging it.
func dial(t *testing.T, s *server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	return c
}

// trickle writes chunk to c every 50 ms until the server hangs up or stop
// is closed.
func trickle(c net.Conn, chunk string, stop <-chan struct{}) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			if _, err := io.WriteString(c, chunk); err != nil {
				return
			}
		}
	}
}

// requireCutOff reads the server's answer on c: a 408 REQUEST_TIMEOUT in
// the §7.1 shape, after which the server closes the connection.
func requireCutOff(t *testing.T, c net.Conn, began time.Time) {
	t.Helper()
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err, "the server must answer a request it gave up on")
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, 408, res.StatusCode, "body: %s", raw)
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	var body map[string]any
	require.NoError(t, json.Unmarshal(raw, &body))
	require.Equal(t, "REQUEST_TIMEOUT", body["code"])
	require.NotEmpty(t, body["error"])
	require.True(t, res.Close, "a timed-out connection is closed")
	requireClosed(t, br)
	// Deadlines run on the wall clock; allow for its small disagreement
	// with the monotonic one.
	require.GreaterOrEqual(t, time.Since(began), shortTimeout-20*time.Millisecond, "not cut off before the read timeout")
}

// requireClosed asserts that the server closed the connection without
// sending more: a reset, rather than EOF, when it hung up on a client still
// writing.
func requireClosed(t *testing.T, br *bufio.Reader) {
	t.Helper()
	b, err := br.ReadByte()
	if errors.Is(err, syscall.ECONNRESET) {
		return
	}
	require.ErrorIs(t, err, io.EOF, "the server closed the connection (read %q)", b)
}

func TestSlowHeadersAreCutOff(t *testing.T) {
	s := startShortTimeouts(t)
	c := dial(t, s)
	began := time.Now()
	_, err := io.WriteString(c, "GET /api/v1/me HTTP/1.1\r\nHost: slotd\r\nAuthorization: Bearer "+keyFull+"\r\n")
	require.NoError(t, err)
	stop := make(chan struct{})
	defer close(stop)
	go trickle(c, "X-Slow: 1\r\n", stop) // a header line every 50 ms, never the blank line
	requireCutOff(t, c, began)
}

func TestSlowBodyIsCutOff(t *testing.T) {
	s := startShortTimeouts(t)
	c := dial(t, s)
	began := time.Now()
	_, err := io.WriteString(c, "POST /api/v1/customers HTTP/1.1\r\nHost: slotd\r\nAuthorization: Bearer "+keyFull+
		"\r\nIdempotency-Key: slow-1\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n"+
		`{"firstName":"Slow","email":"slow@example.com"`)
	require.NoError(t, err)
	stop := make(chan struct{})
	defer close(stop)
	go trickle(c, " ", stop) // one byte of 4,000 every 50 ms
	requireCutOff(t, c, began)
	// Nothing was stored under the key: another body may use it.
	r := s.post("/api/v1/customers", keyFull, "slow-1", `{"firstName":"Quick","email":"quick@example.com"}`)
	require.Equal(t, 201, r.Status, "body: %s", r.Raw)
}

func TestSilentConnectionIsCutOff(t *testing.T) {
	s := startShortTimeouts(t)
	c := dial(t, s)
	requireCutOff(t, c, time.Now())
}

// getMeRaw sends GET /api/v1/me with keyFull under the header name auth
// on a raw connection and returns the connection's reader.
func getMeRaw(t *testing.T, s *server, auth string) *bufio.Reader {
	t.Helper()
	c := dial(t, s)
	_, err := io.WriteString(c, "GET /api/v1/me HTTP/1.1\r\nHost: slotd\r\n"+auth+": Bearer "+keyFull+"\r\n\r\n")
	require.NoError(t, err)
	return bufio.NewReader(c)
}

// TestIdleKeepAliveIsClosed: after a complete exchange, a kept-alive
// connection on which nothing more arrives is closed without an answer.
func TestIdleKeepAliveIsClosed(t *testing.T) {
	br := getMeRaw(t, startShortTimeouts(t), "Authorization")
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	require.Equal(t, 200, res.StatusCode)
	require.False(t, res.Close, "kept alive")
	idle := time.Now()
	requireClosed(t, br)
	require.GreaterOrEqual(t, time.Since(idle), shortTimeout-20*time.Millisecond)
}

// TestSlowClientsDoNotStarveOthers holds many connections open mid-request
// while an ordinary client is served, then sees every one of them cut off.
func TestSlowClientsDoNotStarveOthers(t *testing.T) {
	s := startShortTimeouts(t)
	const slow = 200
	stop := make(chan struct{})
	var wg sync.WaitGroup
	conns := make([]net.Conn, slow)
	for i := range conns {
		conns[i] = dial(t, s)
		_, err := io.WriteString(conns[i], "GET /api/v1/services HTTP/1.1\r\nHost: slotd\r\n")
		require.NoError(t, err)
		wg.Add(1)
		go func(c net.Conn) { defer wg.Done(); trickle(c, "X-Slow: 1\r\n", stop) }(conns[i])
	}
	began := time.Now()
	for i := 0; i < 20; i++ {
		require.Equal(t, 200, s.get("/api/v1/services", keyFull).Status)
	}
	for _, c := range conns {
		requireCutOff(t, c, began.Add(-shortTimeout)) // dialled before began
	}
	close(stop)
	wg.Wait()
}

func TestHeaderLimit(t *testing.T) {
	s := startWorld(t)
	send := func(size int) resp {
		req, err := http.NewRequest("GET", s.base+"/api/v1/me", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+keyFull)
		req.Header.Set("X-Padding", strings.Repeat("p", size))
		res, err := client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		r := resp{Status: res.StatusCode, Header: res.Header, Raw: raw}
		_ = json.Unmarshal(raw, &r.Body)
		return r
	}
	require.Equal(t, 200, send(12<<10).Status, "12 KiB of headers are served")
	r := send(20 << 10)
	m := requireField(t, r, "(headers)", "too_large")
	require.EqualValues(t, 16384, m["limit"])
	require.NotContains(t, string(r.Raw), "ppp", "the message does not echo the request")
	// The server is unharmed.
	require.Equal(t, 200, s.get("/api/v1/me", keyFull).Status)
}

// TestResponseHeaderSpelling: header names go out spelled as api-v1 §8
// prints them, as a raw reader (not Go's canonicalizing client) sees them.
func TestResponseHeaderSpelling(t *testing.T) {
	br := getMeRaw(t, startWorld(t), "authorization")
	var head strings.Builder
	for {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		if line == "\r\n" {
			break
		}
		head.WriteString(line)
	}
	require.Contains(t, head.String(), "HTTP/1.1 200 OK\r\n", "a lower-case authorization header is read")
	for _, name := range []string{"X-RateLimit-Limit: ", "X-RateLimit-Remaining: ", "X-RateLimit-Reset: ", "X-Request-Id: ", "Content-Type: application/json"} {
		require.Contains(t, head.String(), "\r\n"+name)
	}
}
