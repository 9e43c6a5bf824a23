package edge

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/valyala/fasthttp"
)

// ConnLimits bound what one connection may hold: a client that sends its
// request slowly, reads its answer slowly or keeps an idle connection open
// is cut off, so it cannot pin a goroutine and its 16 KiB read buffer for
// ever (slowloris).
type ConnLimits struct {
	// ReadTimeout bounds reading one request, from its first byte (or, on
	// a new connection, from the accept) to the end of its body.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing one response.
	WriteTimeout time.Duration
	// IdleTimeout bounds the wait for the next request on a kept-alive
	// connection; it closes without an answer.
	IdleTimeout time.Duration
}

// DefaultConnLimits are the limits of `slotd serve` unless flags say
// otherwise: generous for a phone on a poor network, short for an attacker.
var DefaultConnLimits = ConnLimits{ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second}

// writeBuffer is the per-connection response buffer (see NewHTTPServer).
const writeBuffer = 16 << 10

// maxHeader is the most a request line plus headers may take; fasthttp
// reads them into a buffer of this size.
const maxHeader = 16 << 10

// NewHTTPServer wraps h, the handler of listener l (Observe), in a
// fasthttp server named name with the limits a public server needs:
// bounded header size, lim's timeouts, and a streamed request body that
// the handler reads within l.MaxBody (readBody), so that a request with a
// body too large is still authenticated and charged before it is refused,
// and its client can read the refusal. Requests fasthttp cannot read or
// parse are answered in the §7.1 shape, with a request id.
//
// fasthttp's own MaxConnsPerIP is deliberately left off: it counts every
// IPv6 client as one address and refuses in plain text outside the error
// shape. A per-address connection cap belongs to the load balancer in front.
func (e *Edge) NewHTTPServer(h fasthttp.RequestHandler, name string, l Listener, lim ConnLimits) *fasthttp.Server {
	return &fasthttp.Server{
		Logger:  fasthttpLogger{e.Log},
		Handler: h,
		Name:    name,
		// Streamed, fasthttp reads at most 8 KiB of a body before calling
		// the handler and leaves the rest to readBody; MaxRequestBodySize
		// then only caps that first read.
		StreamRequestBody:  true,
		MaxRequestBodySize: max(l.MaxBody, l.LargeBody),
		// fasthttp would otherwise read a multipart body whole, to
		// temporary files, before the handler: no route takes one.
		DisablePreParseMultipartForm: true,
		ReadBufferSize:               maxHeader,
		// A response bigger than the write buffer goes out in two write
		// syscalls instead of one; fasthttp's 4 KiB default splits a
		// one-day availability answer (4–5 KB). 16 KiB holds the common
		// answers whole, at 16 KiB per open connection.
		WriteBufferSize:       writeBuffer,
		ReadTimeout:           lim.ReadTimeout,
		WriteTimeout:          lim.WriteTimeout,
		IdleTimeout:           lim.IdleTimeout,
		CloseOnShutdown:       true,
		NoDefaultDate:         false,
		NoDefaultServerHeader: true,
		ErrorHandler:          e.parseError(l),
		// fasthttp otherwise quotes the unparsable request in its error
		// messages, Authorization header and all; API keys are never logged.
		SecureErrorLogMessage: true,
	}
}

// parseError answers a request fasthttp could not read: its request line
// and headers were too long, malformed, or did not arrive within the read
// timeout.
func (e *Edge) parseError(l Listener) func(*fasthttp.RequestCtx, error) {
	return func(ctx *fasthttp.RequestCtx, err error) {
		start := time.Now()
		e.stamp(ctx)
		var small *fasthttp.ErrSmallBuffer
		var nerr net.Error
		switch {
		case errors.Is(err, fasthttp.ErrBodyTooLarge): // not while bodies are streamed; kept for safety
			e.refuseUnread(ctx, l, l.TooLarge)
		case errors.As(err, &small):
			e.refuseUnread(ctx, l, errHeaderTooLong)
		case errors.As(err, &nerr) && nerr.Timeout():
			e.refuseUnread(ctx, l, errReadTimeout)
		default:
			e.refuseUnread(ctx, l, errBadRequest)
		}
		e.finish(ctx, l.Name, start)
	}
}

// fasthttpLogger sends fasthttp's own messages (connection-level errors) to
// slog at debug level: a client that sends garbage is not the operator's
// problem, and the client already got its 400.
type fasthttpLogger struct{ log *slog.Logger }

func (l fasthttpLogger) Printf(format string, args ...any) {
	l.log.Debug(fmt.Sprintf(format, args...), "component", "fasthttp")
}
