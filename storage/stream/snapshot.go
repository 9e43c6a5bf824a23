package stream

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
)

// Snapshots live in a JetStream object store beside the stream, one
// object per business, replicated like the records: a node that activates
// a business reads its snapshot and replays only the records after it.
// The object starts with the position it covers (two big-endian uint64s),
// so the snapshot and its position are written as one.

// PutSnapshot stores raw as business biz's snapshot as of position at.
func (j *Journal) PutSnapshot(ctx context.Context, biz uuid.UUID, at Position, raw []byte) error {
	b := make([]byte, 16, 16+len(raw))
	binary.BigEndian.PutUint64(b, at.Seq)
	binary.BigEndian.PutUint64(b[8:], at.Stream)
	_, err := j.snaps.PutBytes(ctx, biz.String(), append(b, raw...))
	return err
}

// Snapshot returns business biz's latest snapshot and its position; ok is
// false when it has none.
func (j *Journal) Snapshot(ctx context.Context, biz uuid.UUID) (at Position, raw []byte, ok bool, err error) {
	b, err := j.snaps.GetBytes(ctx, biz.String())
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return Position{}, nil, false, nil
	}
	if err != nil {
		return Position{}, nil, false, err
	}
	if len(b) < 16 {
		return Position{}, nil, false, fmt.Errorf("stream: snapshot of %s is %d bytes", biz, len(b))
	}
	at = Position{Seq: binary.BigEndian.Uint64(b), Stream: binary.BigEndian.Uint64(b[8:])}
	return at, b[16:], true, nil
}
