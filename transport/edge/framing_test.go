package edge

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// parseHead parses a request head the way the server does.
func parseHead(headers string) (*fasthttp.RequestHeader, error) {
	var h fasthttp.RequestHeader
	err := h.Read(bufio.NewReader(strings.NewReader("POST /api/v1/customers HTTP/1.1\r\nHost: slotd\r\n" + headers + "\r\n")))
	return &h, err
}

func TestAmbiguousFraming(t *testing.T) {
	// want: the request is refused (by fasthttp before any handler, or here).
	for headers, want := range map[string]bool{
		"Content-Length: 5\r\n":                                        false,
		"Transfer-Encoding: chunked\r\n":                               false,
		"transfer-encoding: CHUNKED\r\n":                               false,
		"Content-Length: 5\r\nContent-Length: 5\r\n":                   true, // fasthttp refuses any repeat
		"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n":          true,
		"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n":          true,
		"Transfer-Encoding:\tchunked\r\ncontent-length: 5\r\n":         true,
		"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n": true,
		"Transfer-Encoding: identity\r\nContent-Length: 5\r\n":         true,
		"Content-Length: 5\r\nContent-Length: 6\r\n":                   true,
		"Cookie: a=b\r\nTrailer: x\r\n":                                false,
	} {
		h, err := parseHead(headers)
		if err != nil {
			require.True(t, want, "fasthttp refused %q, which is not ambiguous: %v", headers, err)
			continue // refused before any handler: also closed
		}
		require.Equal(t, want, ambiguousFraming(h), "%q", headers)
	}
}

// FuzzAmbiguousFraming: whatever headers arrive, the check never panics,
// and a request fasthttp reads as chunked while it also carries a
// Content-Length header (the smuggling shape) is always refused.
func FuzzAmbiguousFraming(f *testing.F) {
	for _, s := range []string{"Content-Length: 5\r\n", "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n",
		"Content-Length: 1\r\nTransfer-Encoding:\tchunked\r\n", "X: y\r\n\r\n", "T\r\nC:\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, headers string) {
		h, err := parseHead(headers)
		if err != nil {
			return
		}
		got := ambiguousFraming(h)
		if h.ContentLength() == -1 && hasHeader(h.RawHeaders(), "content-length") && !got {
			t.Fatalf("chunked with Content-Length not refused: %q", headers)
		}
	})
}

func hasHeader(raw []byte, name string) bool {
	for _, line := range bytes.Split(raw, []byte("\n")) {
		if n, _, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(bytes.TrimSpace(n), []byte(name)) {
			return true
		}
	}
	return false
}

// BenchmarkAmbiguousFraming: the check on a request with typical headers
// (it runs on every request).
func BenchmarkAmbiguousFraming(b *testing.B) {
	h, err := parseHead("Authorization: Bearer sk_live_0123456789abcdef\r\nContent-Type: application/json\r\n" +
		"Content-Length: 120\r\nIdempotency-Key: 6f1c2d3e00004000800000000001\r\nUser-Agent: integrator/1.0\r\nAccept: */*\r\n")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ambiguousFraming(h) {
			b.Fatal("ambiguous")
		}
	}
}
