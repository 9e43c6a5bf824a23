package business

import (
	"time"

	"github.com/slotd/slotd/actors/tenant"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
)

type batch = *storage.Batch

// commit journals rec with a synced commit, together with whatever extra
// rows also adds (indexes that must change atomically with the record), and
// then applies it and publishes the new state. Nothing is applied when the
// commit fails, so memory never runs ahead of the journal.
func (a *businessActor) commit(rec *record.Record, also func(batch)) error {
	seq := uint64(1)
	if a.state != nil {
		seq = a.state.Seq + 1
	}
	enc, err := record.Encode(nil, rec)
	if err != nil {
		return err
	}
	next, err := tenant.Apply(a.state, seq, rec)
	if err != nil {
		return err
	}
	b := a.env.Store.NewBatch()
	defer b.Close()
	b.Append(a.h.ID, seq, enc)
	if also != nil {
		also(b)
	}
	snap := a.snapshotDue(seq)
	if snap {
		raw, err := record.EncodeSnapshot(tenant.Snapshot(next))
		if err != nil {
			return err
		}
		b.PutSnapshot(a.h.ID, seq, raw)
		b.TruncateJournal(a.h.ID, seq)
	}
	if err := b.Commit(); err != nil {
		return err
	}
	if snap {
		a.snapSeq = seq
	}
	a.state = next
	a.h.state.Store(next)
	return nil
}

func (a *businessActor) snapshotDue(seq uint64) bool {
	every := a.env.SnapshotEvery
	if every == 0 {
		every = 1000
	}
	return seq-a.snapSeq >= every
}

// now is the actor's notion of the current time, cut to the millisecond the
// API shows, so that what is stored sorts exactly as what clients see.
func (a *businessActor) now() time.Time { return a.env.Clock.Now().UTC().Truncate(time.Millisecond) }
