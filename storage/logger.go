package storage

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/cockroachdb/pebble/v2"
)

// pebbleLogger adapts slog to pebble.Logger. A nil slog.Logger discards
// Infof and Errorf.
//
// Fatalf is different: Pebble calls it when continuing is unsafe (a failed
// WAL write or fsync leaves the commit pipeline wedged; detected corruption),
// and it relies on Fatalf not returning. We therefore always report the
// message, to stderr if there is no logger, and exit the process, exactly as
// pebble.DefaultLogger does. A panic would not do: the actor framework
// recovers panics in actors and would keep the server running on top of a
// store that may have lost acknowledged writes. Crashing and recovering from
// the synced WAL on restart is the correct response.
type pebbleLogger struct {
	l *slog.Logger
}

func newPebbleLogger(l *slog.Logger) pebble.Logger {
	if l != nil {
		l = l.With(slog.String("component", "pebble"))
	}
	return pebbleLogger{l: l}
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
	if p.l != nil {
		p.l.Error("fatal storage error; exiting", slog.String("error", msg))
	} else {
		fmt.Fprintf(os.Stderr, "storage: fatal pebble error: %s\n", msg)
	}
	os.Exit(1)
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
