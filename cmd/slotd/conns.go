package main

import (
	"net"
	"sync"
	"sync/atomic"

	"github.com/valyala/fasthttp"
)

// connTracker is a listener that knows its open connections, so that a
// shutdown can close at once those that hold no request.
//
// fasthttp's own shutdown closes keep-alive connections idle between
// requests, but not one that has never sent a byte: fasthttp reports it
// StateActive before reading anything and then waits the whole read
// timeout for its first request, holding the drain open. The tracker
// learns "has sent a byte" from Read and "idle between requests" from the
// server's ConnState hook.
type connTracker struct {
	net.Listener

	mu      sync.Mutex
	conns   map[*trackedConn]struct{}
	closing bool // shutdown has begun: quiet connections are closed on sight
}

func trackConns(ln net.Listener) *connTracker {
	return &connTracker{Listener: ln, conns: map[*trackedConn]struct{}{}}
}

// trackedConn is an accepted connection with what shutdown needs to know.
type trackedConn struct {
	net.Conn
	t    *connTracker
	used atomic.Bool // it has sent at least one byte
	idle atomic.Bool // it is between requests
	// begun: a byte of the current request has been read (other than
	// the blank lines before it); cleared when the connection goes idle.
	begun atomic.Bool
}

// Read reads the connection, dropping the blank lines a client sends
// before a request (RFC 9112 §2.2 lets a server ignore them). fasthttp
// skips them too, but then counts them as a request begun: a connection
// sending only blank lines was closed at the read timeout without the 408
// a silent one gets. Dropped here, they are as nothing, and the timeout is
// answered as for any connection that sent nothing.
func (c *trackedConn) Read(p []byte) (int, error) {
	for {
		n, err := c.Conn.Read(p)
		if n > 0 && !c.begun.Load() {
			k := 0
			for k < n && (p[k] == '\r' || p[k] == '\n') {
				k++
			}
			if k == n && err == nil {
				continue // only blank lines so far: the read deadline still runs
			}
			if k > 0 {
				n = copy(p, p[k:n])
			}
			if n > 0 {
				c.begun.Store(true)
			}
		}
		if n > 0 && !c.used.Load() {
			c.used.Store(true)
		}
		return n, err
	}
}

func (c *trackedConn) Close() error {
	c.t.mu.Lock()
	delete(c.t.conns, c)
	c.t.mu.Unlock()
	return c.Conn.Close()
}

// quiet reports whether closing c loses no request: it has sent nothing,
// or its last request was answered and no next one has begun.
func (c *trackedConn) quiet() bool { return !c.used.Load() || c.idle.Load() }

// Accept tracks each new connection. Once shutdown has begun, a connection
// that slipped in before the listener closed is closed at once.
func (t *connTracker) Accept() (net.Conn, error) {
	for {
		nc, err := t.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &trackedConn{Conn: nc, t: t}
		t.mu.Lock()
		closing := t.closing
		if !closing {
			t.conns[c] = struct{}{}
		}
		t.mu.Unlock()
		if !closing {
			return c, nil
		}
		nc.Close()
	}
}

// connState is the server's ConnState hook. A connection going idle after
// shutdown began is closed: it will not be asked for another request.
func (t *connTracker) connState(nc net.Conn, state fasthttp.ConnState) {
	c, ok := nc.(*trackedConn)
	if !ok {
		return
	}
	c.idle.Store(state == fasthttp.StateIdle)
	if state == fasthttp.StateIdle {
		c.begun.Store(false)
	}
	if state == fasthttp.StateIdle && t.isClosing() {
		c.Close()
	}
}

func (t *connTracker) isClosing() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closing
}

// closeQuiet begins the shutdown: it closes every connection that holds no
// request, and from now on every one that becomes quiet. It returns how
// many it closed.
func (t *connTracker) closeQuiet() int {
	return t.closeWhere(func(c *trackedConn) bool { return c.quiet() })
}

// closeAll closes every connection, in-flight requests or not: the drain
// has run out of time.
func (t *connTracker) closeAll() int {
	return t.closeWhere(func(*trackedConn) bool { return true })
}

func (t *connTracker) closeWhere(match func(*trackedConn) bool) int {
	t.mu.Lock()
	t.closing = true
	var doomed []*trackedConn
	for c := range t.conns {
		if match(c) {
			doomed = append(doomed, c)
		}
	}
	t.mu.Unlock()
	for _, c := range doomed {
		c.Close()
	}
	return len(doomed)
}
