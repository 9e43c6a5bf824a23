package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/google/uuid"
	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/catalog"
	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/input"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/actors/tenant"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/quota"
	"github.com/slotd/slotd/webhook"
	"github.com/slotd/slotd/webhook/deliver"
	"github.com/valyala/fasthttp"
)

// Fuzz targets of the public API's input handling: every write body decoder,
// the strict query parser, and whole requests through the real router. The
// properties are those of api-v1 §7.1: no input makes the server panic or
// answer 500; every refusal is a documented 4xx code in the §7.1 shape,
// every field entry has a path, a known reason and a message; and messages
// are fixed sentences that never echo the client's input.
//
// Committed seeds live in testdata/fuzz/<Target>/; the CI runs each target
// for a few seconds beyond them (.ci/run).

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
var fuzzVocabulary = strings.Join(catalog.Subscribable, ", ") + ", " + strings.Join(requestableStatuses, ", ")

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

const msgQueryUnknown = "This query parameter is not accepted here."

// TestQueryEmptyParameterName: a query parameter with an empty name ("?=1",
// "?&=") is refused under the path (query), never the empty path api-v1
// §7.1 does not allow. Found by FuzzQuery (seed "=1").
func TestQueryEmptyParameterName(t *testing.T) {
	for _, raw := range []string{"=1", "limit=5&=x"} { // fasthttp drops a bare "=" entirely
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI("/x?" + raw)
		perr := parseQuery(&ctx, "limit").err()
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
	if !fuzzCodes[code] || Status(code) != st {
		t.Fatalf("status %d with code %q (which maps to %d)", st, code, Status(code))
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
	day := []catalog.Span{{From: 0, To: 24 * 60}}
	staffID, notes := fzStaff, "Window seat."
	spec := catalog.Spec{
		Business: catalog.Business{ID: fzBiz, Name: "Fuzz studio", Timezone: "Europe/Amsterdam", Currency: "EUR",
			Plan: catalog.Pro, Modules: catalog.AllModules, Rules: catalog.DefaultRules()},
		Keys: []catalog.Key{
			{ID: uuid.New(), Hash: catalog.HashKey("sk_fuzz"), Scopes: []string{"appointments:read", "appointments:write",
				"services:read", "staff:read", "customers:read", "customers:write", "webhooks:manage"}, Limits: unlimited},
			{ID: uuid.New(), Hash: catalog.HashKey("sk_read"), Scopes: []string{"services:read"}, Limits: unlimited},
		},
		Categories: []catalog.Category{{ID: fzCategory, Name: "Treatments"}},
		Services: []catalog.Service{{ID: fzService, Name: "Massage", DurationMinutes: 60, PriceCents: 6000,
			IsActive: true, CategoryID: fzCategory}},
		Staff: []catalog.Staff{{ID: fzStaff, Name: "Ada", IsActive: true, IsBookable: true,
			AssignedServiceIDs: []uuid.UUID{fzService}, Hours: catalog.WeekHours{day, day, day, day, day, day, day}}},
		Customers: []catalog.Customer{{ID: fzCustomer, FirstName: "Eva", Email: "eva@example.com"}},
		Appointments: []catalog.WorldAppointment{
			{ID: fzLive, CustomerID: fzCustomer, ServiceID: fzService, StaffMemberID: &staffID,
				StartTime: time.Now().UTC().Truncate(time.Hour).Add(30 * 24 * time.Hour), Status: "confirmed", Notes: &notes},
			{ID: fzDone, CustomerID: fzCustomer, ServiceID: fzService, StaffMemberID: &staffID,
				StartTime: time.Now().UTC().Truncate(time.Hour).Add(31 * 24 * time.Hour), Status: "cancelled"},
		},
	}
	if _, err := dir.Put(context.Background(), []catalog.Spec{spec}); err != nil {
		f.Fatal(err)
	}
	noNet := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no network while fuzzing")
	}}
	s := New(Config{Dir: dir, Store: st, Clock: clock.Real{}, Cursors: cursor.New(make([]byte, 32)), Log: log,
		FailedAuth: quota.Window{N: 1 << 30, Per: time.Minute},
		Webhooks:   deliver.New(deliver.Config{Timeout: time.Nanosecond, Resolver: noNet})})
	fx := &fuzzFixture{s: s, h: s.Public(), logs: logs}
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
	_ = fx.s.Store.Deliveries(fzBiz, ep, nil, func(id [16]byte, _ []byte) (bool, error) {
		first = uuid.UUID(id)
		return false, nil
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
	ans, err := fx.s.Dir.Do(context.Background(), fzBiz, &business.RegisterEndpoint{
		In:     tenant.EndpointInput{URL: "https://hooks.example.com/slotd", EventTypes: []string{"appointment.created"}},
		Secret: fx.secret})
	if err != nil || ans.Status != 201 {
		tb.Fatalf("registering the endpoint: %v %+v", err, ans)
	}
	return fx.state(tb).Endpoints()[0].ID
}

// state is the fuzz business's current state.
func (fx *fuzzFixture) state(tb testing.TB) *tenant.State {
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

// FuzzDecodeCreate fuzzes the POST /appointments body decoder.
func FuzzDecodeCreate(f *testing.F) {
	addBodySeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := decodeCreate(body)
		checkDecodeError(t, err, body)
		if err != nil {
			return
		}
		c := in.Customer
		switch {
		case in.ServiceID == uuid.Nil && !bytes.Contains(body, []byte("00000000-0000-0000-0000-000000000000")):
			t.Fatalf("accepted without a serviceId: %+v", in)
		case in.Start.IsZero() && !bytes.Contains(body, []byte("0001-01-01")):
			t.Fatalf("accepted without a startTime: %+v", in)
		case strings.TrimSpace(c.FirstName) == "" || utf8.RuneCountInString(c.FirstName) > maxName:
			t.Fatalf("accepted firstName %q", c.FirstName)
		case !input.ValidEmail(c.Email) || c.Email != strings.TrimSpace(c.Email):
			t.Fatalf("accepted email %q", c.Email)
		case utf8.RuneCountInString(c.LastName) > maxName || utf8.RuneCountInString(c.Phone) > maxPhone:
			t.Fatalf("accepted an overlong lastName or phone: %+v", c)
		case in.Notes != nil && utf8.RuneCountInString(*in.Notes) > maxNotes:
			t.Fatalf("accepted %d characters of notes", utf8.RuneCountInString(*in.Notes))
		}
	})
}

// FuzzDecodeCustomer fuzzes the POST /customers body decoder, read exactly
// as createCustomer reads it.
func FuzzDecodeCustomer(f *testing.F) {
	addBodySeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		var errs input.Errors
		var c catalog.Customer
		if obj, ok := input.ParseObject(body, &errs); ok {
			c = decodeCustomer(obj)
		}
		err := errs.Err()
		checkDecodeError(t, err, body)
		if err != nil {
			return
		}
		switch {
		case strings.TrimSpace(c.FirstName) == "" || utf8.RuneCountInString(c.FirstName) > maxName:
			t.Fatalf("accepted firstName %q", c.FirstName)
		case !input.ValidEmail(c.Email) || c.Email != strings.TrimSpace(c.Email):
			t.Fatalf("accepted email %q", c.Email)
		case utf8.RuneCountInString(c.LastName) > maxName || utf8.RuneCountInString(c.Phone) > maxPhone:
			t.Fatalf("accepted an overlong lastName or phone: %+v", c)
		}
	})
}

// FuzzDecodeEndpoint fuzzes the POST /webhooks body decoder, under both
// settings of --webhooks-allow-insecure (the only configuration it reads).
func FuzzDecodeEndpoint(f *testing.F) {
	for _, b := range seedBodies {
		f.Add([]byte(b), false)
	}
	f.Add([]byte(`{"url":"http://127.0.0.1:9000/hook","eventTypes":["customer.created"]}`), true)
	f.Add([]byte(`{"url":"http://[::1]:0/","eventTypes":["payment.refunded"]}`), true)
	f.Fuzz(func(t *testing.T, body []byte, insecure bool) {
		s := &Server{Config: Config{WebhooksAllowInsecure: insecure}}
		in, err := s.decodeEndpoint(body)
		checkDecodeError(t, err, body)
		if err != nil {
			return
		}
		if err := deliver.CheckURL(in.URL, insecure); err != nil || utf8.RuneCountInString(in.URL) > maxURL {
			t.Fatalf("accepted url %q: %v", in.URL, err)
		}
		if utf8.RuneCountInString(in.Description) > maxDescription {
			t.Fatalf("accepted a description of %d characters", utf8.RuneCountInString(in.Description))
		}
		seen := map[string]bool{}
		for _, et := range in.EventTypes {
			if seen[et] || !containsString(catalog.Subscribable, et) {
				t.Fatalf("accepted event types %q", in.EventTypes)
			}
			seen[et] = true
		}
	})
}

// FuzzPatchAppointment fuzzes the PATCH /appointments/{id} body, which is
// decoded inside its handler, through the router: of the confirmed
// appointment (live) or the cancelled one.
func FuzzPatchAppointment(f *testing.F) {
	for i, b := range seedBodies {
		f.Add([]byte(b), i%3 == 0)
	}
	fx := newFuzzFixture(f)
	f.Fuzz(func(t *testing.T, body []byte, live bool) {
		id := fzDone
		if live {
			id = fzLive
		}
		ctx := fx.do("PATCH", "/api/v1/appointments/"+id.String(), body)
		code := checkResponse(t, ctx, fx.logs.String, body)
		checkBodyOnly(t, ctx, body)
		if code == "" {
			checkAppointment(t, ctx, id)
		}
	})
}

// FuzzSetStatus fuzzes the POST /appointments/{id}/status body through
// the router, like FuzzPatchAppointment.
func FuzzSetStatus(f *testing.F) {
	for i, b := range seedBodies {
		f.Add([]byte(b), i%3 == 0)
	}
	fx := newFuzzFixture(f)
	f.Fuzz(func(t *testing.T, body []byte, live bool) {
		id := fzDone
		if live {
			id = fzLive
		}
		ctx := fx.do("POST", "/api/v1/appointments/"+id.String()+"/status", body)
		code := checkResponse(t, ctx, fx.logs.String, body)
		checkBodyOnly(t, ctx, body)
		if code == "" {
			checkAppointment(t, ctx, id)
		}
	})
}

// checkAppointment requires a 200 whose body is appointment id.
func checkAppointment(t *testing.T, ctx *fasthttp.RequestCtx, id uuid.UUID) {
	t.Helper()
	var a struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal(ctx.Response.Body(), &a); err != nil || ctx.Response.StatusCode() != 200 || a.ID != id.String() {
		t.Fatalf("answer %d %s is not appointment %s (%v)", ctx.Response.StatusCode(), ctx.Response.Body(), id, err)
	}
}

// FuzzPatchWebhook fuzzes the PATCH /webhooks/{id} body, decoded inside
// its handler, through the router. A URL change sends a test ping, which
// fails at once here (see fuzzFixture) and then runs out of the ping
// bucket; neither is a 5xx. An answer never carries the signing secret.
func FuzzPatchWebhook(f *testing.F) {
	addBodySeeds(f)
	fx := newFuzzFixture(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		id := fx.endpoint(t)
		ctx := fx.do("PATCH", "/api/v1/webhooks/"+id.String(), body)
		code := checkResponse(t, ctx, fx.logs.String, body)
		checkBodyOnly(t, ctx, body)
		if bytes.Contains(ctx.Response.Body(), []byte(fx.secret)) {
			t.Fatalf("PATCH answered with the secret: %s", ctx.Response.Body())
		}
		if code == "" {
			var e map[string]json.RawMessage
			if err := json.Unmarshal(ctx.Response.Body(), &e); err != nil || ctx.Response.StatusCode() != 200 ||
				string(e["id"]) != strconv.Quote(id.String()) || e["secret"] != nil {
				t.Fatalf("answer %d %s is not endpoint %s without its secret", ctx.Response.StatusCode(), ctx.Response.Body(), id)
			}
		}
	})
}

// FuzzQuery fuzzes the strict query parser and its readers as the list
// handlers use them. A query they all accept must give the value a plain
// reading of the text gives; a refusal is a well-formed VALIDATION_ERROR.
func FuzzQuery(f *testing.F) {
	for _, q := range []string{
		"", "limit=10", "limit=100", "limit=101", "limit=0", "limit=-1", "limit=007", "limit=1e2", "limit=+5",
		"limit=99999999999999999999999", "limit=", "limit=1&limit=2", "limit", "=1", "&&&", "a=b",
		"cursor=abc&limit=50", "staffMemberId=f2000000-0000-4000-8000-000000000004",
		"staffMemberId=F2000000-0000-4000-8000-000000000004", "staffMemberId={f2000000-0000-4000-8000-000000000004}",
		"staffMemberId=urn:uuid:f2000000-0000-4000-8000-000000000004", "staffMemberId=f20000000000400080000000000000004",
		"includeInactive=true", "includeInactive=TRUE", "includeInactive=1", "includeInactive=false&includeInactive=false",
		"lim%69t=5", "limit=%35", "limit=5%00", "%zz=1", "limit=5;cursor=x", "limit=5#frag", "ä=ö", "limit=٣",
	} {
		f.Add(q)
	}
	allowed := []string{"limit", "cursor", "staffMemberId", "includeInactive"}
	f.Fuzz(func(t *testing.T, raw string) {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI("/x?" + raw)
		q := parseQuery(&ctx, allowed...)
		given := map[string]string{}
		for k, v := range ctx.QueryArgs().All() {
			given[string(k)] = string(v)
		}
		limit := q.limit()
		sid, sidOK := q.uuidParam("staffMemberId")
		inactive, inactiveOK := q.boolParam("includeInactive")
		cur, curOK := q.ok("cursor")
		perr := q.err()
		if limit != 0 && (limit < 1 || limit > 100) {
			t.Fatalf("limit %d", limit)
		}
		if sidOK && (sid.String() != strings.ToLower(given["staffMemberId"])) {
			t.Fatalf("staffMemberId %q read as %s", given["staffMemberId"], sid)
		}
		if inactiveOK && strconv.FormatBool(inactive) != given["includeInactive"] {
			t.Fatalf("includeInactive %q read as %v", given["includeInactive"], inactive)
		}
		if curOK && (cur == "" || cur != given["cursor"]) {
			t.Fatalf("cursor %q read as %q", given["cursor"], cur)
		}
		if perr == nil {
			for k := range given {
				if !containsString(allowed, k) {
					t.Fatalf("unknown parameter %q accepted", k)
				}
			}
			want := 50
			if v, ok := given["limit"]; ok {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > 100 {
					t.Fatalf("limit %q accepted as %d", v, limit)
				}
				want = n
			}
			if limit != want {
				t.Fatalf("limit %q read as %d", given["limit"], limit)
			}
			return
		}
		if perr.Code != problem.Validation || len(perr.Fields) == 0 {
			t.Fatalf("bad query error %+v", perr)
		}
		seen := map[string]bool{}
		for _, fl := range perr.Fields {
			checkField(t, fl, []byte(raw))
			if seen[fl.Path] {
				t.Fatalf("parameter %q named twice: %+v", fl.Path, perr.Fields)
			}
			seen[fl.Path] = true
		}
	})
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// fuzzRoutes are the public routes (and two unknown paths) with their
// usual method; {id} and {deliveryId} are filled in per iteration.
var fuzzRoutes = []struct{ method, path string }{
	{"GET", "/api/v1/me"},
	{"GET", "/api/v1/services"},
	{"GET", "/api/v1/services/{id}"},
	{"GET", "/api/v1/service-categories"},
	{"GET", "/api/v1/staff"},
	{"GET", "/api/v1/staff/{id}"},
	{"GET", "/api/v1/customers/{id}"},
	{"GET", "/api/v1/appointments"},
	{"GET", "/api/v1/appointments/{id}"},
	{"GET", "/api/v1/availability/slots"},
	{"POST", "/api/v1/appointments"},
	{"PATCH", "/api/v1/appointments/{id}"},
	{"POST", "/api/v1/appointments/{id}/status"},
	{"POST", "/api/v1/customers"},
	{"GET", "/api/v1/webhooks"},
	{"POST", "/api/v1/webhooks"},
	{"GET", "/api/v1/webhooks/{id}"},
	{"PATCH", "/api/v1/webhooks/{id}"},
	{"DELETE", "/api/v1/webhooks/{id}"},
	{"GET", "/api/v1/webhooks/{id}/deliveries"},
	{"POST", "/api/v1/webhooks/{id}/deliveries/{deliveryId}/replay"},
	{"GET", "/api/v1/{id}"},
	{"GET", "/{id}"},
}

var fuzzOtherMethods = []string{"GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS", "TRACE"}

// FuzzRequest fuzzes whole requests through the real router and every
// layer before the handlers (limits, authentication, entitlements). route
// picks the path and its method (or, with method >= 192, another one); sel
// picks what fills {id}: the fuzzed id or a real record; flags bit 0 sends
// Idempotency-Key: k-<id>, bit 1 sends no credential, bit 2 the read-only
// key. Besides checkResponse's properties, an answer never carries the
// endpoint's signing secret, and a stored answer to a creating POST is
// replayed to the same request. The server is shared by the iterations, so
// writes that succeed change what later ones see. POST /webhooks is
// included: its test ping fails without touching the network.
func FuzzRequest(f *testing.F) {
	type seed struct {
		route, method, sel, flags byte
		id, query, body           string
	}
	iso := func(d time.Duration) string {
		return time.Now().UTC().Truncate(time.Hour).Add(d).Format(time.RFC3339)
	}
	for _, s := range []seed{
		{0, 0, 0, 0, "", "", ""},
		{1, 0, 0, 0, "", "limit=2", ""},
		{1, 0, 0, 0, "", "limit=1&cursor=abc", ""},
		{2, 0, 1, 0, "", "", ""},
		{2, 0, 0, 0, "not-a-uuid", "", ""},
		{4, 0, 0, 0, "", "includeInactive=true", ""},
		{5, 0, 2, 0, "", "", ""},
		{6, 0, 3, 0, "", "", ""},
		{7, 0, 0, 0, "", "from=2030-01-01T00:00:00Z&to=2030-02-01T00:00:00Z&status=confirmed&limit=5", ""},
		{8, 0, 4, 0, "", "", ""},
		{9, 0, 0, 0, "", "serviceId=" + fzService.String() + "&date=" + iso(48 * time.Hour)[:10], ""},
		{9, 0, 0, 0, "", "serviceId=" + fzService.String() + "&from=" + iso(24*time.Hour) + "&to=" + iso(72*time.Hour) + "&staffMemberId=" + fzStaff.String(), ""},
		{10, 0, 0, 1, "a", "", `{"serviceId":"` + fzService.String() + `","startTime":"` + iso(50*24*time.Hour) + `","customer":{"firstName":"Eva","email":"eva@example.com"}}`},
		{10, 0, 0, 1, "b", "", `{"serviceId":"` + fzService.String() + `","staffMemberId":"` + fzStaff.String() + `","startTime":"` + iso(51*24*time.Hour) + `","customer":{"firstName":"Ed","email":"ed@example.com"},"enforceBookingRules":false}`},
		{10, 0, 0, 0, "", "", `{}`},
		{11, 0, 4, 0, "", "", `{"notes":"Late by 5 minutes."}`},
		{11, 0, 4, 0, "", "", `{"startTime":"` + iso(30*24*time.Hour+2*time.Hour) + `"}`},
		{12, 0, 5, 0, "", "", `{"status":"confirmed"}`},
		{12, 0, 4, 0, "", "x=1", `{"status":"completed"}`},
		{13, 0, 0, 1, "c", "", `{"firstName":"Ida","email":"ida@example.com"}`},
		{14, 0, 0, 0, "", "", ""},
		{15, 0, 0, 0, "", "", `{"url":"https://hooks.example.net/x","eventTypes":["appointment.created"]}`},
		{15, 0, 0, 0, "", "", `{"url":"http://hooks.example.net/x","eventTypes":["appointment.created"]}`},
		{16, 0, 6, 0, "", "", ""},
		{17, 0, 6, 0, "", "", `{"description":"CRM","isActive":false}`},
		{17, 0, 6, 0, "", "", `{"url":"https://hooks.example.org/new"}`},
		{18, 0, 0, 0, "f2000000-0000-4000-8000-000000000009", "", ""},
		{19, 0, 6, 0, "", "limit=1", ""},
		{20, 0, 134, 0, "", "", ""},
		{20, 0, 6, 0, "", "", `{}`},
		{21, 0, 0, 0, "unknown", "", ""},
		{22, 0, 0, 0, "", "", ""},
		{3, 200, 0, 0, "", "", ""},
		{3, 205, 0, 0, "", "", ""},
		{2, 0, 1, 2, "", "", ""},
		{10, 0, 0, 4, "", "", `{}`},
		{2, 0, 0, 0, "..%2f..%2fme", "", ""},
		{8, 0, 0, 0, "f2000000-0000-4000-8000-00000000000%36", "", ""},
		{1, 0, 0, 0, "", "limit=5&limit=6&unknown=&=x", ""},
	} {
		f.Add(s.route, s.method, s.sel, s.flags, s.id, s.query, []byte(s.body))
	}
	fx := newFuzzFixture(f)
	f.Fuzz(func(t *testing.T, route, method, sel, flags byte, id, query string, body []byte) {
		rt := fuzzRoutes[int(route)%len(fuzzRoutes)]
		m := rt.method
		if method >= 192 {
			m = fuzzOtherMethods[int(method)%len(fuzzOtherMethods)]
		}
		ep := fx.endpoint(t)
		pathID := id
		switch sel % 8 {
		case 1:
			pathID = fzService.String()
		case 2:
			pathID = fzStaff.String()
		case 3:
			pathID = fzCustomer.String()
		case 4:
			pathID = fzLive.String()
		case 5:
			pathID = fzDone.String()
		case 6:
			pathID = ep.String()
		}
		deliveryID := id
		if sel >= 128 {
			pathID, deliveryID = ep.String(), fx.firstDelivery(ep).String()
		}
		uri := strings.ReplaceAll(strings.ReplaceAll(rt.path, "{id}", pathID), "{deliveryId}", deliveryID)
		if query != "" {
			uri += "?" + query
		}

		fx.logs.reset()
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(m)
		ctx.Request.SetRequestURI(uri)
		switch {
		case flags&2 != 0:
		case flags&4 != 0:
			ctx.Request.Header.Set("Authorization", "Bearer sk_read")
		default:
			ctx.Request.Header.Set("Authorization", "Bearer sk_fuzz")
		}
		if flags&1 != 0 {
			ctx.Request.Header.Set("Idempotency-Key", "k-"+id)
		}
		ctx.Request.SetBody(body)
		fx.h(&ctx)

		code := checkResponse(t, &ctx, fx.logs.String, body, []byte(query), []byte(id))
		if bytes.Contains(ctx.Response.Body(), []byte(fx.secret)) {
			t.Fatalf("%s %s answered with the endpoint's secret: %s", m, uri, ctx.Response.Body())
		}

		// api-v1 §4.1, decisions §3: an answer a business gave to a
		// creating POST with a key (a 201, or a stored 409/422 refusal) is
		// given again, marked replayed, to the same request.
		st := ctx.Response.StatusCode()
		stored := st == 201 || (st == 409 || st == 422) && !strings.HasPrefix(code, "IDEMPOTENCY_")
		creating := rt.path == "/api/v1/appointments" || rt.path == "/api/v1/customers"
		if m != "POST" || !creating || len(ctx.Request.Header.Peek("Idempotency-Key")) == 0 || !stored {
			return
		}
		var again fasthttp.RequestCtx
		ctx.Request.CopyTo(&again.Request)
		fx.h(&again)
		if again.Response.StatusCode() == 409 && bytes.Contains(again.Response.Body(), []byte(problem.IdempotencyInProgress)) {
			return
		}
		if again.Response.StatusCode() != st || !bytes.Equal(again.Response.Body(), ctx.Response.Body()) ||
			string(again.Response.Header.Peek("Idempotency-Replayed")) != "true" {
			t.Fatalf("%s %s repeated: %d %s (replayed %q), first %d %s", m, uri, again.Response.StatusCode(),
				again.Response.Body(), again.Response.Header.Peek("Idempotency-Replayed"), st, ctx.Response.Body())
		}
	})
}
