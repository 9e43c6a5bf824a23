package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Config names the streams and the bucket and says how many replicas
// they keep.
type Config struct {
	Stream string // default "SLOTD_JOURNAL"
	// Checkpoints is the stream of checkpoints (snapshot.go), default
	// "SLOTD_CHECKPOINTS"; Pointers the KV bucket of each business's
	// latest one (replicator.go), default "slotd-checkpoints".
	Checkpoints string
	Pointers    string
	Replicas    int // default 3
}

func (c *Config) defaults() {
	if c.Stream == "" {
		c.Stream = "SLOTD_JOURNAL"
	}
	if c.Checkpoints == "" {
		c.Checkpoints = "SLOTD_CHECKPOINTS"
	}
	if c.Pointers == "" {
		c.Pointers = "slotd-checkpoints"
	}
	if c.Replicas == 0 {
		c.Replicas = 3
	}
}

// ErrFenced refuses an append made against a position that is no longer
// the business's last record: another writer appended since. The writer
// has lost the business; it must not append again before re-reading.
var ErrFenced = errors.New("stream: the business's journal moved on (fenced)")

// ErrGap is a replay that found records missing after its starting
// position: they were purged under a newer checkpoint while it read
// (Replicator.Own starts again from that checkpoint).
var ErrGap = errors.New("stream: records purged under a newer checkpoint")

// wrongLastSequence is JetStream's error code for a failed expected
// last-subject-sequence check.
const wrongLastSequence = 10071

// wrongLastSequenceConstant is the same refusal, as the server words it
// when the check fails against a subject with no record yet.
const wrongLastSequenceConstant = 10164

// Journal is the replicated journal of every business.
type Journal struct {
	js    jetstream.JetStream
	cfg   Config
	ckpts jetstream.KeyValue // checkpoint pointers
}

// Open creates (or finds) the stream and the snapshot store on the
// JetStream reachable through nc.
func Open(ctx context.Context, nc *nats.Conn, cfg Config) (*Journal, error) {
	cfg.defaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	err = openStream(ctx, js, jetstream.StreamConfig{
		Name: cfg.Stream, Subjects: []string{cfg.Stream + ".*"}, Replicas: cfg.Replicas,
		Storage: jetstream.FileStorage, Retention: jetstream.LimitsPolicy, Discard: jetstream.DiscardNew,
		// Records are kept until a snapshot covers them (Trim).
	})
	if err != nil {
		return nil, fmt.Errorf("stream: creating %s: %w", cfg.Stream, err)
	}
	err = openStream(ctx, js, jetstream.StreamConfig{
		Name: cfg.Checkpoints, Subjects: []string{cfg.Checkpoints + ".>"}, Replicas: cfg.Replicas,
		Storage: jetstream.FileStorage, Retention: jetstream.LimitsPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("stream: creating %s: %w", cfg.Checkpoints, err)
	}
	ckpts, err := openBucket(ctx, js, jetstream.KeyValueConfig{Bucket: cfg.Pointers,
		Replicas: cfg.Replicas, Storage: jetstream.FileStorage, History: 1})
	if err != nil {
		return nil, fmt.Errorf("stream: creating %s: %w", cfg.Pointers, err)
	}
	return &Journal{js: js, cfg: cfg, ckpts: ckpts}, nil
}

func (j *Journal) subject(biz uuid.UUID) string { return j.cfg.Stream + "." + biz.String() }

// Position is where a business's journal stands: its own record number
// (Seq, as package ledger counts) and the stream sequence of that record
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
		if errors.As(err, &apiErr) && (apiErr.ErrorCode == wrongLastSequence || apiErr.ErrorCode == wrongLastSequenceConstant) {
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
	var last uint64
	if err := retry(ctx, func(ctx context.Context) (err error) {
		last, err = j.last(ctx, biz)
		return err
	}); err != nil {
		return after, fmt.Errorf("stream: replaying %s: %w", biz, err)
	}
	if last <= after.Stream {
		return after, nil
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

// retry calls fn until it succeeds or ctx is done, each attempt bounded
// by attemptTimeout, and returns fn's last error. A bucket or stream just
// created answers "no responders" or times out until its replicas have
// elected a leader, which takes seconds on a loaded machine: operations
// that a node cannot start without wait for it instead of failing.
func retry(ctx context.Context, fn func(ctx context.Context) error) error {
	for {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		err := fn(actx)
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
		time.Sleep(retryWait)
	}
}

// attemptTimeout bounds one attempt of a read: while the stream elects a
// new leader, a request can go unanswered, and one attempt must not spend
// the whole replay's time.
const attemptTimeout = 2 * time.Second

// read hands fn the records of biz after pos up to last, one get ("the
// first message of the subject at or after this sequence") each, answered
// by the stream's leader (leader.go), returning the position reached. Gets
// keep no state on the server: an ordered consumer, tried first, could
// retry its own reset for ever after losing the replica it was on.
func (j *Journal) read(ctx context.Context, biz uuid.UUID, pos Position, last uint64, fn func(seq uint64, rec []byte) error) (Position, error) {
	actx, cancel := context.WithTimeout(ctx, attemptTimeout)
	s, err := j.js.Stream(actx, j.cfg.Stream)
	cancel()
	if err != nil {
		return pos, err
	}
	subject := j.subject(biz)
	for pos.Stream < last {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		m, err := s.GetMsg(actx, pos.Stream+1, jetstream.WithGetMsgSubject(subject))
		cancel()
		if err != nil {
			return pos, err
		}
		if pos, err = j.deliver(biz, pos, m, fn); err != nil {
			return pos, err
		}
	}
	return pos, nil
}

// deliver hands record m, which must follow pos, to fn.
func (j *Journal) deliver(biz uuid.UUID, pos Position, m *jetstream.RawStreamMsg, fn func(seq uint64, rec []byte) error) (Position, error) {
	seq, err := strconv.ParseUint(m.Header.Get(seqHeader), 10, 64)
	if err != nil || seq != pos.Seq+1 {
		err := fmt.Errorf("stream: %s record at stream sequence %d is number %q, want %d",
			biz, m.Sequence, m.Header.Get(seqHeader), pos.Seq+1)
		if seq > pos.Seq+1 {
			err = fmt.Errorf("%w: %w", ErrGap, err)
		}
		return pos, &fnError{err}
	}
	if err := fn(seq, m.Data); err != nil {
		return pos, &fnError{err}
	}
	return Position{Seq: seq, Stream: m.Sequence}, nil
}

// last returns the stream sequence of business biz's last record, 0 when
// it has none. It asks the stream's leader (STREAM.MSG.GET) by name: a
// direct get, which the client would make of GetLastMsgForSubject on a
// stream that allowed them, is answered by any replica, and nats-server
// lets a follower answer once it is 90 % caught up. A follower that is
// behind (a node back from a pause, its replica still catching up) names
// an older last record, and a take-over replayed only to that would serve
// a state without acknowledged writes: a stale read, which the
// paused-owner fault test caught once (a 404 for an acknowledged booking,
// on a loaded machine). The streams no longer allow direct gets
// (leader.go); asking by name keeps this read right whatever a stream's
// configuration says.
func (j *Journal) last(ctx context.Context, biz uuid.UUID) (uint64, error) {
	req, err := json.Marshal(struct {
		LastBySubject string `json:"last_by_subj"`
	}{j.subject(biz)})
	if err != nil {
		return 0, err
	}
	msg, err := j.js.Conn().RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET."+j.cfg.Stream, req)
	if err != nil {
		return 0, err
	}
	var resp struct {
		Error *struct {
			ErrCode     jetstream.ErrorCode `json:"err_code"`
			Description string              `json:"description"`
		} `json:"error"`
		Message *struct {
			Seq uint64 `json:"seq"`
		} `json:"message"`
	}
	if err := json.Unmarshal(msg.Data, &resp); err != nil {
		return 0, fmt.Errorf("stream: last record of %s: %w", biz, err)
	}
	switch {
	case resp.Error != nil && resp.Error.ErrCode == jetstream.JSErrCodeMessageNotFound:
		return 0, nil
	case resp.Error != nil:
		return 0, fmt.Errorf("stream: last record of %s: %s (%d)", biz, resp.Error.Description, resp.Error.ErrCode)
	case resp.Message == nil:
		return 0, fmt.Errorf("stream: last record of %s: an answer without a message", biz)
	}
	return resp.Message.Seq, nil
}

// Ping reports whether the stream answers: its leader is reachable.
func (j *Journal) Ping(ctx context.Context) error {
	_, err := j.js.Stream(ctx, j.cfg.Stream)
	return err
}
