package courier

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/webhook/channel"
	"github.com/slotd/slotd/webhook/deliver"
)

var t0 = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

// script is a Sender answering from a queue (the last answer repeats) and
// recording each request with the fake time it was made at.
type script struct {
	mu      sync.Mutex
	clock   *clock.Fake
	answers []deliver.Result
	sent    []sentReq
	calls   chan struct{}
	gate    chan struct{} // if set, every answer waits for it to close
}

type sentReq struct {
	req deliver.Request
	at  time.Time
}

func (s *script) Send(_ context.Context, r deliver.Request) deliver.Result {
	s.mu.Lock()
	s.sent = append(s.sent, sentReq{r, s.clock.Now()})
	res := s.answers[0]
	if len(s.answers) > 1 {
		s.answers = s.answers[1:]
	}
	gate := s.gate
	s.mu.Unlock()
	s.calls <- struct{}{}
	if gate != nil {
		<-gate
	}
	return res
}

func (s *script) answer(rs ...deliver.Result) {
	s.mu.Lock()
	s.answers = rs
	s.mu.Unlock()
}

// rig runs one courier under a parent that records its Outcomes.
type rig struct {
	t        *testing.T
	store    *storage.Store
	clock    *clock.Fake
	send     *script
	env      *Env
	sys      *actor.ActorSystem
	courier  *actor.PID
	parent   *actor.PID
	outcomes chan *Outcome
	biz      uuid.UUID
	ep       model.Endpoint
	outbox   *channel.Metrics
}

func newRig(t *testing.T, dir string, answers ...deliver.Result) *rig {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	st, err := storage.Open(dir, storage.Options{})
	require.NoError(t, err)
	fc := clock.NewFake(t0)
	r := &rig{t: t, store: st, clock: fc, send: &script{clock: fc, answers: answers, calls: make(chan struct{}, 100)},
		outcomes: make(chan *Outcome, 100), biz: uuid.MustParse("11111111-1111-4111-8111-111111111111"),
		ep: model.Endpoint{ID: uuid.MustParse("22222222-2222-4222-8222-222222222222"), URL: "https://hooks.example/x",
			IsActive: true, Status: model.EndpointActive, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}}
	r.env = &Env{Store: st, Clock: fc, Sender: r.send, Scale: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: NewMetrics()}
	r.outbox = channel.NewMetrics(fc)
	r.env.Outbox = r.outbox.Channel(channel.Webhook)
	r.start()
	t.Cleanup(func() {
		r.stop()
		require.NoError(t, st.Close())
	})
	return r
}

func (r *rig) start() {
	r.sys = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
	spawned := make(chan *actor.PID, 1)
	parent := actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started:
			spawned <- ctx.Spawn(Props(r.env, r.biz, r.ep))
		case *Outcome:
			r.outcomes <- m
		}
	})
	r.parent = r.sys.Root.Spawn(parent)
	r.courier = <-spawned
	// A round trip makes sure the courier has started (loaded its log and
	// armed its timers) before the test moves the clock.
	_, err := r.sys.Root.RequestFuture(r.courier, &Replay{DeliveryID: NewID(r.ep.ID, t0), Reply: replyOf}, 5*time.Second).Result()
	require.NoError(r.t, err)
}

// stop stops the actors; the store stays open.
func (r *rig) stop() {
	if r.sys != nil {
		_ = r.sys.Root.PoisonFuture(r.parent).Wait() // stops the courier first, as the directory does
		r.sys.Shutdown()
		r.sys = nil
	}
}

func (r *rig) tell(m any) { r.sys.Root.Send(r.courier, m) }

// fresh hands the courier a durable first attempt, as the business actor
// does after its commit.
func (r *rig) fresh(eventID string) model.Delivery {
	d := r.logged(eventID)
	r.tell(&Fresh{Deliveries: []model.Delivery{d}})
	return d
}

// logged writes a pending first attempt into the log, as the business
// actor's commit does, without telling the courier.
func (r *rig) logged(eventID string) model.Delivery {
	d := First(r.ep.ID, eventID, "appointment.created", []byte(`{"id":"`+eventID+`"}`), r.clock.Now())
	enc, err := record.EncodeDelivery(&d)
	require.NoError(r.t, err)
	b := r.store.NewBatch()
	b.PutDelivery(r.biz, r.ep.ID, d.ID, true, enc)
	require.NoError(r.t, b.Commit())
	return d
}

// The courier tests run inside testing/synctest bubbles: synctest.Wait
// returns once every goroutine of the test (actors, timers, Pebble's) is
// blocked, so "it happened" and "nothing happened" are both checked right
// after it, with no sleep and no polling.

// awaitSend returns the attempt that reached the consumer next.
func (r *rig) awaitSend() sentReq {
	r.t.Helper()
	synctest.Wait()
	select {
	case <-r.send.calls:
	default:
		r.t.Fatal("no delivery attempt was made")
	}
	r.send.mu.Lock()
	defer r.send.mu.Unlock()
	return r.send.sent[len(r.send.sent)-1]
}

func (r *rig) noSend() {
	r.t.Helper()
	synctest.Wait()
	select {
	case <-r.send.calls:
		r.send.mu.Lock()
		defer r.send.mu.Unlock()
		r.t.Fatalf("an attempt was made: %+v", r.send.sent[len(r.send.sent)-1])
	default:
	}
}

// log reads the endpoint's delivery log.
func (r *rig) log() []model.Delivery {
	var out []model.Delivery
	require.NoError(r.t, r.store.Deliveries(r.biz, r.ep.ID, nil, func(_ [16]byte, v []byte) (bool, error) {
		d, err := record.DecodeDelivery(v)
		if err == nil {
			out = append(out, *d)
		}
		return true, err
	}))
	return out
}

// awaitLog waits until the log has n records and the last has status.
func (r *rig) awaitLog(n int, status string) []model.Delivery {
	r.t.Helper()
	synctest.Wait()
	ds := r.log()
	if len(ds) != n || ds[n-1].Status != status {
		for _, d := range ds {
			r.t.Logf("%s #%d %s %d created %s", d.EventID, d.Attempt, d.Status, d.ResponseStatus, d.CreatedAt)
		}
		r.t.FailNow()
	}
	return ds
}

func (r *rig) awaitOutcome() *Outcome {
	r.t.Helper()
	synctest.Wait()
	select {
	case o := <-r.outcomes:
		return o
	default:
		r.t.Fatal("no outcome reported")
		return nil
	}
}

func (r *rig) openCount() int {
	n := 0
	require.NoError(r.t, r.store.OpenDeliveries(r.biz, r.ep.ID, func([16]byte) error { n++; return nil }))
	return n
}
