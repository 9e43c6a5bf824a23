package storage

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// Batch is one atomic unit of writes: after a crash either all of its rows
// are present or none are. A Batch is not safe for concurrent use, but any
// number of batches may be built and committed concurrently, typically one
// per tenant actor; Pebble groups their WAL syncs.
//
// Every write method copies its arguments into the batch, so callers may
// reuse their buffers immediately. Using a Batch after Commit or Close
// panics.
type Batch struct {
	s *Store
	b *pebble.Batch
	// The business whose rows the batch holds (replica.go): a batch of
	// one business is replicated on its own in cluster mode.
	biz    [16]byte
	hasBiz bool
	mixed  bool
	// state: the batch changes a business's state (a journal record or
	// a snapshot), not only bookkeeping rows; on a nearly full disk only
	// bookkeeping may go on (health.go).
	state bool
	// derived: the batch holds only state derived from the business's
	// journal (Derived).
	derived bool
}

// Derived marks the batch as holding only state derived from a business's
// journal — a snapshot and the truncation of the records it covers. On a
// single node that changes nothing. In cluster mode (replica.go) the
// batch is applied to this node's working copy in order with the
// business's replicated batches, once those before it are acknowledged,
// but is not itself appended to the replicated journal: it would be the
// largest record of a large business (over the journal's payload limit
// from a few thousand appointments), and the journal's own checkpoints
// carry the rows to the next owner.
func (b *Batch) Derived() { b.derived = true }

// NewBatch returns an empty batch. It must be finished with Commit or Close.
func (s *Store) NewBatch() *Batch {
	return &Batch{s: s, b: s.db.NewBatch()}
}

func (b *Batch) pb() *pebble.Batch {
	if b.b == nil {
		panic("storage: use of Batch after Commit or Close")
	}
	return b.b
}

// set writes key -> prefix||val using Pebble's deferred ops, which expose
// the batch's own buffer: key and value are copied exactly once, straight
// into the batch representation, with no intermediate allocation.
func (b *Batch) set(key []byte, prefix []byte, val []byte) {
	b.note(key)
	op := b.pb().SetDeferred(len(key), len(prefix)+len(val))
	copy(op.Key, key)
	n := copy(op.Value, prefix)
	copy(op.Value[n:], val)
	// Finish can only fail for indexed batches; ours are never indexed.
	_ = op.Finish()
}

func (b *Batch) del(key []byte) {
	b.note(key)
	op := b.pb().DeleteDeferred(len(key))
	copy(op.Key, key)
	_ = op.Finish()
}

// Append adds journal record seq of business biz. Sequence numbers start at
// 1 and must be strictly increasing per business; the caller (the business's
// actor) owns that invariant. rec is opaque to this package.
func (b *Batch) Append(biz [16]byte, seq uint64, rec []byte) {
	if seq == 0 {
		panic("storage: journal sequence numbers start at 1")
	}
	k := journalKey(biz, seq)
	b.state = true
	b.set(k[:], nil, rec)
}

// PutKey stores an API-key index row: hash is sha256 of the key.
func (b *Batch) PutKey(hash [32]byte, val []byte) {
	k := apiKeyKey(hash)
	b.set(k[:], nil, val)
}

// DeleteKey removes an API-key index row.
func (b *Batch) DeleteKey(hash [32]byte) {
	k := apiKeyKey(hash)
	b.del(k[:])
}

// PutBusiness stores the registry row of business id.
func (b *Batch) PutBusiness(id [16]byte, val []byte) {
	k := businessKey(id)
	b.set(k[:], nil, val)
}

// PutSnapshot stores val as the state of business biz as of journal seq,
// replacing any previous snapshot. Pair it with TruncateJournal(biz, seq) in
// the same batch to drop the journal rows the snapshot makes redundant.
func (b *Batch) PutSnapshot(biz [16]byte, seq uint64, val []byte) {
	k := snapshotKey(biz)
	var hdr [snapshotSeqLen]byte
	binary.BigEndian.PutUint64(hdr[:], seq)
	b.state = true
	b.set(k[:], hdr[:], val)
}

// TruncateJournal deletes journal rows 1..throughSeq of biz with a single
// range tombstone, however many rows that covers.
func (b *Batch) TruncateJournal(biz [16]byte, throughSeq uint64) {
	if throughSeq == 0 {
		return
	}
	start := journalKey(biz, 0)
	var end []byte
	if throughSeq == math.MaxUint64 {
		u := journalUpper(biz)
		end = u[:]
	} else {
		e := journalKey(biz, throughSeq+1)
		end = e[:]
	}
	b.deleteRange(start[:], end)
}

// PutMeta stores a store-wide metadata row. The name "format" is reserved.
func (b *Batch) PutMeta(name string, val []byte) {
	op := b.pb().SetDeferred(1+len(name), len(val))
	op.Key[0] = prefixMeta
	copy(op.Key[1:], name)
	copy(op.Value, val)
	_ = op.Finish()
}

// Empty reports whether the batch holds no writes.
func (b *Batch) Empty() bool {
	return b.pb().Empty()
}

// Commit atomically applies the batch and syncs it to stable storage before
// returning: once Commit returns nil the writes survive a crash. An empty
// batch commits trivially, without a sync. The batch is released either way
// and must not be used again. After Store.Close, Commit returns ErrClosed.
//
// Commit is meant to be called directly from each tenant's goroutine.
// Pebble's commit pipeline lets concurrent committers share one WAL write
// and fsync (group commit), so throughput scales with the number of
// committers while each still waits only for its own durability.
func (b *Batch) Commit() error {
	if b.s.rep != nil {
		p, err := b.CommitNoWait()
		if err != nil {
			return err
		}
		return p.Wait()
	}
	pb := b.pb()
	b.b = nil
	defer pb.Close()
	if pb.Empty() {
		return nil
	}
	s := b.s
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	if err := s.space.admit(len(pb.Repr()), !b.state); err != nil {
		return err
	}
	start := time.Now()
	err := s.guarded(func() error { return pb.Commit(pebble.Sync) })
	took := time.Since(start)
	s.commitNanos.Add(uint64(took))
	if err != nil {
		s.fail(err)
		return s.failedErr()
	}
	s.commits.Add(1)
	s.commitLatency.Observe(took.Seconds())
	return nil
}

// Close releases the batch without committing it. It is a no-op after
// Commit or a previous Close.
func (b *Batch) Close() {
	if b.b != nil {
		_ = b.b.Close()
		b.b = nil
	}
}

// Pending is a batch that has been applied in commit order but whose WAL
// sync may still be running. Wait must be called exactly once.
type Pending struct {
	s     *Store
	b     *pebble.Batch // nil for an empty batch
	start time.Time
	done  chan error // cluster mode: the replicator's verdict (replica.go)
}

// CommitNoWait applies the batch without waiting for its sync; Pending.Wait
// blocks until it is durable. Pebble orders later commits after this one in
// the WAL, so once any later commit is durable this one is too.
//
// This is what lets a tenant actor pipeline its writes: it applies a write,
// publishes the new state and goes on deciding the next message while the
// fsync runs, and only the reply to the client waits for durability. One
// busy tenant then shares fsyncs among its own writes, not just with other
// tenants. A caller that publishes state before Wait returns accepts that a
// reader may briefly see a write that a crash would undo; no client is ever
// told such a write succeeded.
func (b *Batch) CommitNoWait() (*Pending, error) {
	pb := b.pb()
	b.b = nil
	if pb.Empty() {
		_ = pb.Close()
		return &Pending{}, nil
	}
	if b.s.rep != nil {
		return b.replicate(pb)
	}
	s := b.s
	if err := s.enter(); err != nil {
		_ = pb.Close()
		return nil, err
	}
	if err := s.space.admit(len(pb.Repr()), !b.state); err != nil {
		_ = pb.Close()
		s.exit()
		return nil, err
	}
	p := &Pending{s: s, b: pb, start: time.Now()}
	if err := s.guarded(func() error { return s.db.ApplyNoSyncWait(pb, pebble.Sync) }); err != nil {
		// The batch may sit in Pebble's pending queue (and its memtable):
		// it is not released, and Pebble is not used again.
		s.exit()
		s.fail(err)
		return nil, s.failedErr()
	}
	return p, nil
}

// Wait blocks until the batch is durable and releases it.
func (p *Pending) Wait() error {
	if p.done != nil {
		return p.waitReplicated()
	}
	if p.b == nil {
		return nil
	}
	err := p.b.SyncWait()
	if err != nil {
		// The batch is in Pebble's memtable but not durable, and Pebble's
		// WAL writer keeps failing after its first error: the journal
		// failed (health.go). The batch is left to Pebble.
		p.s.fail(err)
		p.b = nil
		return p.finish(p.s.failedErr())
	}
	_ = p.b.Close()
	p.b = nil
	return p.finish(nil)
}

// finish counts the commit and ends its operation.
func (p *Pending) finish(err error) error {
	took := time.Since(p.start)
	p.s.commitNanos.Add(uint64(took))
	if err == nil {
		p.s.commits.Add(1)
		p.s.commitLatency.Observe(took.Seconds())
	}
	p.s.exit()
	return err
}

// SyncWAL returns once every batch applied so far is durable, sharing one
// fsync with whatever else is committing. A batch committed with
// CommitNoWait is visible to this store's readers as soon as it is applied,
// before its sync; a reader that acts on rows it read (the mailer sending
// an outbox row) or shows them to a client (the delivery log) calls
// SyncWAL after reading and before acting, so that it never acts on a
// write that a crash could still undo. The WAL is ordered, so this one
// sync covers everything read before it.
func (s *Store) SyncWAL() error {
	if s.rep != nil { // rows are applied here only once replicated
		return nil
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	if err := s.guarded(func() error { return s.db.LogData(nil, pebble.Sync) }); err != nil {
		s.fail(err)
		return s.failedErr()
	}
	return nil
}
