package placement

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// quietHandler is the cluster's logger: Proto.Actor logs every member
// change and every dead letter at INFO, and the membership provider an
// ERROR for each failed poll of a lost node, twice a second for as long
// as the node is gone. An operator needs to know the node is gone, not
// to read it 120 times a minute: records below WARN are dropped, and a
// message repeated within a minute is written once.
type quietHandler struct {
	next slog.Handler
	mu   *sync.Mutex
	last map[string]time.Time
}

func newQuietHandler(next slog.Handler) slog.Handler {
	return quietHandler{next: next, mu: new(sync.Mutex), last: map[string]time.Time{}}
}

const repeatEvery = time.Minute

func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.next.Enabled(ctx, l)
}

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	if t, ok := h.last[r.Message]; ok && r.Time.Sub(t) < repeatEvery {
		h.mu.Unlock()
		return nil
	}
	h.last[r.Message] = r.Time
	h.mu.Unlock()
	return h.next.Handle(ctx, r)
}

func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return quietHandler{next: h.next.WithAttrs(as), mu: h.mu, last: h.last}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{next: h.next.WithGroup(name), mu: h.mu, last: h.last}
}
