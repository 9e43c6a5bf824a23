package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/webhook/channel"
	"github.com/slotd/slotd/webhook/mail/mailtest"
	"github.com/slotd/slotd/webhook/retry"
)

// fakeOutbox is an in-memory Outbox in the store's order.
type fakeOutbox struct {
	mu        sync.Mutex
	rows      map[OutboxKey][]byte
	doneCalls int
	listErrs  int // List fails this many more times
	lists     int // List calls
	rowErrs   int // Row fails this many more times
	reads     int // Row calls
	retries   map[OutboxKey]RetryState
	doneErrs  map[string]int // Done of id fails this many more times
	dones     []string
	gone      []Gone // every Done's, in order
}

// otherKind is an outbox kind other than mail, to show kinds are kept apart.
const otherKind byte = 'x'

func newFakeOutbox() *fakeOutbox {
	return &fakeOutbox{rows: map[OutboxKey][]byte{}, doneErrs: map[string]int{}}
}

func (o *fakeOutbox) put(biz byte, id string, row []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.rows[OutboxKey{[16]byte{biz}, id}] = row
}

func (o *fakeOutbox) List(fn func(biz [16]byte, id string, row []byte) error) error {
	o.mu.Lock()
	o.lists++
	if o.listErrs > 0 {
		o.listErrs--
		o.mu.Unlock()
		return errors.New("disk on fire")
	}
	keys := make([]OutboxKey, 0, len(o.rows))
	for k := range o.rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b OutboxKey) int {
		if c := bytes.Compare(a.Biz[:], b.Biz[:]); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	rows := make([][]byte, len(keys))
	for i, k := range keys {
		rows[i] = bytes.Clone(o.rows[k])
	}
	o.mu.Unlock()
	for i, k := range keys {
		if err := fn(k.Biz, k.ID, rows[i]); err != nil {
			return err
		}
		clear(rows[i]) // "valid only during the call"
	}
	return nil
}

func (o *fakeOutbox) Row(k OutboxKey) ([]byte, bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reads++
	if o.rowErrs > 0 {
		o.rowErrs--
		return nil, false, errors.New("disk on fire")
	}
	row, ok := o.rows[k]
	return bytes.Clone(row), ok, nil
}

func (o *fakeOutbox) Retry(rs []RetryState) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.retries == nil {
		o.retries = map[OutboxKey]RetryState{}
	}
	for _, r := range rs {
		if _, ok := o.rows[r.Key]; ok {
			o.retries[r.Key] = r
		}
	}
	return nil
}

func (o *fakeOutbox) Retries(fn func(RetryState) error) error {
	o.mu.Lock()
	rs := make([]RetryState, 0, len(o.retries))
	for _, r := range o.retries {
		rs = append(rs, r)
	}
	o.mu.Unlock()
	for _, r := range rs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// Done deletes what gone names, or nothing when one of its rows is set
// to fail. A retry state goes only when asked for, as in the store.
func (o *fakeOutbox) Done(gone []Gone) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, g := range gone {
		if g.Row && o.doneErrs[g.Key.ID] > 0 {
			o.doneErrs[g.Key.ID]--
			return errors.New("cannot delete")
		}
	}
	o.doneCalls++
	o.gone = append(o.gone, gone...)
	for _, g := range gone {
		if g.Row {
			delete(o.rows, g.Key)
			o.dones = append(o.dones, g.Key.ID)
		}
		if g.Retry {
			delete(o.retries, g.Key)
		}
	}
	return nil
}

// counts returns the List and Row calls so far.
func (o *fakeOutbox) counts() (lists, reads int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lists, o.reads
}

func (o *fakeOutbox) doneIDs() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.dones)
}

func (o *fakeOutbox) ids() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var ids []string
	for k := range o.rows {
		ids = append(ids, k.ID)
	}
	slices.Sort(ids)
	return ids
}

// fakeSender records what it sends and fails on demand.
type fakeSender struct {
	mu       sync.Mutex
	fails    map[string]int // Send of id fails this many more times
	attempts map[string]int
	sent     []string
	block    bool // Send waits for ctx and fails with its error
}

func newFakeSender() *fakeSender {
	return &fakeSender{fails: map[string]int{}, attempts: map[string]int{}}
}

func (s *fakeSender) Send(ctx context.Context, m Message) error {
	s.mu.Lock()
	s.attempts[m.ID]++
	block := s.block
	if s.fails[m.ID] > 0 {
		s.fails[m.ID]--
		s.mu.Unlock()
		return fmt.Errorf("451 4.3.0 try again later")
	}
	s.mu.Unlock()
	if block {
		<-ctx.Done()
		return ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, m.ID)
	return nil
}

func (s *fakeSender) sentIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sent)
}

func (s *fakeSender) attemptsOf(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts[id]
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// harness runs a Drainer inside a testing/synctest bubble, where time is
// fake: the Drainer has the real clock, whose timers fire when time in the
// bubble reaches them, and the test moves time by sleeping. recClock
// records every wait the Drainer arms, so a test can say how long the
// Drainer chose to sleep.
type harness struct {
	t     *testing.T
	d     *Drainer
	logs  *syncBuffer
	clock *recClock
	stop  context.CancelFunc
	done  chan error
}

type recClock struct {
	clock.Real
	mu    sync.Mutex
	waits []time.Duration
}

func (c *recClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	return c.Real.AfterFunc(d, f)
}

const testPoll = time.Hour

// startDrainer runs a Drainer; call it inside synctest.Test.
func startDrainer(t *testing.T, ob Outbox, snd Sender, tweak ...func(*Drainer)) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, logs: &syncBuffer{}, clock: &recClock{}, stop: cancel, done: make(chan error, 1)}
	h.d = &Drainer{
		Outbox: ob, Sender: snd, From: "bookings@slotd.example", Poll: testPoll, Clock: h.clock,
		Log: slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, f := range tweak {
		f(h.d)
	}
	go func() { h.done <- h.d.Run(ctx) }()
	t.Cleanup(func() { h.shutdown() })
	return h
}

// idle waits until the Drainer has finished its passes and sleeps, and
// returns how long it chose to sleep (the wait it armed last).
func (h *harness) idle() time.Duration {
	h.t.Helper()
	synctest.Wait()
	select {
	case err := <-h.done:
		h.t.Fatalf("Run returned early: %v", err)
	default:
	}
	h.clock.mu.Lock()
	defer h.clock.mu.Unlock()
	if len(h.clock.waits) == 0 {
		h.t.Fatal("the Drainer did not go idle")
	}
	d := h.clock.waits[len(h.clock.waits)-1]
	h.clock.waits = nil
	return d
}

// advance lets d of fake time pass.
func (h *harness) advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

func (h *harness) shutdown() {
	h.stop()
	select {
	case err, ok := <-h.done:
		if ok {
			assert.NoError(h.t, err)
			close(h.done)
		}
	case <-time.After(5 * time.Second):
		h.t.Fatal("Run did not return after cancel")
	}
}

func mailRow(id string) []byte {
	return testRow(id, model.MailConfirmation, salon, testAppointment(model.Confirmed))
}

func TestDrainerSendsEveryRowOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		ob.put(2, "01B", mailRow("01B"))
		ob.put(1, "01C", mailRow("01C"))
		ob.put(1, "01A", mailRow("01A"))
		snd := newFakeSender()
		h := startDrainer(t, ob, snd)

		assert.Equal(t, testPoll, h.idle())
		assert.Equal(t, []string{"01A", "01C", "01B"}, snd.sentIDs(), "store order")
		assert.Empty(t, ob.ids())
		assert.Equal(t, []string{"01A", "01C", "01B"}, ob.doneIDs())

		// Nothing is sent twice.
		h.d.Kick()
		assert.Equal(t, testPoll, h.idle())
		h.advance(testPoll)
		assert.Equal(t, testPoll, h.idle())
		assert.Len(t, snd.sentIDs(), 3)
	})
}

func TestDrainerRetriesWithBackoffWithoutBlockingOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		for _, id := range []string{"01A", "01B", "01C"} {
			ob.put(1, id, mailRow(id))
		}
		snd := newFakeSender()
		snd.fails["01A"] = 2
		var attempts []int
		obm := channel.NewMetrics(clock.Real{})
		h := startDrainer(t, ob, snd, func(d *Drainer) {
			d.Backoff = func(n int) time.Duration { attempts = append(attempts, n); return retry.Mail.Wait(n) }
			d.Channel = obm.Channel(channel.Mail)
		})

		assert.Equal(t, time.Second, h.idle(), "first retry after 1 s")
		assert.Equal(t, []string{"01B", "01C"}, snd.sentIDs(), "the failing message does not hold up the others")
		assert.Equal(t, []string{"01A"}, ob.ids(), "an unsent row stays")
		rows, _ := obm.Channel(channel.Mail).Held()
		assert.Equal(t, 1, rows, "the outbox backlog holds the unsent row")

		// A kick before the message is due does not retry it early.
		h.d.Kick()
		assert.Equal(t, time.Second, h.idle())
		assert.Equal(t, 1, snd.attemptsOf("01A"))

		h.advance(time.Second)
		assert.Equal(t, 2*time.Second, h.idle(), "then after 2 s")
		assert.Equal(t, 2, snd.attemptsOf("01A"))
		assert.Equal(t, []string{"01A"}, ob.ids())

		h.advance(2 * time.Second)
		assert.Equal(t, testPoll, h.idle())
		assert.Equal(t, []string{"01B", "01C", "01A"}, snd.sentIDs())
		assert.Empty(t, ob.ids())
		h.shutdown()
		assert.Equal(t, []int{1, 2}, attempts)
		assert.Contains(t, h.logs.String(), "send failed")
		assert.Equal(t, [3]int{3, 2, 0}, [3]int{obm.Channel(channel.Mail).Attempts(channel.Delivered), obm.Channel(channel.Mail).Attempts(channel.Retry), obm.Channel(channel.Mail).Attempts(channel.GivenUp)},
			"attempts delivered, retried, failed")
		rows, _ = obm.Channel(channel.Mail).Held()
		assert.Zero(t, rows, "a stopped drainer holds nothing")
		// The failed row's retry state went with it; the rows that never
		// failed had none to delete.
		assert.Empty(t, ob.retries)
		assert.Equal(t, []Gone{{Key: OutboxKey{Biz: [16]byte{1}, ID: "01B"}, Row: true}, {Key: OutboxKey{Biz: [16]byte{1}, ID: "01C"}, Row: true},
			{Key: OutboxKey{Biz: [16]byte{1}, ID: "01A"}, Row: true, Retry: true}}, ob.gone)
	})
}

// A retry state whose row is gone (sent by a mailer that did not know of
// the state, as a take-over's is) is deleted by the next walk.
func TestDrainerDropsOrphanRetryStates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		ob.put(1, "01A", mailRow("01A"))
		orphan := OutboxKey{Biz: [16]byte{1}, ID: "01Z"}
		ob.retries = map[OutboxKey]RetryState{orphan: {Key: orphan, Attempts: 3, Next: time.Now().Add(time.Hour)}}
		snd := newFakeSender()
		h := startDrainer(t, ob, snd)
		assert.Equal(t, testPoll, h.idle())
		h.shutdown()
		assert.Equal(t, []string{"01A"}, snd.sentIDs())
		assert.Empty(t, ob.retries, "the orphan retry state is gone")
		assert.Contains(t, ob.gone, Gone{Key: orphan, Retry: true})
	})
}

// A restart sends only what was left, and a failing message keeps its
// attempt count and waits out its backoff (kept in the outbox), instead
// of being tried at once.
func TestDrainerSurvivesRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		for _, id := range []string{"01A", "01B", "01C"} {
			ob.put(1, id, mailRow(id))
		}
		first := newFakeSender()
		first.fails["01B"] = 1000
		h := startDrainer(t, ob, first)
		assert.Equal(t, time.Second, h.idle())
		h.advance(time.Second)
		assert.Equal(t, 2*time.Second, h.idle(), "second failure")
		h.shutdown()
		assert.Equal(t, []string{"01A", "01C"}, first.sentIDs())
		assert.Equal(t, []string{"01B"}, ob.ids())

		second := newFakeSender()
		second.fails["01B"] = 1
		var attempts []int
		h = startDrainer(t, ob, second, func(d *Drainer) {
			d.Backoff = func(n int) time.Duration { attempts = append(attempts, n); return retry.Mail.Wait(n) }
		})
		assert.Equal(t, 2*time.Second, h.idle(), "the backoff of before the restart")
		assert.Zero(t, second.attemptsOf("01B"))
		h.advance(2 * time.Second)
		assert.Equal(t, 4*time.Second, h.idle(), "the third failure in a row")
		assert.Equal(t, []int{3}, attempts)
		h.advance(4 * time.Second)
		assert.Equal(t, testPoll, h.idle())
		assert.Equal(t, []string{"01B"}, second.sentIDs(), "only what was left")
		assert.Empty(t, ob.ids())
		assert.Empty(t, ob.retries, "the retry state goes with its row")
	})
}

func TestDrainerShutdownDuringSendKeepsTheRow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		ob.put(1, "01A", mailRow("01A"))
		snd := newFakeSender()
		snd.block = true
		h := startDrainer(t, ob, snd)
		synctest.Wait()
		require.Equal(t, 1, snd.attemptsOf("01A"))
		h.shutdown()
		assert.Equal(t, []string{"01A"}, ob.ids())
		assert.NotContains(t, h.logs.String(), "send failed", "a cancelled send is not a failure")
	})
}

func TestDrainerKick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		snd := newFakeSender()
		h := startDrainer(t, ob, snd)
		assert.Equal(t, testPoll, h.idle())
		assert.Empty(t, snd.sentIDs())

		ob.put(1, "01A", mailRow("01A"))
		h.d.Kick()
		assert.Equal(t, testPoll, h.idle())
		assert.Equal(t, []string{"01A"}, snd.sentIDs(), "sent without waiting for the poll")
	})
}

func TestDrainerKickBeforeRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var d Drainer
		d.Kick()
		d.Kick()
		ob := newFakeOutbox()
		ob.put(1, "01A", mailRow("01A"))
		snd := newFakeSender()
		d.Outbox, d.Sender = ob, snd
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- d.Run(ctx) }()
		synctest.Wait()
		require.Empty(t, ob.ids())
		cancel()
		require.NoError(t, <-done)
		assert.Equal(t, []string{"01A"}, snd.sentIDs())
	})
}

func TestDrainerDropsRowsThatCannotRender(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		ob.put(1, "01A", []byte(`{"id":"01A","kind":"booking_confirmation"`))
		ob.put(1, "01B", mailRow("01B"))
		ob.put(1, "01C", testRow("01C", model.MailStatus, salon, nil))
		snd := newFakeSender()
		h := startDrainer(t, ob, snd)
		assert.Equal(t, testPoll, h.idle())
		assert.Equal(t, []string{"01B"}, snd.sentIDs())
		assert.Empty(t, ob.ids())
		logs := h.logs.String()
		assert.Equal(t, 2, strings.Count(logs, "level=ERROR msg=\"mail: dropping an outbox row that cannot be rendered\""))
		assert.Contains(t, logs, `mail=01A`)
		assert.NotContains(t, logs, "ana@example.com", "no customer address in the log")
		assert.Contains(t, logs, "business=01000000-0000-0000-0000-000000000000")
	})
}

func TestDrainerDeleteFailureDoesNotResend(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		ob.put(1, "01A", mailRow("01A"))
		ob.doneErrs["01A"] = 1
		snd := newFakeSender()
		h := startDrainer(t, ob, snd)
		assert.Equal(t, time.Second, h.idle())
		assert.Equal(t, []string{"01A"}, ob.ids())
		h.advance(time.Second)
		assert.Equal(t, testPoll, h.idle())
		assert.Empty(t, ob.ids())
		assert.Equal(t, []string{"01A"}, snd.sentIDs(), "sent once, deleted on the second try")
		assert.Contains(t, h.logs.String(), "cannot delete a delivered outbox row")
	})
}

func TestDrainerListFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		ob.put(1, "01A", mailRow("01A"))
		ob.listErrs = 2
		snd := newFakeSender()
		h := startDrainer(t, ob, snd)
		assert.Equal(t, time.Second, h.idle())
		h.advance(time.Second)
		assert.Equal(t, 2*time.Second, h.idle())
		h.advance(2 * time.Second)
		assert.Equal(t, testPoll, h.idle())
		assert.Equal(t, []string{"01A"}, snd.sentIDs())
		assert.Contains(t, h.logs.String(), "cannot read the outbox")
	})
}

func TestDrainerManyRows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		n := maxBatch*2 + 7
		for i := range n {
			id := fmt.Sprintf("01%05d", i)
			ob.put(byte(i%3), id, mailRow(id))
		}
		snd := newFakeSender()
		h := startDrainer(t, ob, snd)
		assert.Equal(t, testPoll, h.idle(), "full batches go out back to back")
		assert.Len(t, snd.sentIDs(), n)
		assert.Empty(t, ob.ids())
	})
}

func TestDrainerMisconfigured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		require.Error(t, (&Drainer{}).Run(context.Background()))
		d := &Drainer{Outbox: newFakeOutbox(), Sender: newFakeSender(), From: "not an address"}
		require.Error(t, d.Run(context.Background()))
	})
}

// TestStoreOutbox runs the Drainer over a real store with the Mbox sender
// appending to the data directory, as slotd serve does without --smtp.
func TestStoreOutbox(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		data := t.TempDir()
		st, err := storage.Open(data, storage.Options{})
		require.NoError(t, err)

		biz := [16]byte(testBiz)
		b := st.NewBatch()
		b.PutOutbox(biz, storage.OutboxMail, "01A", mailRow("01A"))
		b.PutOutbox(biz, storage.OutboxMail, "01B", mailRow("01B"))
		b.PutOutbox(biz, otherKind, "evt_01A", []byte(`{"event":true}`))
		require.NoError(t, b.Commit())

		ob := StoreOutbox{S: st}
		var ids []string
		require.NoError(t, ob.List(func(gotBiz [16]byte, id string, _ []byte) error {
			assert.Equal(t, biz, gotBiz)
			ids = append(ids, id)
			return nil
		}))
		assert.Equal(t, []string{"01A", "01B"}, ids, "mail rows only")

		h := startDrainer(t, ob, NewSender("", "", "", data, clock.Real{}))
		assert.Equal(t, testPoll, h.idle())
		h.shutdown()
		got, err := mailtest.ReadOutbox(data)
		require.NoError(t, err)
		require.Len(t, got, 2)
		for i, id := range []string{"01A", "01B"} {
			p := parseMessage(t, crlf(got[i].Data))
			assert.Equal(t, "<"+id+"@slotd>", p.header.Get("Message-ID"))
		}
		require.NoError(t, ob.List(func(_ [16]byte, id string, _ []byte) error {
			return fmt.Errorf("row %s left", id)
		}))
		events := 0
		require.NoError(t, st.Outbox(otherKind, func([16]byte, string, []byte) error { events++; return nil }))
		assert.Equal(t, 1, events, "event rows are not touched")

		// Retry states round-trip, and go with their rows.
		b = st.NewBatch()
		b.PutOutbox(biz, storage.OutboxMail, "01C", mailRow("01C"))
		require.NoError(t, b.Commit())
		k := OutboxKey{Biz: biz, ID: "01C"}
		due := time.UnixMilli(1_800_000_000_123).UTC()
		require.NoError(t, ob.Retry([]RetryState{{Key: k, Attempts: 7, Next: due}}))
		var kept []RetryState
		require.NoError(t, ob.Retries(func(r RetryState) error { kept = append(kept, r); return nil }))
		assert.Equal(t, []RetryState{{Key: k, Attempts: 7, Next: due}}, kept)
		require.NoError(t, ob.Done([]Gone{{Key: k, Row: true, Retry: true}}))
		kept = nil
		require.NoError(t, ob.Retries(func(r RetryState) error { kept = append(kept, r); return nil }))
		assert.Empty(t, kept)

		// The store reopens with DATA/outbox inside its directory.
		require.NoError(t, st.Close())
		st, err = storage.Open(data, storage.Options{})
		require.NoError(t, err)
		require.NoError(t, st.Close())
	})
}

// batchSender counts the batches it is handed.
type batchSender struct {
	*fakeSender
	batches [][]string
}

func (b *batchSender) SendBatch(ctx context.Context, ms []Message) []error {
	var ids []string
	errs := make([]error, len(ms))
	for i, m := range ms {
		ids = append(ids, m.ID)
		errs[i] = b.Send(ctx, m)
	}
	b.batches = append(b.batches, ids)
	return errs
}

// A pass hands everything due to a batch-capable sender at once and
// deletes what was sent in one go, failures excepted.
func TestDrainerSendsAndDeletesAPassInOneGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		var ids []string
		for i := range 40 {
			id := fmt.Sprintf("01A%02d", i)
			ids = append(ids, id)
			ob.put(1, id, mailRow(id))
		}
		snd := &batchSender{fakeSender: newFakeSender()}
		snd.fails["01A07"] = 1
		h := startDrainer(t, ob, snd)
		assert.Equal(t, time.Second, h.idle(), "the failed one is retried after its backoff")
		require.Len(t, snd.batches, 1)
		assert.Equal(t, ids, snd.batches[0])
		assert.Equal(t, 1, ob.doneCalls, "one delete for the whole pass")
		assert.Equal(t, []string{"01A07"}, ob.ids())
		h.advance(time.Second)
		assert.Empty(t, ob.ids())
		assert.Equal(t, 2, ob.doneCalls)
	})
}

// Rows handed over by their writers go out without a walk of the table,
// in the order they were handed over; a row handed over with its bytes is
// not read from the table.
func TestDrainerQueueSendsWithoutWalking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		snd := newFakeSender()
		h := startDrainer(t, ob, snd)
		assert.Equal(t, testPoll, h.idle())
		lists, _ := ob.counts()
		require.Equal(t, 1, lists, "one walk at start")

		var rows []Queued
		for i, id := range []string{"01C", "01A", "01B"} {
			ob.put(1, id, mailRow(id))
			q := Queued{Key: OutboxKey{[16]byte{1}, id}}
			if i > 0 {
				q.Row = mailRow(id)
			}
			if i == 2 { // as the business actor hands it over: built, and encoded
				q.Decoded = testMailRow(id, model.MailConfirmation, salon, testAppointment(model.Confirmed))
			}
			rows = append(rows, q)
		}
		h.d.Queue(rows[:2]...)
		h.d.Queue(rows[2])
		assert.Equal(t, testPoll, h.idle())
		assert.Equal(t, []string{"01C", "01A", "01B"}, snd.sentIDs(), "in the order handed over")
		assert.Empty(t, ob.ids())
		lists, reads := ob.counts()
		assert.Equal(t, 1, lists, "no walk")
		assert.Equal(t, 1, reads, "only the row handed over without its bytes is read")

		h.advance(testPoll) // the poll walks the table
		assert.Equal(t, testPoll, h.idle())
		lists, _ = ob.counts()
		assert.Equal(t, 2, lists)
	})
}

// A row handed over twice, or handed over and walked, or handed over
// after a walk found it and it was sent, is sent once.
func TestDrainerQueueSendsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		ob.put(1, "01A", mailRow("01A"))
		snd := newFakeSender()
		k := OutboxKey{[16]byte{1}, "01A"}
		var d Drainer
		d.Queue(Queued{Key: k}, Queued{Key: k, Row: mailRow("01A")}) // before Run, which walks the table too
		h := startDrainer(t, ob, snd, func(dd *Drainer) { dd.queued = d.queued })
		assert.Equal(t, testPoll, h.idle())
		assert.Equal(t, []string{"01A"}, snd.sentIDs())

		// Walked and sent first, handed over (with its bytes) after.
		ob.put(1, "01B", mailRow("01B"))
		h.d.Kick()
		assert.Equal(t, testPoll, h.idle())
		h.d.Queue(Queued{Key: OutboxKey{[16]byte{1}, "01B"}, Row: mailRow("01B")})
		assert.Equal(t, testPoll, h.idle())
		assert.Equal(t, []string{"01A", "01B"}, snd.sentIDs())
	})
}

// A row that cannot be read is tried again after its backoff; so is a
// row handed over with its bytes whose send failed, read again then.
func TestDrainerRowReadFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		snd := newFakeSender()
		h := startDrainer(t, ob, snd)
		assert.Equal(t, testPoll, h.idle())
		ob.put(1, "01A", mailRow("01A"))
		ob.rowErrs = 1
		h.d.Queue(Queued{Key: OutboxKey{[16]byte{1}, "01A"}})
		assert.Equal(t, time.Second, h.idle())
		assert.Empty(t, snd.sentIDs())
		h.advance(time.Second)
		assert.Equal(t, testPoll, h.idle())
		assert.Equal(t, []string{"01A"}, snd.sentIDs())
		assert.Contains(t, h.logs.String(), "cannot read an outbox row")

		ob.put(1, "01B", mailRow("01B"))
		snd.fails["01B"] = 1
		_, before := ob.counts()
		h.d.Queue(Queued{Key: OutboxKey{[16]byte{1}, "01B"}, Row: mailRow("01B")})
		assert.Equal(t, time.Second, h.idle())
		h.advance(time.Second)
		assert.Equal(t, testPoll, h.idle())
		_, after := ob.counts()
		assert.Equal(t, before+1, after, "the retry reads the row")
		assert.Equal(t, []string{"01A", "01B"}, snd.sentIDs())
	})
}
