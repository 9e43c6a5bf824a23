package mail

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/webhook/channel"
	"github.com/slotd/slotd/webhook/retry"
)

// Outbox is what the Drainer needs from the outbox table.
type Outbox interface {
	// List calls fn for every pending mail row, in a stable order, until fn
	// returns an error, which List returns. row is valid only during the
	// call. Rows listed by a List that returns nil are durable.
	List(fn func(biz [16]byte, id string, row []byte) error) error
	// Row returns the row of k, and false when it is gone (sent and
	// deleted). The Drainer reads a row only once it knows the row is
	// durable: listed, or handed over by its writer after the sync.
	Row(k OutboxKey) ([]byte, bool, error)
	// Done deletes what gone names for good: rows and retry states, all
	// of them or (on an error) none.
	Done(gone []Gone) error
	// Retry keeps the retry states of rows whose send failed, all in one
	// write.
	Retry(rs []RetryState) error
	// Retries calls fn with every kept retry state.
	Retries(fn func(RetryState) error) error
}

// RetryState is a failed row's consecutive failures and when it is next
// due.
type RetryState struct {
	Key      OutboxKey
	Attempts int
	Next     time.Time
}

// OutboxKey names one outbox row.
type OutboxKey struct {
	Biz [16]byte
	ID  string
}

// Gone is what Outbox.Done deletes of one row: the row (sent, or
// dropped), its retry state, or both. A row that never failed has no
// retry state, and deleting one it does not have would cost a tombstone
// per message: in a storm, as much as deleting the row itself.
type Gone struct {
	Key        OutboxKey
	Row, Retry bool
}

// Queued is a row handed to the Drainer by its writer (Queue): its key
// and, when the writer has them at hand, its bytes (nil: the Drainer reads
// them from the Outbox).
type Queued struct {
	Key OutboxKey
	Row []byte
	// Decoded, when set, is the row as its writer built it (Row encodes
	// it): the first try renders it without decoding Row.
	Decoded *record.MailRow
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

// Row reads one mail row.
func (o StoreOutbox) Row(k OutboxKey) ([]byte, bool, error) {
	return o.S.OutboxRow(k.Biz, storage.OutboxMail, k.ID)
}

// Done deletes mail rows and retry states in one synced batch: the rows a
// pass sent cost one commit, not one each. In cluster mode each
// business's rows are replicated on their own, so it commits a batch per
// run of one business's rows.
func (o StoreOutbox) Done(gone []Gone) error {
	var errs []error
	for len(gone) > 0 {
		n := len(gone)
		if o.S.Replicated() {
			n = 1
			for n < len(gone) && gone[n].Key.Biz == gone[0].Key.Biz {
				n++
			}
		}
		b := o.S.NewBatch()
		for _, g := range gone[:n] {
			if g.Row {
				b.DeleteOutbox(g.Key.Biz, storage.OutboxMail, g.Key.ID)
			}
			if g.Retry {
				b.DeleteOutbox(g.Key.Biz, storage.OutboxMailRetry, g.Key.ID)
			}
		}
		errs = append(errs, b.Commit())
		gone = gone[n:]
	}
	return errors.Join(errs...)
}

// Retry writes retry states, each in the outbox's one retry form
// (record.Attempt); in cluster mode a batch per business, as Done does.
func (o StoreOutbox) Retry(rs []RetryState) error {
	var errs []error
	for len(rs) > 0 {
		n := len(rs)
		if o.S.Replicated() {
			n = 1
			for n < len(rs) && rs[n].Key.Biz == rs[0].Key.Biz {
				n++
			}
		}
		b := o.S.NewBatch()
		for _, r := range rs[:n] {
			v := record.AppendAttempt(nil, record.Attempt{Failures: r.Attempts, Next: r.Next})
			b.PutOutbox(r.Key.Biz, storage.OutboxMailRetry, r.Key.ID, v)
		}
		errs = append(errs, b.Commit())
		rs = rs[n:]
	}
	return errors.Join(errs...)
}

// Retries lists the kept retry states; a damaged one is skipped (its row
// is then tried at once, as before retries were kept).
func (o StoreOutbox) Retries(fn func(RetryState) error) error {
	return o.S.Outbox(storage.OutboxMailRetry, func(biz [16]byte, id string, v []byte) error {
		a, ok := record.DecodeAttempt(v)
		if !ok {
			return nil
		}
		return fn(RetryState{Key: OutboxKey{Biz: biz, ID: id}, Attempts: a.Failures, Next: a.Next})
	})
}

// DefaultPoll is how often an idle Drainer walks the outbox without being
// kicked, when Drainer.Poll is 0. Writers hand their rows over (Queue), so
// the walk only catches rows nobody handed over: those of a business whose
// writer gave up before it could, say.
const DefaultPoll = time.Minute

// maxBatch bounds the rows one pass sends; when more are due, the next
// pass starts at once.
const maxBatch = 256

// maxListed bounds the new rows one walk of the outbox takes in; a walk
// that finds more leaves the rest to the next, at once.
const maxListed = 1 << 16

// Drainer sends the outbox's mail and deletes each row after its send
// succeeded, so every row is sent at least once, across restarts too: a
// row whose send failed, or whose deletion failed, stays in the table. A
// message whose send fails waits Backoff(attempts) before its next try
// while the others go on; a row that cannot be rendered (ErrBadRow) is
// logged (its id, size and the reason, never its content) and deleted.
//
// The Drainer learns of rows two ways. A writer hands its rows over once
// they are durable (Queue): the storm's way, which costs the Drainer no
// read of the table. And it walks the whole table when it starts, when
// kicked (Kick) and every Poll: a table under a storm holds mostly the
// tombstones of rows already sent, so walking it for every batch cost a
// fifth of slotd's CPU. A row it knows already is not taken in again, a
// walked row is read from the table right before it is sent, and a row
// handed over after a walk found it and it was sent is let go: so a row
// that was walked and handed over, or handed over twice, is sent once
// (only the Drainer deletes mail rows).
//
// A failed message's attempt count and next due time are kept in the
// outbox beside its row (Outbox.Retry), so that a restart waits out its
// backoff instead of trying every failing message at once. A failure is
// never final; a message keeps being retried, at most every 5 minutes
// with retry.Mail, until it is sent.
//
// Set the fields, then call Run once; Kick and Queue may be called from
// any goroutine at any time, before Run too.
type Drainer struct {
	Outbox Outbox
	Sender Sender
	From   string       // sender address for Render (--smtp-from)
	Log    *slog.Logger // nil: slog.Default()
	// Metrics counts sends and keeps the backlog gauge; nil counts nothing.
	Metrics *Metrics
	// Channel is the mail channel's outbox metrics; nil counts nothing.
	Channel *channel.Meter
	// Manage makes the manage link of an appointment of business biz
	// (decisions §7) for the messages that show one (ManageLinked); nil
	// shows none.
	Manage func(biz [16]byte, appointmentID string) string

	// Backoff is the wait after a message's attempt-th consecutive failure;
	// nil means retry.Mail.Wait. It also spaces retries of a failing List.
	Backoff func(attempt int) time.Duration
	// Clock tells the time and wakes the Drainer after a wait; nil means
	// clock.Real. It is the server's one clock.
	Clock clock.Clock
	// Poll is the longest idle wait, after which the table is walked; 0
	// means DefaultPoll.
	Poll time.Duration

	once   sync.Once
	wake   chan struct{}
	mu     sync.Mutex
	queued []Queued // handed over since the last pass
	walk   bool     // the table is to be walked

	// Owned by Run's goroutine:
	state map[OutboxKey]*rowState // every row known and not deleted
	ready []OutboxKey             // rows to try now, in the order they came
	retry time.Time               // the earliest next of a row waiting; zero: none
	// walkedSent holds the rows a walk found that were sent and deleted
	// since that walk began: their writer may hand them over still.
	walkedSent map[OutboxKey]bool
	retries    []RetryState // failures of this pass, to keep
	measured   time.Time    // when the oldest row's age was last measured
	src        *channel.Source
}

type rowState struct {
	attempts int       // consecutive failures
	kept     bool      // a retry state may be in the outbox beside the row
	next     time.Time // not before; zero while in ready
	settled  bool      // sent (or dropped); only the deletion is left
	walked   bool      // found by a walk, not handed over
	row      []byte    // as handed over, for the first try; nil: read it
	decoded  *record.MailRow
}

type pending struct {
	key     OutboxKey
	row     []byte
	decoded *record.MailRow // nil: render row
}

var errListFull = errors.New("walk full")

func (d *Drainer) init() {
	d.once.Do(func() {
		d.wake = make(chan struct{}, 1)
		d.state = map[OutboxKey]*rowState{}
	})
}

// Kick makes the Drainer walk the outbox table at once. It never blocks;
// kicks while a pass runs collapse into one more pass.
func (d *Drainer) Kick() {
	d.init()
	d.mu.Lock()
	d.walk = true
	d.mu.Unlock()
	d.signal()
}

// Queue hands the Drainer rows that are durable (their write's sync is
// over), to be sent at once in the order given. The Drainer keeps the
// rows' bytes until their first try. It never blocks.
func (d *Drainer) Queue(rows ...Queued) {
	d.init()
	d.mu.Lock()
	d.queued = append(d.queued, rows...)
	d.mu.Unlock()
	d.signal()
}

func (d *Drainer) signal() {
	select {
	case d.wake <- struct{}{}:
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
	d.src = d.Channel.Source()
	defer d.src.Close()
	// A sender that keeps something open (the SMTP connection, the day's
	// mailbox) lets go of it when the Drainer stops.
	if c, ok := d.Sender.(io.Closer); ok {
		defer c.Close()
	}
	d.Kick() // rows left by the last run
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
			d.mu.Lock()
			d.walk = true
			d.mu.Unlock()
		} else {
			listFailures = 0
		}
		if wait <= 0 {
			continue
		}
		// The wait ends early on a Kick or a Queue; at its end, a poll
		// walks the table unless a retry was what it waited for.
		poll := wait == d.poll()
		t := d.clock().AfterFunc(wait, func() {
			if poll {
				d.Kick()
			} else {
				d.signal()
			}
		})
		select {
		case <-ctx.Done():
		case <-d.wake:
		}
		t.Stop()
	}
	return nil
}

// pass takes in what was handed over or walked, sends what is due (at
// most maxBatch rows) and returns how long the Drainer may sleep.
func (d *Drainer) pass(ctx context.Context) (time.Duration, error) {
	// A wake-up from before this pass is answered by it.
	select {
	case <-d.wake:
	default:
	}
	d.mu.Lock()
	queued, walk := d.queued, d.walk
	d.queued, d.walk = nil, false
	d.mu.Unlock()
	for _, q := range queued {
		if d.walkedSent[q.Key] {
			delete(d.walkedSent, q.Key)
			continue
		}
		if st := d.add(q.Key); st != nil {
			st.row, st.decoded = q.Row, q.Decoded
		}
	}
	more := false
	if walk {
		var err error
		if more, err = d.list(); err != nil {
			return 0, err
		}
	}
	d.dueRetries()
	n := min(len(d.ready), maxBatch)
	batch := d.ready[:n:n]
	d.ready = d.ready[n:]
	if len(d.ready) == 0 {
		d.ready = nil // let the storm's backing array go
	}
	if err := d.deliverAll(ctx, batch); err != nil {
		return 0, err
	}
	d.Metrics.backlogIs(len(d.state))
	d.measureOldest()
	if ctx.Err() != nil || more || len(d.ready) > 0 {
		if more {
			d.mu.Lock()
			d.walk = true
			d.mu.Unlock()
		}
		return 0, nil
	}
	wait := d.poll()
	if !d.retry.IsZero() {
		wait = min(wait, d.retry.Sub(d.now()))
	}
	return max(wait, 0), nil
}

// measureOldest sets the age of the oldest row the Drainer knows of, by
// the time in its ULID id, at most once a second: it looks at every row,
// and a backlog can be long.
func (d *Drainer) measureOldest() {
	if d.Metrics == nil && d.src == nil {
		return
	}
	now := d.now()
	if !d.measured.IsZero() && now.Sub(d.measured) < time.Second && len(d.state) > 0 {
		return
	}
	d.measured = now
	var oldest uint64
	for k := range d.state {
		id, err := ulid.ParseStrict(k.ID)
		if err != nil {
			continue // not a ULID: no time to tell
		}
		if t := id.Time(); oldest == 0 || t < oldest {
			oldest = t
		}
	}
	if oldest == 0 {
		d.Metrics.oldestIs(0)
		d.src.Set(len(d.state), time.Time{})
		return
	}
	d.Metrics.oldestIs(now.Sub(time.UnixMilli(int64(oldest))))
	d.src.Set(len(d.state), time.UnixMilli(int64(oldest)))
}

// add takes in a row the Drainer has not met, ready to be tried, and
// returns its state; nil when the Drainer knows the row already.
func (d *Drainer) add(k OutboxKey) *rowState {
	if _, ok := d.state[k]; ok {
		return nil
	}
	st := &rowState{}
	d.state[k] = st
	d.ready = append(d.ready, k)
	return st
}

// keptRetry is a kept retry state, as list reads it.
type keptRetry struct {
	attempts int
	next     time.Time
}

// list walks the table and takes in the rows it does not know, up to
// maxListed; more reports that it stopped there. Rows the Drainer knows
// and the walk did not see are gone (deleted by a Done whose error was a
// lie): they are forgotten.
func (d *Drainer) list() (more bool, err error) {
	// The retry states kept by an earlier run (or this one): a row that
	// failed keeps its count and waits out its backoff after a restart.
	retries := map[OutboxKey]keptRetry{}
	err = d.Outbox.Retries(func(r RetryState) error {
		retries[r.Key] = keptRetry{r.Attempts, r.Next}
		return nil
	})
	if err != nil {
		return false, err
	}
	now := d.now()
	seen := make(map[OutboxKey]bool, len(d.state))
	d.walkedSent = nil
	added := 0
	err = d.Outbox.List(func(biz [16]byte, id string, _ []byte) error {
		k := OutboxKey{Biz: biz, ID: id}
		seen[k] = true
		if st, ok := d.state[k]; ok {
			if _, failed := retries[k]; failed {
				st.kept = true // handed over before the walk found its retry state
			}
			return nil
		}
		if added == maxListed {
			return errListFull
		}
		added++
		r, failed := retries[k]
		if !failed || !now.Before(r.next) {
			st := d.add(k)
			st.walked, st.attempts, st.kept = true, r.attempts, failed
			return nil
		}
		d.state[k] = &rowState{walked: true, attempts: r.attempts, next: r.next, kept: true}
		if d.retry.IsZero() || r.next.Before(d.retry) {
			d.retry = r.next
		}
		return nil
	})
	if errors.Is(err, errListFull) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	for k, st := range d.state {
		if !seen[k] && !st.next.IsZero() {
			delete(d.state, k)
		}
	}
	d.dropOrphans(retries, seen)
	return false, nil
}

// dropOrphans deletes the retry states whose row the whole walk did not
// find: the row was sent and deleted by a writer that did not know of its
// retry state (a take-over's mailer, handed the row before it walked).
// Best effort: a state left behind costs a few bytes until the next walk.
func (d *Drainer) dropOrphans(retries map[OutboxKey]keptRetry, seen map[OutboxKey]bool) {
	var gone []Gone
	for k := range retries {
		if !seen[k] && d.state[k] == nil {
			gone = append(gone, Gone{Key: k, Retry: true})
		}
	}
	if len(gone) == 0 {
		return
	}
	if err := d.Outbox.Done(gone); err != nil {
		d.log().Warn("mail: cannot delete the retry states of rows already sent", "err", err, "states", len(gone))
	}
}

// dueRetries moves the rows whose backoff is over to ready.
func (d *Drainer) dueRetries() {
	now := d.now()
	if d.retry.IsZero() || now.Before(d.retry) {
		return
	}
	d.retry = time.Time{}
	for k, st := range d.state {
		switch {
		case st.next.IsZero(): // ready already
		case !now.Before(st.next):
			st.next = time.Time{}
			d.ready = append(d.ready, k)
		case d.retry.IsZero() || st.next.Before(d.retry):
			d.retry = st.next
		}
	}
}

// deliverAll reads, renders and sends the rows of keys (in one batch when
// the Sender can take one), then deletes every row that is done in one
// Outbox.Done, recording each failure on its own row. A row that is gone
// was sent already (listed and handed over both): it is forgotten.
func (d *Drainer) deliverAll(ctx context.Context, keys []OutboxKey) error {
	due := make([]pending, 0, len(keys))
	states := make([]*rowState, 0, len(keys))
	for _, k := range keys {
		st := d.state[k]
		if st.row != nil {
			due, states = append(due, pending{k, st.row, st.decoded}), append(states, st)
			st.row, st.decoded = nil, nil // a retry reads it again: failing rows cost no memory
			continue
		}
		row, ok, err := d.Outbox.Row(k)
		switch {
		case err != nil:
			d.fail(k, d.rowLog(k), st, "mail: cannot read an outbox row", err)
			continue
		case !ok:
			delete(d.state, k)
			continue
		}
		due, states = append(due, pending{key: k, row: row}), append(states, st)
	}
	var msgs []Message
	var sent []int // index in due of each of msgs
	for i, p := range due {
		st := states[i]
		if st.settled {
			continue
		}
		m, err := d.render(&p)
		switch {
		case errors.Is(err, ErrBadRow):
			// The row is not logged: it holds a customer's address and name.
			d.rowLog(p.key).Error("mail: dropping an outbox row that cannot be rendered", "err", err, "bytes", len(p.row))
			d.Metrics.countDropped()
			d.Channel.Attempted(channel.GivenUp)
			st.settled, st.attempts = true, 0
		case err != nil:
			d.Channel.Attempted(channel.Retry)
			d.fail(p.key, d.rowLog(p.key), st, "mail: cannot render", err)
		default:
			if m.Date.IsZero() {
				m.Date = d.now()
			}
			msgs, sent = append(msgs, m), append(sent, i)
		}
	}
	debug := d.log().Enabled(ctx, slog.LevelDebug)
	for j, err := range d.send(ctx, msgs) {
		st, key := states[sent[j]], due[sent[j]].key
		switch {
		case err == nil:
			d.Metrics.countSent()
			d.Channel.Attempted(channel.Delivered)
			if debug { // a logger per message cost 1 % of a booking storm
				d.rowLog(key).Debug("mail: sent")
			}
			st.settled, st.attempts = true, 0
		case ctx.Err() != nil: // shutting down; the row stays for the next start
		default:
			cause := FailureCause(err)
			d.Metrics.countFailed(cause)
			d.Channel.Attempted(channel.Retry)
			d.fail(key, d.rowLog(key).With(causeAttrs(cause, err)...), st, "mail: send failed", err)
		}
	}
	d.deleteSettled(ctx, due, states)
	d.keepRetries()
	return nil
}

// render renders p's row, from what its writer built when it is at hand,
// with the manage link the message shows.
func (d *Drainer) render(p *pending) (Message, error) {
	r := p.decoded
	if r == nil {
		if err := CheckFrom(d.From); err != nil {
			return Message{}, err
		}
		var err error
		if r, err = record.DecodeMailRow(p.row); err != nil {
			return Message{}, fmt.Errorf("%w: %v", ErrBadRow, err)
		}
	}
	if d.Manage != nil && ManageLinked(r) {
		linked := *r // the writer's row is not modified
		linked.ManageURL = d.Manage(p.key.Biz, r.Appointment.ID)
		r = &linked
	}
	if d.Manage != nil && (r.Kind == model.MailSeriesConfirmation || r.Kind == model.MailBasketConfirmation) && len(r.Dates) > 0 {
		// A series or a basket (decisions §11): each date with its own
		// manage link.
		linked := *r
		linked.Dates = slices.Clone(r.Dates)
		for i := range linked.Dates {
			if id := linked.Dates[i].ID; id != "" {
				linked.Dates[i].ManageURL = d.Manage(p.key.Biz, id)
			}
		}
		r = &linked
	}
	return RenderRow(r, d.From)
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
	var gone []Gone
	for i, st := range states {
		if st.settled {
			gone = append(gone, Gone{Key: due[i].key, Row: true, Retry: st.kept})
		}
	}
	if len(gone) == 0 {
		return
	}
	if err := d.Outbox.Done(gone); err != nil {
		if ctx.Err() != nil {
			return
		}
		for i, st := range states {
			if st.settled {
				d.fail(due[i].key, d.rowLog(due[i].key), st, "mail: cannot delete a delivered outbox row", err)
			}
		}
		return
	}
	for _, g := range gone {
		k := g.Key
		if d.state[k].walked {
			if d.walkedSent == nil {
				d.walkedSent = map[OutboxKey]bool{}
			}
			d.walkedSent[k] = true
		}
		delete(d.state, k)
	}
}

func (d *Drainer) rowLog(k OutboxKey) *slog.Logger {
	return d.log().With("business", formatUUID(k.Biz), "mail", k.ID)
}

// fail puts a row back after a failure, to be tried again after its
// backoff. The retry state of a message not yet sent is kept in the
// outbox too, so that a restart waits out the backoff rather than trying
// every failing message at once (best effort: if it cannot be kept, the
// row is only tried sooner).
func (d *Drainer) fail(k OutboxKey, log *slog.Logger, st *rowState, msg string, err error) {
	st.attempts++
	wait := d.backoff(st.attempts)
	st.next = d.now().Add(wait)
	if d.retry.IsZero() || st.next.Before(d.retry) {
		d.retry = st.next
	}
	log.Warn(msg, "err", err, "attempt", st.attempts, "retry_in", wait)
	if !st.settled {
		d.retries = append(d.retries, RetryState{Key: k, Attempts: st.attempts, Next: st.next})
		st.kept = true
	}
}

// keepRetries writes the retry states of the pass's failures in one go.
func (d *Drainer) keepRetries() {
	if len(d.retries) == 0 {
		return
	}
	if err := d.Outbox.Retry(d.retries); err != nil {
		d.log().Warn("mail: cannot keep the retry state of failed messages; they are tried sooner after a restart", "err", err, "rows", len(d.retries))
	}
	d.retries = d.retries[:0]
}

func (d *Drainer) backoff(attempt int) time.Duration {
	if d.Backoff != nil {
		return d.Backoff(attempt)
	}
	return retry.Mail.Wait(attempt)
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
