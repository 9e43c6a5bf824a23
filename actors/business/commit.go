package business

import (
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
)

// The commit path. Every write of a business, whatever its kind, goes
// through commit, and this is its contract:
//
//  1. The actor decides against a.state, its own state, which includes
//     writes whose journal sync is still running: it never waits for the
//     disk before deciding the next message.
//  2. commit encodes the record, applies it to a.state giving next, and
//     puts the record and every row it causes (outbox e-mail, webhook
//     deliveries, key and registry indexes) in one Pebble batch: they
//     become durable together or not at all.
//  3. The batch goes to Pebble without waiting for its sync
//     (storage.Batch.CommitNoWait), and next becomes the actor's state.
//  4. next and what must follow the write (the reply, new deliveries for
//     the couriers, a wake-up for the mailer) go to the publisher. The
//     publisher waits for syncs in journal order and, for each, first
//     publishes the state to readers (Handle.State) and then does what
//     waited on it.
//
// So nothing outside the actor — a GET, a list, an availability answer, a
// webhook event, an e-mail, the answer to any request — observes a write
// before its sync has completed. This is the hazard Pebble's own commit
// pipeline documents: a batch applied to the memtable is visible to its
// readers before its WAL sync, so whoever publishes must wait. Here the
// actor alone sees such state, and only to decide.
//
// Pipelining stays: while one write's fsync runs, the actor decides and
// applies the next, and both share the next fsync with other businesses
// (group commit). The WAL is ordered, so syncs complete in journal order
// and publishing in queue order costs no waiting.
//
// An answer that writes nothing was still decided against a.state: a
// SLOT_TAKEN caused by a booking whose sync is running, or a no-op PATCH
// that shows such a booking's notes. Such answers queue behind the writes
// in flight too (after), so they cannot reveal what a crash could undo.
//
// A sync that fails means the store is broken (Pebble treats a WAL failure
// as fatal; in practice it was closed under us). The publisher then fails
// that write and every one queued after it, keeps the last durable state
// published, and marks the handle broken, so the directory replaces the
// actor, which rebuilds its state from the journal.

// step is one entry of the publisher's queue.
type step struct {
	state   *ledger.State    // published once durable; nil for an answer that wrote nothing
	pending *storage.Pending // the write's sync; nil when there is nothing to wait for
	then    func(err error)  // runs after publication, or with the failure
}

// publisher makes writes visible in journal order once they are durable.
// Its goroutine runs only while the queue is not empty, so an idle
// business costs no goroutine.
type publisher struct {
	h  *Handle
	bg *sync.WaitGroup

	mu      sync.Mutex
	queue   []step
	running bool  // a goroutine is draining the queue
	failed  error // the first sync failure; every later step fails with it
}

// push queues s, or runs it at once when nothing is ahead of it and it
// has no sync to wait for.
func (p *publisher) push(s step) {
	p.mu.Lock()
	if !p.running && s.pending == nil {
		err := p.failed
		p.mu.Unlock()
		p.finish(s, err)
		return
	}
	p.queue = append(p.queue, s)
	if !p.running {
		p.running = true
		p.bg.Add(1)
		go p.run()
	}
	p.mu.Unlock()
}

// idle reports whether nothing waits to be published.
func (p *publisher) idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.running && len(p.queue) == 0
}

func (p *publisher) run() {
	defer p.bg.Done()
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		s := p.queue[0]
		p.queue[0] = step{}
		p.queue = p.queue[1:]
		failed := p.failed
		p.mu.Unlock()
		p.finish(s, p.wait(s, failed))
	}
}

// wait waits for s's sync and records a first failure.
func (p *publisher) wait(s step, failed error) error {
	if s.pending == nil {
		return failed
	}
	err := s.pending.Wait()
	if failed != nil {
		return failed
	}
	if err != nil {
		p.mu.Lock()
		p.failed = err
		p.mu.Unlock()
		p.h.breakDown(err)
	}
	return err
}

func (p *publisher) finish(s step, err error) {
	if err == nil && s.state != nil {
		p.h.state.Store(s.state)
	}
	if s.then != nil {
		s.then(err)
	}
}

// commit journals rec with the rows that rows adds to its batch (given the
// state after rec), makes the result the actor's state, and queues it for
// publication; then runs once the write is durable and published, or with
// the error that failed it. An error returned here means nothing was
// journalled or applied, and then is not called.
func (a *businessActor) commit(rec *record.Record, rows func(*storage.Batch, *ledger.State) error, then func(error)) error {
	s, err := a.journal(rec, rows)
	if err != nil {
		return err
	}
	s.then = then
	a.h.pub.push(s)
	return nil
}

// journal is commit's first half: it hands the batch to Pebble and makes
// the new state the actor's, and returns the step for the caller to
// complete with what follows the sync and push. Nothing may run between
// the two halves that could fail the write.
func (a *businessActor) journal(rec *record.Record, rows func(*storage.Batch, *ledger.State) error) (step, error) {
	seq := uint64(1)
	if a.state != nil {
		seq = a.state.Seq + 1
	}
	enc, err := record.Encode(nil, rec)
	if err != nil {
		return step{}, err
	}
	next, err := ledger.Apply(a.state, seq, rec)
	if err != nil {
		return step{}, err
	}
	b := a.env.Store.NewBatch()
	b.Append(a.h.ID, seq, enc)
	if rows != nil {
		if err := rows(b, next); err != nil {
			b.Close()
			return step{}, err
		}
	}
	pending, err := b.CommitNoWait()
	if err != nil {
		return step{}, err
	}
	a.state = next
	a.maybeSnapshot(next)
	return step{state: next, pending: pending}, nil
}

// commitSync is commit for the rare writes that the actor finishes before
// its next message (a world put, a key issued or revoked): it waits until
// the write is durable and published.
func (a *businessActor) commitSync(rec *record.Record, rows func(*storage.Batch, *ledger.State) error) error {
	done := make(chan error, 1)
	if err := a.commit(rec, rows, func(err error) { done <- err }); err != nil {
		return err
	}
	return <-done
}

// after runs fn once every write committed so far is durable and
// published: the way to answer from state that may include writes still
// syncing. It runs at once when nothing is in flight.
func (a *businessActor) after(fn func(err error)) { a.h.pub.push(step{then: fn}) }

// maybeSnapshot starts writing a snapshot of st once enough records have
// accumulated since the last one. The state is immutable, so a background
// goroutine encodes it while the actor goes on: a business with a large
// calendar never stalls its mailbox for the O(n) encode. The snapshot and
// the truncation of the journal it covers commit together; records after
// st.Seq stay. At most one snapshot is in flight per actor.
//
// st may include writes still syncing. That is safe: the snapshot's batch
// is synced, and it follows their records in the WAL, so it cannot be
// durable while they are not.
//
// "Enough" grows with the business: at least SnapshotEvery records, and at
// least a quarter of the records the state holds. A snapshot costs O(n) in
// the state's size, so a fixed interval would make a large business pay
// O(n) per thousand writes (half the CPU of a write-heavy benchmark at
// 100,000 customers); growing with n keeps it O(1) per write, while a
// restart replays at most a quarter of the state's size from the journal.
//
// The answers and holds past their retention are dropped at the same time
// (ledger.Prune), found by a walk of every one of them: on the snapshot's
// goroutine too (100,000 answers cost 6 ms, which the mailbox would
// otherwise stall for), and the actor drops what was found (pruned).
func (a *businessActor) maybeSnapshot(st *ledger.State) {
	every := a.env.SnapshotEvery
	if every == 0 {
		every = 1000
	}
	every = max(every, uint64(st.Size()/4))
	if st.Seq-a.snapSeq < every || !a.h.snapshotting.CompareAndSwap(false, true) {
		return
	}
	a.snapSeq = st.Seq
	store, log, id, cutoff := a.env.Store, a.env.Log, a.h.ID, a.now().Add(-idemRetention)
	root, self := a.root, a.self
	a.env.bg.Add(1)
	go func() {
		defer a.env.bg.Done()
		defer a.h.snapshotting.Store(false)
		x := ledger.FindExpired(st, cutoff)
		if len(x.Answers) > 0 || len(x.Holds) > 0 {
			st = ledger.Drop(st, x)
			root.Send(self, &pruned{x}) // readers get the pruned state with the next write
		}
		// The journal keeps the records idempotent answers are rendered
		// from (record.Idem), even where the snapshot covers them; replay
		// starts after the snapshot all the same.
		through := st.Seq
		if oldest := st.OldestAnswerRecord(); oldest != 0 && oldest <= through {
			through = oldest - 1
		}
		raw, err := record.EncodeSnapshot(ledger.Snapshot(st))
		if err == nil {
			b := store.NewBatch()
			b.Derived()
			b.PutSnapshot(id, st.Seq, raw)
			b.TruncateJournal(id, through)
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

// pruned: the snapshot's goroutine found answers and holds past their
// retention; the actor drops those still past it from its own state.
type pruned struct{ x ledger.Expired }

func (m *pruned) handle(a *businessActor, _ actor.Context) {
	if a.state != nil {
		a.state = ledger.Drop(a.state, m.x)
	}
}
