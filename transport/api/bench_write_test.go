package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
)

// Benchmarks of the whole front-end path of a booking and of an uncached
// availability answer, in process (no sockets): authentication, quotas,
// decoding, the typed call into the engine, the durable commit and the
// answer. They are what "the boundary must not cost throughput" is
// measured with: run them on two commits in one session and compare.

var benchBiz = uuid.MustParse("0f9f4a8e-7a61-4c1e-9d53-6b3b7f1e2a10")

// benchSalon puts a business with staff staff members working every day,
// 08:00–20:00, and one 30-minute service; it returns the service id.
func benchSalon(b testing.TB, s *Server, staff int) (svc uuid.UUID, ids []uuid.UUID) {
	svc, cat := uuid.New(), uuid.New()
	var week model.WeekHours
	for d := range week {
		week[d] = []model.Span{{From: 8 * 60, To: 20 * 60}}
	}
	spec := model.Spec{
		Business: model.Business{ID: benchBiz, Name: "Bench", Timezone: "Europe/Amsterdam", Currency: "EUR", Plan: model.Zakelijk,
			Modules: model.AllModules, Assignment: model.FirstAvailable, Rules: model.DefaultRules()},
		Keys: []model.Key{{ID: uuid.New(), Hash: model.HashKey("sk_bench"),
			Scopes: []string{"appointments:read", "appointments:write"}, Limits: unlimited}},
		Categories: []model.Category{{ID: cat, Name: "C"}},
		Services:   []model.Service{{ID: svc, Name: "Cut", DurationMinutes: 30, PriceCents: 3000, IsActive: true, CategoryID: cat}},
	}
	for i := range staff {
		id := uuid.New()
		ids = append(ids, id)
		spec.Staff = append(spec.Staff, model.Staff{ID: id, Name: fmt.Sprint("S", i), IsActive: true, IsBookable: true,
			AssignedServiceIDs: []uuid.UUID{svc}, Hours: week})
	}
	if _, err := s.Dir.Put(context.Background(), []model.Spec{spec}); err != nil {
		b.Fatal(err)
	}
	return svc, ids
}

var benchBookSeq atomic.Int64

// bookOnce books a free half hour of its own (rules off, so any hour of
// any day ahead), with a new customer and its own Idempotency-Key.
func bookOnce(b *testing.B, h fasthttp.RequestHandler, ctx *fasthttp.RequestCtx, svc, staff uuid.UUID) {
	n := benchBookSeq.Add(1)
	start := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * 30 * time.Minute)
	ctx.Request.Reset()
	ctx.Response.Reset()
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI("/api/v1/appointments")
	ctx.Request.Header.Set("Authorization", "Bearer sk_bench")
	ctx.Request.Header.Set("Idempotency-Key", "bench-"+strconv.FormatInt(n, 10))
	ctx.Request.SetBodyString(`{"serviceId":"` + svc.String() + `","staffMemberId":"` + staff.String() +
		`","startTime":"` + start.Format(time.RFC3339) + `","enforceBookingRules":false,` +
		`"customer":{"firstName":"B","email":"b` + strconv.FormatInt(n, 10) + `@example.com"}}`)
	h(ctx)
	if ctx.Response.StatusCode() != 201 {
		b.Fatalf("booking: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
}

// BenchmarkBookOne is one client booking durably, one after another: every
// booking waits for its own fsync.
func BenchmarkBookOne(b *testing.B) {
	s := newServer(b, model.Pro, 1)
	svc, staff := benchSalon(b, s, 1)
	h := s.Handler()
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	for b.Loop() {
		bookOnce(b, h, &ctx, svc, staff[0])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bookings/s")
}

// BenchmarkBookParallel is 64 clients booking into one business: the actor
// pipelines their writes, which share fsyncs.
func BenchmarkBookParallel(b *testing.B) {
	s := newServer(b, model.Pro, 1)
	svc, staff := benchSalon(b, s, 1)
	h := s.Handler()
	b.SetParallelism(32)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var ctx fasthttp.RequestCtx
		for pb.Next() {
			bookOnce(b, h, &ctx, svc, staff[0])
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bookings/s")
}

// BenchmarkAvailabilityUncached asks a 7-day window over 20 staff with
// 400 bookings, each time for another window start, so the answer memo
// never hits.
func BenchmarkAvailabilityUncached(b *testing.B) {
	benchAvailability(b, 7*24*time.Hour, false)
}

// BenchmarkAvailabilityDayUncached asks the harness's other question: one
// day of one staff member, each time another window start.
func BenchmarkAvailabilityDayUncached(b *testing.B) {
	benchAvailability(b, 24*time.Hour, true)
}

// BenchmarkSlotSearch is docs/PERFORMANCE.md's first table: one uncached
// availability answer, handler and encoding included (no network), by the
// window's length and the staff members asked about, with 20 bookings per
// staff member.
func BenchmarkSlotSearch(b *testing.B) {
	for _, span := range []int{1, 7, 31} {
		for _, staff := range []int{1, 5, 20} {
			b.Run(fmt.Sprintf("%dd-%dstaff", span, staff), func(b *testing.B) {
				benchAvailabilityOf(b, staff, time.Duration(span)*24*time.Hour, false)
			})
		}
	}
}

func benchAvailability(b *testing.B, span time.Duration, oneStaff bool) {
	benchAvailabilityOf(b, 20, span, oneStaff)
}

func benchAvailabilityOf(b *testing.B, staffCount int, span time.Duration, oneStaff bool) {
	s := newServer(b, model.Pro, 1)
	svc, staff := benchSalon(b, s, staffCount)
	h := s.Handler()
	var ctx fasthttp.RequestCtx
	for i := range 20 * staffCount {
		start := time.Date(2027, 3, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i/staffCount) * 24 * time.Hour / 3)
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.Header.SetMethod("POST")
		ctx.Request.SetRequestURI("/api/v1/appointments")
		ctx.Request.Header.Set("Authorization", "Bearer sk_bench")
		ctx.Request.Header.Set("Idempotency-Key", "seed-"+strconv.Itoa(i))
		ctx.Request.SetBodyString(`{"serviceId":"` + svc.String() + `","staffMemberId":"` + staff[i%staffCount].String() +
			`","startTime":"` + start.Format(time.RFC3339) + `","enforceBookingRules":false,` +
			`"customer":{"firstName":"B","email":"s` + strconv.Itoa(i) + `@example.com"}}`)
		h(&ctx)
	}
	base := time.Date(2027, 2, 28, 0, 0, 0, 0, time.UTC)
	n := 0
	var uri []byte // built in place, so that the allocations counted are the server's
	b.ReportAllocs()
	for b.Loop() {
		from := base.Add(time.Duration(n%60000) * time.Minute) // 60,000 distinct questions: none repeats
		n++
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.Header.SetMethod("GET")
		uri = append(uri[:0], "/api/v1/availability/slots?serviceId="...)
		uri = append(uri, svc.String()...)
		uri = from.AppendFormat(append(uri, "&from="...), time.RFC3339)
		uri = from.Add(span).AppendFormat(append(uri, "&to="...), time.RFC3339)
		if oneStaff {
			uri = append(append(uri, "&staffMemberId="...), staff[n%len(staff)].String()...)
		}
		ctx.Request.SetRequestURIBytes(uri)
		ctx.Request.Header.Set("Authorization", "Bearer sk_bench")
		h(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatalf("availability: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
	b.ReportMetric(float64(len(ctx.Response.Body())), "bytes/answer")
}

// An availability answer is kept only when its question is asked again;
// kept or not, every answer is the same bytes, in the §3 shape.
func TestAvailabilityIsCachedFromTheSecondAsk(t *testing.T) {
	s := newServer(t, model.Pro, 1)
	svc, staff := benchSalon(t, s, 3)
	from := time.Now().UTC().Add(48 * time.Hour).Truncate(24 * time.Hour)
	uri := "/api/v1/availability/slots?serviceId=" + svc.String() + "&from=" + from.Format(time.RFC3339) +
		"&to=" + from.Add(24*time.Hour).Format(time.RFC3339)
	ask := func() []byte {
		ctx := request(s.Handler(), "GET", uri, "sk_bench")
		require.Equal(t, 200, ctx.Response.StatusCode(), "%s", ctx.Response.Body())
		return append([]byte(nil), ctx.Response.Body()...)
	}
	first := ask()
	require.Zero(t, s.slots.bytes(), "a question asked once is not kept")
	require.Equal(t, first, ask())
	require.Equal(t, len(first), s.slots.bytes(), "asked again: kept")
	require.Equal(t, first, ask())

	var ans struct {
		Data []struct {
			StartTime, EndTime string
			StaffMemberIDs     []uuid.UUID `json:"staffMemberIds"`
		}
	}
	require.NoError(t, json.Unmarshal(first, &ans))
	require.NotEmpty(t, ans.Data)
	require.ElementsMatch(t, staff, ans.Data[0].StaffMemberIDs, "every staff member")
}
