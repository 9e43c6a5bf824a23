package business

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/slotd/slotd/actors/problem"
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

// commitAsync journals ch without waiting for its sync, applies it and
// publishes the new state at once, and answers the sender only when the
// write is durable. The actor meanwhile goes on with its next message, so a
// busy business shares fsyncs among its own writes (storage.CommitNoWait).
// The WAL is ordered: when a later write's sync completes, this one's has.
func (a *businessActor) commitAsync(ctx actor.Context, ch *record.Change, ans *Answer) {
	rec := &record.Record{Kind: record.KindChange, Change: ch}
	seq := a.state.Seq + 1
	enc, err := record.Encode(nil, rec)
	if err != nil {
		ctx.Respond(errorAnswer(problem.As(err)))
		return
	}
	next, err := tenant.Apply(a.state, seq, rec)
	if err != nil {
		ctx.Respond(errorAnswer(problem.As(err)))
		return
	}
	b := a.env.Store.NewBatch()
	b.Append(a.h.ID, seq, enc)
	snap := a.snapshotDue(seq)
	if snap {
		raw, err := record.EncodeSnapshot(tenant.Snapshot(next))
		if err != nil {
			b.Close()
			ctx.Respond(errorAnswer(problem.As(err)))
			return
		}
		b.PutSnapshot(a.h.ID, seq, raw)
		b.TruncateJournal(a.h.ID, seq)
	}
	pending, err := b.CommitNoWait()
	if err != nil {
		a.env.Log.Error("journal commit failed", "business", a.h.ID, "err", err)
		ctx.Respond(errorAnswer(problem.As(err)))
		return
	}
	if snap {
		a.snapSeq = seq
	}
	a.state = next
	a.h.state.Store(next)
	var key string
	if ch.Idempotency != nil {
		key = ch.Idempotency.Key
		a.unsynced[key] = true
	}
	root, self, sender := ctx.ActorSystem().Root, ctx.Self(), ctx.Sender()
	go func() {
		if err := pending.Wait(); err != nil {
			// Pebble treats a failed WAL sync as fatal; reaching this means
			// the store was closed under us. The client is not told the
			// write succeeded.
			a.env.Log.Error("journal sync failed", "business", a.h.ID, "err", err)
			ans = errorAnswer(problem.As(err))
		}
		if key != "" {
			root.Send(self, &synced{key: key})
		}
		root.Send(sender, ans)
	}()
}
