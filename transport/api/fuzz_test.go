package api

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/webhook/deliver"
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
		case in.HoldID != nil && (in.ServiceID != uuid.Nil || !in.Start.IsZero() || in.StaffID != nil):
			t.Fatalf("accepted a holdId with the members the hold fixes: %+v", in)
		case in.HoldID == nil && in.ServiceID == uuid.Nil && !bytes.Contains(body, []byte("00000000-0000-0000-0000-000000000000")):
			t.Fatalf("accepted without a serviceId: %+v", in)
		case in.HoldID == nil && in.Start.IsZero() && !bytes.Contains(body, []byte("0001-01-01")):
			t.Fatalf("accepted without a startTime: %+v", in)
		case strings.TrimSpace(c.FirstName) == "" || utf8.RuneCountInString(c.FirstName) > maxName:
			t.Fatalf("accepted firstName %q", c.FirstName)
		case !input.ValidEmail(c.Email) || c.Email != strings.TrimSpace(c.Email):
			t.Fatalf("accepted email %q", c.Email)
		case utf8.RuneCountInString(c.LastName) > maxName || utf8.RuneCountInString(c.Phone) > maxPhone:
			t.Fatalf("accepted an overlong lastName or phone: %+v", c)
		case in.Notes != nil && utf8.RuneCountInString(*in.Notes) > maxNotes:
			t.Fatalf("accepted %d characters of notes", utf8.RuneCountInString(*in.Notes))
		case len(in.Metadata) > maxMetadataKeys:
			t.Fatalf("accepted %d metadata keys", len(in.Metadata))
		}
		for k, v := range in.Metadata {
			if !metadataKey(k) || utf8.RuneCountInString(v) > maxMetadataValue {
				t.Fatalf("accepted metadata %q: %q", k, v)
			}
		}
	})
}

// FuzzDecodeCustomer fuzzes the POST /customers body decoder, read exactly
// as createCustomer reads it.
func FuzzDecodeCustomer(f *testing.F) {
	addBodySeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		var errs input.Errors
		var c model.Customer
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
			if seen[et] || !containsString(model.Subscribable, et) {
				t.Fatalf("accepted event types %q", in.EventTypes)
			}
			seen[et] = true
		}
	})
}

// FuzzPatchAppointment fuzzes the PATCH /appointments/{id} body, which is
// decoded inside its handler, through the router: of the confirmed
// appointment (live) or the cancelled one.
func FuzzPatchAppointment(f *testing.F) { fuzzAppointmentWrite(f, "PATCH", "") }

// FuzzManageReschedule fuzzes the body of a reschedule through a manage
// link (decisions §7), which needs no key: the answers are those of the
// API (a 2xx is the booking as the link shows it), never a 5xx, and a
// refusal names only body members.
func FuzzManageReschedule(f *testing.F) {
	for _, b := range seedBodies {
		f.Add([]byte(b), true)
	}
	f.Add([]byte(`{"startTime":"2030-01-07T10:00:00Z"}`), true)
	f.Add([]byte(`{"startTime":"2030-01-07T10:00:00Z"}`), false)
	fx := newFuzzFixture(f)
	f.Fuzz(func(t *testing.T, body []byte, live bool) {
		id := fzDone
		if live {
			id = fzLive
		}
		ctx := fx.do("POST", "/api/v1/manage/"+fx.s.Links.Make(fzBiz, id)+"/reschedule", body)
		code := checkResponse(t, ctx, fx.logs.String, body)
		checkBodyOnly(t, ctx, body)
		if code == "" {
			var m struct {
				Appointment struct {
					ID string `json:"id"`
				} `json:"appointment"`
			}
			if err := json.Unmarshal(ctx.Response.Body(), &m); err != nil || m.Appointment.ID != id.String() {
				t.Fatalf("answer %d %s is not appointment %s", ctx.Response.StatusCode(), ctx.Response.Body(), id)
			}
		}
	})
}

// FuzzSetStatus fuzzes the POST /appointments/{id}/status body through
// the router, like FuzzPatchAppointment.
func FuzzSetStatus(f *testing.F) { fuzzAppointmentWrite(f, "POST", "/status") }

// fuzzAppointmentWrite fuzzes the body of method on an appointment's path
// (plus suffix); a 2xx must be that appointment.
func fuzzAppointmentWrite(f *testing.F, method, suffix string) {
	for i, b := range seedBodies {
		f.Add([]byte(b), i%3 == 0)
	}
	fx := newFuzzFixture(f)
	f.Fuzz(func(t *testing.T, body []byte, live bool) {
		id := fzDone
		if live {
			id = fzLive
		}
		ctx := fx.do(method, "/api/v1/appointments/"+id.String()+suffix, body)
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
