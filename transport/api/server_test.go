package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/linktoken"
	"github.com/slotd/slotd/transport/quota"
)

var (
	bizID = uuid.MustParse("3564727f-cf75-56bf-8ff9-ba8856a3ada8")
	catID = uuid.MustParse("a5e68e97-7735-52ad-9ef6-bf2cc8a93424")
)

// unlimited lifts a test key's quotas (the world file's per-key limits), so
// tests and benchmarks that make many requests are not refused.
var unlimited = &model.Limits{PerMinute: 1 << 30, PerHour: 1 << 30, MutationsPerMinute: 1 << 30}

// newServer returns a server over a fresh store holding one business on
// plan with n services, and the business's all-scopes key. Failed
// authentication is not limited: these tests probe many 401s from one
// address (the limit is tested end to end in cmd/slotd).
func newServer(tb testing.TB, plan model.Plan, n int) *Server {
	tb.Helper()
	st, err := storage.Open(tb.TempDir(), storage.Options{})
	require.NoError(tb, err)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir, err := directory.Open(directory.Config{Store: st, Clock: clock.Real{}, Log: log})
	require.NoError(tb, err)
	tb.Cleanup(func() { dir.Close(); st.Close() })
	spec := model.Spec{
		Business: model.Business{ID: bizID, Name: "Studio", Timezone: "Europe/Amsterdam", Currency: "EUR", Plan: plan,
			Modules: []model.Module{model.ModAppointments}, Rules: model.DefaultRules()},
		Keys: []model.Key{{ID: uuid.New(), Hash: model.HashKey("sk_all"), Scopes: []string{
			"appointments:read", "appointments:write", "services:read", "staff:read", "customers:read", "webhooks:manage", "calendars:manage"}, Limits: unlimited}},
		Categories: []model.Category{{ID: catID, Name: "Treatments"}},
	}
	desc := "A long description of a treatment that an integrator shows on a menu."
	for i := 0; i < n; i++ {
		spec.Services = append(spec.Services, model.Service{ID: uuid.New(), Name: "Massage", Description: &desc,
			DurationMinutes: 60, PriceCents: 6000, IsActive: true, CategoryID: catID,
			PricingRules: []model.PricingRule{{Days: []time.Weekday{time.Friday}, From: 1020, To: 1260, PriceCents: 7000}}})
	}
	_, err = dir.Put(context.Background(), []model.Spec{spec})
	require.NoError(tb, err)
	s := New(edge.New(edge.Config{Log: log}), Config{Dir: dir, Clock: clock.Real{}, Cursors: cursor.New(make([]byte, 32)),
		Links: linktoken.New(make([]byte, 32)), PublicURL: "http://slotd.test",
		FailedAuth: quota.Window{N: 1 << 30, Per: time.Minute}})
	storeOf.Store(s, st)
	return s
}

// storeOf is the store under each test server's engine, for tests that
// break it on purpose (the front end holds none).
var storeOf sync.Map // *Server -> *storage.Store

func testStore(s *Server) *storage.Store {
	st, _ := storeOf.Load(s)
	return st.(*storage.Store)
}

func request(h fasthttp.RequestHandler, method, uri, key string) *fasthttp.RequestCtx {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(uri)
	if key != "" {
		ctx.Request.Header.Set("Authorization", "Bearer "+key)
	}
	h(&ctx)
	return &ctx
}

func decode(t *testing.T, ctx *fasthttp.RequestCtx) map[string]any {
	var m map[string]any
	require.NoError(t, json.Unmarshal(ctx.Response.Body(), &m), "%s", ctx.Response.Body())
	return m
}

func TestPlanUpgradeRequired(t *testing.T) {
	s := newServer(t, model.Groei, 1)
	called := false
	h := s.api(route{scope: "appointments:write", module: model.ModAppointments, fn: func(*call) { called = true }})
	ctx := request(h, "POST", "/api/v1/appointments", "sk_all")
	require.Equal(t, 403, ctx.Response.StatusCode())
	m := decode(t, ctx)
	require.Equal(t, "PLAN_UPGRADE_REQUIRED", m["code"])
	require.Equal(t, "appointments:write", m["scope"])
	require.Equal(t, "pro", m["requiredPlan"])
	require.False(t, called)

	// Scope comes before plan: a key without the scope is told so whatever the plan.
	h = s.api(route{scope: "customers:write", fn: func(*call) { called = true }})
	m = decode(t, request(h, "POST", "/api/v1/customers", "sk_all"))
	require.Equal(t, "INSUFFICIENT_SCOPE", m["code"])
	require.NotContains(t, m, "requiredPlan")

	// A Groei business reads everything it is entitled to.
	ctx = request(s.Handler(), "GET", "/api/v1/services", "sk_all")
	require.Equal(t, 200, ctx.Response.StatusCode())
}

func BenchmarkServicesList(b *testing.B) {
	s := newServer(b, model.Pro, 50)
	h := s.Handler()
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.Header.Set("Authorization", "Bearer sk_all")
	b.ReportAllocs()
	for b.Loop() {
		ctx.Request.SetRequestURI("/api/v1/services?limit=50")
		ctx.Response.Reset()
		h(&ctx)
	}
	b.SetBytes(int64(len(ctx.Response.Body())))
	require.Equal(b, 200, ctx.Response.StatusCode())
}

func BenchmarkServiceGet(b *testing.B) {
	s := newServer(b, model.Pro, 50)
	h := s.Handler()
	id := s.mustState(b).Services[7].ID
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.Header.Set("Authorization", "Bearer sk_all")
	uri := "/api/v1/services/" + id.String()
	b.ReportAllocs()
	for b.Loop() {
		ctx.Request.SetRequestURI(uri)
		ctx.Response.Reset()
		h(&ctx)
	}
	require.Equal(b, 200, ctx.Response.StatusCode())
}

// BenchmarkServiceGetAccessLog is BenchmarkServiceGet with the compact
// access log on (written to nowhere): the cost of one line. It runs after
// the others, whose allocation figures would otherwise include what its
// server leaves behind.
func BenchmarkServiceGetAccessLog(b *testing.B) {
	s := newServer(b, model.Pro, 50)
	var err error
	s.AccessLog, err = edge.NewAccessLog(discard{}, edge.AccessLogCompact)
	require.NoError(b, err)
	h := s.Handler()
	id := s.mustState(b).Services[7].ID
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.Header.Set("Authorization", "Bearer sk_all")
	uri := "/api/v1/services/" + id.String()
	b.ReportAllocs()
	for b.Loop() {
		ctx.Request.SetRequestURI(uri)
		ctx.Response.Reset()
		h(&ctx)
	}
	require.Equal(b, 200, ctx.Response.StatusCode())
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func (s *Server) mustState(tb testing.TB) *tenantState {
	h, err := s.Dir.Business(context.Background(), bizID)
	require.NoError(tb, err)
	return h.State()
}

type tenantState = ledger.State

// TestHandlerPanicIsInternalError: a panic in a handler is answered 500
// INTERNAL_ERROR in the §7.1 shape, carrying the request id, which the log
// line names; nothing the handler had set leaks into the answer, and the
// server goes on serving.
func TestHandlerPanicIsInternalError(t *testing.T) {
	s := newServer(t, model.Pro, 1)
	var logs bytes.Buffer
	s.Log = slog.New(slog.NewTextHandler(&logs, nil))
	r := s.NewRouter(edge.Public, s.meter, errNotFound)
	r.Handle(fasthttp.MethodGet, "/boom", func(ctx *fasthttp.RequestCtx) {
		ctx.Response.Header.Set("X-Half-Done", "1")
		ctx.SetBodyString("partial")
		panic("boom")
	})
	h := s.Observe(r.Handler(), s.listener)
	ctx := request(h, "GET", "/boom", "")
	require.Equal(t, 500, ctx.Response.StatusCode())
	m := decode(t, ctx)
	require.Equal(t, "INTERNAL_ERROR", m["code"])
	require.NotContains(t, string(ctx.Response.Body()), "boom")
	require.Empty(t, ctx.Response.Header.Peek("X-Half-Done"))
	id := string(ctx.Response.Header.Peek("X-Request-Id"))
	require.NotEmpty(t, id)
	require.Contains(t, logs.String(), "handler panicked")
	require.Contains(t, logs.String(), "request_id="+id)

	require.Equal(t, 404, request(h, "GET", "/nothing", "").Response.StatusCode(), "still serving")
}

// TestInternalErrorKeepsItsCause: a write that fails for a reason the
// client cannot act on (here the journal is closed under the running
// engine) is answered INTERNAL_ERROR revealing nothing, and logged exactly
// once with the request id and what caused it.
func TestInternalErrorKeepsItsCause(t *testing.T) {
	s := newServer(t, model.Pro, 1)
	var logs bytes.Buffer
	s.Log = slog.New(slog.NewTextHandler(&logs, nil))
	st := s.mustState(t)
	var svc uuid.UUID
	for _, x := range st.Services {
		svc = x.ID
	}
	require.NoError(t, testStore(s).Close())

	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI("/api/v1/appointments")
	ctx.Request.Header.Set("Authorization", "Bearer sk_all")
	ctx.Request.Header.Set("Idempotency-Key", "k1")
	ctx.Request.SetBodyString(`{"serviceId":"` + svc.String() + `","startTime":"2030-01-07T10:00:00Z","customer":{"firstName":"A","email":"a@example.com"}}`)
	s.Handler()(&ctx)

	require.Equal(t, 500, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
	m := decode(t, &ctx)
	require.Equal(t, "INTERNAL_ERROR", m["code"])
	require.NotContains(t, string(ctx.Response.Body()), "closed", "the cause is not the client's")
	id := string(ctx.Response.Header.Peek("X-Request-Id"))
	require.Equal(t, 1, strings.Count(logs.String(), "request failed"), "logged once: %s", logs.String())
	require.Contains(t, logs.String(), "request_id="+id)
	require.Contains(t, logs.String(), storage.ErrClosed.Error())
}
