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
	emit(time.Second, slog.LevelWarn, msgPeerSilent)
	emit(2*time.Second, slog.LevelWarn, "Got gossip request from unknown member")
	emit(10*time.Second, slog.LevelError, "EndpointWriter failed to connect")
	assert.Empty(t, out.String(), "nothing from a start")

	emit(40*time.Second, slog.LevelWarn, msgPeerSilent)
	emit(41*time.Second, slog.LevelWarn, msgPeerSilent)
	emit(42*time.Second, slog.LevelWarn, "Got gossip request from unknown member")
	emit(43*time.Second, slog.LevelError, "something else broke")
	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	if assert.Len(t, lines, 3, out.String()) {
		assert.Contains(t, string(lines[0]), `level=WARN msg="`+msgPeerSilent+`"`)
		assert.Contains(t, string(lines[1]), `level=WARN msg="Got gossip request from unknown member"`)
		assert.Contains(t, string(lines[2]), `level=ERROR msg="something else broke"`)
	}
}

// The membership provider's other records: a node cut off from every peer
// is news only after startGrace, like a silent peer; a peer that answers
// as something else (another cluster, or not a node) is a misconfiguration,
// news from the start; the health server ending with its node is routine,
// and its failing is an ERROR.
func TestQuietHandlerMembership(t *testing.T) {
	var out bytes.Buffer
	started := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	h := newQuietHandler(slog.NewTextHandler(&out, nil), started)
	log := func(at time.Duration) *slog.Logger {
		return slog.New(at0{h, started.Add(at)})
	}
	log(time.Second).Warn(msgNoPeer)
	log(time.Second).Info(msgServerStopped)
	assert.Empty(t, out.String(), "nothing from a start or a stop")

	log(2*time.Second).Warn(msgPeerForeign, "peer", "10.0.0.2:6330")
	log(3*time.Second).Warn(msgPeerWrong, "peer", "10.0.0.3:6330")
	log(40 * time.Second).Warn(msgNoPeer)
	log(41 * time.Second).Info(msgServerStopped)
	log(42*time.Second).Error(msgServeFailed, "err", "accept: too many open files")
	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	if assert.Len(t, lines, 4, out.String()) {
		assert.Contains(t, string(lines[0]), `level=WARN msg="`+msgPeerForeign+`"`)
		assert.Contains(t, string(lines[1]), `level=WARN msg="`+msgPeerWrong+`"`)
		assert.Contains(t, string(lines[2]), `level=WARN msg="`+msgNoPeer+`"`)
		assert.Contains(t, string(lines[3]), `level=ERROR msg="`+msgServeFailed+`"`)
	}
}

// at0 stamps every record with a fixed time, so that a test logs through
// slog.Logger, as the provider does, at a time of its choosing.
type at0 struct {
	slog.Handler
	at time.Time
}

func (h at0) Handle(ctx context.Context, r slog.Record) error {
	r.Time = h.at
	return h.Handler.Handle(ctx, r)
}
