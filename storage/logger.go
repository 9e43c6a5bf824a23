package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/cockroachdb/pebble/v2"
)

// pebbleLogger adapts slog to pebble.Logger. A nil slog.Logger discards
// Infof and Errorf.
//
// Fatalf is different: Pebble calls it when continuing is unsafe (a failed
// WAL write or fsync leaves the commit pipeline wedged; detected
// corruption), and it relies on Fatalf not returning. A panic would not
// do: the actor framework recovers panics in actors and would keep the
// server running on top of a store that may have lost acknowledged writes.
// Nor does an immediate exit: clients with requests in flight would get a
// reset connection instead of an answer. So Fatalf fails the store for
// good (health.go) — every later operation is refused without touching
// Pebble, and the server drains, answering 503, and exits non-zero — and
// then parks the calling goroutine for ever. A restart recovers from the
// synced WAL.
type pebbleLogger struct {
	l    *slog.Logger
	fail func(error)
}

func newPebbleLogger(l *slog.Logger, fail func(error)) pebble.Logger {
	if l != nil {
		l = l.With(slog.String("component", "pebble"))
	}
	return pebbleLogger{l: l, fail: fail}
}

func (p pebbleLogger) Infof(format string, args ...any) {
	if p.l != nil && p.l.Enabled(context.Background(), slog.LevelInfo) {
		p.l.Info(fmt.Sprintf(format, args...))
	}
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	if p.l != nil {
		p.l.Error(fmt.Sprintf(format, args...))
	}
}

func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.l == nil {
		fmt.Fprintf(os.Stderr, "storage: fatal pebble error: %s\n", msg)
	}
	p.fail(errors.New(msg))
	select {} // Pebble must not go on; the server exits (see above)
}

// eventListener reports the Pebble events an operator needs to see: a slow
// disk or a write stall shows up as commit latency for every tenant, and
// would otherwise be invisible. Routine flush/compaction chatter is left out.
func eventListener(l *slog.Logger) pebble.EventListener {
	l = l.With(slog.String("component", "pebble"))
	return pebble.EventListener{
		BackgroundError: func(err error) {
			l.Error("background error", slog.Any("error", err))
		},
		DiskSlow: func(info pebble.DiskSlowInfo) {
			l.Warn("disk slow", slog.String("info", info.String()))
		},
		WriteStallBegin: func(info pebble.WriteStallBeginInfo) {
			l.Warn("write stall begin", slog.String("reason", info.Reason))
		},
		WriteStallEnd: func() {
			l.Warn("write stall end")
		},
	}
}
