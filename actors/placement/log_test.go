package placement

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A healthy start logs no WARN: in a node's first startGrace, a peer that
// does not answer yet has not started yet. Later, the same line is a WARN
// (a peer went away), once a minute.
func TestQuietHandlerStartGrace(t *testing.T) {
	var out bytes.Buffer
	started := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	h := newQuietHandler(slog.NewTextHandler(&out, nil), started)
	emit := func(at time.Duration, level slog.Level, msg string) {
		_ = h.Handle(context.Background(), slog.NewRecord(started.Add(at), level, msg, 0))
	}
	emit(time.Second, slog.LevelError, "Bad connection to the node health status")
	emit(2*time.Second, slog.LevelWarn, "Got gossip request from unknown member")
	emit(10*time.Second, slog.LevelError, "EndpointWriter failed to connect")
	assert.Empty(t, out.String(), "nothing from a start")

	emit(40*time.Second, slog.LevelError, "Bad connection to the node health status")
	emit(41*time.Second, slog.LevelError, "Bad connection to the node health status")
	emit(42*time.Second, slog.LevelWarn, "Got gossip request from unknown member")
	emit(43*time.Second, slog.LevelError, "something else broke")
	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	if assert.Len(t, lines, 3, out.String()) {
		assert.Contains(t, string(lines[0]), `level=WARN msg="Bad connection to the node health status"`)
		assert.Contains(t, string(lines[1]), `level=WARN msg="Got gossip request from unknown member"`)
		assert.Contains(t, string(lines[2]), `level=ERROR msg="something else broke"`)
	}
}
