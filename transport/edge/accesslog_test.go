package edge

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
)

// TestCompactHandler: attributes outside the fixed ones are key=value,
// quoted when they would not read back; groups flatten to dotted keys.
func TestCompactHandler(t *testing.T) {
	var buf bytes.Buffer
	l, err := NewAccessLog(&buf, AccessLogCompact)
	require.NoError(t, err)
	l = l.With("pid", 7).WithGroup("g")
	l.Warn("msg", "method", "GET", "note", `two words "quoted"`, "empty", "", slog.Group("sub", "d", 1500*time.Microsecond))
	line := buf.String()
	require.Regexp(t, `^\S+ WARN msg pid=7 g\.method=GET g\.note="two words \\"quoted\\"" g\.empty="" g\.sub\.d=1\.500ms\n$`, line)
	buf.Reset()
	l.Debug("hidden")
	require.Empty(t, buf.String(), "below info is not written")
}

func TestCompactTimeAndDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{0, "0µs"}, {412400, "412µs"}, {999_600, "1.000ms"}, {999_999_600, "1.000s"}, {1234567, "1.235ms"}, {2500 * time.Millisecond, "2.500s"}} {
		require.Equal(t, c.want, string(appendDuration(nil, c.d)))
	}
	at := time.Date(2026, 3, 4, 5, 6, 7, 890_123_456, time.FixedZone("x", 3600))
	require.Equal(t, at.UTC().Format("2006-01-02T15:04:05.000Z"), string(appendTime(nil, at)))
}

// The compact access log's fast path writes exactly the line the slog
// handler writes for the same record.
func TestCompactAccessLineMatchesTheHandler(t *testing.T) {
	biz := &model.Business{ID: uuid.MustParse("3564727f-cf75-56bf-8ff9-ba8856a3ada8")}
	end := time.Date(2026, 11, 24, 9, 30, 1, 234567891, time.UTC)
	for _, c := range []struct {
		ro     *routeObs
		status int
		took   time.Duration
		biz    *model.Business
		id     string
	}{
		{&routeObs{listener: "public", method: "GET", pattern: "/api/v1/services/{id}"}, 200, 412 * time.Microsecond, biz, "ab12-7"},
		{&routeObs{listener: "admin", method: "POST", pattern: "unmatched"}, 404, 3 * time.Second, nil, ""},
		{&routeObs{listener: "public", method: "other", pattern: "/a b"}, 500, 12*time.Millisecond + 345*time.Microsecond, nil, `x"y`},
	} {
		var fast, slow bytes.Buffer
		var ctx fasthttp.RequestCtx
		ctx.Response.Header.Set(requestIDHeader, c.id)
		(&compactHandler{mu: &sync.Mutex{}, w: &fast}).access(&ctx, c.ro, c.biz, c.status, end, c.took)
		e := &Edge{}
		e.AccessLog = slog.New(&compactHandler{mu: &sync.Mutex{}, w: &slow})
		// The handler path, as logAccess takes it for any other handler.
		h := e.AccessLog.Handler()
		r := slog.NewRecord(end, slog.LevelInfo, "access", 0)
		r.AddAttrs(slog.String("listener", c.ro.listener), slog.String("method", c.ro.method), slog.String("route", c.ro.pattern),
			slog.Int("status", c.status), slog.Duration("duration", c.took), slog.String("request_id", c.id))
		if c.biz != nil {
			r.AddAttrs(slog.String("business", c.biz.ID.String()))
		}
		require.NoError(t, h.Handle(context.Background(), r))
		require.Equal(t, slow.String(), fast.String())
	}
}
