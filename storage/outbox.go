package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// The outbox table holds what a committed write still has to send: today
// e-mails (webhook events go to the delivery log, delivery.go). Rows are written in the same batch as the journal
// record that causes them, so none exists for a write that did not happen
// and none is lost for one that did; the sender deletes a row once it is
// delivered. It is a table of its own, not part of the journal, because
// snapshots truncate the journal and undelivered work must outlive that.
//
// Key: 'o' | business (16) | kind (1) | id (the row's ULID-based id, so rows
// of one kind sort in creation order).

const prefixOutbox byte = 'o'

// Outbox kinds. The kind byte keeps room for other sorts of pending work;
// 'e' was webhook events before the delivery log and must not be reused.
const (
	OutboxMail byte = 'm' // an e-mail to send
	// OutboxTimed marks a business with work that waits for a deadline
	// or a provider and no request to wake it (payments: a checkout, a
	// deadline, a cancel or refund owed; an active hold; a waiting
	// waitlist entry): one row with an empty id, so start-up wakes exactly
	// those businesses and their timers without loading every business.
	// The byte is 'p' because payments were the first such work.
	OutboxTimed byte = 'p'
	// OutboxMailRetry holds the retry state of an e-mail whose send
	// failed, under the mail row's id: its attempt count and when it is
	// next due (webhook/mail), so a restart keeps the backoff instead of
	// trying every failing message at once. Deleted with the mail row.
	OutboxMailRetry byte = 'r'
	// OutboxPaymentRetry holds the retry state of a cancel or refund the
	// payment provider has not taken yet, under "<appointment id>/<call>":
	// its failures and when it is next due (record.Attempt), so a restart
	// or a cluster take-over goes on with the backoff where it was. What
	// is owed is the business's state, in its journal; this row is only
	// the attempt count, deleted once the call is settled.
	OutboxPaymentRetry byte = 'y'
)

const outboxPfxLen = 1 + 16 + 1

func outboxKey(biz [16]byte, kind byte, id string) []byte {
	k := make([]byte, outboxPfxLen+len(id))
	k[0] = prefixOutbox
	copy(k[1:], biz[:])
	k[17] = kind
	copy(k[outboxPfxLen:], id)
	return k
}

// PutOutbox adds an outbox row.
func (b *Batch) PutOutbox(biz [16]byte, kind byte, id string, val []byte) {
	b.set(outboxKey(biz, kind, id), nil, val)
}

// DeleteOutbox removes an outbox row once it is delivered.
func (b *Batch) DeleteOutbox(biz [16]byte, kind byte, id string) {
	b.del(outboxKey(biz, kind, id))
}

// Outbox calls fn for every outbox row of kind, business by business and in
// id order within one, until fn returns an error. val is valid only during
// the call.
func (s *Store) Outbox(kind byte, fn func(biz [16]byte, id string, val []byte) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	lower, upper := tableBounds(prefixOutbox)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) < outboxPfxLen {
			_ = it.Close()
			return fmt.Errorf("storage: corrupt outbox key %x", k)
		}
		if k[17] != kind {
			continue
		}
		v, err := it.ValueAndErr()
		if err == nil {
			err = fn([16]byte(k[1:17]), string(k[outboxPfxLen:]), v)
		}
		if err != nil {
			_ = it.Close()
			return err
		}
	}
	return it.Close()
}

// OutboxRow returns one outbox row, and whether it exists. The value is
// the caller's.
func (s *Store) OutboxRow(biz [16]byte, kind byte, id string) ([]byte, bool, error) {
	if err := s.enter(); err != nil {
		return nil, false, err
	}
	defer s.exit()
	return s.get(outboxKey(biz, kind, id))
}

// OutboxOf calls fn for every outbox row of kind of one business, in id
// order, until fn returns an error. val is valid only during the call.
func (s *Store) OutboxOf(biz [16]byte, kind byte, fn func(id string, val []byte) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.exit()
	lower := outboxKey(biz, kind, "")
	upper := outboxKey(biz, kind+1, "")
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err == nil {
			err = fn(string(it.Key()[outboxPfxLen:]), v)
		}
		if err != nil {
			_ = it.Close()
			return err
		}
	}
	return it.Close()
}
