package directory

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/record"
	"github.com/slotd/slotd/webhook"
	"github.com/slotd/slotd/webhook/deliver"
)

// Fan-out benchmark knobs.
const (
	fanoutCallers  = 32               // concurrent d.Do callers sharing b.N
	fanoutDeadline = 60 * time.Second // for every delivery to arrive, and to settle
)

// fanoutSeq makes customer e-mails unique across benchmark rounds.
var fanoutSeq atomic.Int64

// errorCounter is a slog handler that drops everything below Error and
// counts the rest, so a benchmark can fail on errors the server only logs.
type errorCounter struct {
	n     atomic.Int64
	mu    sync.Mutex
	first string
}

func (h *errorCounter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (h *errorCounter) Handle(_ context.Context, r slog.Record) error {
	if h.n.Add(1) == 1 {
		msg := r.Message
		r.Attrs(func(a slog.Attr) bool { msg += " " + a.String(); return true })
		h.mu.Lock()
		h.first = msg
		h.mu.Unlock()
	}
	return nil
}
func (h *errorCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *errorCounter) WithGroup(string) slog.Handler      { return h }

func (h *errorCounter) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return fmt.Sprintf("%d error(s) logged, first: %s", h.n.Load(), h.first)
}

// fanoutReceiver is a webhook consumer on loopback that answers 204 and
// counts deliveries and the TCP connections it accepted.
type fanoutReceiver struct {
	srv   *httptest.Server
	got   atomic.Int64 // signed POSTs: deliveries
	bad   atomic.Int64 // anything else (there should be none)
	conns atomic.Int64
}

func newFanoutReceiver() *fanoutReceiver {
	r := &fanoutReceiver{}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		if req.Method == http.MethodPost && req.Header.Get(webhook.HeaderSignature) != "" && req.Header.Get(webhook.HeaderID) != "" {
			r.got.Add(1)
		} else {
			r.bad.Add(1)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	r.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.conns.Add(1)
		}
	}
	r.srv.Start()
	return r
}

// BenchmarkWebhookFanout measures webhook fan-out through the real actor
// path: b.N customer.created events, each journalled with a synced Pebble
// commit by the business actor, handed to the endpoints' couriers once
// durable, signed and POSTed by deliver.Client to consumers on loopback.
// The timer stops when the consumers have together received b.N×endpoints
// deliveries; ns/op is per event, end to end.
func BenchmarkWebhookFanout(b *testing.B) {
	for _, n := range []int{0, 1, 5} {
		b.Run(fmt.Sprintf("endpoints=%d", n), func(b *testing.B) { benchFanout(b, n) })
	}
}

func benchFanout(b *testing.B, endpoints int) {
	ctx := context.Background()
	logs := &errorCounter{}
	log := slog.New(logs)

	st, err := storage.Open(b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	sender := deliver.New(deliver.Config{AllowInsecure: true})
	d, err := Open(Config{Store: st, Clock: clock.Real{}, Log: log,
		Couriers: &courier.Env{Store: st, Clock: clock.Real{}, Sender: sender, Scale: 1, Log: log}})
	if err != nil {
		_ = st.Close()
		b.Fatal(err)
	}
	recv := make([]*fanoutReceiver, endpoints)
	for i := range recv {
		recv[i] = newFanoutReceiver()
	}
	// Cleanups run last-in first-out: actors first (cancelling any attempt
	// still in flight), then pooled client connections, then the consumers,
	// then the store once nothing writes to it.
	b.Cleanup(func() {
		if err := st.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
			b.Error(err)
		}
	})
	b.Cleanup(func() {
		for _, r := range recv {
			r.srv.Close()
		}
	})
	b.Cleanup(sender.CloseIdleConnections)
	b.Cleanup(d.Close)

	biz := uuid.New()
	sp := model.Spec{Business: model.Business{ID: biz, Name: "Fanout", Timezone: "Europe/Amsterdam", Currency: "EUR",
		Plan: model.Pro, Modules: model.AllModules, Rules: model.DefaultRules()}}
	if _, err := d.Put(ctx, []model.Spec{sp}); err != nil {
		b.Fatal(err)
	}
	eps := make([]uuid.UUID, endpoints)
	for i, r := range recv {
		secret, err := webhook.NewSecret(rand.Reader)
		if err != nil {
			b.Fatal(err)
		}
		e, err := Do(ctx, d, biz, ledger.RegisterEndpoint{In: ledger.EndpointInput{URL: r.srv.URL + "/", EventTypes: []string{model.EventCustomerCreated}}, Secret: secret})
		if err != nil {
			b.Fatalf("register endpoint %d: %v", i, err)
		}
		eps[i] = e.ID
	}
	want := int64(b.N) * int64(endpoints)
	delivered := func() int64 {
		var n int64
		for _, r := range recv {
			n += r.got.Load()
		}
		return n
	}
	stats0 := st.Stats()

	b.ReportAllocs()
	b.ResetTimer()
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[string]
	for range min(fanoutCallers, b.N) {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) && failed.Load() == nil {
				n := fanoutSeq.Add(1)
				ans, err := d.addCustomer(ctx, biz, model.Customer{FirstName: "F", LastName: "O", Email: fmt.Sprintf("f%d@example.com", n)},
					business.IdemKey{Key: fmt.Sprint("f", n)})
				if err != nil || ans.Kind == record.AnswerRefused {
					msg := fmt.Sprintf("create customer: %v", err)
					if ans != nil {
						msg = fmt.Sprintf("create customer: %v", ans.Refused)
					}
					failed.CompareAndSwap(nil, &msg)
				}
			}
		})
	}
	wg.Wait()
	if msg := failed.Load(); msg != nil {
		b.Fatal(*msg)
	}
	deadline := time.Now().Add(fanoutDeadline)
	for delivered() < want {
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d deliveries arrived within %v; %s", delivered(), want, fanoutDeadline, logs)
		}
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	elapsed := b.Elapsed()
	stats := st.Stats()
	syncs, syncNanos := stats.WALSyncs-stats0.WALSyncs, stats.WALSyncNanos-stats0.WALSyncNanos

	// Settle before closing: every delivery's outcome is in the log, so the
	// couriers are idle and closing measures nothing and cancels nothing.
	for _, ep := range eps {
		for {
			open := 0
			if err := st.OpenDeliveries(biz, ep, func([16]byte) error { open++; return nil }); err != nil {
				b.Fatal(err)
			}
			if open == 0 {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("endpoint %s still has %d open deliveries; %s", ep, open, logs)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	var conns, bad int64
	for _, r := range recv {
		conns += r.conns.Load()
		bad += r.bad.Load()
	}
	if got := delivered(); got != want || bad != 0 {
		b.Fatalf("consumers got %d deliveries (want %d) and %d other requests", got, want, bad)
	}
	if logs.n.Load() != 0 {
		b.Fatal(logs)
	}

	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(syncs)/float64(b.N), "fsyncs/event")
	if syncs > 0 {
		b.ReportMetric(float64(syncNanos)/float64(syncs)/1e3, "µs/fsync")
	}
	if want > 0 {
		b.ReportMetric(float64(want)/elapsed.Seconds(), "deliveries/s")
		b.ReportMetric(float64(conns)/float64(want), "conns/delivery")
	}
}
