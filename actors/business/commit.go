package business

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/tenant"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/problem"
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
	if err := b.Commit(); err != nil {
		return err
	}
	a.maybeSnapshot(next)
	a.state = next
	a.h.state.Store(next)
	return nil
}

// maybeSnapshot starts writing a snapshot of st once enough records have
// accumulated since the last one. The state is immutable, so a background
// goroutine encodes it while the actor goes on: a business with a large
// calendar never stalls its mailbox for the O(n) encode. The snapshot and
// the truncation of the journal it covers commit together; records after
// st.Seq stay. At most one snapshot is in flight per actor.
//
// "Enough" grows with the business: at least SnapshotEvery records, and at
// least a quarter of the records the state holds. A snapshot costs O(n) in
// the state's size, so a fixed interval would make a large business pay
// O(n) per thousand writes (half the CPU of a write-heavy benchmark at
// 100,000 customers); growing with n keeps it O(1) per write, while a
// restart replays at most a quarter of the state's size from the journal.
func (a *businessActor) maybeSnapshot(st *tenant.State) {
	every := a.env.SnapshotEvery
	if every == 0 {
		every = 1000
	}
	every = max(every, uint64(st.Size()/4))
	if st.Seq-a.snapSeq < every || !a.h.snapshotting.CompareAndSwap(false, true) {
		return
	}
	if pruned := tenant.PruneIdempotency(st, a.now().Add(-idemRetention)); pruned != st {
		st = pruned
		a.state = st
		a.h.state.Store(st)
	}
	a.snapSeq = st.Seq
	store, log, id := a.env.Store, a.env.Log, a.h.ID
	a.env.bg.Add(1)
	go func() {
		defer a.env.bg.Done()
		defer a.h.snapshotting.Store(false)
		raw, err := record.EncodeSnapshot(tenant.Snapshot(st))
		if err == nil {
			b := store.NewBatch()
			b.PutSnapshot(id, st.Seq, raw)
			b.TruncateJournal(id, st.Seq)
			err = b.Commit()
		}
		if err != nil {
			log.Error("snapshot failed; the journal is kept", "business", id, "seq", st.Seq, "err", err)
		}
	}()
}

// now is the actor's notion of the current time, cut to the millisecond the
// API shows, so that what is stored sorts exactly as what clients see.
func (a *businessActor) now() time.Time { return a.env.Clock.Now().UTC().Truncate(time.Millisecond) }

// commitAsync journals ch without waiting for its sync, applies it and
// publishes the new state at once, and answers the sender with ans (if not
// nil) only when the write is durable; new webhook deliveries reach their
// couriers then too. The actor meanwhile goes on with its next message, so
// a busy business shares fsyncs among its own writes
// (storage.CommitNoWait). The WAL is ordered: when a later write's sync
// completes, this one's has.
func (a *businessActor) commitAsync(ctx actor.Context, ch *record.Change, ans *Answer) {
	fail := func(err error) {
		if ans != nil {
			ctx.Respond(errorAnswer(problem.As(err)))
		}
	}
	rec := &record.Record{Kind: record.KindChange, Change: ch}
	seq := a.state.Seq + 1
	enc, err := record.Encode(nil, rec)
	if err != nil {
		fail(err)
		return
	}
	next, err := tenant.Apply(a.state, seq, rec)
	if err != nil {
		fail(err)
		return
	}
	b := a.env.Store.NewBatch()
	b.Append(a.h.ID, seq, enc)
	fresh, err := addOutbox(b, next, ch)
	if err != nil {
		b.Close()
		fail(err)
		return
	}
	pending, err := b.CommitNoWait()
	if err != nil {
		a.env.Log.Error("journal commit failed", "business", a.h.ID, "err", err)
		fail(err)
		return
	}
	a.maybeSnapshot(next)
	a.state = next
	a.h.state.Store(next)
	a.tellCouriers(ctx, ch)
	handoff := a.freshFor(fresh)
	var key string
	if ch.Idempotency != nil {
		key = ch.Idempotency.Key
		a.unsynced[key] = true
	}
	root, self, sender := ctx.ActorSystem().Root, ctx.Self(), ctx.Sender()
	a.env.bg.Add(1)
	go func() {
		defer a.env.bg.Done()
		err := pending.Wait()
		if err != nil {
			// Pebble treats a failed WAL sync as fatal; reaching this means
			// the store was closed under us. The client is not told the
			// write succeeded, and no courier sends its events.
			a.env.Log.Error("journal sync failed", "business", a.h.ID, "err", err)
			ans = errorAnswer(problem.As(err))
		}
		if key != "" {
			root.Send(self, &synced{key: key})
		}
		if err == nil {
			for pid, ds := range handoff {
				root.Send(pid, &courier.Fresh{Deliveries: ds})
			}
			if len(ch.Mails) > 0 && a.env.MailQueued != nil {
				a.env.MailQueued()
			}
		}
		if ans != nil && sender != nil {
			root.Send(sender, ans)
		}
	}()
}
