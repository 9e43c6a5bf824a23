package transport

import (
	"context"
	"io"
	"log/slog"
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
	"github.com/slotd/slotd/transport/quota"
)

// The tests of this package are those across listeners: requests handed
// over between nodes, /metrics and the access log. Each listener's own
// tests are in its package.

var (
	bizID = uuid.MustParse("3564727f-cf75-56bf-8ff9-ba8856a3ada8")
	catID = uuid.MustParse("a5e68e97-7735-52ad-9ef6-bf2cc8a93424")
)

// newServer returns a server over a fresh store holding one business on
// plan with n services, and the business's all-scopes key (sk_all), whose
// quotas are lifted. Failed authentication is not limited.
func newServer(tb testing.TB, plan model.Plan, n int) *Server {
	tb.Helper()
	st, err := storage.Open(tb.TempDir(), storage.Options{})
	require.NoError(tb, err)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir, err := directory.Open(directory.Config{Store: st, Clock: clock.Real{}, Log: log})
	require.NoError(tb, err)
	tb.Cleanup(func() { dir.Close(); st.Close() })
	unlimited := &model.Limits{PerMinute: 1 << 30, PerHour: 1 << 30, MutationsPerMinute: 1 << 30}
	spec := model.Spec{
		Business: model.Business{ID: bizID, Name: "Studio", Timezone: "Europe/Amsterdam", Currency: "EUR", Plan: plan,
			Modules: []model.Module{model.ModAppointments}, Rules: model.DefaultRules()},
		Keys: []model.Key{{ID: uuid.New(), Hash: model.HashKey("sk_all"), Scopes: []string{
			"appointments:read", "appointments:write", "services:read", "staff:read", "customers:read", "webhooks:manage"}, Limits: unlimited}},
		Categories: []model.Category{{ID: catID, Name: "Treatments"}},
	}
	for i := 0; i < n; i++ {
		spec.Services = append(spec.Services, model.Service{ID: uuid.New(), Name: "Massage",
			DurationMinutes: 60, PriceCents: 6000, IsActive: true, CategoryID: catID})
	}
	_, err = dir.Put(context.Background(), []model.Spec{spec})
	require.NoError(tb, err)
	return New(Config{Dir: dir, Clock: clock.Real{}, Cursors: cursor.New(make([]byte, 32)), Log: log,
		FailedAuth: quota.Window{N: 1 << 30, Per: time.Minute}})
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

func (s *Server) mustState(tb testing.TB) *ledger.State {
	h, err := s.api.Dir.Business(context.Background(), bizID)
	require.NoError(tb, err)
	return h.State()
}
