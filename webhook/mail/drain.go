package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/clock"
)

// Outbox is what the Drainer needs from the outbox table.
type Outbox interface {
	// List calls fn for every pending mail row, in a stable order, until fn
	// returns an error, which List returns. row is valid only during the
	// call. Rows listed by a List that returns nil are durable.
	List(fn func(biz [16]byte, id string, row []byte) error) error
	// Done deletes rows for good, all of them or (on an error) none.
	Done(keys []OutboxKey) error
}

// OutboxKey names one outbox row.
type OutboxKey struct {
	Biz [16]byte
	ID  string
}

// StoreOutbox is the Outbox of the mail rows of a storage.Store.
type StoreOutbox struct{ S *storage.Store }

// List walks the store's mail rows, business by business, in id order.
// When it returns nil, every row it passed to fn is durable: a row written
// by a write whose sync is still running is visible to the store's readers
// already, and must not be sent until a crash can no longer undo it.
func (o StoreOutbox) List(fn func(biz [16]byte, id string, row []byte) error) error {
	if err := o.S.Outbox(storage.OutboxMail, fn); err != nil {
		return err
	}
	return o.S.SyncWAL()
}

// Done deletes mail rows in one synced batch: the rows a pass sent cost
// one commit, not one each. In cluster mode each business's rows are
// replicated on their own, so it commits a batch per business (keys come
// business by business, as List walks them).
func (o StoreOutbox) Done(keys []OutboxKey) error {
	var errs []error
	for len(keys) > 0 {
		n := len(keys)
		if o.S.Replicated() {
			n = 1
			for n < len(keys) && keys[n].Biz == keys[0].Biz {
				n++
			}
		}
		b := o.S.NewBatch()
		for _, k := range keys[:n] {
			b.DeleteOutbox(k.Biz, storage.OutboxMail, k.ID)
		}
		errs = append(errs, b.Commit())
		keys = keys[n:]
	}
	return errors.Join(errs...)
}

// DefaultPoll is how often an idle Drainer looks at the outbox without
// being kicked, when Drainer.Poll is 0. Kick makes new mail go out at once;
// the poll only catches a writer that forgot to kick.
const DefaultPoll = time.Minute

// maxBatch bounds the rows copied out of the outbox in one pass; a full
// batch starts the next pass at once.
const maxBatch = 256

// DefaultBackoff is the wait after a message's attempt-th failed send
// (attempt counts from 1): 1 s, 2 s, 4 s … doubling, at most 5 minutes.
func DefaultBackoff(attempt int) time.Duration {
	const ceiling = 5 * time.Minute
	if attempt < 1 {
		attempt = 1
	}
	if attempt > 20 {
		return ceiling
	}
	return min(time.Second<<(attempt-1), ceiling)
}

// Drainer sends the outbox's mail and deletes each row after its send
// succeeded, so every row is sent at least once, across restarts too: a
// row whose send failed, or whose deletion failed, stays in the table. A
// message whose send fails waits Backoff(attempts) before its next try
// while the others go on; a row that cannot be rendered (ErrBadRow) is
// logged (its id, size and the reason, never its content) and deleted.
//
// Retry counts live in memory: after a restart every pending row is tried
// at once. A failure is never final; a message keeps being retried, at
// most every 5 minutes with DefaultBackoff, until it is sent.
//
// Set the fields, then call Run once; Kick may be called from any
// goroutine at any time, before Run too.
type Drainer struct {
	Outbox Outbox
	Sender Sender
	From   string       // sender address for Render (--smtp-from)
	Log    *slog.Logger // nil: slog.Default()
	// Metrics counts sends and keeps the backlog gauge; nil counts nothing.
	Metrics *Metrics

	// Backoff is the wait after a message's attempt-th consecutive failure;
	// nil means DefaultBackoff. It also spaces retries of a failing List.
	Backoff func(attempt int) time.Duration
	// Clock tells the time and wakes the Drainer after a wait; nil means
	// clock.Real. It is the server's one clock.
	Clock clock.Clock
	// Poll is the longest idle wait; 0 means DefaultPoll.
	Poll time.Duration

	once  sync.Once
	kick  chan struct{}
	state map[OutboxKey]*rowState // owned by Run's goroutine
}

type rowState struct {
	attempts int       // consecutive failures
	next     time.Time // not before
	settled  bool      // sent (or dropped); only the deletion is left
}

type pending struct {
	key OutboxKey
	row []byte
}

var errBatchFull = errors.New("batch full")

func (d *Drainer) init() {
	d.once.Do(func() {
		d.kick = make(chan struct{}, 1)
		d.state = map[OutboxKey]*rowState{}
	})
}

// Kick wakes the Drainer at once, e.g. after a write that queued mail. It
// never blocks; kicks while a pass runs collapse into one more pass.
func (d *Drainer) Kick() {
	d.init()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// Run drains the outbox until ctx is done, then returns nil. It returns an
// error at once only when the Drainer is misconfigured.
func (d *Drainer) Run(ctx context.Context) error {
	if d.Outbox == nil || d.Sender == nil {
		return errors.New("mail: Drainer needs an Outbox and a Sender")
	}
	if _, err := parseFrom(d.From); err != nil {
		return err
	}
	d.init()
	// A sender that keeps something open (the SMTP connection, the day's
	// mailbox) lets go of it when the Drainer stops.
	if c, ok := d.Sender.(io.Closer); ok {
		defer c.Close()
	}
	listFailures := 0
	for ctx.Err() == nil {
		wait, err := d.pass(ctx)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			listFailures++
			wait = d.backoff(listFailures)
			d.log().Error("mail: cannot read the outbox", "err", err, "retry_in", wait)
		} else {
			listFailures = 0
		}
		if wait <= 0 {
			continue
		}
		// The wait ends early on a Kick; its timer kicks too.
		t := d.clock().AfterFunc(wait, d.Kick)
		select {
		case <-ctx.Done():
		case <-d.kick:
		}
		t.Stop()
	}
	return nil
}

// pass sends what is due and returns how long the Drainer may sleep.
func (d *Drainer) pass(ctx context.Context) (time.Duration, error) {
	now := d.now()
	var due []pending
	seen := make(map[OutboxKey]bool, len(d.state))
	err := d.Outbox.List(func(biz [16]byte, id string, row []byte) error {
		k := OutboxKey{Biz: biz, ID: id}
		seen[k] = true
		if st := d.state[k]; st != nil && now.Before(st.next) {
			return nil
		}
		if len(due) == maxBatch {
			return errBatchFull
		}
		due = append(due, pending{k, bytes.Clone(row)})
		return nil
	})
	full := errors.Is(err, errBatchFull)
	if err != nil && !full {
		return 0, err
	}
	d.Metrics.listed(len(seen))
	if !full {
		// Forget rows that are gone (deleted by someone else, or by a
		// Done whose error was a lie).
		for k := range d.state {
			if !seen[k] {
				delete(d.state, k)
			}
		}
	}
	d.deliverAll(ctx, due)
	if ctx.Err() != nil {
		return 0, nil
	}
	if full {
		return 0, nil
	}
	wait := d.poll()
	now = d.now()
	for _, st := range d.state {
		wait = min(wait, st.next.Sub(now))
	}
	return max(wait, 0), nil
}

// deliverAll renders and sends the due rows (in one batch when the
// Sender can take one), then deletes every row that is done in one
// Outbox.Done, recording each failure on its own row.
func (d *Drainer) deliverAll(ctx context.Context, due []pending) {
	states := make([]*rowState, len(due))
	var msgs []Message
	var sent []int // index in due of each of msgs
	for i, p := range due {
		st := d.stateOf(p.key)
		states[i] = st
		if st.settled {
			continue
		}
		m, err := Render(p.row, d.From)
		switch {
		case errors.Is(err, ErrBadRow):
			// The row is not logged: it holds a customer's address and name.
			d.rowLog(p.key).Error("mail: dropping an outbox row that cannot be rendered", "err", err, "bytes", len(p.row))
			d.Metrics.countDropped()
			st.settled, st.attempts = true, 0
		case err != nil:
			d.fail(d.rowLog(p.key), st, "mail: cannot render", err)
		default:
			if m.Date.IsZero() {
				m.Date = d.now()
			}
			msgs, sent = append(msgs, m), append(sent, i)
		}
	}
	for j, err := range d.send(ctx, msgs) {
		st, log := states[sent[j]], d.rowLog(due[sent[j]].key)
		switch {
		case err == nil:
			d.Metrics.countSent()
			log.Debug("mail: sent")
			st.settled, st.attempts = true, 0
		case ctx.Err() != nil: // shutting down; the row stays for the next start
		default:
			cause := FailureCause(err)
			d.Metrics.countFailed(cause)
			d.fail(log.With(causeAttrs(cause, err)...), st, "mail: send failed", err)
		}
	}
	d.deleteSettled(ctx, due, states)
}

// send hands msgs to the Sender and returns an error per message.
func (d *Drainer) send(ctx context.Context, msgs []Message) []error {
	if len(msgs) == 0 {
		return nil
	}
	if b, ok := d.Sender.(BatchSender); ok {
		return b.SendBatch(ctx, msgs)
	}
	errs := make([]error, len(msgs))
	for i, m := range msgs {
		if errs[i] = ctx.Err(); errs[i] == nil {
			errs[i] = d.Sender.Send(ctx, m)
		}
	}
	return errs
}

// deleteSettled deletes the rows that were sent or dropped, in one go.
func (d *Drainer) deleteSettled(ctx context.Context, due []pending, states []*rowState) {
	var keys []OutboxKey
	for i, st := range states {
		if st.settled {
			keys = append(keys, due[i].key)
		}
	}
	if len(keys) == 0 {
		return
	}
	if err := d.Outbox.Done(keys); err != nil {
		if ctx.Err() != nil {
			return
		}
		for i, st := range states {
			if st.settled {
				d.fail(d.rowLog(due[i].key), st, "mail: cannot delete a delivered outbox row", err)
			}
		}
		return
	}
	for _, k := range keys {
		d.Metrics.deleted()
		delete(d.state, k)
	}
}

func (d *Drainer) stateOf(k OutboxKey) *rowState {
	st := d.state[k]
	if st == nil {
		st = &rowState{}
		d.state[k] = st
	}
	return st
}

func (d *Drainer) rowLog(k OutboxKey) *slog.Logger {
	return d.log().With("business", formatUUID(k.Biz), "mail", k.ID)
}

func (d *Drainer) fail(log *slog.Logger, st *rowState, msg string, err error) {
	st.attempts++
	wait := d.backoff(st.attempts)
	st.next = d.now().Add(wait)
	log.Warn(msg, "err", err, "attempt", st.attempts, "retry_in", wait)
}

func (d *Drainer) backoff(attempt int) time.Duration {
	if d.Backoff != nil {
		return d.Backoff(attempt)
	}
	return DefaultBackoff(attempt)
}

func (d *Drainer) clock() clock.Clock {
	if d.Clock != nil {
		return d.Clock
	}
	return clock.Real{}
}

func (d *Drainer) now() time.Time { return d.clock().Now() }

func (d *Drainer) poll() time.Duration {
	if d.Poll > 0 {
		return d.Poll
	}
	return DefaultPoll
}

func (d *Drainer) log() *slog.Logger {
	if d.Log != nil {
		return d.Log
	}
	return slog.Default()
}

func formatUUID(b [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
