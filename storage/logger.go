package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/slotd/slotd/actors/clock"
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

// Infof logs at DEBUG: Pebble's informational lines ("Found 0 WALs",
// "[JOB 1] WAL … stopped reading") are its internals, which an operator
// of slotd does not act on; what they do act on comes as events
// (eventListener) or errors.
func (p pebbleLogger) Infof(format string, args ...any) {
	if p.l != nil && p.l.Enabled(context.Background(), slog.LevelDebug) {
		p.l.Debug(fmt.Sprintf(format, args...))
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

// backgroundEvery spaces the log lines of Pebble's background errors.
const backgroundEvery = 10 * time.Second

// eventListener reports the Pebble events an operator needs to see: a slow
// disk or a write stall shows up as commit latency for every tenant, and
// would otherwise be invisible. Routine flush/compaction chatter is left out.
//
// Background errors are written at most once per backgroundEvery, with the
// number left out since: on a volume another process filled, Pebble
// retries its flushes and compactions and fails each, every few tens of
// milliseconds, each with another file name.
func eventListener(l *slog.Logger, clk clock.Clock) pebble.EventListener {
	l = l.With(slog.String("component", "pebble"))
	var mu sync.Mutex
	var next time.Time
	var quiet int
	return pebble.EventListener{
		BackgroundError: func(err error) {
			mu.Lock()
			now := clk.Now()
			if now.Before(next) {
				quiet++
				mu.Unlock()
				return
			}
			left := quiet
			next, quiet = now.Add(backgroundEvery), 0
			mu.Unlock()
			l.Error("background error", slog.Any("error", err), slog.Int("left_out_since_last", left))
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
