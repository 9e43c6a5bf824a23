package edge

import (
	"bytes"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/problem"
)

// errFraming refuses a request whose body two HTTP parsers could delimit
// differently.
var errFraming = problem.FieldError("(headers)", problem.Invalid,
	"The request's body framing is ambiguous: send either Content-Length or Transfer-Encoding: chunked, once, and no other transfer coding.")

// ambiguousFraming reports whether h frames its body in a way that a proxy
// in front of slotd could read differently from slotd (RFC 9112 §6.1,
// §6.3): Transfer-Encoding together with Content-Length, a transfer coding
// other than one "chunked", or Content-Length headers that disagree.
// fasthttp reads such a request as chunked and keeps the connection, so
// the bytes after its chunked body would run as a second request under
// whatever key they carry (request smuggling); the caller refuses it and
// closes the connection instead.
//
// It reads the headers as they arrived (fasthttp folds Content-Length and
// Transfer-Encoding into one length), looking only at lines whose name
// starts with c or t, so a request costs a scan of its header bytes.
func ambiguousFraming(h *fasthttp.RequestHeader) bool {
	raw := h.RawHeaders()
	var lengths, codings int
	var length []byte
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if len(line) == 0 {
			continue
		}
		if c := line[0] | 0x20; c != 'c' && c != 't' {
			continue
		}
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("content-length")):
			if lengths > 0 && !bytes.Equal(value, length) {
				return true
			}
			lengths, length = lengths+1, value
		case bytes.EqualFold(name, []byte("transfer-encoding")):
			codings++
			if !bytes.EqualFold(value, []byte("chunked")) {
				return true
			}
		}
	}
	return codings > 1 || codings > 0 && lengths > 0
}
