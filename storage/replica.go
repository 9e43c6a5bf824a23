package storage

import (
	"errors"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// Cluster mode (docs/cluster.md) keeps every business's rows in a
// replicated journal, and this store becomes the node's working copy of
// the businesses it owns. A Replicator ships each batch before it is
// applied here, so the rows a business's actor, couriers and mailer read
// locally are exactly the prefix of the replicated journal that the
// replicas have acknowledged:
//
//   - a batch holds the rows of one business (every row but the API-key
//     index and the meta rows names its business right after the table
//     byte), and its Pebble representation is what is replicated;
//   - CommitNoWait hands the batch to the Replicator; the Replicator calls
//     back once a quorum holds it, in order per business, and only then is
//     the batch applied here (no fsync: the replicas are the durability)
//     and Pending.Wait released;
//   - a node that takes over a business rebuilds its rows here from the
//     replicated journal (ResetBusiness, ApplyReplicated) before the
//     business's actor loads, and drops them (DropBusiness) when it lets
//     the business go.
//
// The business actor's contract (commit.go in actors/business) is
// unchanged: its state is published and its client answered only after
// Pending.Wait, which now means "acknowledged by the replicas".

// Replicator is the replicated journal behind a store in cluster mode.
type Replicator interface {
	// Own makes this node the writer of business biz: it rebuilds biz's
	// rows in the store from the replicated journal and returns once they
	// are in place, with the function that lets biz go again (its rows
	// dropped, later batches failed). A second Own of biz supersedes the
	// first, whose release then does nothing.
	Own(biz [16]byte) (release func(), err error)
	// Replicate appends repr, a batch of biz's rows, after biz's last
	// record, and calls done exactly once: with nil once the replicas
	// acknowledged it, or with the error that failed it. The calls for one
	// business complete in the order Replicate was called. A local batch
	// (Batch.Derived) is not appended: its done is called in that order
	// once the batches before it were acknowledged, or with their error.
	Replicate(biz [16]byte, repr []byte, local bool, done func(error))
}

// ErrMixedBatch refuses to replicate a batch holding rows of more than one
// business: each business's journal is replicated on its own.
var ErrMixedBatch = errors.New("storage: a replicated batch must hold the rows of one business")

// SetReplicator puts the store in cluster mode: business batches go
// through r. It must be called before any business batch is committed.
func (s *Store) SetReplicator(r Replicator) { s.rep = r }

// Replicated reports whether the store is in cluster mode.
func (s *Store) Replicated() bool { return s.rep != nil }

// Own asks the replicator to make this node biz's writer and returns the
// function that lets biz go (a no-op on a single node, whose store is the
// journal).
func (s *Store) Own(biz [16]byte) (release func(), err error) {
	if s.rep == nil {
		return func() {}, nil
	}
	return s.rep.Own(biz)
}

// note records the business of a row the batch writes.
func (b *Batch) note(key []byte) {
	if len(key) < 17 {
		return
	}
	switch key[0] {
	case prefixBusiness, prefixJournal, prefixSnapshot, prefixOutbox, prefixDelivery:
	default:
		return
	}
	id := [16]byte(key[1:17])
	switch {
	case !b.hasBiz:
		b.biz, b.hasBiz = id, true
	case b.biz != id:
		b.mixed = true
	}
}

// replicate is CommitNoWait in cluster mode.
func (b *Batch) replicate(pb *pebble.Batch) (*Pending, error) {
	s := b.s
	if !b.hasBiz { // meta rows only: this node's own
		defer pb.Close()
		if err := s.enter(); err != nil {
			return nil, err
		}
		defer s.exit()
		return &Pending{}, pb.Commit(pebble.Sync)
	}
	if b.mixed {
		_ = pb.Close()
		return nil, ErrMixedBatch
	}
	if err := s.enter(); err != nil {
		_ = pb.Close()
		return nil, err
	}
	p := &Pending{s: s, start: time.Now(), done: make(chan error, 1)}
	s.rep.Replicate(b.biz, pb.Repr(), b.derived, func(err error) {
		if err == nil {
			err = s.db.Apply(pb, pebble.NoSync)
		}
		_ = pb.Close()
		p.done <- err
	})
	return p, nil
}

// waitReplicated is Pending.Wait in cluster mode.
func (p *Pending) waitReplicated() error {
	err := <-p.done
	p.done = nil
	return p.finish(err)
}

// businessRanges are the key ranges holding business biz's rows.
func businessRanges(biz [16]byte) [][2][]byte {
	out := make([][2][]byte, 0, 5)
	for _, t := range [...]byte{prefixBusiness, prefixJournal, prefixSnapshot, prefixOutbox, prefixDelivery} {
		lo := append([]byte{t}, biz[:]...)
		out = append(out, [2][]byte{lo, prefixSuccessor(lo)})
	}
	return out
}

// ResetBusiness replaces every row of business biz with the rows of dump
// (a batch representation from Checkpoint; nil for none): the first step
// of taking a business over.
func (s *Store) ResetBusiness(biz [16]byte, dump []byte) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	b := s.db.NewBatch()
	defer b.Close()
	for _, r := range businessRanges(biz) {
		if err := b.DeleteRange(r[0], r[1], nil); err != nil {
			return err
		}
	}
	if len(dump) > 0 {
		d := s.db.NewBatch()
		defer d.Close()
		if err := d.SetRepr(dump); err != nil {
			return err
		}
		if err := b.Apply(d, nil); err != nil {
			return err
		}
	}
	return s.db.Apply(b, pebble.NoSync)
}

// DropBusiness deletes every row of business biz from this store.
func (s *Store) DropBusiness(biz [16]byte) error { return s.ResetBusiness(biz, nil) }

// ApplyReplicated applies repr, a batch the replicated journal holds, as
// it was applied on the node that wrote it.
func (s *Store) ApplyReplicated(repr []byte) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	b := s.db.NewBatch()
	defer b.Close()
	// SetRepr keeps repr; the batch is applied before the caller reuses it.
	if err := b.SetRepr(repr); err != nil {
		return err
	}
	return s.db.Apply(b, pebble.NoSync)
}

// Checkpoint captures business biz's rows as they stand now and returns a
// function that renders them, later and on any goroutine, as one batch
// representation (for ResetBusiness). The capture is a Pebble snapshot,
// so a caller that takes it between two applies of biz's batches gets
// exactly the rows as of the first.
func (s *Store) Checkpoint(biz [16]byte) (func() ([]byte, error), error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	snap := s.db.NewSnapshot()
	return func() ([]byte, error) {
		defer s.exit()
		defer snap.Close()
		out := s.db.NewBatch()
		defer out.Close()
		for _, r := range businessRanges(biz) {
			it, err := snap.NewIter(&pebble.IterOptions{LowerBound: r[0], UpperBound: r[1]})
			if err != nil {
				return nil, err
			}
			for ok := it.First(); ok; ok = it.Next() {
				v, err := it.ValueAndErr()
				if err == nil {
					err = out.Set(it.Key(), v, nil)
				}
				if err != nil {
					_ = it.Close()
					return nil, err
				}
			}
			if err := it.Close(); err != nil {
				return nil, err
			}
		}
		return append([]byte(nil), out.Repr()...), nil
	}, nil
}

// DropAll deletes every business row and the API-key index (not the meta
// rows): a node in cluster mode starts with an empty working copy, since
// what it held when it stopped may have moved on without it.
func (s *Store) DropAll() error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	b := s.db.NewBatch()
	defer b.Close()
	for _, t := range [...]byte{prefixBusiness, prefixDelivery, prefixJournal, prefixAPIKey, prefixOutbox, prefixSnapshot} {
		lo, hi := tableBounds(t)
		if err := b.DeleteRange(lo, hi, nil); err != nil {
			return err
		}
	}
	return s.db.Apply(b, pebble.Sync)
}
