package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// The delivery table holds the webhook delivery log of api-v1 §2.7, per
// endpoint, written by the endpoint's courier (and by the business actor,
// which writes each event's first, pending attempt in the batch that
// journals the event). Three kinds of row share one prefix per endpoint,
// so deleting an endpoint deletes its log with one range tombstone:
//
//	'd' | business (16) | endpoint (16) | 'r' | delivery id (16)  -> record
//	'd' | business (16) | endpoint (16) | 'o' | delivery id (16)  -> (empty)
//	'd' | business (16) | endpoint (16) | 'v' | event id          -> last replay attempt
//
// Delivery ids are UUIDv7 stamped with the record's creation time, so 'r'
// rows sort in the list order of the API (createdAt, then id). An 'o' row
// marks a record whose delivery is still open (pending, or failed with a
// retry due): a restart re-arms those without reading the whole log. A 'v'
// row remembers the highest replay attempt of an event, from which the
// next replay's attempt number follows.

const prefixDelivery byte = 'd'

const (
	deliveryPfxLen = 1 + 16 + 16
	deliveryKeyLen = deliveryPfxLen + 1 + 16

	rowRecord = 'r'
	rowOpen   = 'o'
	rowReplay = 'v'
)

func deliveryPrefix(biz, ep [16]byte, kind byte) []byte {
	k := make([]byte, deliveryPfxLen+1, deliveryKeyLen)
	k[0] = prefixDelivery
	copy(k[1:], biz[:])
	copy(k[17:], ep[:])
	k[deliveryPfxLen] = kind
	return k
}

func deliveryKey(biz, ep [16]byte, kind byte, id [16]byte) []byte {
	return append(deliveryPrefix(biz, ep, kind), id[:]...)
}

// PutDelivery stores delivery record id of endpoint ep, marking it open or
// not. Replacing a record keeps one row per id.
func (b *Batch) PutDelivery(biz, ep, id [16]byte, open bool, val []byte) {
	b.set(deliveryKey(biz, ep, rowRecord, id), nil, val)
	if open {
		b.set(deliveryKey(biz, ep, rowOpen, id), nil, nil)
	} else {
		b.del(deliveryKey(biz, ep, rowOpen, id))
	}
}

// CloseDelivery clears the open mark of record id, which a later attempt
// has superseded.
func (b *Batch) CloseDelivery(biz, ep, id [16]byte) {
	b.del(deliveryKey(biz, ep, rowOpen, id))
}

// PutReplayAttempt records n as the highest replay attempt of event.
func (b *Batch) PutReplayAttempt(biz, ep [16]byte, event string, n int) {
	var v [4]byte
	binary.BigEndian.PutUint32(v[:], uint32(n))
	b.set(append(deliveryPrefix(biz, ep, rowReplay), event...), nil, v[:])
}

// DeleteDeliveries deletes the whole delivery log of endpoint ep.
func (b *Batch) DeleteDeliveries(biz, ep [16]byte) {
	lo := deliveryPrefix(biz, ep, 0)[:deliveryPfxLen]
	hi := prefixSuccessor(lo)
	b.deleteRange(lo, hi)
}

// SweepDeliveries deletes the records of ep whose id sorts before
// beforeID and the replay rows of events whose id sorts before
// beforeEvent. With time-ordered ids both are "older than" a moment; the
// caller makes sure no open record is that old.
func (b *Batch) SweepDeliveries(biz, ep, beforeID [16]byte, beforeEvent string) {
	b.deleteRange(deliveryPrefix(biz, ep, rowRecord), deliveryKey(biz, ep, rowRecord, beforeID))
	b.deleteRange(deliveryPrefix(biz, ep, rowReplay), append(deliveryPrefix(biz, ep, rowReplay), beforeEvent...))
}

func (b *Batch) deleteRange(lo, hi []byte) {
	b.note(lo)
	op := b.pb().DeleteRangeDeferred(len(lo), len(hi))
	copy(op.Key, lo)
	copy(op.Value, hi)
	_ = op.Finish()
}

// prefixSuccessor returns the smallest key greater than every key with
// prefix p.
func prefixSuccessor(p []byte) []byte {
	s := append([]byte(nil), p...)
	for i := len(s) - 1; i >= 0; i-- {
		s[i]++
		if s[i] != 0 {
			return s[:i+1]
		}
	}
	return []byte{0xff} // p was all 0xff: no table prefix is
}

// Delivery returns a copy of delivery record id of endpoint ep.
func (s *Store) Delivery(biz, ep, id [16]byte) (val []byte, ok bool, err error) {
	if err := s.enter(); err != nil {
		return nil, false, err
	}
	defer s.exit()
	return s.get(deliveryKey(biz, ep, rowRecord, id))
}

// LastReplayAttempt returns the highest replay attempt of event on ep, 0
// when the event was never replayed there.
func (s *Store) LastReplayAttempt(biz, ep [16]byte, event string) (int, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.exit()
	v, ok, err := s.get(append(deliveryPrefix(biz, ep, rowReplay), event...))
	if err != nil || !ok {
		return 0, err
	}
	if len(v) != 4 {
		return 0, fmt.Errorf("storage: corrupt replay row of %s", event)
	}
	return int(binary.BigEndian.Uint32(v)), nil
}

// Deliveries calls fn for the records of endpoint ep in id order, starting
// after id after (from the first when after is nil), until fn returns false
// or an error. val is valid only during the call.
func (s *Store) Deliveries(biz, ep [16]byte, after *[16]byte, fn func(id [16]byte, val []byte) (bool, error)) error {
	lower := deliveryPrefix(biz, ep, rowRecord)
	if after != nil {
		lower = append(deliveryKey(biz, ep, rowRecord, *after), 0)
	}
	return s.walk(lower, prefixSuccessor(deliveryPrefix(biz, ep, rowRecord)), fn)
}

// OpenDeliveries calls fn with the id of every open record of ep.
func (s *Store) OpenDeliveries(biz, ep [16]byte, fn func(id [16]byte) error) error {
	p := deliveryPrefix(biz, ep, rowOpen)
	return s.walk(p, prefixSuccessor(p), func(id [16]byte, _ []byte) (bool, error) { return true, fn(id) })
}

// walk iterates [lower, upper) over delivery-table rows keyed by a 16-byte id.
func (s *Store) walk(lower, upper []byte, fn func(id [16]byte, val []byte) (bool, error)) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) != deliveryKeyLen {
			_ = it.Close()
			return corrupt("delivery", k)
		}
		v, err := it.ValueAndErr()
		more := false
		if err == nil {
			more, err = fn([16]byte(k[deliveryPfxLen+1:]), v)
		}
		if err != nil || !more {
			_ = it.Close()
			return err
		}
	}
	return it.Close()
}

// get reads a copy of the value at key. The caller holds an enter.
func (s *Store) get(key []byte) ([]byte, bool, error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out := append([]byte(nil), v...)
	_ = closer.Close()
	return out, true, nil
}

// PendingDeliveryOwners returns the businesses with at least one open
// delivery, so that a starting server can wake their couriers without
// waiting for a request to load them. It seeks from endpoint to endpoint
// instead of reading the logs.
func (s *Store) PendingDeliveryOwners() ([][16]byte, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.exit()
	lower, upper := tableBounds(prefixDelivery)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, err
	}
	var out [][16]byte
	for ok := it.First(); ok; {
		k := it.Key()
		if len(k) < deliveryPfxLen+1 {
			_ = it.Close()
			return nil, corrupt("delivery", k)
		}
		biz, ep := [16]byte(k[1:17]), [16]byte(k[17:33])
		open := deliveryPrefix(biz, ep, rowOpen)
		if ok = it.SeekGE(open); ok && bytes.HasPrefix(it.Key(), open) {
			if len(out) == 0 || out[len(out)-1] != biz {
				out = append(out, biz)
			}
		}
		ok = it.SeekGE(prefixSuccessor(open[:deliveryPfxLen]))
	}
	return out, it.Close()
}
