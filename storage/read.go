package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/cockroachdb/pebble/v2"
)

// Replay calls fn for each journal record of biz with seq > after, in
// ascending seq order. rec aliases Pebble's iterator memory and is valid
// only for the duration of that call; copy it to keep it. If fn returns an
// error Replay stops and returns it unchanged.
//
// Replay reads a consistent point-in-time view (Pebble iterators are
// snapshot-isolated), so records committed while it runs may or may not be
// included. fn must not call Close.
func (s *Store) Replay(biz [16]byte, after uint64, fn func(seq uint64, rec []byte) error) error {
	if after == math.MaxUint64 {
		return nil
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	lower := journalKey(biz, after+1)
	upper := journalUpper(biz)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower[:], UpperBound: upper[:]})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) != journalKeyLen {
			_ = it.Close()
			return corrupt("journal", k)
		}
		v, err := it.ValueAndErr()
		if err != nil {
			_ = it.Close()
			return err
		}
		if err := fn(binary.BigEndian.Uint64(k[journalPfxLen:]), v); err != nil {
			_ = it.Close()
			return err
		}
	}
	return it.Close()
}

// JournalRecord returns journal record seq of biz, if the journal still
// holds it. The business actor reads one back to render the answer of an
// idempotent request again (record.Idem); val is a copy.
func (s *Store) JournalRecord(biz [16]byte, seq uint64) (val []byte, ok bool, err error) {
	if err := s.enter(); err != nil {
		return nil, false, err
	}
	defer s.exit()
	k := journalKey(biz, seq)
	return s.get(k[:])
}

// LastSeq returns the highest sequence number recorded for biz: the larger
// of its snapshot's seq and its last journal row's seq, or 0 if it has
// neither. The next record to append is LastSeq+1.
func (s *Store) LastSeq(biz [16]byte) (uint64, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.exit()
	// Read the journal before the snapshot. Both only move forward, and a
	// snapshot commit truncates journal rows at or below its seq, so if one
	// lands between the two reads we see the old journal tail and the new
	// snapshot seq: still a correct answer. The other order could miss both.
	lower := journalKey(biz, 0)
	upper := journalUpper(biz)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower[:], UpperBound: upper[:]})
	if err != nil {
		return 0, err
	}
	var last uint64
	if it.Last() {
		k := it.Key()
		if len(k) != journalKeyLen {
			_ = it.Close()
			return 0, corrupt("journal", k)
		}
		last = binary.BigEndian.Uint64(k[journalPfxLen:])
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	snapSeq, _, _, err := s.snapshot(biz, false)
	if err != nil {
		return 0, err
	}
	return max(last, snapSeq), nil
}

// Snapshot returns the latest snapshot of biz and the journal seq it
// reflects. ok is false if biz has no snapshot. val is a copy owned by the
// caller.
func (s *Store) Snapshot(biz [16]byte) (seq uint64, val []byte, ok bool, err error) {
	if err := s.enter(); err != nil {
		return 0, nil, false, err
	}
	defer s.exit()
	return s.snapshot(biz, true)
}

func (s *Store) snapshot(biz [16]byte, wantVal bool) (seq uint64, val []byte, ok bool, err error) {
	k := snapshotKey(biz)
	v, closer, err := s.db.Get(k[:])
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, err
	}
	defer closer.Close()
	if len(v) < snapshotSeqLen {
		return 0, nil, false, corrupt("snapshot", k[:])
	}
	seq = binary.BigEndian.Uint64(v)
	if wantVal {
		val = append([]byte{}, v[snapshotSeqLen:]...)
	}
	return seq, val, true, nil
}

// Keys calls fn for every API-key index row in hash order. val is valid
// only during the call. If fn returns an error Keys stops and returns it.
// fn must not call Close.
func (s *Store) Keys(fn func(hash [32]byte, val []byte) error) error {
	return s.scan(prefixAPIKey, apiKeyKeyLen, "api key", func(k, v []byte) error {
		return fn([32]byte(k[1:]), v)
	})
}

// Businesses calls fn for every business registry row in id order. val is
// valid only during the call. If fn returns an error Businesses stops and
// returns it. fn must not call Close.
func (s *Store) Businesses(fn func(id [16]byte, val []byte) error) error {
	return s.scan(prefixBusiness, businessKeyLen, "business", func(k, v []byte) error {
		return fn([16]byte(k[1:]), v)
	})
}

// HasBusiness reports whether business id has a registry row: whether it
// was ever put.
func (s *Store) HasBusiness(id [16]byte) (bool, error) {
	if err := s.enter(); err != nil {
		return false, err
	}
	defer s.exit()
	k := businessKey(id)
	_, ok, err := s.get(k[:])
	return ok, err
}

// scan iterates one whole table whose keys all have length keyLen.
func (s *Store) scan(prefix byte, keyLen int, what string, fn func(k, v []byte) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	lower, upper := tableBounds(prefix)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) != keyLen {
			_ = it.Close()
			return corrupt(what, k)
		}
		v, err := it.ValueAndErr()
		if err != nil {
			_ = it.Close()
			return err
		}
		if err := fn(k, v); err != nil {
			_ = it.Close()
			return err
		}
	}
	return it.Close()
}

// Meta returns a copy of the metadata row name.
func (s *Store) Meta(name string) (val []byte, ok bool, err error) {
	if err := s.enter(); err != nil {
		return nil, false, err
	}
	defer s.exit()
	return s.get(metaKey(name))
}

// IsEmpty reports whether the store holds no tenant data: no business
// registry row, no journal row and no snapshot. Meta rows (including the
// format version) and API-key rows don't count. slotd uses it to decide
// whether to seed demo data.
func (s *Store) IsEmpty() (bool, error) {
	if err := s.enter(); err != nil {
		return false, err
	}
	defer s.exit()
	return s.isEmpty(false)
}

// isEmpty checks the tenant tables, or with all set, the entire keyspace.
// Callers must hold an enter.
func (s *Store) isEmpty(all bool) (bool, error) {
	if all {
		return s.rangeEmpty(nil, nil)
	}
	for _, p := range [...]byte{prefixBusiness, prefixJournal, prefixSnapshot} {
		lower, upper := tableBounds(p)
		empty, err := s.rangeEmpty(lower, upper)
		if err != nil || !empty {
			return false, err
		}
	}
	return true, nil
}

func (s *Store) rangeEmpty(lower, upper []byte) (bool, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return false, err
	}
	found := it.First()
	if err := it.Close(); err != nil {
		return false, err
	}
	return !found, nil
}

func corrupt(what string, key []byte) error {
	return fmt.Errorf("storage: corrupt %s row: unexpected key %x", what, key)
}
