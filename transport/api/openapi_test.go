package api

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
)

// The OpenAPI document (docs/openapi.json) must describe exactly what the
// public router serves: these tests fail when a route is added, removed or
// reshaped without the document following, or the other way round.

var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

func loadOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("../../docs/openapi.json")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	return doc
}

// documentedOps returns path -> set of upper-case methods in the document.
func documentedOps(t *testing.T, doc map[string]any) map[string]map[string]bool {
	t.Helper()
	paths, ok := doc["paths"].(map[string]any)
	require.True(t, ok, "paths must be an object")
	out := map[string]map[string]bool{}
	for p, item := range paths {
		ops, ok := item.(map[string]any)
		require.True(t, ok, "path item %s", p)
		out[p] = map[string]bool{}
		for k := range ops {
			if m := strings.ToUpper(k); slices.Contains(httpMethods, m) {
				out[p][m] = true
			}
		}
		require.NotEmpty(t, out[p], "path %s has no operation", p)
	}
	return out
}

// resolve follows a local JSON pointer ("#/a/b") inside doc.
func resolve(doc map[string]any, ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	var cur any = doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// refs calls f with every $ref string in v.
func refs(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "$ref" {
				f(s)
				continue
			}
			refs(e, f)
		}
	case []any:
		for _, e := range x {
			refs(e, f)
		}
	}
}

func TestOpenAPIDocument(t *testing.T) {
	doc := loadOpenAPI(t)
	v, _ := doc["openapi"].(string)
	require.Regexp(t, `^3\.1\.\d+$`, v)

	n := 0
	refs(doc, func(ref string) {
		n++
		_, ok := resolve(doc, ref)
		require.True(t, ok, "unresolved $ref %q", ref)
	})
	require.NotZero(t, n)

	for _, name := range []string{"Service", "ServiceDetail", "SegmentTemplate", "PricingRule", "Category", "Staff",
		"Customer", "Me", "Error", "FieldError", "ServiceList", "CategoryList", "StaffList"} {
		_, ok := resolve(doc, "#/components/schemas/"+name)
		require.True(t, ok, "schema %s missing", name)
	}

	// Every operation states its entitlements and documents its errors.
	for p, ops := range documentedOps(t, doc) {
		for m := range ops {
			op := doc["paths"].(map[string]any)[p].(map[string]any)[strings.ToLower(m)].(map[string]any)
			rs := op["responses"].(map[string]any)
			// Answers every operation can get: a request that cannot be
			// read (400) or arrives too slowly (408), another method (405),
			// and, unless it takes no key, a credential (401).
			for _, st := range []string{"400", "405", "408"} {
				require.Contains(t, rs, st, "%s %s", m, p)
			}
			if keyless(op) {
				continue
			}
			require.Contains(t, op, "x-slotd-scope", "%s %s", m, p)
			require.Contains(t, op, "x-slotd-plan", "%s %s", m, p)
			require.Contains(t, rs, "401", "%s %s", m, p)
			if m == "DELETE" {
				// A delete answers 204 without a body.
				r204, ok := rs["204"].(map[string]any)
				require.True(t, ok, "%s %s documents no 204", m, p)
				require.NotContains(t, r204, "content", "%s %s: 204 has no body", m, p)
				require.Contains(t, asMap(r204["headers"]), "X-Request-Id", "%s %s", m, p)
			} else {
				_, ok200 := rs["200"]
				_, ok201 := rs["201"]
				_, ok202 := rs["202"] // a replay is accepted, then sent
				require.True(t, ok200 || ok201 || ok202, "%s %s documents no 200, 201 or 202", m, p)
			}
			if strings.Contains(p, "{id}") {
				require.Contains(t, rs, "404", "%s %s", m, p)
			}
			if _, ok := op["x-slotd-module"]; ok {
				require.Contains(t, rs, "503", "%s %s", m, p)
			}
		}
	}
}

func TestOpenAPIMatchesRouter(t *testing.T) {
	doc := loadOpenAPI(t)
	ops := documentedOps(t, doc)
	s := newServer(t, model.Groei, 1)
	h := s.Handler()
	st := s.mustState(t)
	addEntitledBusiness(t, s)
	// Real ids where the test business has a record; other {id} paths get a
	// fresh UUID and may answer 404 NOT_FOUND (or 403 for a missing module).
	real := map[string]string{"/api/v1/services/{id}": st.Services[0].ID.String()}
	concrete := func(p string) string {
		if id, ok := real[p]; ok {
			return strings.ReplaceAll(p, "{id}", id)
		}
		return regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(p, uuid.NewString())
	}

	for p, methods := range ops {
		uri := concrete(p)
		for _, m := range httpMethods {
			// Routing is decided before the credential: a served route
			// without a key is 401, a known path with another method 405.
			ctx := request(h, m, uri, "")
			require.NotEmpty(t, ctx.Response.Header.Peek("X-Request-Id"), "%s %s", m, uri)
			body := decode(t, ctx)
			if !methods[m] {
				require.Equal(t, 405, ctx.Response.StatusCode(), "%s %s is served but not documented", m, p)
				require.Equal(t, "METHOD_NOT_ALLOWED", body["code"])
				continue
			}
			if keyless(operation(doc, p, m)) {
				// Served without a key: for an unknown business, 404;
				// GET / names no business.
				want := 404
				if p == "/" {
					want = 200
				}
				require.Equal(t, want, ctx.Response.StatusCode(), "%s %s: %v", m, uri, body)
				continue
			}
			require.Equal(t, 401, ctx.Response.StatusCode(), "%s %s is documented but not served: %v", m, p, body)
			require.Equal(t, "UNAUTHORIZED", body["code"])

			ctx = request(h, m, uri, "sk_all")
			body = decode(t, ctx)
			require.NotEqual(t, "METHOD_NOT_ALLOWED", body["code"], "%s %s", m, p)
			op := operation(doc, p, m)
			if op["requestBody"] != nil && op["x-slotd-plan"] == "groei" {
				// A read with a body (POST /availability/check): the
				// Groei business is entitled and reaches the handler,
				// which wants the body.
				require.Equal(t, 400, ctx.Response.StatusCode(), "%s %s: %v", m, p, body)
				requireBodyRequired(t, body, m, p)
				continue
			}
			if op["requestBody"] != nil {
				checkWrite(t, doc, h, op, m, p, uri, ctx, body)
				continue
			}
			if op["x-slotd-plan"] != nil && op["x-slotd-plan"] != "groei" {
				// The Groei business's plan refuses it, naming the
				// documented scope and plan; the entitled key gets past.
				require.Equal(t, 403, ctx.Response.StatusCode(), "%s %s: %v", m, p, body)
				require.Equal(t, "PLAN_UPGRADE_REQUIRED", body["code"], "%s %s", m, p)
				require.Equal(t, op["x-slotd-scope"], body["scope"], "%s %s", m, p)
				require.Equal(t, op["x-slotd-plan"], body["requiredPlan"], "%s %s", m, p)
				ctx = request(h, m, uri, "sk_pro")
				body = decode(t, ctx)
				require.NotEmpty(t, ctx.Response.Header.Peek("X-Request-Id"), "%s %s", m, uri)
			}
			_, isReal := real[p]
			if strings.Contains(p, "{") && !isReal {
				require.Contains(t, []int{403, 404}, ctx.Response.StatusCode(), "%s %s: %v", m, uri, body)
				continue
			}
			if req := requiredQuery(doc, p, m); len(req) > 0 {
				// Called without its required parameters, an operation
				// names exactly those.
				require.Equal(t, 400, ctx.Response.StatusCode(), "%s %s: %v", m, uri, body)
				var named []string
				for _, f := range asSlice(body["fields"]) {
					named = append(named, f.(map[string]any)["path"].(string))
				}
				sort.Strings(named)
				require.Equal(t, req, named, "%s %s", m, p)
				continue
			}
			require.Equal(t, 200, ctx.Response.StatusCode(), "%s %s: %v", m, uri, body)
			checkShape(t, doc, okSchema(t, doc, p, m), body, m+" "+p)
		}
	}

	// Routes served today, routes of the published API and near misses:
	// those the document lacks must not be served. A route added to
	// the router (Server.build) and documented passes; one dropped from the
	// document, or added to the router without it, fails here.
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/v1/me"}, {"GET", "/api/v1/services"}, {"GET", "/api/v1/services/{id}"},
		{"GET", "/api/v1/service-categories"}, {"GET", "/api/v1/staff"}, {"GET", "/api/v1/staff/{id}"},
		{"GET", "/api/v1/customers/{id}"},
		{"GET", "/api/v1/appointments"}, {"POST", "/api/v1/appointments"},
		{"GET", "/api/v1/appointments/{id}"}, {"PATCH", "/api/v1/appointments/{id}"},
		{"POST", "/api/v1/appointments/{id}/status"}, {"GET", "/api/v1/availability/slots"},
		{"GET", "/api/v1/customers"}, {"POST", "/api/v1/customers"}, {"PATCH", "/api/v1/customers/{id}"},
		{"GET", "/api/v1/webhooks"}, {"POST", "/api/v1/webhooks"}, {"GET", "/api/v1/webhooks/{id}"},
		{"PATCH", "/api/v1/webhooks/{id}"}, {"DELETE", "/api/v1/webhooks/{id}"},
		{"GET", "/api/v1/webhooks/{id}/deliveries"}, {"POST", "/api/v1/webhooks/{id}/deliveries/{deliveryId}/replay"},
		{"GET", "/api/v1/appointments/{id}/payment"}, {"POST", "/hooks/payments/{businessId}"},
		{"GET", "/api/v1/service-categories/{id}"}, {"POST", "/api/v1/services"}, {"GET", "/api/v1/payments"},
		{"POST", "/api/v1/calendar-feeds"}, {"GET", "/api/v1/calendar-feeds"}, {"DELETE", "/api/v1/calendar-feeds/{id}"},
		{"PUT", "/api/v1/staff/{id}/busy-times/{source}"}, {"GET", "/api/v1/staff/{id}/busy-times"},
		{"POST", "/api/v1/staff/{id}/calendar-sources"}, {"GET", "/api/v1/staff/{id}/calendar-sources"},
		{"GET", "/api/v1/staff/{id}/calendar-sources/{sourceId}"}, {"DELETE", "/api/v1/staff/{id}/calendar-sources/{sourceId}"},
		{"GET", "/api/v1"}, {"GET", "/api/v1/"}, {"GET", "/api/v1/me/"}, {"GET", "/api/v1/services/"},
		{"GET", "/API/v1/me"}, {"GET", "/api/v2/me"}, {"GET", "/healthz"}, {"GET", "/metrics"},
	} {
		if ops[c.path][c.method] {
			continue
		}
		ctx := request(h, c.method, concrete(c.path), "")
		code := decode(t, ctx)["code"]
		switch ctx.Response.StatusCode() {
		case 404:
			require.Equal(t, "NOT_FOUND", code)
		case 405:
			require.Equal(t, "METHOD_NOT_ALLOWED", code)
		default:
			t.Fatalf("%s %s is served (%d %v) but not in docs/openapi.json", c.method, c.path, ctx.Response.StatusCode(), code)
		}
	}
}

// keyless reports whether an operation takes no API key (security: []),
// as the payment providers' hook does.
func keyless(op map[string]any) bool {
	sec, ok := op["security"].([]any)
	return ok && len(sec) == 0
}

// addEntitledBusiness adds a second business on Pro with every module,
// whose key sk_pro holds every scope, so writes get past the entitlements.
func addEntitledBusiness(t *testing.T, s *Server) {
	t.Helper()
	spec := model.Spec{
		Business: model.Business{ID: uuid.New(), Name: "Pro studio", Timezone: "Europe/Amsterdam", Currency: "EUR",
			Plan: model.Pro, Modules: model.AllModules, Rules: model.DefaultRules()},
		Keys: []model.Key{{ID: uuid.New(), Hash: model.HashKey("sk_pro"), Scopes: []string{
			"appointments:read", "appointments:write", "services:read", "staff:read", "customers:read",
			"customers:write", "webhooks:manage", "calendars:manage"}, Limits: unlimited}},
	}
	_, err := s.Dir.Put(context.Background(), []model.Spec{spec})
	require.NoError(t, err)
}

// The operations marked x-slotd-publishable are exactly those a
// publishable key may call (decisions §7): every other one answers it 403
// INSUFFICIENT_SCOPE naming the documented scope, and no answer to it
// from its allowed origin lacks the CORS headers.
func TestOpenAPIPublishableOperations(t *testing.T) {
	doc := loadOpenAPI(t)
	s := newServer(t, model.Pro, 1)
	spec := model.Spec{
		Business: model.Business{ID: uuid.New(), Name: "Page studio", Timezone: "Europe/Amsterdam", Currency: "EUR",
			Plan: model.Zakelijk, Modules: model.AllModules, Rules: model.DefaultRules()},
		Keys: []model.Key{{ID: uuid.New(), Hash: model.HashKey("pk_live_page"), Kind: model.PublishableKey,
			AllowedOrigins: []string{"https://salon.example"}, Limits: unlimited}},
	}
	_, err := s.Dir.Put(context.Background(), []model.Spec{spec})
	require.NoError(t, err)
	h := s.Handler()
	seen := 0
	for p, methods := range documentedOps(t, doc) {
		for m := range methods {
			op := operation(doc, p, m)
			if keyless(op) {
				continue
			}
			var ctx fasthttp.RequestCtx
			ctx.Request.Header.SetMethod(m)
			ctx.Request.SetRequestURI(regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(p, uuid.NewString()))
			ctx.Request.Header.Set("Authorization", "Bearer pk_live_page")
			ctx.Request.Header.Set("Origin", "https://salon.example")
			ctx.Request.Header.Set("Idempotency-Key", "k")
			h(&ctx)
			body := decode(t, &ctx)
			require.Equal(t, "https://salon.example", string(ctx.Response.Header.Peek("Access-Control-Allow-Origin")), "%s %s", m, p)
			if op["x-slotd-publishable"] == true {
				seen++
				require.NotEqual(t, "INSUFFICIENT_SCOPE", body["code"], "%s %s is marked publishable: %v", m, p, body)
				continue
			}
			require.Equal(t, 403, ctx.Response.StatusCode(), "%s %s: %v", m, p, body)
			require.Equal(t, "INSUFFICIENT_SCOPE", body["code"], "%s %s", m, p)
			require.Equal(t, op["x-slotd-scope"], body["scope"], "%s %s", m, p)
		}
	}
	// Decisions §7 lists twelve; §11 has the booking page book a basket
	// ("add another service") and a series ("repeat weekly", after its
	// preview), so POST /baskets and the two series POSTs make fifteen.
	require.Equal(t, 15, seen, "decisions §7's twelve operations and §11's three")
}

// operation returns the operation object of method path.
func operation(doc map[string]any, path, method string) map[string]any {
	return asMap(asMap(asMap(doc["paths"])[path])[strings.ToLower(method)])
}

// requiresHeader reports whether op documents header name as required.
func requiresHeader(doc map[string]any, op map[string]any, name string) bool {
	for _, p := range asSlice(op["parameters"]) {
		pm := asMap(p)
		if ref, ok := pm["$ref"].(string); ok {
			v, _ := resolve(doc, ref)
			pm = asMap(v)
		}
		if pm["in"] == "header" && strings.EqualFold(pm["name"].(string), name) && pm["required"] == true {
			return true
		}
	}
	return false
}

// checkWrite probes a documented write, already called with the Groei
// business's key (ctx, body), without a body. That business's plan (or its
// key's scopes) refuses it, naming the documented scope and plan; with the
// entitled key it reaches the handler and is refused for the request
// itself: 404 on an {id} path (the record is looked up before the body),
// otherwise 400, IDEMPOTENCY_KEY_REQUIRED where the document requires the
// header, and with a key VALIDATION_ERROR naming (body).
func checkWrite(t *testing.T, doc map[string]any, h fasthttp.RequestHandler, op map[string]any, m, p, uri string, ctx *fasthttp.RequestCtx, body map[string]any) {
	t.Helper()
	require.Equal(t, 403, ctx.Response.StatusCode(), "%s %s: %v", m, p, body)
	require.Contains(t, []any{"PLAN_UPGRADE_REQUIRED", "INSUFFICIENT_SCOPE"}, body["code"], "%s %s", m, p)
	require.Equal(t, op["x-slotd-scope"], body["scope"], "%s %s", m, p)
	if body["code"] == "PLAN_UPGRADE_REQUIRED" {
		require.Equal(t, op["x-slotd-plan"], body["requiredPlan"], "%s %s", m, p)
	}

	probe := func(idem string) (int, map[string]any) {
		var c fasthttp.RequestCtx
		c.Request.Header.SetMethod(m)
		c.Request.SetRequestURI(uri)
		c.Request.Header.Set("Authorization", "Bearer sk_pro")
		if idem != "" {
			c.Request.Header.Set("Idempotency-Key", idem)
		}
		h(&c)
		require.NotEmpty(t, c.Response.Header.Peek("X-Request-Id"), "%s %s", m, uri)
		return c.Response.StatusCode(), decode(t, &c)
	}
	st, b := probe("")
	if strings.Contains(p, "{") {
		require.Equal(t, 404, st, "%s %s: %v", m, uri, b)
		require.Equal(t, "NOT_FOUND", b["code"])
		return
	}
	require.Equal(t, 400, st, "%s %s: %v", m, uri, b)
	if requiresHeader(doc, op, "Idempotency-Key") {
		require.Equal(t, "IDEMPOTENCY_KEY_REQUIRED", b["code"], "%s %s", m, p)
		st, b = probe("k-" + uuid.NewString())
		require.Equal(t, 400, st, "%s %s: %v", m, uri, b)
	}
	require.Equal(t, "VALIDATION_ERROR", b["code"], "%s %s: %v", m, p, b)
	require.Equal(t, "(body)", asMap(asSlice(b["fields"])[0])["path"], "%s %s", m, p)
}

// requiredQuery returns the sorted names of the required query parameters
// of method path.
func requiredQuery(doc map[string]any, path, method string) []string {
	op := doc["paths"].(map[string]any)[path].(map[string]any)[strings.ToLower(method)].(map[string]any)
	var out []string
	for _, p := range asSlice(op["parameters"]) {
		pm := p.(map[string]any)
		if pm["in"] == "query" && pm["required"] == true {
			out = append(out, pm["name"].(string))
		}
	}
	sort.Strings(out)
	return out
}

// okSchema returns the schema of the 200 JSON response of method path.
func okSchema(t *testing.T, doc map[string]any, path, method string) any {
	t.Helper()
	op := doc["paths"].(map[string]any)[path].(map[string]any)[strings.ToLower(method)].(map[string]any)
	r := op["responses"].(map[string]any)["200"].(map[string]any)
	return r["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
}

// flatten resolves $ref and merges allOf, returning the properties, the
// required names and the pattern of schema.
func flatten(t *testing.T, doc map[string]any, schema any) (props map[string]any, required []string, pattern string, items any) {
	t.Helper()
	props = map[string]any{}
	var walk func(any)
	walk = func(s any) {
		m, ok := s.(map[string]any)
		if !ok {
			return
		}
		if ref, ok := m["$ref"].(string); ok {
			target, found := resolve(doc, ref)
			require.True(t, found, ref)
			walk(target)
		}
		for _, sub := range asSlice(m["allOf"]) {
			walk(sub)
		}
		for k, v := range asMap(m["properties"]) {
			props[k] = v
		}
		for _, r := range asSlice(m["required"]) {
			required = append(required, r.(string))
		}
		if p, ok := m["pattern"].(string); ok {
			pattern = p
		}
		if it, ok := m["items"]; ok {
			items = it
		}
	}
	walk(schema)
	return props, required, pattern, items
}

func asSlice(v any) []any        { s, _ := v.([]any); return s }
func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkShape checks that v has exactly the members the schema documents
// (all of them required), recursively, and that strings match their
// documented patterns (timestamps, UUIDs).
func checkShape(t *testing.T, doc map[string]any, schema, v any, where string) {
	t.Helper()
	props, required, pattern, items := flatten(t, doc, schema)
	switch x := v.(type) {
	case map[string]any:
		require.Equal(t, keys(props), keys(x), "%s: members", where)
		sort.Strings(required)
		require.Equal(t, keys(props), required, "%s: every member is required", where)
		for k, e := range x {
			checkShape(t, doc, props[k], e, where+"."+k)
		}
	case []any:
		for i, e := range x {
			require.NotNil(t, items, "%s: array without items", where)
			checkShape(t, doc, items, e, where+"["+itoa64(int64(i))+"]")
		}
	case string:
		if pattern != "" {
			require.Regexp(t, pattern, x, where)
		}
	}
}

// requireBodyRequired asserts a VALIDATION_ERROR naming the missing body.
func requireBodyRequired(t *testing.T, body map[string]any, m, p string) {
	t.Helper()
	require.Equal(t, "VALIDATION_ERROR", body["code"], "%s %s", m, p)
	fields, _ := body["fields"].([]any)
	require.NotEmpty(t, fields, "%s %s", m, p)
	require.Equal(t, "(body)", asMap(fields[0])["path"], "%s %s", m, p)
}

// The document's enumerations are the domain's tables (model.Enum):
// adding a status or an event type without documenting it fails here.
func TestOpenAPIEnumsAreTheTables(t *testing.T) {
	doc := loadOpenAPI(t)
	at := func(path ...string) []string {
		var o any = doc
		for _, p := range path {
			switch x := o.(type) {
			case map[string]any:
				o = x[p]
			case []any:
				i := 0
				for _, c := range p {
					i = i*10 + int(c-'0')
				}
				o = x[i]
			}
		}
		var out []string
		for _, v := range o.(map[string]any)["enum"].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	schemas := func(path ...string) []string { return at(append([]string{"components", "schemas"}, path...)...) }
	require.Equal(t, model.Statuses.Strings(), at("paths", "/api/v1/appointments", "get", "parameters", "2", "schema"))
	require.Equal(t, model.EventTypes.Strings(), schemas("WebhookEventType"))
	require.Equal(t, model.EndpointStatuses.Strings(), schemas("WebhookEndpoint", "properties", "status"))
	require.Equal(t, model.Providers.Strings(), schemas("Payment", "properties", "provider"))
	require.Equal(t, model.Providers.Strings(), schemas("CheckoutPayment", "properties", "provider"))
	require.Equal(t, model.PaymentStatuses.Strings(), schemas("Payment", "properties", "status"))
	// A deleted waitlist entry is never shown: the resource's statuses are
	// the table's but that one.
	shown := slices.DeleteFunc(model.EntryStatuses.Strings(), func(s string) bool { return s == string(model.EntryDeleted) })
	require.Equal(t, shown, schemas("WaitlistEntry", "properties", "status"))
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
