package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/linktoken"
	"github.com/slotd/slotd/transport/quota"
	"github.com/slotd/slotd/webhook"
	"github.com/slotd/slotd/webhook/deliver"
)

// Support for the fuzz targets of fuzz_test.go: seeds, the fixture server
// and the checks of a refusal's shape.

// fuzzReasons are the reasons of api-v1 §7.1.
var fuzzReasons = map[problem.Reason]bool{
	problem.Required: true, problem.InvalidEmail: true, problem.InvalidURL: true,
	problem.InvalidDate: true, problem.InvalidFormat: true, problem.TooShort: true,
	problem.TooLong: true, problem.TooSmall: true, problem.TooLarge: true,
	problem.InvalidOption: true, problem.UnknownField: true, problem.Invalid: true,
}

// fuzzCodes are the codes of api-v1 §7.2–7.3 a client may be sent.
var fuzzCodes = map[problem.Code]bool{}

func init() {
	for _, c := range []problem.Code{problem.Validation, problem.IdempotencyKeyRequired, problem.Unauthorized,
		problem.KeyRevoked, problem.KeyExpired, problem.InsufficientScope, problem.PlanUpgradeRequired,
		problem.Forbidden, problem.NotFound, problem.MethodNotAllowed, problem.SlotTaken, problem.NoStaffAvailable,
		problem.Conflict, problem.IdempotencyInProgress, problem.IdempotencyKeyReused, problem.RateLimited,
		problem.InvalidTransition, problem.StaffNotBookable, problem.ServiceNotBookable, problem.PaymentsUnavailable,
		problem.PaymentError, problem.ModuleUnavailable, problem.Internal, problem.Unavailable,
		problem.SlotNotOffered, problem.BookingTooSoon, problem.BookingTooFarAhead, problem.BookingRequiresCustomer,
		problem.BookingPeriodRestricted, problem.BookingSlotNotConnected} {
		fuzzCodes[c] = true
	}
}

// fuzzVocabulary is the option lists messages name on purpose ("Must be
// one of: ..."): a fuzzed string that is part of one is not an echo.
var fuzzVocabulary = strings.Join(model.Subscribable, ", ") + ", " + strings.Join(requestableStatuses, ", ")

// echoes reports whether a message repeats the client's input: the whole
// input, or a quoted string in it, longer than 12 bytes.
func echoes(msg string, in []byte) bool {
	if len(in) > 12 && strings.Contains(msg, string(in)) {
		return true
	}
	parts := bytes.Split(in, []byte{'"'})
	for i := 1; i < len(parts); i += 2 {
		seg := string(parts[i])
		if len(seg) > 12 && !strings.Contains(fuzzVocabulary, seg) && strings.Contains(msg, seg) {
			return true
		}
	}
	return false
}

// checkField checks one field entry of a VALIDATION_ERROR.
func checkField(t *testing.T, f problem.Field, in []byte) {
	t.Helper()
	if f.Path == "" || f.Message == "" || !fuzzReasons[f.Reason] {
		t.Fatalf("malformed field entry %+v", f)
	}
	bound := f.Reason == problem.TooShort || f.Reason == problem.TooLong ||
		f.Reason == problem.TooSmall || f.Reason == problem.TooLarge
	if bound != (f.Limit != nil) {
		t.Fatalf("a limit comes with exactly the bound reasons: %+v", f)
	}
	if echoes(f.Message, in) {
		t.Fatalf("field message echoes the input: %+v", f)
	}
}

// TestQueryEmptyParameterName: a query parameter with an empty name ("?=1",
// "?&=") is refused under the path (query), never the empty path api-v1
// §7.1 does not allow. Found by FuzzQuery (seed "=1").
func TestQueryEmptyParameterName(t *testing.T) {
	for _, raw := range []string{"=1", "limit=5&=x"} { // fasthttp drops a bare "=" entirely
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI("/x?" + raw)
		perr := func() *problem.Error { q := parseQuery(&ctx, "limit"); return q.err() }()
		if perr == nil {
			t.Fatalf("%q accepted", raw)
		}
		for _, f := range perr.Fields {
			if f.Path == "" {
				t.Fatalf("%q: field entry with an empty path: %+v", raw, f)
			}
		}
	}
}

// checkDecodeError checks what a body decoder returned: nil, or a
// VALIDATION_ERROR with well-formed entries.
func checkDecodeError(t *testing.T, err error, in []byte) {
	t.Helper()
	if err == nil {
		return
	}
	var pe *problem.Error
	if !errors.As(err, &pe) {
		t.Fatalf("not a *problem.Error: %T %v", err, err)
	}
	if pe = problem.As(err); pe.Code != problem.Validation {
		t.Fatalf("a decoder answers VALIDATION_ERROR, got %s", pe.Code)
	}
	if pe.Message == "" || echoes(pe.Message, in) {
		t.Fatalf("bad message %q", pe.Message)
	}
	if len(pe.Fields) == 0 || len(pe.Fields) > input.MaxFields {
		t.Fatalf("a VALIDATION_ERROR carries 1 to %d fields, got %d", input.MaxFields, len(pe.Fields))
	}
	for _, f := range pe.Fields {
		checkField(t, f, in)
	}
}

// wireError is a §7.1 error body.
type wireError struct {
	Error  *string `json:"error"`
	Code   *string `json:"code"`
	Fields []struct {
		Path    string         `json:"path"`
		Reason  problem.Reason `json:"reason"`
		Message string         `json:"message"`
		Limit   *int64         `json:"limit"`
	} `json:"fields"`
}

// checkResponse checks an answer: never 5xx; a refusal is a §7.1 body
// whose code is documented and matches the status, with well-formed field
// entries and messages that do not echo in; a success body is JSON. It
// returns the error code ("" on success) and, on failure, the logs.
func checkResponse(t *testing.T, ctx *fasthttp.RequestCtx, logs func() string, ins ...[]byte) string {
	t.Helper()
	st, body := ctx.Response.StatusCode(), ctx.Response.Body()
	if st >= 500 {
		t.Fatalf("status %d: %s\nlogs:\n%s", st, body, logs())
	}
	if len(ctx.Response.Header.Peek("X-Request-Id")) == 0 {
		t.Fatalf("no X-Request-Id on a %d", st)
	}
	if st >= 200 && st <= 299 {
		if len(body) > 0 && !json.Valid(body) {
			t.Fatalf("%d with a body that is not JSON: %q", st, body)
		}
		return ""
	}
	if ct := string(ctx.Response.Header.ContentType()); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%d with content type %q", st, ct)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%d body is not a JSON object: %v: %q", st, err, body)
	}
	var e wireError
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("%d body is not a §7.1 error: %v: %q", st, err, body)
	}
	if e.Error == nil || e.Code == nil || *e.Error == "" {
		t.Fatalf("%d body lacks string members error and code: %q", st, body)
	}
	code := problem.Code(*e.Code)
	if !fuzzCodes[code] || wire.Status(code) != st {
		t.Fatalf("status %d with code %q (which maps to %d)", st, code, wire.Status(code))
	}
	for _, in := range ins {
		if echoes(*e.Error, in) {
			t.Fatalf("error message echoes the input: %q", *e.Error)
		}
	}
	if code == problem.Validation && len(e.Fields) == 0 {
		t.Fatalf("VALIDATION_ERROR without fields: %q", body)
	}
	for _, f := range e.Fields {
		for _, in := range ins {
			checkField(t, problem.Field{Path: f.Path, Reason: f.Reason, Message: f.Message, Limit: f.Limit}, in)
		}
	}
	return string(code)
}

// syncBuffer keeps the latest log lines of a fuzz server for a failure
// message; it is reset at each iteration and bounded.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() < 64<<10 {
		w.b.Write(p)
	}
	return len(p), nil
}

func (w *syncBuffer) reset() { w.mu.Lock(); w.b.Reset(); w.mu.Unlock() }

func (w *syncBuffer) String() string { w.mu.Lock(); defer w.mu.Unlock(); return w.b.String() }

// Fixed ids of the fuzz business, so seeds can name real records.
var (
	fzBiz      = uuid.MustParse("f2000000-0000-4000-8000-000000000001")
	fzCategory = uuid.MustParse("f2000000-0000-4000-8000-000000000002")
	fzService  = uuid.MustParse("f2000000-0000-4000-8000-000000000003")
	fzStaff    = uuid.MustParse("f2000000-0000-4000-8000-000000000004")
	fzCustomer = uuid.MustParse("f2000000-0000-4000-8000-000000000005")
	fzLive     = uuid.MustParse("f2000000-0000-4000-8000-000000000006") // a confirmed appointment
	fzDone     = uuid.MustParse("f2000000-0000-4000-8000-000000000007") // a cancelled appointment
)

// fuzzFixture is a server over an in-memory store holding one Pro business
// with every module, a bookable service and staff member (open around the
// clock), a customer, two appointments and one webhook endpoint with a
// delivery. Nothing reaches the network: the test-ping client's lookups
// fail and its attempts time out at once (the ping is refused with 400),
// and the couriers deliver to fuzzSender.
type fuzzFixture struct {
	s      *Server
	h      fasthttp.RequestHandler
	logs   *syncBuffer
	secret string
}

func newFuzzFixture(f *testing.F) *fuzzFixture {
	f.Helper()
	st, err := storage.Open("db", storage.Options{FS: vfs.NewMem()})
	if err != nil {
		f.Fatal(err)
	}
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	couriers := &courier.Env{Store: st, Clock: clock.Real{}, Sender: fuzzSender{}, Log: log}
	dir, err := directory.Open(directory.Config{Store: st, Clock: clock.Real{}, Log: log, Couriers: couriers})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { dir.Close(); st.Close() })
	day := []model.Span{{From: 0, To: 24 * 60}}
	staffID, notes := fzStaff, "Window seat."
	spec := model.Spec{
		Business: model.Business{ID: fzBiz, Name: "Fuzz studio", Timezone: "Europe/Amsterdam", Currency: "EUR",
			Plan: model.Pro, Modules: model.AllModules, Rules: model.DefaultRules()},
		Keys: []model.Key{
			{ID: uuid.New(), Hash: model.HashKey("sk_fuzz"), Scopes: []string{"appointments:read", "appointments:write",
				"services:read", "staff:read", "customers:read", "customers:write", "webhooks:manage"}, Limits: unlimited},
			{ID: uuid.New(), Hash: model.HashKey("sk_read"), Scopes: []string{"services:read"}, Limits: unlimited},
		},
		Categories: []model.Category{{ID: fzCategory, Name: "Treatments"}},
		Services: []model.Service{{ID: fzService, Name: "Massage", DurationMinutes: 60, PriceCents: 6000,
			IsActive: true, CategoryID: fzCategory}},
		Staff: []model.Staff{{ID: fzStaff, Name: "Ada", IsActive: true, IsBookable: true,
			AssignedServiceIDs: []uuid.UUID{fzService}, Hours: model.WeekHours{day, day, day, day, day, day, day}}},
		Customers: []model.Customer{{ID: fzCustomer, FirstName: "Eva", Email: "eva@example.com"}},
		Appointments: []model.WorldAppointment{
			{ID: fzLive, CustomerID: fzCustomer, ServiceID: fzService, StaffMemberID: &staffID,
				StartTime: time.Now().UTC().Truncate(time.Hour).Add(30 * 24 * time.Hour), Status: "confirmed", Notes: &notes},
			{ID: fzDone, CustomerID: fzCustomer, ServiceID: fzService, StaffMemberID: &staffID,
				StartTime: time.Now().UTC().Truncate(time.Hour).Add(31 * 24 * time.Hour), Status: "cancelled"},
		},
	}
	if _, err := dir.Put(context.Background(), []model.Spec{spec}); err != nil {
		f.Fatal(err)
	}
	noNet := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no network while fuzzing")
	}}
	s := New(edge.New(edge.Config{Log: log}), Config{Dir: dir, Clock: clock.Real{}, Cursors: cursor.New(make([]byte, 32)),
		FailedAuth: quota.Window{N: 1 << 30, Per: time.Minute},
		Webhooks:   deliver.New(deliver.Config{Timeout: time.Nanosecond, Resolver: noNet}),
		Links:      linktoken.New(make([]byte, 32)), PublicURL: "http://slotd.test"})
	fx := &fuzzFixture{s: s, h: s.Handler(), logs: logs}
	if fx.secret, err = webhook.NewSecret(rand.Reader); err != nil {
		f.Fatal(err)
	}
	fx.endpoint(f)

	// One booking, so the endpoint has a delivery to list and replay.
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI("/api/v1/appointments")
	ctx.Request.Header.Set("Authorization", "Bearer sk_fuzz")
	ctx.Request.Header.Set("Idempotency-Key", "fuzz-setup")
	ctx.Request.SetBodyString(fmt.Sprintf(`{"serviceId":%q,"staffMemberId":%q,"startTime":%q,"customer":{"firstName":"Bo","email":"bo@example.com"},"enforceBookingRules":false}`,
		fzService, fzStaff, time.Now().UTC().Truncate(time.Hour).Add(40*24*time.Hour).Format(time.RFC3339)))
	fx.h(&ctx)
	if ctx.Response.StatusCode() != 201 {
		f.Fatalf("setup booking: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
	if fx.firstDelivery(fx.endpoint(f)) == uuid.Nil {
		f.Fatal("setup booking logged no delivery")
	}
	return fx
}

// firstDelivery returns the id of the oldest delivery of endpoint ep, or
// uuid.Nil.
func (fx *fuzzFixture) firstDelivery(ep uuid.UUID) uuid.UUID {
	var first uuid.UUID
	_ = fx.s.Dir.Deliveries(fzBiz, ep, nil, func(id [16]byte, _ *model.Delivery) bool {
		first = uuid.UUID(id)
		return false
	})
	return first
}

// fuzzSender is the couriers' consumer: every delivery is answered 200 at
// once, without a network.
type fuzzSender struct{}

func (fuzzSender) Send(context.Context, deliver.Request) deliver.Result {
	return deliver.Result{Status: 200}
}

// endpoint returns the id of the business's webhook endpoint, registering
// one (without a ping) if a fuzzed DELETE removed it.
func (fx *fuzzFixture) endpoint(tb testing.TB) uuid.UUID {
	st := fx.state(tb)
	if eps := st.Endpoints(); len(eps) > 0 {
		return eps[0].ID
	}
	_, err := directory.Do(context.Background(), fx.s.Dir, fzBiz, ledger.RegisterEndpoint{
		In: ledger.EndpointInput{URL: "https://hooks.example.com/slotd", EventTypes: []string{"appointment.created"}}, Secret: fx.secret})
	if err != nil {
		tb.Fatalf("registering the endpoint: %v", err)
	}
	return fx.state(tb).Endpoints()[0].ID
}

// state is the fuzz business's current state.
func (fx *fuzzFixture) state(tb testing.TB) *ledger.State {
	h, err := fx.s.Dir.Business(context.Background(), fzBiz)
	if err != nil || h.State() == nil {
		tb.Fatalf("fuzz business: %v", err)
	}
	return h.State()
}

// do sends one request with the all-scopes key.
func (fx *fuzzFixture) do(method, uri string, body []byte) *fasthttp.RequestCtx {
	fx.logs.reset()
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(uri)
	ctx.Request.Header.Set("Authorization", "Bearer sk_fuzz")
	ctx.Request.SetBody(body)
	fx.h(&ctx)
	return &ctx
}

// checkBodyOnly requires that a refusal of body names only body members
// (or the body as a whole): the path, query and headers of these requests
// are valid. (A body key may itself be spelled "(query)".)
func checkBodyOnly(t *testing.T, ctx *fasthttp.RequestCtx, body []byte) {
	t.Helper()
	var e wireError
	_ = json.Unmarshal(ctx.Response.Body(), &e)
	for _, f := range e.Fields {
		switch f.Path {
		case problem.PathQuery, problem.PathPath, "(headers)", "Idempotency-Key":
			if !bytes.Contains(body, []byte(f.Path)) {
				t.Fatalf("a body refusal names %q: %s", f.Path, ctx.Response.Body())
			}
		}
	}
}

// seedBodies are bodies every body target starts from: valid ones of each
// endpoint, and the edge cases of a JSON reader.
var seedBodies = []string{
	``,
	`{}`,
	`[]`,
	`null`,
	`"x"`,
	`{"a":1}`,
	`{"notes":null}`,
	`{"metadata":{"utm_source":"newsletter","order.ref":"A-17","empty":""}}`,
	`{"metadata":{}}`,
	`{"metadata":null}`,
	`{"metadata":{"bad key":"x","k":7,"k2":null,"ok":"y"}}`,
	`{"serviceId":"f2000000-0000-4000-8000-000000000003","startTime":"2030-01-07T09:00:00Z","customer":{"firstName":"Eva","email":"eva@example.com"},"metadata":{"utm_campaign":"spring","utm_term":"haircut"}}`,
	`{"serviceId":"f2000000-0000-4000-8000-000000000003","startTime":"2030-01-07T10:00:00+01:00","customer":{"firstName":"Eva","lastName":"de Vries","email":" eva@example.com ","phone":"+31 6 1234 5678"},"staffMemberId":null,"staffLocked":true,"enforceBookingRules":false,"notes":"Bring a towel."}`,
	`{"serviceId":"F2000000-0000-4000-8000-000000000003","startTime":"2030-01-07T09:00:00Z","customer":{"firstName":"Jürgen","email":"j@example.com"}}`,
	`{"firstName":"Eva","lastName":"","email":"eva@example.com","phone":"0612345678"}`,
	`{"firstName":" ","email":"not-an-email"}`,
	`{"startTime":"2030-02-30T10:00:00Z","notes":"x"}`,
	`{"staffMemberId":"f2000000-0000-4000-8000-000000000004","serviceId":"f2000000-0000-4000-8000-000000000003"}`,
	`{"status":"cancelled"}`,
	`{"status":"no_show"}`,
	`{"status":"CANCELLED"}`,
	`{"status":["cancelled"]}`,
	`{"url":"https://hooks.example.com/slotd","eventTypes":["appointment.created","appointment.cancelled"],"description":"CRM sync"}`,
	`{"url":"http://localhost:8080/x","eventTypes":["appointment.created","appointment.created","webhook.test",7,null]}`,
	`{"url":"https://user:pw@example.com:8443/","eventTypes":[]}`,
	`{"description":"new","isActive":false}`,
	`{"url":"https://hooks.example.com/slotd","isActive":true}`,
	`{"a":{"b":{"c":{"d":{"e":{"f":{"g":[[[[[[[[[[1]]]]]]]]]]}}}}}}}`,
	`{"notes":1e999999,"enforceBookingRules":123456789012345678901234567890}`,
	`{"status":"cancelled","status":"confirmed"}`,
	`{"firstName":"Eva","firstName":"Eva","email":"e@x.io"}`,
	`{"firstName":"\u0000\ud800","email":"\u00e9@example.com","phone":"☎☎☎"}`,
	`{"firstName":"😀😀😀","email":"a@b.co"} trailing`,
	`{"customer":null,"serviceId":null,"startTime":null}`,
	`{"customer":"Eva","serviceId":42,"startTime":true,"staffLocked":"yes"}`,
	"\xef\xbb\xbf{\"status\":\"completed\"}",
	"{\"status\":\"\xff\xfe\"}",
	`{"description":"` + strings.Repeat("d", 501) + `"}`,
	`{"notes":"` + strings.Repeat("n", 2001) + `"}`,
}

func addBodySeeds(f *testing.F) {
	for _, b := range seedBodies {
		f.Add([]byte(b))
	}
}
