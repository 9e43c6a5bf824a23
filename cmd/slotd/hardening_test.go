package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
	require.NotEmpty(t, res.Header.Get("X-Request-Id"))
	require.Equal(t, "20", res.Header.Get("X-RateLimit-Limit"), "the client IP's failed-authentication limit")
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

// rawExchange sends req on a fresh connection to addr and reads the
// answer, after which the server must close the connection.
func rawExchange(t *testing.T, addr, req string) (*http.Response, map[string]any) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(addr, "http://"))
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(c, req)
	require.NoError(t, err)
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(raw, &body), "%s", raw)
	require.True(t, res.Close, "closed after an unreadable request")
	requireClosed(t, br)
	return res, body
}

// TestUnreadableRequestsCarryTheirHeaders: a request the server cannot
// read (a malformed request line, headers over 16 KiB, a broken chunked
// body) is answered in the §7.1 shape with a request id and, on the public
// API, the client IP's failed-authentication limit's headers, nothing
// spent from it; on the admin listener with a request id.
func TestUnreadableRequestsCarryTheirHeaders(t *testing.T) {
	s := startWorld(t)
	for _, c := range []struct{ req, path, reason string }{
		{"GARBAGE\r\n\r\n", "(body)", "invalid"},
		{"GET /api/v1/me HTTP/1.1\r\nHost: slotd\r\nAuthorization: Bearer " + keyFull + "\r\nX-Padding: " +
			strings.Repeat("p", 20<<10) + "\r\n\r\n", "(headers)", "too_large"},
		{"POST /api/v1/customers HTTP/1.1\r\nHost: slotd\r\nAuthorization: Bearer " + keyFull +
			"\r\nIdempotency-Key: chunks\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", "(body)", "invalid"},
	} {
		res, body := rawExchange(t, s.base, c.req)
		require.Equal(t, 400, res.StatusCode, "%v", body)
		require.Equal(t, "VALIDATION_ERROR", body["code"])
		f := body["fields"].([]any)[0].(map[string]any)
		require.Equal(t, c.path, f["path"])
		require.Equal(t, c.reason, f["reason"])
		require.NotEmpty(t, res.Header.Get("X-Request-Id"))
		require.Equal(t, "20", res.Header.Get("X-RateLimit-Limit"))
		require.Equal(t, "20", res.Header.Get("X-RateLimit-Remaining"), "nothing spent")
		require.NotEmpty(t, res.Header.Get("X-RateLimit-Reset"))
	}
	r := s.get("/api/v1/me", "sk_nobody_has_this_key")
	requireError(t, r, 401, "UNAUTHORIZED")
	require.Equal(t, "19", r.Header.Get("X-RateLimit-Remaining"), "a failed authentication spends")

	res, body := rawExchange(t, s.admin, "GARBAGE\r\n\r\n")
	require.Equal(t, 400, res.StatusCode)
	require.Equal(t, "VALIDATION_ERROR", body["code"])
	require.NotEmpty(t, res.Header.Get("X-Request-Id"))
	require.Empty(t, res.Header.Get("X-RateLimit-Limit"), "the admin listener meters nothing")
}

// TestLargeBodyIsAnswered: a client that sends a 1 MiB body gets to read
// the 400 (or, without a valid key, the 401): the server reads what is
// left of the body before it answers and closes, so the client's writes
// are not cut off by a reset. Repeated, because a reset is a matter of
// timing.
func TestLargeBodyIsAnswered(t *testing.T) {
	s := startWorld(t)
	body := bytes.Repeat([]byte("x"), 1<<20)
	for i := 0; i < 5; i++ {
		for _, auth := range []string{"Authorization: Bearer " + keyFull + "\r\n", ""} {
			c := dial(t, s)
			// A small send buffer: the body cannot sit in the kernel's
			// buffers; the server must read it for the writes to finish.
			require.NoError(t, c.(*net.TCPConn).SetWriteBuffer(16<<10))
			_, err := io.WriteString(c, "POST /api/v1/customers HTTP/1.1\r\nHost: slotd\r\n"+auth+
				"Idempotency-Key: big\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n")
			require.NoError(t, err)
			_, err = c.Write(body)
			require.NoError(t, err, "round %d: the server takes the whole body", i)
			br := bufio.NewReader(c)
			res, err := http.ReadResponse(br, nil)
			require.NoError(t, err, "round %d: the client reads the answer", i)
			raw, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			var got map[string]any
			require.NoError(t, json.Unmarshal(raw, &got), "%s", raw)
			require.NotEmpty(t, res.Header.Get("X-Request-Id"))
			require.NotEmpty(t, res.Header.Get("X-RateLimit-Remaining"))
			if auth == "" {
				require.Equal(t, 401, res.StatusCode, "%s", raw)
				require.Equal(t, "UNAUTHORIZED", got["code"])
			} else {
				require.Equal(t, 400, res.StatusCode, "%s", raw)
				f := got["fields"].([]any)[0].(map[string]any)
				require.Equal(t, "(body)", f["path"])
				require.Equal(t, "too_large", f["reason"])
				require.EqualValues(t, 65536, f["limit"])
			}
			require.True(t, res.Close)
			requireClosed(t, br)
		}
	}
}

// A connection that sends only blank lines is cut off like a silent one:
// 408 in the error shape, then closed (RFC 9112 §2.2 lets a server skip
// blank lines before a request; it does not make them a request).
func TestBlankLinesAreCutOff(t *testing.T) {
	s := startShortTimeouts(t)
	c := dial(t, s)
	began := time.Now()
	stop := make(chan struct{})
	defer close(stop)
	go trickle(c, "\r\n", stop)
	requireCutOff(t, c, began)
}

// A request whose framing two parsers could read differently — both
// Content-Length and Transfer-Encoding, a transfer coding other than
// chunked, two different Content-Lengths — is refused with 400 and the
// connection closed (RFC 9112 §6.1, §6.3): the bytes after it never run as
// a second request under whatever key they carry (request smuggling).
func TestAmbiguousFramingIsRefused(t *testing.T) {
	s := startWorld(t)
	smuggled := "GET /api/v1/me HTTP/1.1\r\nHost: slotd\r\nAuthorization: Bearer " + keyStudio + "\r\n\r\n"
	body := `{"firstName":"Smuggler","email":"s@example.com"}`
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	head := "POST /api/v1/customers HTTP/1.1\r\nHost: slotd\r\nAuthorization: Bearer " + keyFull + "\r\nContent-Type: application/json\r\nIdempotency-Key: smuggle\r\n"
	for name, req := range map[string]string{
		"TE twice":         head + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + smuggled,
		"CL then TE":       head + fmt.Sprintf("Content-Length: %d\r\n", len(chunked)) + "Transfer-Encoding: chunked\r\n\r\n" + chunked + smuggled,
		"TE then CL":       head + "Transfer-Encoding: chunked\r\n" + fmt.Sprintf("Content-Length: %d\r\n", len(chunked)) + "\r\n" + chunked + smuggled,
		"TE tab chunked":   head + fmt.Sprintf("Content-Length: %d\r\n", len(chunked)) + "Transfer-Encoding:\tchunked\r\n\r\n" + chunked + smuggled,
		"TE identity":      head + "Transfer-Encoding: identity\r\n" + fmt.Sprintf("Content-Length: %d\r\n", len(body)) + "\r\n" + body + smuggled,
		"TE gzip, chunked": head + "Transfer-Encoding: gzip, chunked\r\n\r\n" + chunked + smuggled,
		"two CLs":          head + fmt.Sprintf("Content-Length: %d\r\nContent-Length: %d\r\n", len(body), len(body)+len(smuggled)) + "\r\n" + body + smuggled,
	} {
		t.Run(name, func(t *testing.T) {
			c := dial(t, s)
			_, err := io.WriteString(c, req)
			require.NoError(t, err)
			br := bufio.NewReader(c)
			res, err := http.ReadResponse(br, nil)
			require.NoError(t, err)
			raw, _ := io.ReadAll(res.Body)
			require.Equal(t, 400, res.StatusCode, "body: %s", raw)
			require.Contains(t, string(raw), `"code":"VALIDATION_ERROR"`)
			require.True(t, res.Close, "the connection is closed")
			requireClosed(t, br)
		})
	}
	list := s.get("/api/v1/customers?limit=100", keyFull)
	require.NotContains(t, string(list.Raw), "Smuggler", "no framing read the body as a request")

	// Unambiguous chunked and Content-Length bodies are served as ever.
	plain := `{"firstName":"Plain","email":"p@example.com"}`
	for _, req := range []string{
		head + "Transfer-Encoding: chunked\r\n\r\n" + chunked,
		strings.Replace(head, "smuggle", "plain", 1) + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(plain)) + plain,
	} {
		c := dial(t, s)
		_, err := io.WriteString(c, req)
		require.NoError(t, err)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		raw, _ := io.ReadAll(res.Body)
		require.Equal(t, 201, res.StatusCode, "body: %s", raw)
	}
}

// Blank lines before a request are skipped (RFC 9112 §2.2), on a new
// connection and between kept-alive requests.
func TestBlankLinesBeforeARequestAreSkipped(t *testing.T) {
	s := startWorld(t)
	c := dial(t, s)
	br := bufio.NewReader(c)
	get := "GET /api/v1/me HTTP/1.1\r\nHost: slotd\r\nAuthorization: Bearer " + keyFull + "\r\n\r\n"
	for range 2 {
		_, err := io.WriteString(c, "\r\n\r\n"+get)
		require.NoError(t, err)
		res, err := http.ReadResponse(br, nil)
		require.NoError(t, err)
		_, _ = io.ReadAll(res.Body)
		require.Equal(t, 200, res.StatusCode)
	}
}
