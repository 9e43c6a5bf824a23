package stream

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Config names the stream and object store and says how many replicas
// they keep.
type Config struct {
	Stream    string // default "SLOTD_JOURNAL"
	Snapshots string // default "slotd-snapshots"
	Replicas  int    // default 3
}

func (c *Config) defaults() {
	if c.Stream == "" {
		c.Stream = "SLOTD_JOURNAL"
	}
	if c.Snapshots == "" {
		c.Snapshots = "slotd-snapshots"
	}
	if c.Replicas == 0 {
		c.Replicas = 3
	}
}

// ErrFenced refuses an append made against a position that is no longer
// the business's last record: another writer appended since. The writer
// has lost the business; it must not append again before re-reading.
var ErrFenced = errors.New("stream: the business's journal moved on (fenced)")

// wrongLastSequence is JetStream's error code for a failed expected
// last-subject-sequence check.
const wrongLastSequence = 10071

// Journal is the replicated journal of every business.
type Journal struct {
	js    jetstream.JetStream
	cfg   Config
	snaps jetstream.ObjectStore
}

// Open creates (or finds) the stream and the snapshot store on the
// JetStream reachable through nc.
func Open(ctx context.Context, nc *nats.Conn, cfg Config) (*Journal, error) {
	cfg.defaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	_, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: cfg.Stream, Subjects: []string{cfg.Stream + ".*"}, Replicas: cfg.Replicas,
		Storage: jetstream.FileStorage, Retention: jetstream.LimitsPolicy, Discard: jetstream.DiscardNew,
		// Records are kept until a snapshot covers them (Trim).
		AllowDirect: true,
	})
	if err != nil {
		return nil, fmt.Errorf("stream: creating %s: %w", cfg.Stream, err)
	}
	snaps, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: cfg.Snapshots,
		Replicas: cfg.Replicas, Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("stream: creating %s: %w", cfg.Snapshots, err)
	}
	return &Journal{js: js, cfg: cfg, snaps: snaps}, nil
}

func (j *Journal) subject(biz uuid.UUID) string { return j.cfg.Stream + "." + biz.String() }

// Position is where a business's journal stands: its own record number
// (Seq, as package tenant counts) and the stream sequence of that record
// (Stream), which the next append must name.
type Position struct {
	Seq    uint64
	Stream uint64
}

// seqHeader carries a record's number within its business.
const seqHeader = "Slotd-Seq"

// Append appends rec as business biz's record after at (the position of
// its last record; the zero Position for its first) and returns the new
// position. ErrFenced: another writer appended after at.
func (j *Journal) Append(ctx context.Context, biz uuid.UUID, at Position, rec []byte) (Position, error) {
	msg := &nats.Msg{Subject: j.subject(biz), Data: rec, Header: nats.Header{}}
	next := at.Seq + 1
	msg.Header.Set(seqHeader, strconv.FormatUint(next, 10))
	ack, err := j.js.PublishMsg(ctx, msg, jetstream.WithExpectLastSequencePerSubject(at.Stream))
	if err != nil {
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && apiErr.ErrorCode == wrongLastSequence {
			return at, ErrFenced
		}
		return at, err
	}
	return Position{Seq: next, Stream: ack.Sequence}, nil
}

// Replay calls fn with each record of business biz after position after,
// in order, and returns the position of the last one (after itself when
// there is none). A replica lost or a leader moving mid-replay only
// delays it: the read resumes after the last record handed to fn, until
// ctx ends.
func (j *Journal) Replay(ctx context.Context, biz uuid.UUID, after Position, fn func(seq uint64, rec []byte) error) (Position, error) {
	last, err := j.last(ctx, biz)
	if err != nil || last <= after.Stream {
		return after, err
	}
	pos := after
	for pos.Stream < last {
		next, err := j.read(ctx, biz, pos, last, fn)
		pos = next
		var fatal *fnError
		switch {
		case err == nil:
		case errors.As(err, &fatal):
			return pos, fatal.err
		case ctx.Err() != nil:
			return pos, fmt.Errorf("stream: replaying %s after %d: %w", biz, pos.Stream, err)
		default:
			time.Sleep(retryWait)
		}
	}
	return pos, nil
}

// fnError is an error of Replay's fn: the replay stops, it is not retried.
type fnError struct{ err error }

func (e *fnError) Error() string { return e.err.Error() }

// retryWait is the pause before a replay resumes after a failed read.
const retryWait = 50 * time.Millisecond

// read hands fn the records of biz after pos up to last through one
// ordered consumer, returning the position reached.
func (j *Journal) read(ctx context.Context, biz uuid.UUID, pos Position, last uint64, fn func(seq uint64, rec []byte) error) (Position, error) {
	cons, err := j.js.OrderedConsumer(ctx, j.cfg.Stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{j.subject(biz)}, DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq: pos.Stream + 1,
	})
	if err != nil {
		return pos, err
	}
	for pos.Stream < last {
		batch, err := cons.FetchNoWait(fetchBatch)
		if err != nil {
			return pos, err
		}
		n := 0
		for m := range batch.Messages() {
			n++
			if pos, err = j.deliver(biz, pos, m, fn); err != nil {
				return pos, err
			}
		}
		if err := batch.Error(); err != nil {
			return pos, err
		}
		if n == 0 { // they exist (last said so): the stream is between leaders
			return pos, errors.New("stream: no records where the journal has some")
		}
	}
	return pos, nil
}

// fetchBatch is how many records one fetch of a replay asks for.
const fetchBatch = 512

// deliver hands record m, which must follow pos, to fn.
func (j *Journal) deliver(biz uuid.UUID, pos Position, m jetstream.Msg, fn func(seq uint64, rec []byte) error) (Position, error) {
	meta, err := m.Metadata()
	if err != nil {
		return pos, err
	}
	seq, err := strconv.ParseUint(m.Headers().Get(seqHeader), 10, 64)
	if err != nil || seq != pos.Seq+1 {
		return pos, &fnError{fmt.Errorf("stream: %s record at stream sequence %d is number %q, want %d",
			biz, meta.Sequence.Stream, m.Headers().Get(seqHeader), pos.Seq+1)}
	}
	if err := fn(seq, m.Data()); err != nil {
		return pos, &fnError{err}
	}
	return Position{Seq: seq, Stream: meta.Sequence.Stream}, nil
}

// last returns the stream sequence of business biz's last record, 0 when
// it has none.
func (j *Journal) last(ctx context.Context, biz uuid.UUID) (uint64, error) {
	s, err := j.js.Stream(ctx, j.cfg.Stream)
	if err != nil {
		return 0, err
	}
	m, err := s.GetLastMsgForSubject(ctx, j.subject(biz))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return m.Sequence, nil
}
