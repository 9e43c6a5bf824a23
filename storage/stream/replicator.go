package stream

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage"
)

// Replicator is storage.Replicator on the journal: each business's
// batches (Pebble batch representations) are the records of its subject,
// appended in order with fencing, and the node's store holds the rows of
// the businesses it owns as the acknowledged prefix of their records.
//
// Batches queued while an append is in flight go out together in the
// next one (group commit per business): a busy business pays one quorum
// round trip for many writes, as it shares one fsync on a single node.
//
// Checkpoints bound what taking a business over replays: every so often
// the business's rows are captured between two applies, stored as an
// object named by the position they cover, and a pointer in a KV bucket
// moved to it — only forwards, by compare-and-set, so a stale writer's
// late checkpoint can never hide a newer one. Records before the pointer
// are then purged from the stream (the one at it is kept: it is what the
// next append's fencing names).
type Replicator struct {
	j     *Journal
	store *storage.Store
	log   *slog.Logger
	// Timeout bounds one append; an append that times out has an unknown
	// outcome and fails the business's writer (0: 5 s).
	Timeout time.Duration
	// CheckpointEvery is the least number of records between two
	// checkpoints of a business (0: 1000); a checkpoint is also taken once
	// the records since the last one outweigh it.
	CheckpointEvery int

	claims atomic.Pointer[Claims] // nil: no owner records (one writer by construction)

	mu    sync.Mutex
	owned map[[16]byte]*writer

	fenced, appends, checkpoints atomic.Uint64
}

// NewReplicator returns the replicator of store on j.
func NewReplicator(j *Journal, store *storage.Store, log *slog.Logger) *Replicator {
	return &Replicator{j: j, store: store, log: log, owned: map[[16]byte]*writer{}}
}

// Stats are the replicator's counters.
type Stats struct {
	Appends uint64 // records appended
	Fenced  uint64 // appends refused because another writer moved on
	// Checkpoints counts checkpoints stored and pointed at.
	Checkpoints uint64
}

// Stats returns the counters.
func (r *Replicator) Stats() Stats {
	return Stats{Appends: r.appends.Load(), Fenced: r.fenced.Load(),
		Checkpoints: r.checkpoints.Load()}
}

// SetClaims makes Own take each business's owner record first (owner.go).
func (r *Replicator) SetClaims(c *Claims) { r.claims.Store(c) }

// writer is one owned business's append queue.
type writer struct {
	biz uuid.UUID
	// holder and claim are the owner record this writer holds (claims)
	// and its revision, released with it.
	holder string
	claim  uint64

	mu      sync.Mutex
	pos     Position
	queue   []queued
	running bool
	err     error // sticky: once set, every later batch fails with it
	idle    chan struct{}

	since, sinceBytes, lastSize int // records and bytes since the last checkpoint, its size
	checkpointing               atomic.Bool
}

type queued struct {
	repr  []byte
	local bool // applied in order, not appended (storage.Batch.Derived)
	done  func(error)
}

// errDisowned fails the batches of a business this node let go.
var errDisowned = errors.New("stream: this node no longer writes the business")

// ErrNotOwned fails a batch of a business this node has not taken over.
var ErrNotOwned = errors.New("stream: this node does not own the business")

// Own implements storage.Replicator: it rebuilds biz's rows in the store
// from its checkpoint and the records after it.
func (r *Replicator) Own(biz [16]byte) (release func(), err error) {
	r.mu.Lock()
	old := r.owned[biz]
	delete(r.owned, biz)
	r.mu.Unlock()
	if old != nil {
		old.stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := &writer{biz: uuid.UUID(biz)}
	claims := r.claims.Load()
	if claims != nil {
		var err error
		if w.holder, w.claim, err = claims.Claim(ctx, w.biz); err != nil {
			return nil, unavailable(err)
		}
	}
	pos, size, err := r.restore(ctx, biz)
	// A checkpoint taken meanwhile may have purged records this replay
	// still needed: start again from it (the pointer only moves forwards).
	for tries := 1; errors.Is(err, ErrGap) && tries < 5; tries++ {
		pos, size, err = r.restore(ctx, biz)
	}
	if err != nil {
		_ = r.store.DropBusiness(biz)
		r.unclaim(w)
		return nil, unavailable(err)
	}
	w.pos, w.lastSize = pos, size
	r.mu.Lock()
	r.owned[biz] = w
	r.mu.Unlock()
	return func() { r.release(biz, w) }, nil
}

// restore rebuilds biz's rows in the store from its latest checkpoint and
// the records after it, and returns the position reached and the
// checkpoint's size.
func (r *Replicator) restore(ctx context.Context, biz [16]byte) (Position, int, error) {
	at, dump, err := r.latestCheckpoint(ctx, uuid.UUID(biz))
	if err != nil {
		return at, 0, err
	}
	if err := r.store.ResetBusiness(biz, dump); err != nil {
		return at, 0, err
	}
	pos, err := r.j.Replay(ctx, uuid.UUID(biz), at, func(_ uint64, rec []byte) error {
		return eachBatch(rec, r.store.ApplyReplicated)
	})
	return pos, len(dump), err
}

// release lets biz go if w is still its writer.
func (r *Replicator) release(biz [16]byte, w *writer) {
	r.mu.Lock()
	mine := r.owned[biz] == w
	if mine {
		delete(r.owned, biz)
	}
	r.mu.Unlock()
	if mine {
		w.stop()
		if err := r.store.DropBusiness(biz); err != nil {
			r.log.Warn("dropping a released business's rows failed", "business", w.biz, "err", err)
		}
		r.unclaim(w)
	}
}

// unclaim releases w's owner record, if it holds one.
func (r *Replicator) unclaim(w *writer) {
	if c := r.claims.Load(); c != nil && w.claim != 0 {
		c.Release(w.biz, w.holder, w.claim)
	}
}

// stop fails what is queued and waits for an append in flight.
func (w *writer) stop() {
	w.mu.Lock()
	if w.err == nil {
		w.err = errDisowned
	}
	idle := w.idle
	if w.running && idle == nil {
		idle = make(chan struct{})
		w.idle = idle
	}
	running := w.running
	w.mu.Unlock()
	if running {
		<-idle
	}
}

// Replicate implements storage.Replicator.
func (r *Replicator) Replicate(biz [16]byte, repr []byte, local bool, done func(error)) {
	r.mu.Lock()
	w := r.owned[biz]
	r.mu.Unlock()
	if w == nil {
		done(unavailable(ErrNotOwned))
		return
	}
	w.mu.Lock()
	w.queue = append(w.queue, queued{repr: repr, local: local, done: done})
	start := !w.running
	w.running = true
	w.mu.Unlock()
	if start {
		go r.run(w)
	}
}

// run appends w's queue until it is empty, a group at a time.
func (r *Replicator) run(w *writer) {
	for {
		w.mu.Lock()
		if len(w.queue) == 0 {
			w.running = false
			if w.idle != nil {
				close(w.idle)
				w.idle = nil
			}
			w.mu.Unlock()
			return
		}
		group, failed := w.queue, w.err
		w.queue = nil
		w.mu.Unlock()
		if failed == nil {
			failed = r.append(w, group)
		}
		for _, q := range group {
			q.done(unavailable(failed))
		}
		if failed == nil {
			r.maybeCheckpoint(w)
		}
	}
}

// append appends the batches of one group as one record; the group's
// local batches (state derived from the journal: a snapshot) are not
// part of it, but are applied in queue order with the others by their
// done, and fail with them. A failure is sticky: fenced,
// the business moved on without this node; of unknown outcome (a timeout,
// a lost connection), the record may be in the journal, and this writer's
// position is no longer known. Either way the business's actor must stop
// and a new one rebuild from the journal.
func (r *Replicator) append(w *writer, group []queued) error {
	var rec []byte
	for _, q := range group {
		if q.local {
			continue
		}
		rec = binary.AppendUvarint(rec, uint64(len(q.repr)))
		rec = append(rec, q.repr...)
	}
	if len(rec) == 0 {
		return nil
	}
	timeout := r.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	pos, err := r.j.Append(ctx, w.biz, w.pos, rec)
	for tries := 1; errors.Is(err, ErrFenced) && tries < fenceRetries && r.stillLast(ctx, w); tries++ {
		r.log.Info("an append was refused as fenced with no later record of the business in sight; appending again", "business", w.biz, "after", w.pos.Stream)
		pos, err = r.j.Append(ctx, w.biz, w.pos, rec)
	}
	cancel()
	w.mu.Lock()
	defer w.mu.Unlock()
	if errors.Is(err, nats.ErrMaxPayload) {
		// Refused by the client before it was sent: nothing was
		// appended and the writer's position holds. Only this group
		// fails (a write larger than the journal's max_payload).
		r.log.Error("a write is larger than the journal's largest message; it was refused", "business", w.biz, "bytes", len(rec))
		return err
	}
	if err != nil {
		if errors.Is(err, ErrFenced) {
			r.fenced.Add(1)
		} else {
			err = fmt.Errorf("stream: append of unknown outcome: %w", err)
		}
		if w.err == nil {
			w.err = err
		}
		return err
	}
	r.appends.Add(1)
	w.pos = pos
	w.since++
	w.sinceBytes += len(rec)
	return nil
}

// fenceRetries bounds the appends of one group refused as fenced while
// the business's last record was still this writer's own.
const fenceRetries = 3

// stillLast reports whether w's last record may still be the business's
// last one in the journal: then a refusal as fenced need not be another
// writer's doing. In booking storms on three nodes sharing two cores, JetStream
// refused about one append in ten thousand as "wrong last sequence" for a
// business no other node had ever owned, and the writer then stopped: a
// few 503s with no node moving. Appending again is
// safe whatever this read says (it may come from a lagging replica): the
// journal's own check decides each append atomically, so a writer that
// was truly fenced is refused again.
func (r *Replicator) stillLast(ctx context.Context, w *writer) bool {
	last, err := r.j.last(ctx, w.biz)
	// A replica behind this writer's own last record, or no answer, says
	// nothing: only a later record is another writer's.
	return err != nil || last <= w.pos.Stream
}

// unavailable is what a write or a take-over that the journal did not
// take answers: 503 SERVICE_UNAVAILABLE, to be retried once the business
// has settled on a node (errors.Is still sees the cause).
func unavailable(err error) error {
	if err == nil {
		return nil
	}
	return problem.Moving(err)
}

// eachBatch calls fn with each batch representation of record rec.
func eachBatch(rec []byte, fn func([]byte) error) error {
	for len(rec) > 0 {
		n, k := binary.Uvarint(rec)
		if k <= 0 || n > uint64(len(rec)-k) {
			return errors.New("stream: malformed record")
		}
		if err := fn(rec[k : k+int(n)]); err != nil {
			return err
		}
		rec = rec[k+int(n):]
	}
	return nil
}

// maybeCheckpoint starts a checkpoint of w's business when enough has
// been appended since the last. It runs between two applies of the
// business's batches, so the rows it captures are exactly w.pos's.
func (r *Replicator) maybeCheckpoint(w *writer) {
	every := r.CheckpointEvery
	if every == 0 {
		every = 1000
	}
	w.mu.Lock()
	due := w.err == nil && (w.since >= every || (w.since > 1 && w.sinceBytes > max(w.lastSize, 1<<20)))
	at := w.pos
	w.mu.Unlock()
	if !due || !w.checkpointing.CompareAndSwap(false, true) {
		return
	}
	capture, err := r.store.Checkpoint(w.biz)
	if err != nil {
		w.checkpointing.Store(false)
		return
	}
	w.mu.Lock()
	w.since, w.sinceBytes = 0, 0
	w.mu.Unlock()
	go func() {
		defer w.checkpointing.Store(false)
		size, err := r.checkpoint(w.biz, at, capture)
		if err != nil {
			r.log.Warn("checkpoint failed; the journal is kept", "business", w.biz, "err", err)
			return
		}
		w.mu.Lock()
		w.lastSize = size
		w.mu.Unlock()
	}()
}

// checkpoint stores the captured rows as of at, moves the pointer to them
// and purges the records they cover.
func (r *Replicator) checkpoint(biz uuid.UUID, at Position, capture func() ([]byte, error)) (int, error) {
	dump, err := capture()
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := checkpointName(biz, at)
	if err := r.j.putBlob(ctx, name, dump); err != nil {
		return 0, err
	}
	prev, moved, err := r.movePointer(ctx, biz, at)
	if err != nil || !moved {
		_ = r.j.deleteBlob(ctx, name)
		return len(dump), err
	}
	r.checkpoints.Add(1)
	if prev.Stream != 0 {
		_ = r.j.deleteBlob(ctx, checkpointName(biz, prev))
	}
	s, err := r.j.js.Stream(ctx, r.j.cfg.Stream)
	if err != nil {
		return len(dump), err
	}
	return len(dump), s.Purge(ctx, jetstream.WithPurgeSubject(r.j.subject(biz)), jetstream.WithPurgeSequence(at.Stream))
}

func checkpointName(biz uuid.UUID, at Position) string {
	return biz.String() + "." + strconv.FormatUint(at.Stream, 10)
}

// movePointer sets biz's checkpoint pointer to at unless it already
// points at or past it, and returns where it pointed.
func (r *Replicator) movePointer(ctx context.Context, biz uuid.UUID, at Position) (prev Position, moved bool, err error) {
	val := encodePosition(at)
	for {
		e, err := r.j.ckpts.Get(ctx, biz.String())
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			if _, err = r.j.ckpts.Create(ctx, biz.String(), val); err == nil {
				return Position{}, true, nil
			}
		case err != nil:
			return Position{}, false, err
		default:
			prev, err = decodePosition(e.Value())
			if err != nil || prev.Stream >= at.Stream {
				return prev, false, err
			}
			if _, err = r.j.ckpts.Update(ctx, biz.String(), val, e.Revision()); err == nil {
				return prev, true, nil
			}
		}
		if ctx.Err() != nil {
			return prev, false, ctx.Err()
		}
		// Another checkpoint moved the pointer meanwhile: look again.
	}
}

// latestCheckpoint returns biz's newest checkpoint (the zero position and
// no rows when it has none).
func (r *Replicator) latestCheckpoint(ctx context.Context, biz uuid.UUID) (Position, []byte, error) {
	for {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		e, err := r.j.ckpts.Get(actx, biz.String())
		cancel()
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return Position{}, nil, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return Position{}, nil, err
			}
			time.Sleep(retryWait) // the bucket is between leaders
			continue
		}
		at, err := decodePosition(e.Value())
		if err != nil {
			return Position{}, nil, err
		}
		dump, err := r.j.getBlob(ctx, checkpointName(biz, at))
		switch {
		case err == nil:
			return at, dump, nil
		case ctx.Err() != nil:
			return at, nil, err
		case !errors.Is(err, errNoBlob):
			time.Sleep(retryWait)
		}
		// A newer checkpoint replaced it as we read, or the stream is
		// between leaders: look again.
	}
}

func encodePosition(p Position) []byte {
	b := binary.BigEndian.AppendUint64(nil, p.Seq)
	return binary.BigEndian.AppendUint64(b, p.Stream)
}

func decodePosition(b []byte) (Position, error) {
	if len(b) != 16 {
		return Position{}, fmt.Errorf("stream: checkpoint pointer of %d bytes", len(b))
	}
	return Position{Seq: binary.BigEndian.Uint64(b), Stream: binary.BigEndian.Uint64(b[8:])}, nil
}
