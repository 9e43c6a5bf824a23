package placement

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// quietHandler is the cluster's logger: Proto.Actor logs every member
// change and every dead letter at INFO, and the membership provider a
// WARN for each failed poll of a lost node, twice a second for as long
// as the node is gone. An operator needs to know the node is gone, not
// to read it 120 times a minute: records below WARN are dropped, and a
// message repeated within a minute is written once.
//
// The levels of the membership layer are also put right (level): a peer
// that does not answer a poll or a connection is a WARN (the cluster goes
// on without it, and a node being drained or restarted is one). In the
// first startGrace of a node, a peer that does not answer yet is one that
// has not started yet (the run book starts three nodes at once): those
// records are dropped, and a healthy start logs no WARN. (The provider's
// health server ending when the node leaves is logged at INFO, and so
// dropped; only its failing is an ERROR.)
type quietHandler struct {
	next    slog.Handler
	mu      *sync.Mutex
	last    map[string]time.Time
	started time.Time
}

func newQuietHandler(next slog.Handler, started time.Time) slog.Handler {
	return quietHandler{next: next, mu: new(sync.Mutex), last: map[string]time.Time{}, started: started}
}

// startGrace is how long after a node starts its peers may not answer
// without a WARN: a three-node start on two cores takes about 20 s.
const startGrace = 30 * time.Second

const repeatEvery = time.Minute

func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.next.Enabled(ctx, l)
}

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level = level(r, r.Time.Sub(h.started) < startGrace); r.Level < slog.LevelWarn {
		return nil
	}
	h.mu.Lock()
	if t, ok := h.last[r.Message]; ok && r.Time.Sub(t) < repeatEvery {
		h.mu.Unlock()
		return nil
	}
	h.last[r.Message] = r.Time
	h.mu.Unlock()
	return h.next.Handle(ctx, r)
}

// level is the level a record of the membership provider deserves;
// starting says the node started less than startGrace ago.
func level(r slog.Record, starting bool) slog.Level {
	switch r.Message {
	case msgPeerSilent, msgNoPeer,
		// Proto.Actor's remote, when a peer went away (lost, or drained).
		"EndpointWriter lost connection", "EndpointWriter failed to create receive stream", "EndpointWriter failed to connect":
		if starting {
			return slog.LevelInfo
		}
		return min(r.Level, slog.LevelWarn)
	case "Got gossip request from unknown member":
		// A peer that joined a moment before this node heard of it.
		if starting {
			return slog.LevelInfo
		}
	}
	return r.Level
}

func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return quietHandler{next: h.next.WithAttrs(as), mu: h.mu, last: h.last, started: h.started}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{next: h.next.WithGroup(name), mu: h.mu, last: h.last, started: h.started}
}
