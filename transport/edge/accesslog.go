package edge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
)

// The access log: one line per request on either listener, through
// log/slog (Config.AccessLog), with the listener, method, route pattern,
// status, duration, request id and, once the request authenticated, the
// business. It never carries what a client sent: no path (the route
// pattern stands for it, so no ids either), no query string, no header
// (so no API key or admin token), no body (so no e-mail address).
//
// Access log formats (--access-log).
const (
	AccessLogCompact = "compact" // one human line: time, listener, method, route, status, duration, then key=value
	AccessLogJSON    = "json"    // slog's JSON handler: one object per line, duration in nanoseconds
	AccessLogOff     = "off"
)

// NewAccessLog returns the access logger of format writing to w, or nil
// for AccessLogOff.
func NewAccessLog(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case AccessLogCompact:
		return slog.New(&compactHandler{mu: &sync.Mutex{}, w: w}), nil
	case AccessLogJSON:
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	case AccessLogOff:
		return nil, nil
	}
	return nil, fmt.Errorf("unknown access log format %q (want compact, json or off)", format)
}

// logAccess writes the access log line of a request Observe handled,
// answered at end. It hands the record to the handler itself: the
// logger's own methods would capture the caller's program counter for
// every line, a quarter of the line's cost, for a source never shown.
func (e *Edge) logAccess(ctx *fasthttp.RequestCtx, ro *routeObs, biz *model.Business, status int, end time.Time, took time.Duration) {
	h := e.AccessLog.Handler()
	if ch, ok := h.(*compactHandler); ok && len(ch.prefix) == 0 && ch.group == "" {
		ch.access(ctx, ro, biz, status, end, took)
		return
	}
	if !h.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	attrs := [7]slog.Attr{
		slog.String("listener", ro.listener),
		slog.String("method", ro.method),
		slog.String("route", ro.pattern),
		slog.Int("status", status),
		slog.Duration("duration", took),
		slog.String("request_id", RequestID(ctx)),
	}
	n := 6
	if biz != nil {
		attrs[n] = slog.String("business", biz.ID.String())
		n++
	}
	r := slog.NewRecord(end, slog.LevelInfo, "access", 0)
	r.AddAttrs(attrs[:n]...)
	_ = h.Handle(context.Background(), r)
}

// compactHandler writes a record as one line: its time (UTC,
// milliseconds), its message, then its attributes in order, the values of
// those in bare alone and the others as key=value (quoted when needed).
// Durations are rounded to the microsecond. Groups are flattened into
// dotted keys.
type compactHandler struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix []byte // attributes from WithAttrs, formatted
	group  string // from WithGroup, with a trailing dot
}

// access writes the compact line of logAccess straight into a pooled
// buffer: the same bytes as Handle writes for that record (a test holds
// the two together), without building the slog.Record and its attributes,
// which were half of a line's cost.
func (h *compactHandler) access(ctx *fasthttp.RequestCtx, ro *routeObs, biz *model.Business, status int, end time.Time, took time.Duration) {
	bp := linePool.Get().(*[]byte)
	b := appendTime((*bp)[:0], end)
	b = append(b, " access "...)
	b = appendValue(b, ro.listener)
	b = append(b, ' ')
	b = appendValue(b, ro.method)
	b = append(b, ' ')
	b = appendValue(b, ro.pattern)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	b = appendDuration(b, took)
	b = append(b, " request_id="...)
	b = appendValueBytes(b, ctx.Response.Header.Peek(requestIDHeader))
	if biz != nil {
		b = append(b, " business="...)
		b = appendUUIDText(b, biz.ID)
	}
	b = append(b, '\n')
	h.mu.Lock()
	_, _ = h.w.Write(b)
	h.mu.Unlock()
	*bp = b
	linePool.Put(bp)
}

// appendValueBytes is appendValue for a value already in bytes.
func appendValueBytes(b, v []byte) []byte {
	for _, c := range v {
		if c <= ' ' || c >= 0x7f || c == '"' || c == '=' || c == '\\' {
			return appendValue(b, string(v))
		}
	}
	if len(v) == 0 {
		return append(b, `""`...)
	}
	return append(b, v...)
}

// appendUUIDText appends id in its canonical text form, unquoted.
func appendUUIDText(b []byte, id [16]byte) []byte {
	const hex = "0123456789abcdef"
	for i, x := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[x>>4], hex[x&0xf])
	}
	return b
}

// bare reports whether the compact form shows attribute key by value alone.
func bare(key string) bool {
	switch key {
	case "listener", "method", "route", "status", "duration":
		return true
	}
	return false
}

var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

func (h *compactHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *compactHandler) Handle(_ context.Context, r slog.Record) error {
	bp := linePool.Get().(*[]byte)
	b := (*bp)[:0]
	if !r.Time.IsZero() {
		b = appendTime(b, r.Time)
		b = append(b, ' ')
	}
	if r.Level != slog.LevelInfo {
		b = append(b, r.Level.String()...)
		b = append(b, ' ')
	}
	b = append(b, r.Message...)
	b = append(b, h.prefix...)
	r.Attrs(func(a slog.Attr) bool {
		b = appendCompact(b, h.group, a)
		return true
	})
	b = append(b, '\n')
	h.mu.Lock()
	_, err := h.w.Write(b)
	h.mu.Unlock()
	*bp = b
	linePool.Put(bp)
	return err
}

func (h *compactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	n := *h
	n.prefix = append([]byte(nil), h.prefix...)
	for _, a := range as {
		n.prefix = appendCompact(n.prefix, h.group, a)
	}
	return &n
}

func (h *compactHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	n := *h
	n.group = h.group + name + "."
	return &n
}

func appendCompact(b []byte, group string, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return b
	}
	if a.Value.Kind() == slog.KindGroup {
		g := group
		if a.Key != "" {
			g += a.Key + "."
		}
		for _, x := range a.Value.Group() {
			b = appendCompact(b, g, x)
		}
		return b
	}
	b = append(b, ' ')
	if group != "" || !bare(a.Key) {
		b = append(b, group...)
		b = append(b, a.Key...)
		b = append(b, '=')
	}
	switch a.Value.Kind() {
	case slog.KindDuration:
		return appendDuration(b, a.Value.Duration())
	case slog.KindInt64:
		return strconv.AppendInt(b, a.Value.Int64(), 10)
	case slog.KindTime:
		return a.Value.Time().UTC().AppendFormat(b, time.RFC3339Nano)
	}
	return appendValue(b, a.Value.String())
}

// appendValue appends v, quoted when it is empty or holds a space, a
// quote, a backslash, an equals sign or anything but printable ASCII.
func appendValue(b []byte, v string) []byte {
	if v == "" {
		return append(b, `""`...)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '=' || c == '\\' {
			return strconv.AppendQuote(b, v)
		}
	}
	return append(b, v...)
}

// appendTime appends t in UTC as 2006-01-02T15:04:05.000Z.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, int(mo), 2)
	b = append(b, '-')
	b = appendDigits(b, d, 2)
	b = append(b, 'T')
	b = appendDigits(b, h, 2)
	b = append(b, ':')
	b = appendDigits(b, mi, 2)
	b = append(b, ':')
	b = appendDigits(b, s, 2)
	b = append(b, '.')
	b = appendDigits(b, t.Nanosecond()/1e6, 3)
	return append(b, 'Z')
}

func appendDigits(b []byte, n, width int) []byte {
	var d [8]byte
	for i := width - 1; i >= 0; i-- {
		d[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, d[:width]...)
}

// appendDuration appends d readably to the microsecond: "412µs",
// "1.235ms", "2.500s".
func appendDuration(b []byte, d time.Duration) []byte {
	switch {
	case d < time.Millisecond-time.Microsecond/2:
		return append(strconv.AppendInt(b, int64((d+500)/time.Microsecond), 10), "µs"...)
	case d < time.Second-time.Microsecond/2:
		return append(strconv.AppendFloat(b, float64(d)/1e6, 'f', 3, 64), "ms"...)
	}
	return append(strconv.AppendFloat(b, d.Seconds(), 'f', 3, 64), 's')
}
