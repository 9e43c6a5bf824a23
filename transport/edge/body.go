package edge

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"

	"github.com/valyala/fasthttp"
)

// Request bodies are streamed (NewHTTPServer) and read here, before routing,
// into memory up to the listener's limit. A larger body is not kept: what
// is left of it is read and thrown away, up to maxDrain bytes past the
// limit and within the read timeout, and the request goes on to its route marked too large,
// so that it is authenticated and charged like any other before it is
// refused (400 on (body), too_large), and carries its key's rate-limit
// headers. Throwing the rest away is what lets the client read that
// answer: closing on a client still sending makes its kernel answer the
// rest with a reset, and the client sees a broken pipe instead of the 400.
// The connection is closed after a too-large body either way.
//
// Memory stays bounded: at most the limit per request is kept, and the
// drain reuses a small buffer.

// maxDrain is how far past the limit a too-large body is read and
// discarded. Beyond it the server answers and closes without waiting for
// the rest; a client that sends more than 4 MiB past the limit may see a
// reset instead of the answer.
const maxDrain = 4 << 20

// bodyState is what readBody found.
type bodyState uint8

const (
	bodyRead     bodyState = iota // in memory, whole (maybe empty)
	bodyTooLarge                  // over the limit: not kept, the rest drained
	bodyTimedOut                  // the read timeout ran out mid-body
	bodyBroken                    // malformed (chunked encoding) or cut short
)

// tooLargeKey marks a request whose body was over the limit (a user value,
// set only then, so ordinary requests pay nothing for it).
const tooLargeKey = "slotd.bodyTooLarge"

// TooLarge reports whether the request's body was over its listener's
// limit (readBody), here or on the node that handed it over. The route
// refuses it, once it has authenticated the request.
func TooLarge(ctx *fasthttp.RequestCtx) bool { return ctx.UserValue(tooLargeKey) != nil }

var bodyBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readBody reads the request body into memory if it has at most limit
// bytes; a larger one it marks (TooLarge), drains, and has the connection
// closed after the answer.
func readBody(ctx *fasthttp.RequestCtx, limit int) bodyState {
	stream := ctx.RequestBodyStream()
	if stream == nil {
		// Not streamed (no body, or a RequestCtx built in memory).
		if len(ctx.PostBody()) > limit {
			return markTooLarge(ctx, nil, 0)
		}
		return bodyRead
	}
	switch n := ctx.Request.Header.ContentLength(); {
	case n == 0:
		_ = ctx.Request.CloseBodyStream() // nothing to read; the (empty) body stays
		return bodyRead
	case n > limit:
		return markTooLarge(ctx, stream, int64(limit)+maxDrain)
	}
	buf := bodyBufs.Get().(*bytes.Buffer)
	defer putBodyBuf(buf)
	buf.Reset()
	_, err := buf.ReadFrom(io.LimitReader(stream, int64(limit)+1))
	switch {
	case err != nil:
		return readFailure(err)
	case buf.Len() > limit: // chunked: the length shows only now
		return markTooLarge(ctx, stream, maxDrain) // limit+1 bytes read already
	}
	ctx.Request.SetBody(buf.Bytes()) // copies, and releases the stream
	return bodyRead
}

// markTooLarge marks the request too large, reads and discards up to
// drain bytes of what is left of the body (rest), and has the connection
// closed after the answer.
func markTooLarge(ctx *fasthttp.RequestCtx, rest io.Reader, drain int64) bodyState {
	if rest != nil {
		_, _ = io.CopyN(io.Discard, rest, drain) // an error or a longer body: the close below
	}
	ctx.Request.SetBody(nil)
	ctx.SetUserValue(tooLargeKey, true)
	ctx.SetConnectionClose()
	return bodyTooLarge
}

func readFailure(err error) bodyState {
	var nerr net.Error
	if errors.As(err, &nerr) && nerr.Timeout() {
		return bodyTimedOut
	}
	return bodyBroken
}

// keptBuf is the largest body buffer put back in the pool: twice the
// public API's body limit (64 KiB).
const keptBuf = 128 << 10

// putBodyBuf returns buf to the pool unless it grew large (an admin world
// upload): the pool should not pin megabytes.
func putBodyBuf(buf *bytes.Buffer) {
	if buf.Cap() <= keptBuf {
		bodyBufs.Put(buf)
	}
}
