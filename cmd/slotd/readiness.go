package main

import (
	"log/slog"
	"sync"
	"time"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/transport/admin"
)

// readyWatch logs the node's readiness as /readyz would answer it, when it
// changes: one INFO "ready" line the first time it turns ready (how long
// the start took), then a WARN "not ready" with the reason whenever it
// stops being ready and an INFO "ready" when it is again. An operator
// pasting the run book's wait loop, or reading a node's log after an
// incident, sees when the node could take traffic without probing it.
type readyWatch struct {
	check   func() admin.Readiness
	clock   clock.Clock
	log     *slog.Logger
	started time.Time

	mu      sync.Mutex
	last    admin.Readiness
	ever    bool // it was ready once
	stopped bool
	timer   clock.Timer
}

// readyPoll is how often readiness is looked at: what /readyz depends on
// (membership, the lease, the journal's health) has no event of its own.
const readyPoll = time.Second

func watchReady(check func() admin.Readiness, c clock.Clock, log *slog.Logger, started time.Time) *readyWatch {
	w := &readyWatch{check: check, clock: c, log: log, started: started}
	w.tick()
	return w
}

func (w *readyWatch) tick() {
	r := w.check()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	switch {
	case r.Ready() && !w.ever:
		w.log.Info("ready: /readyz answers 200", "took", w.clock.Now().Sub(w.started).Round(time.Millisecond))
		w.ever = true
	case r.Ready() && !w.last.Ready():
		w.log.Info("ready again: /readyz answers 200")
	case !r.Ready() && w.ever && r != w.last:
		w.log.Warn("not ready: /readyz answers 503", "status", r.Status, "reason", r.Reason)
	}
	w.last = r
	w.timer = w.clock.AfterFunc(readyPoll, w.tick)
}

// stop ends the watch (before the node drains: its 503s then are said by
// the shutdown's own lines).
func (w *readyWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
}
