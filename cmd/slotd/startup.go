package main

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
)

// startup answers the admin listener while slotd starts, before the real
// server exists: /healthz says the process is alive at once (a liveness
// probe must not restart a node that waits for its journal's replicas),
// /readyz says 503 and why it is not ready yet, anything else 503.
//
// The admin listener is bound first, so its connections queue until
// something accepts them; startup accepts them from the start, through a
// handoff that later gives the listener to the real admin server.
type startup struct {
	access *slog.Logger // nil: no access log
	clock  clock.Clock
	reason atomic.Pointer[string]
	hand   *handoff
	early  *sub
	srv    *fasthttp.Server
	done   chan struct{}
	handed bool // the listener went to the real server
}

// serveStartup starts answering ln with reason as /readyz's. Each request
// is written to access (when not nil) as the real admin server writes its
// own: a probe that waited through a start shows in the log as a 503.
func serveStartup(ln net.Listener, reason string, access *slog.Logger, c clock.Clock) *startup {
	s := &startup{access: access, clock: c, done: make(chan struct{})}
	s.hand, s.early = newHandoff(ln)
	s.set(reason)
	s.srv = &fasthttp.Server{Handler: s.handle, Name: "slotd-admin", NoDefaultServerHeader: true,
		ReadTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, Logger: fasthttpQuiet{}}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(s.early)
	}()
	return s
}

// set changes what /readyz says.
func (s *startup) set(reason string) { s.reason.Store(&reason) }

func (s *startup) handle(ctx *fasthttp.RequestCtx) {
	begin := s.clock.Now()
	ctx.SetContentType("application/json")
	reason := *s.reason.Load()
	route := string(ctx.Path())
	switch route {
	case "/healthz":
		ctx.SetBodyString(`{"status":"ok"}`)
	case "/readyz":
		ctx.SetStatusCode(503)
		ctx.SetBody(append(wire.AppendString([]byte(`{"status":"starting","reason":`), reason), '}'))
	default:
		route = "starting" // never the path a client sent (transport/edge's access log)
		ctx.SetStatusCode(503)
		ctx.Response.Header.Set("Retry-After", "5")
		ctx.SetBody(wire.AppendError(nil, problem.New(problem.Unavailable, "slotd is starting; retry shortly.")))
	}
	if s.access != nil {
		end := s.clock.Now()
		s.access.LogAttrs(context.Background(), slog.LevelInfo, "access",
			slog.String("listener", "admin"), slog.String("method", string(ctx.Method())), slog.String("route", route),
			slog.Int("status", ctx.Response.StatusCode()), slog.Duration("duration", end.Sub(begin)))
	}
}

// handOver stops answering and returns the listener for the real admin
// server: connections accepted from now on go to it. Requests in flight
// on the startup server finish first (within a second).
func (s *startup) handOver() net.Listener {
	s.handed = true
	ln := s.hand.next()
	_ = s.early.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.srv.ShutdownWithContext(ctx)
	<-s.done
	return ln
}

// stop ends the startup server when slotd does not get as far as
// serving; after handOver it does nothing.
func (s *startup) stop() {
	if s.handed {
		return
	}
	_ = s.hand.ln.Close()
	_ = s.early.Close()
	<-s.done
}

// fasthttpQuiet drops fasthttp's messages about the startup server's
// connections: a probe that hangs up is nothing to report.
type fasthttpQuiet struct{}

func (fasthttpQuiet) Printf(string, ...any) {}

// handoff accepts a listener's connections and hands each to the sub
// listener current when it arrives: one server's, then the next one's,
// without closing the listener between them.
type handoff struct {
	ln  net.Listener
	mu  sync.Mutex
	cur *sub
}

// newHandoff starts handing ln's connections over, to first until next
// makes another sub the current one. The first sub exists before the
// first connection can arrive: a probe that connects at once (a run
// book's wait loop) has somewhere to go.
func newHandoff(ln net.Listener) (h *handoff, first *sub) {
	h = &handoff{ln: ln}
	first = h.next()
	go h.pump()
	return h, first
}

// next makes a new sub listener the one connections go to.
func (h *handoff) next() *sub {
	s := &sub{h: h, conns: make(chan net.Conn), closed: make(chan struct{})}
	h.mu.Lock()
	h.cur = s
	h.mu.Unlock()
	return s
}

func (h *handoff) current() *sub {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cur
}

func (h *handoff) pump() {
	for {
		c, err := h.ln.Accept()
		if err != nil {
			s := h.current()
			s.fail(err)
			return
		}
		for delivered := false; !delivered; {
			s := h.current()
			select {
			case s.conns <- c:
				delivered = true
			case <-s.closed:
				if h.current() == s { // the last one closed: nobody takes it
					c.Close()
					delivered = true
				}
			}
		}
	}
}

// sub is one server's view of the handoff's listener.
type sub struct {
	h      *handoff
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	err    atomic.Pointer[error]
}

func (s *sub) Accept() (net.Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-s.closed:
		if p := s.err.Load(); p != nil {
			return nil, *p
		}
		return nil, net.ErrClosed
	}
}

// Close stops this sub's Accept. The last sub's Close closes the
// listener itself (the real server's shutdown).
func (s *sub) Close() error {
	s.once.Do(func() { close(s.closed) })
	if s.h.current() == s {
		return s.h.ln.Close()
	}
	return nil
}

func (s *sub) fail(err error) {
	s.err.Store(&err)
	s.once.Do(func() { close(s.closed) })
}

func (s *sub) Addr() net.Addr { return s.h.ln.Addr() }
