package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// dialRaw opens a TCP connection to a server's base URL.
func dialRaw(t *testing.T, base string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// idleKeepAlive makes one request on a new connection, reads the answer and
// leaves the connection open and idle.
func idleKeepAlive(t *testing.T, base, path string) net.Conn {
	t.Helper()
	c := dialRaw(t, base)
	_, err := c.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: slotd\r\n\r\n"))
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	res.Body.Close()
	require.False(t, res.Close, "the connection is kept alive")
	return c
}

// requireClosedByServer asserts that the server closes c within a few
// seconds, having sent nothing more.
func requireClosedByServer(t *testing.T, c net.Conn, what string) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	n, err := c.Read(make([]byte, 1))
	var nerr net.Error
	require.False(t, errors.As(err, &nerr) && nerr.Timeout(), "%s: still open after 5 s", what)
	require.Zero(t, n, what)
	require.Error(t, err, what)
}

// beginStop cancels the server as SIGTERM does, without waiting for it.
func (s *server) beginStop() <-chan error {
	s.cancel()
	s.cancel = nil
	return s.done
}

// TestShutdownClosesIdleAndUnusedConnectionsAtOnce: a connection that was
// opened and never used, and one idle between requests, on either
// listener, do not hold up a stop (the read timeout is 30 s).
func TestShutdownClosesIdleAndUnusedConnectionsAtOnce(t *testing.T) {
	s := startWorld(t)
	conns := map[string]net.Conn{
		"unused public": dialRaw(t, s.base), "unused admin": dialRaw(t, s.admin),
		"idle public": idleKeepAlive(t, s.base, "/api/v1/me"), "idle admin": idleKeepAlive(t, s.admin, "/healthz"),
	}
	began := time.Now()
	select {
	case err := <-s.beginStop():
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("slotd did not stop within 5 s")
	}
	t.Logf("stopped in %v", time.Since(began))
	for what, c := range conns {
		requireClosedByServer(t, c, what)
	}
}

// TestShutdownFinishesInFlightRequests: a request in flight when the stop
// begins (a webhook registration waiting for its ping) is answered and
// stored, while quiet connections are closed at once and /readyz says 503;
// then slotd exits 0.
func TestShutdownFinishesInFlightRequests(t *testing.T) {
	s := startWorld(t, "--webhooks-allow-insecure")
	pinged, release := make(chan struct{}, 1), make(chan struct{})
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case pinged <- struct{}{}:
		default:
		}
		<-release
	}))
	defer rcv.Close()
	releasePing := sync.OnceFunc(func() { close(release) })
	defer releasePing() // before rcv.Close, which waits for the handler
	idle, unused := idleKeepAlive(t, s.base, "/api/v1/me"), dialRaw(t, s.base)

	answer := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest("POST", s.base+"/api/v1/webhooks", strings.NewReader(fmt.Sprintf(`{"url":%q,"eventTypes":["appointment.created"]}`, rcv.URL+"/hook")))
		req.Header.Set("Authorization", "Bearer "+keyFull)
		res, err := client.Do(req)
		if err != nil {
			res = &http.Response{StatusCode: -1, Status: err.Error(), Body: io.NopCloser(strings.NewReader(""))}
		}
		answer <- res
	}()
	select {
	case <-pinged:
	case <-time.After(10 * time.Second):
		t.Fatal("the registration's ping never came")
	}

	stopped := s.beginStop()
	requireClosedByServer(t, idle, "idle connection")
	requireClosedByServer(t, unused, "unused connection")
	require.Equal(t, 503, do(t, "GET", s.admin+"/readyz", "", nil).Status, "the admin listener answers while the public one drains")
	releasePing()

	res := <-answer
	require.Equal(t, 201, res.StatusCode, res.Status)
	require.True(t, res.Close, "the answer says the connection closes")
	res.Body.Close()
	select {
	case err := <-stopped:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("slotd did not stop within 10 s of its last request")
	}

	s2 := start(t, s.data)
	require.Len(t, s2.get("/api/v1/webhooks", keyFull).Body["data"], 1, "the registration was stored")
}
