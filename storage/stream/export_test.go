package stream

import (
	"context"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
)

// Internals for the external tests.
var (
	PutBlob    = (*Journal).putBlob
	GetBlob    = (*Journal).getBlob
	DeleteBlob = (*Journal).deleteBlob
	ErrNoBlob  = errNoBlob
	ChunkSize  = chunkSize
)

// PurgeBefore purges business biz's records before stream sequence seq,
// as a checkpoint does.
func PurgeBefore(j *Journal, ctx context.Context, biz uuid.UUID, seq uint64) error {
	s, err := j.js.Stream(ctx, j.cfg.Stream)
	if err != nil {
		return err
	}
	return s.Purge(ctx, jetstream.WithPurgeSubject(j.subject(biz)), jetstream.WithPurgeSequence(seq))
}

// EndedMeanwhile is Claims.endedMeanwhile for node's lease key.
func EndedMeanwhile(c *Claims, ctx context.Context, node, inc string) bool {
	return c.endedMeanwhile(ctx, leasePrefix+node, inc, 0)
}
