package stream

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Every read slotd makes of the journal's streams and buckets is answered
// by the stream's leader (allow_direct off), never by a direct get that
// any replica may answer. Two faults taught this:
//
//   - A replica that is behind answers a direct get from what it has: a
//     node back from a pause could name an older last record or an older
//     owner record (Journal.last explains the stale read this caused).
//   - A replica on a paused node (SIGSTOP, a stalled VM) still holds its
//     subscriptions in the others' interest graph, and a direct get routed
//     to it waits out its whole timeout. Measured with the salon's owner
//     paused: every read of the owner and lease records by the survivors
//     timed out (2 s each) for the whole pause, while the buckets' leaders
//     were alive, so nobody could fence the paused node's lease or take
//     its businesses over until it ran again (issue 38: 13 s outages).
//
// A stream's leader is the one replica every write goes through anyway:
// when it is the paused one, nothing is written until the others elect
// another, reads or not.

// openStream creates the stream of cfg, or updates it to cfg (reads by
// its leader only).
func openStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) error {
	cfg.AllowDirect = false
	_, err := js.CreateOrUpdateStream(ctx, cfg)
	return err
}

// openBucket opens the KV bucket of cfg, creating it if it is not there,
// with reads by its stream's leader only. A bucket that exists keeps its
// configuration but for that: CreateOrUpdateKeyValue would turn direct
// gets on again (nats.go always asks for them), and a node starting
// meanwhile would bind a handle that reads any replica for good.
func openBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	if _, err := js.KeyValue(ctx, cfg.Bucket); errors.Is(err, jetstream.ErrBucketNotFound) {
		if _, err := js.CreateKeyValue(ctx, cfg); err != nil && !errors.Is(err, jetstream.ErrBucketExists) {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	name := "KV_" + cfg.Bucket
	s, err := js.Stream(ctx, name)
	if err != nil {
		return nil, err
	}
	if sc := s.CachedInfo().Config; sc.AllowDirect {
		sc.AllowDirect = false
		if _, err := js.UpdateStream(ctx, sc); err != nil {
			return nil, fmt.Errorf("stream: reads of %s by its leader: %w", name, err)
		}
	}
	// Bound after the update: the handle decides once, from the stream's
	// configuration, whether its gets are direct.
	return js.KeyValue(ctx, cfg.Bucket)
}
