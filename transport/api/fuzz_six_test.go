package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
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
)

// Fuzz targets and table tests of the request decoders of decisions §6:
// POST /holds (decodeHold), POST /waitlist-entries (decodeEntry), POST
// /availability/check (decodeCheck), POST /appointments with holdId
// (decodeCreate) and the If-Match header (ifMatch). The properties are
// those of fuzz_test.go: no input panics; every refusal is a well-formed
// VALIDATION_ERROR (checkDecodeError) whose entries name a member the
// decoder reads, an unknown member or the body; and what a decoder accepts
// is what the body says (read again with encoding/json, which agrees with
// package input on every document input accepts), obeys the endpoint's
// bounds, and survives re-encoding: encoding the decoded input as a body
// and decoding that gives the same input.
//
// Committed seeds live in testdata/fuzz/<Target>/ as well.

// sixSvc, sixStaff and sixHold are ids the seeds use; no state is consulted.
const (
	sixSvc   = "f2000000-0000-4000-8000-000000000003"
	sixStaff = "f2000000-0000-4000-8000-000000000004"
	sixHold  = "f2000000-0000-4000-8000-0000000000a1"
)

// sixMsgDup is package input's message for a duplicate member, whose path
// may be any key of the body.
const sixMsgDup = "Appears more than once."

// sixCheckRefusal checks a decoder's error: checkDecodeError, and every
// entry is about the body as a whole, an unknown or duplicate member, or a
// member the decoder reads (roots: its top-level names).
func sixCheckRefusal(t *testing.T, err error, body []byte, roots ...string) {
	t.Helper()
	checkDecodeError(t, err, body)
	if err == nil {
		return
	}
	for _, f := range problem.As(err).Fields {
		if f.Reason == problem.UnknownField || f.Message == sixMsgDup || f.Path == problem.PathBody {
			continue
		}
		root, _, _ := strings.Cut(f.Path, ".")
		if !containsString(roots, root) {
			t.Fatalf("entry %+v names none of %q", f, roots)
		}
	}
}

// sixMembers reads an accepted body with encoding/json. Package input
// accepts only valid UTF-8 JSON objects without duplicate members, on which
// the two agree (input.FuzzParseDifferential).
func sixMembers(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		t.Fatalf("accepted a body encoding/json reads as no object (%v): %q", err, body)
	}
	return m
}

func sixString(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("accepted %s where a string belongs: %v", raw, err)
	}
	return s
}

func sixUUID(t *testing.T, raw json.RawMessage) uuid.UUID {
	t.Helper()
	u, err := uuid.Parse(sixString(t, raw))
	if err != nil {
		t.Fatalf("accepted %s as a UUID: %v", raw, err)
	}
	return u
}

// sixNullUUID is what the body says of a nullable UUID member: nil when
// absent or null.
func sixNullUUID(t *testing.T, m map[string]json.RawMessage, key string) *uuid.UUID {
	t.Helper()
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	u := sixUUID(t, raw)
	return &u
}

func sixTime(t *testing.T, raw json.RawMessage) time.Time {
	t.Helper()
	ts, err := input.ParseTime(sixString(t, raw))
	if err != nil {
		t.Fatalf("accepted %s as a timestamp: %v", raw, err)
	}
	return ts
}

func sixSameUUID(a, b *uuid.UUID) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// sixEncodeTime is a timestamp as a client would send it again: RFC 3339
// in UTC with every fractional digit kept.
func sixEncodeTime(ts time.Time) string { return ts.UTC().Format(time.RFC3339Nano) }

func sixEncodeNullUUID(id *uuid.UUID) any {
	if id == nil {
		return nil
	}
	return id.String()
}

func sixEncodePerson(p model.Person) map[string]any {
	return map[string]any{"firstName": p.FirstName, "lastName": p.LastName, "email": p.Email, "phone": p.Phone}
}

// sixRoundTrip decodes encoded with decode and requires it to give want.
func sixRoundTrip[T any](t *testing.T, body []byte, encoded map[string]any, want *T, decode func([]byte) (*T, error)) {
	t.Helper()
	again, err := json.Marshal(encoded)
	if err != nil {
		t.Fatalf("re-encoding %+v: %v", *want, err)
	}
	got, err := decode(again)
	if err != nil {
		t.Fatalf("%q was accepted, but its decoding %+v re-encoded as %s is refused: %v", body, *want, again, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q decodes to %+v, but re-encoded as %s to %+v", body, *want, again, *got)
	}
}

// ----- POST /api/v1/holds -----

var sixHoldSeeds = []string{
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T10:00:00+01:00"}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z","staffMemberId":"` + sixStaff + `","ttlSeconds":900}`,
	`{"serviceId":"` + strings.ToUpper(sixSvc) + `","startTime":"2030-01-07T09:00:00.123456789Z","staffMemberId":null,"ttlSeconds":30}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00-05:30","ttlSeconds":1800}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z","ttlSeconds":29}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z","ttlSeconds":1801}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z","ttlSeconds":300.0}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z","ttlSeconds":-9223372036854775809}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z","ttlSeconds":null}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07 09:00:00"}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z","holdId":"` + sixHold + `"}`,
	`{"serviceId":"{` + sixSvc + `}","startTime":"2030-02-30T09:00:00Z","staffMemberId":7}`,
	`{"serviceId":"` + sixSvc + `","serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z"}`,
	`{"startTime":"2030-01-07T09:00:00Z"}`,
	`{"serviceId":"00000000-0000-0000-0000-000000000000","startTime":"0001-01-01T00:00:00Z"}`,
	`{"serviceId":"\u0066` + sixSvc[1:] + `","startTime":"2030-01-07T09:00:00\u005a"}`,
	`{"serviceId":"` + sixSvc + `","startTime":"9999-12-31T23:59:59.999Z","ttlSeconds":1800}`,
	`{}`, ``, `[]`, `null`, `{"serviceId":"` + sixSvc + `"} x`,
}

var sixHoldRoots = []string{"serviceId", "startTime", "staffMemberId", "ttlSeconds"}

// FuzzHoldBody fuzzes the POST /holds body decoder.
func FuzzHoldBody(f *testing.F) {
	for _, b := range sixHoldSeeds {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := decodeHold(body)
		sixCheckRefusal(t, err, body, sixHoldRoots...)
		if err != nil {
			return
		}
		m := sixMembers(t, body)
		if svc := sixUUID(t, m["serviceId"]); in.ServiceID != svc {
			t.Fatalf("serviceId %s read as %s", m["serviceId"], in.ServiceID)
		}
		// uuid.Nil and the zero time pass only when the body spells them.
		if start := sixTime(t, m["startTime"]); !in.Start.Equal(start) || in.Start.IsZero() != start.IsZero() {
			t.Fatalf("startTime %s read as %v", m["startTime"], in.Start)
		}
		if !sixSameUUID(in.StaffID, sixNullUUID(t, m, "staffMemberId")) {
			t.Fatalf("staffMemberId %s read as %v", m["staffMemberId"], in.StaffID)
		}
		if in.TTL < 30*time.Second || in.TTL > 1800*time.Second || in.TTL%time.Second != 0 {
			t.Fatalf("TTL %v", in.TTL)
		}
		wantTTL := model.HoldDefaultTTL
		if raw, ok := m["ttlSeconds"]; ok {
			n, err := strconv.Atoi(string(raw))
			if err != nil {
				t.Fatalf("ttlSeconds %s accepted: %v", raw, err)
			}
			wantTTL = time.Duration(n) * time.Second
		}
		if in.TTL != wantTTL {
			t.Fatalf("ttlSeconds %s read as %v", m["ttlSeconds"], in.TTL)
		}
		sixRoundTrip(t, body, map[string]any{"serviceId": in.ServiceID.String(), "startTime": sixEncodeTime(in.Start),
			"staffMemberId": sixEncodeNullUUID(in.StaffID), "ttlSeconds": int(in.TTL / time.Second)}, in, decodeHold)
	})
}

// ----- POST /api/v1/waitlist-entries -----

const sixCustomer = `"customer":{"firstName":"Eva","lastName":"de Vries","email":" eva@example.com ","phone":"+31 6 1234 5678"}`

var sixEntrySeeds = []string{
	`{"serviceId":"` + sixSvc + `","from":"2030-01-01T00:00:00Z","to":"2030-01-08T00:00:00Z",` + sixCustomer + `}`,
	`{"serviceId":"` + sixSvc + `","staffMemberId":"` + sixStaff + `","from":"2030-01-01T00:00:00Z","to":"2030-02-01T00:00:00Z","customer":{"firstName":"Bo","email":"bo@example.com"}}`,
	`{"serviceId":"` + sixSvc + `","staffMemberId":null,"from":"2030-01-01T00:00:00Z","to":"2030-02-01T00:00:00.001Z","customer":{"firstName":"Bo","email":"bo@example.com"}}`,
	`{"serviceId":"` + sixSvc + `","from":"2030-01-08T00:00:00Z","to":"2030-01-01T00:00:00Z","customer":{"firstName":"Bo","email":"bo@example.com"}}`,
	`{"serviceId":"` + sixSvc + `","from":"2030-01-01T12:00:00+14:00","to":"2030-01-01T12:00:00-12:00","customer":{"firstName":"Bo","email":"bo@example.com"}}`,
	`{"serviceId":"` + sixSvc + `","from":"2030-01-01T00:00:00Z","to":"2030-01-01T00:00:00Z","customer":{"firstName":"Bo","email":"bo@example.com"}}`,
	`{"serviceId":"` + sixSvc + `","from":"0001-01-01T00:00:00Z","to":"9999-12-31T23:59:59Z","customer":{"firstName":"Bo","email":"bo@example.com"}}`,
	`{"serviceId":"` + sixSvc + `","from":"2030-01-01T00:00:00Z","to":"2030-01-02T00:00:00Z","customer":{"firstName":" ","email":"not-an-email","x":1}}`,
	`{"serviceId":"` + sixSvc + `","from":"2030-01-01T00:00:00Z","to":"2030-01-02T00:00:00Z","customer":{"firstName":"Bo","email":""}}`,
	`{"serviceId":"` + sixSvc + `","from":"2030-01-01","to":null,"customer":"Bo"}`,
	`{"serviceId":"` + sixSvc + `","from":"2030-01-01T00:00:00Z","to":"2030-01-02T00:00:00Z","customer":{"firstName":"Bo","email":"bo@example.com"},"status":"waiting"}`,
	`{"from":"2030-01-01T00:00:00Z","from":"2030-01-01T00:00:00Z"}`,
	`{}`, ``, `[1]`,
}

var sixEntryRoots = []string{"serviceId", "staffMemberId", "from", "to", "customer"}

// FuzzEntryBody fuzzes the POST /waitlist-entries body decoder.
func FuzzEntryBody(f *testing.F) {
	for _, b := range sixEntrySeeds {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := decodeEntry(body)
		sixCheckRefusal(t, err, body, sixEntryRoots...)
		if err != nil {
			return
		}
		m := sixMembers(t, body)
		if svc := sixUUID(t, m["serviceId"]); in.ServiceID != svc {
			t.Fatalf("serviceId %s read as %s", m["serviceId"], in.ServiceID)
		}
		if !sixSameUUID(in.StaffID, sixNullUUID(t, m, "staffMemberId")) {
			t.Fatalf("staffMemberId %s read as %v", m["staffMemberId"], in.StaffID)
		}
		if from := sixTime(t, m["from"]); !in.From.Equal(from) {
			t.Fatalf("from %s read as %v", m["from"], in.From)
		}
		if to := sixTime(t, m["to"]); !in.To.Equal(to) {
			t.Fatalf("to %s read as %v", m["to"], in.To)
		}
		if in.From.After(in.To) || in.To.Sub(in.From) > 31*24*time.Hour {
			t.Fatalf("accepted the window %v to %v", in.From, in.To)
		}
		c := in.Customer
		switch {
		case c.Email == "" || !input.ValidEmail(c.Email) || c.Email != strings.TrimSpace(c.Email):
			t.Fatalf("accepted email %q", c.Email)
		case strings.TrimSpace(c.FirstName) == "" || utf8.RuneCountInString(c.FirstName) > maxName:
			t.Fatalf("accepted firstName %q", c.FirstName)
		case utf8.RuneCountInString(c.LastName) > maxName || utf8.RuneCountInString(c.Phone) > maxPhone:
			t.Fatalf("accepted an overlong lastName or phone: %+v", c)
		}
		sixRoundTrip(t, body, map[string]any{"serviceId": in.ServiceID.String(), "staffMemberId": sixEncodeNullUUID(in.StaffID),
			"from": sixEncodeTime(in.From), "to": sixEncodeTime(in.To), "customer": sixEncodePerson(in.Customer)}, in, decodeEntry)
	})
}

// ----- POST /api/v1/availability/check -----

// sixStarts is a startTimes array of n starts, a quarter of an hour apart.
func sixStarts(n int) string {
	parts := make([]string, n)
	base := time.Date(2030, 1, 7, 9, 0, 0, 0, time.UTC)
	for i := range parts {
		parts[i] = strconv.Quote(base.Add(time.Duration(i) * 15 * time.Minute).Format(time.RFC3339))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

var sixCheckSeeds = []string{
	`{"serviceId":"` + sixSvc + `","startTimes":["2030-01-07T09:00:00Z"]}`,
	`{"serviceId":"` + sixSvc + `","staffMemberId":"` + sixStaff + `","startTimes":["2030-01-07T09:00:00Z","2030-01-07T10:00:00+01:00","2030-01-07T09:00:00.5Z"]}`,
	`{"serviceId":"` + sixSvc + `","staffMemberId":null,"startTimes":` + sixStarts(100) + `}`,
	`{"serviceId":"` + sixSvc + `","startTimes":` + sixStarts(101) + `}`,
	`{"serviceId":"` + sixSvc + `","startTimes":[]}`,
	`{"serviceId":"` + sixSvc + `","startTimes":["2030-01-07T09:00:00Z","2030-01-07T09:15:00Z","2030-01-07T09:30:00Z","2030-01-07 09:45"]}`,
	`{"serviceId":"` + sixSvc + `","startTimes":[null,1,true,{},[],"x"]}`,
	`{"serviceId":"` + sixSvc + `","startTimes":"2030-01-07T09:00:00Z"}`,
	`{"serviceId":"` + sixSvc + `","startTimes":null}`,
	`{"serviceId":"` + sixSvc + `","startTimes":["2030-01-07T09:00:00Z"],"ttlSeconds":30}`,
	`{"startTimes":["2030-01-07T09:00:00Z","2030-01-07T09:00:00Z"]}`,
	`{}`, ``, `{"serviceId":`,
}

var sixCheckRoots = []string{"serviceId", "staffMemberId", "startTimes"}

// FuzzCheckBody fuzzes the POST /availability/check body decoder.
func FuzzCheckBody(f *testing.F) {
	for _, b := range sixCheckSeeds {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := decodeCheck(body)
		sixCheckRefusal(t, err, body, sixCheckRoots...)
		if err != nil {
			return
		}
		if len(in.Starts) < 1 || len(in.Starts) > 100 {
			t.Fatalf("accepted %d start times", len(in.Starts))
		}
		m := sixMembers(t, body)
		if svc := sixUUID(t, m["serviceId"]); in.ServiceID != svc {
			t.Fatalf("serviceId %s read as %s", m["serviceId"], in.ServiceID)
		}
		if !sixSameUUID(in.StaffID, sixNullUUID(t, m, "staffMemberId")) {
			t.Fatalf("staffMemberId %s read as %v", m["staffMemberId"], in.StaffID)
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(m["startTimes"], &raws); err != nil || len(raws) != len(in.Starts) {
			t.Fatalf("startTimes %s read as %d starts (%v)", m["startTimes"], len(in.Starts), err)
		}
		starts := make([]string, len(in.Starts))
		for i, raw := range raws {
			if ts := sixTime(t, raw); !in.Starts[i].Equal(ts) || in.Starts[i].IsZero() != ts.IsZero() {
				t.Fatalf("startTimes.%d %s read as %v", i, raw, in.Starts[i])
			}
			starts[i] = sixEncodeTime(in.Starts[i])
		}
		sixRoundTrip(t, body, map[string]any{"serviceId": in.ServiceID.String(), "staffMemberId": sixEncodeNullUUID(in.StaffID),
			"startTimes": starts}, in, decodeCheck)
	})
}

// ----- POST /api/v1/appointments with holdId -----

const sixCreateCustomer = `"customer":{"firstName":"Eva","email":"eva@example.com"}`

var sixCreateHoldSeeds = []string{
	`{"holdId":"` + sixHold + `",` + sixCreateCustomer + `}`,
	`{"holdId":"` + strings.ToUpper(sixHold) + `","customer":{"firstName":"Eva","lastName":"de Vries","email":" eva@example.com ","phone":"0612345678"},"notes":"Window seat.","staffLocked":true,"enforceBookingRules":false}`,
	`{"holdId":"` + sixHold + `",` + sixCreateCustomer + `,"notes":null}`,
	`{"holdId":"` + sixHold + `","serviceId":"` + sixSvc + `",` + sixCreateCustomer + `}`,
	`{"holdId":"` + sixHold + `","startTime":"2030-01-07T09:00:00Z","staffMemberId":null,` + sixCreateCustomer + `}`,
	`{"holdId":"` + sixHold + `","staffMemberId":"` + sixStaff + `",` + sixCreateCustomer + `}`,
	`{"holdId":null,` + sixCreateCustomer + `}`,
	`{"holdId":"","customer":{}}`,
	`{"holdId":"not-a-uuid",` + sixCreateCustomer + `}`,
	`{"holdId":"` + sixHold + `","holdId":"` + sixHold + `",` + sixCreateCustomer + `}`,
	`{"holdId":"` + sixHold + `"}`,
	`{"hold\u0049d":"` + sixHold + `",` + sixCreateCustomer + `}`,
	`{"HoldId":"` + sixHold + `",` + sixCreateCustomer + `}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z",` + sixCreateCustomer + `}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z","staffMemberId":"` + sixStaff + `",` + sixCreateCustomer + `,"staffLocked":true}`,
}

var sixCreateRoots = []string{"holdId", "serviceId", "startTime", "staffMemberId", "customer", "staffLocked",
	"enforceBookingRules", "notes"}

// FuzzCreateWithHold fuzzes decodeCreate from bodies that book a hold: it
// reads holdId exactly when the body has that member, and then nothing of
// the footprint the hold fixes.
func FuzzCreateWithHold(f *testing.F) {
	for _, b := range sixCreateHoldSeeds {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := decodeCreate(body)
		sixCheckRefusal(t, err, body, sixCreateRoots...)
		if err != nil {
			return
		}
		m := sixMembers(t, body)
		raw, held := m["holdId"]
		if (in.HoldID != nil) != held {
			t.Fatalf("body has holdId: %v, decoded HoldID %v", held, in.HoldID)
		}
		enc := map[string]any{}
		if held {
			if *in.HoldID != sixUUID(t, raw) {
				t.Fatalf("holdId %s read as %s", raw, in.HoldID)
			}
			if in.ServiceID != uuid.Nil || !in.Start.IsZero() || in.StaffID != nil {
				t.Fatalf("a booking with a hold read a footprint: %+v", in)
			}
			for _, k := range []string{"serviceId", "startTime", "staffMemberId"} {
				if _, ok := m[k]; ok {
					t.Fatalf("a booking with a hold accepted %s", k)
				}
			}
			enc["holdId"] = in.HoldID.String()
		} else {
			if svc := sixUUID(t, m["serviceId"]); in.ServiceID != svc {
				t.Fatalf("serviceId %s read as %s", m["serviceId"], in.ServiceID)
			}
			if start := sixTime(t, m["startTime"]); !in.Start.Equal(start) || in.Start.IsZero() != start.IsZero() {
				t.Fatalf("startTime %s read as %v", m["startTime"], in.Start)
			}
			if !sixSameUUID(in.StaffID, sixNullUUID(t, m, "staffMemberId")) {
				t.Fatalf("staffMemberId %s read as %v", m["staffMemberId"], in.StaffID)
			}
			enc["serviceId"], enc["startTime"], enc["staffMemberId"] = in.ServiceID.String(), sixEncodeTime(in.Start), sixEncodeNullUUID(in.StaffID)
		}
		c := in.Customer
		switch {
		case !input.ValidEmail(c.Email) || c.Email != strings.TrimSpace(c.Email):
			t.Fatalf("accepted email %q", c.Email)
		case strings.TrimSpace(c.FirstName) == "":
			t.Fatalf("accepted firstName %q", c.FirstName)
		}
		enc["customer"] = sixEncodePerson(model.Person{FirstName: c.FirstName, LastName: c.LastName, Email: c.Email, Phone: c.Phone})
		enc["staffLocked"], enc["enforceBookingRules"] = in.StaffLocked, in.Enforce
		if in.Notes != nil {
			enc["notes"] = *in.Notes
		} else {
			enc["notes"] = nil
		}
		sixRoundTrip(t, body, enc, in, decodeCreate)
	})
}

// ----- If-Match -----

// sixTag is one entity tag ifMatch accepts, as a pattern: optionally weak,
// optionally quoted, a decimal strconv.Atoi reads (sign allowed).
var sixTag = regexp.MustCompile(`^(?:W/)?(?:"([+-]?[0-9]+)"|([+-]?[0-9]+))$`)

// sixIfMatch is what ifMatch should make of the header value h as the
// request holds it (nil: absent): the versions, and whether it is refused.
// The list elements (split at every comma, trimmed) are read in order: a
// "*" ends the reading with nil (any version); an element that is not a tag
// of a version 1 or more, in at most 10 characters, refuses the header.
func sixIfMatch(h []byte) (want []int, refused bool) {
	if h == nil {
		return nil, false
	}
	for _, part := range strings.Split(string(h), ",") {
		part = strings.TrimSpace(part)
		if part == "*" {
			return nil, false
		}
		g := sixTag.FindStringSubmatch(part)
		if g == nil {
			return nil, true
		}
		digits := g[1] + g[2]
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || v < 1 || len(digits) > 10 {
			return nil, true
		}
		want = append(want, int(v))
	}
	return want, false
}

// sixRunIfMatch calls ifMatch on a request with If-Match set to v, or
// without it when absent.
func sixRunIfMatch(v string, absent bool) (got []int, errs *input.Errors, h []byte) {
	var ctx fasthttp.RequestCtx
	if !absent {
		ctx.Request.Header.Set("If-Match", v)
	}
	errs = &input.Errors{}
	got = ifMatch(&ctx, errs)
	return got, errs, ctx.Request.Header.Peek("If-Match")
}

// sixCheckIfMatchErrs checks a refusal of If-Match: one entry, on the
// header, reason invalid, a fixed message.
func sixCheckIfMatchErrs(t *testing.T, errs *input.Errors, v string) {
	t.Helper()
	if errs.Len() != 1 {
		t.Fatalf("%q: %d problems recorded, want 1: %+v", v, errs.Len(), errs.List())
	}
	fl := errs.List()[0]
	checkField(t, fl, []byte(v))
	if fl.Path != "If-Match" || fl.Reason != problem.Invalid {
		t.Fatalf("%q: refused with %+v", v, fl)
	}
	checkDecodeError(t, errs.Err(), []byte(v))
}

var sixIfMatchSeeds = []string{
	`"3"`, `W/"3"`, `3`, `"1", "2"`, `*`, `abc`, `"0"`, `""`, ``, ` `, `"1", *`, `abc, *`, `*, abc`, ` * `,
	`"7" `, `"1",`, `,"1"`, `"1",,"2"`, `W/W/"3"`, `"3`, `+5`, `-1`, `"+5"`, `"9999999999"`, `"10000000000"`,
	`"2147483648"`, `0000000001`, `00000000001`, `"W/3"`, `W/3`, `w/"3"`, `"*"`, `W/*`, "\"3\"\t,\t\"4\"",
	"\u00a0\"3\"\u00a0", "\"\u0663\"", "\xff", `"1" "2"`, `"1";"2"`,
}

// FuzzIfMatch fuzzes the If-Match reader. Besides sixIfMatch's reading:
// the result is nil or lists versions 1 or more, one per element, and a
// refusal is exactly one well-formed entry on the header.
func FuzzIfMatch(f *testing.F) {
	for _, s := range sixIfMatchSeeds {
		f.Add(s, false)
	}
	f.Add("", true)
	f.Fuzz(func(t *testing.T, v string, absent bool) {
		got, errs, h := sixRunIfMatch(v, absent)
		want, refused := sixIfMatch(h)
		if refused != !errs.Empty() || !reflect.DeepEqual(got, want) {
			t.Fatalf("If-Match %q (as held: %q, absent %v): got %v, %+v; want %v, refused %v",
				v, h, absent, got, errs.List(), want, refused)
		}
		if absent && (got != nil || !errs.Empty()) {
			t.Fatalf("no If-Match read as %v %+v", got, errs.List())
		}
		if refused {
			sixCheckIfMatchErrs(t, errs, v)
			return
		}
		if got != nil && len(got) != bytes.Count(h, []byte{','})+1 {
			t.Fatalf("If-Match %q read as %v", h, got)
		}
		for _, n := range got {
			if n < 1 || !strings.Contains(string(h), strconv.Itoa(n)) {
				t.Fatalf("If-Match %q read as %v", h, got)
			}
		}
	})
}

// ----- Table tests -----

// sixWant is the expected outcome of a decoder: accepted (no fields) or
// refused with exactly these entries, as "path reason" or "path reason
// limit".
type sixWant []string

func sixFields(err error) sixWant {
	if err == nil {
		return nil
	}
	var out sixWant
	for _, f := range problem.As(err).Fields {
		s := f.Path + " " + string(f.Reason)
		if f.Limit != nil {
			s += " " + strconv.FormatInt(*f.Limit, 10)
		}
		out = append(out, s)
	}
	return out
}

func sixExpect(t *testing.T, name string, body string, err error, want sixWant) {
	t.Helper()
	checkDecodeError(t, err, []byte(body))
	if got := sixFields(err); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: refused with %q, want %q (body %s)", name, got, want, body)
	}
}

func TestDecodeHoldCases(t *testing.T) {
	start := time.Date(2030, 1, 7, 9, 0, 0, 0, time.UTC)
	staff := uuid.MustParse(sixStaff)
	svc := `"serviceId":"` + sixSvc + `"`
	at := `"startTime":"2030-01-07T10:00:00+01:00"`
	for _, c := range []struct {
		name, body string
		want       sixWant
		ttl        time.Duration
		staff      *uuid.UUID
	}{
		{"defaults", `{` + svc + `,` + at + `}`, nil, 300 * time.Second, nil},
		{"ttl 29", `{` + svc + `,` + at + `,"ttlSeconds":29}`, sixWant{"ttlSeconds too_small 30"}, 0, nil},
		{"ttl 30", `{` + svc + `,` + at + `,"ttlSeconds":30}`, nil, 30 * time.Second, nil},
		{"ttl 1800", `{` + svc + `,` + at + `,"ttlSeconds":1800}`, nil, 1800 * time.Second, nil},
		{"ttl 1801", `{` + svc + `,` + at + `,"ttlSeconds":1801}`, sixWant{"ttlSeconds too_large 1800"}, 0, nil},
		{"ttl 30.5", `{` + svc + `,` + at + `,"ttlSeconds":30.5}`, sixWant{"ttlSeconds invalid"}, 0, nil},
		{"ttl null", `{` + svc + `,` + at + `,"ttlSeconds":null}`, sixWant{"ttlSeconds invalid"}, 0, nil},
		{"no serviceId", `{` + at + `}`, sixWant{"serviceId required"}, 0, nil},
		{"no startTime", `{` + svc + `}`, sixWant{"startTime required"}, 0, nil},
		{"bad startTime", `{` + svc + `,"startTime":"2030-01-07T10:00:00"}`, sixWant{"startTime invalid_date"}, 0, nil},
		{"staff null", `{` + svc + `,` + at + `,"staffMemberId":null}`, nil, 300 * time.Second, nil},
		{"staff", `{` + svc + `,` + at + `,"staffMemberId":"` + sixStaff + `"}`, nil, 300 * time.Second, &staff},
		{"staff bad", `{` + svc + `,` + at + `,"staffMemberId":"x"}`, sixWant{"staffMemberId invalid_format"}, 0, nil},
		{"unknown member", `{` + svc + `,` + at + `,"customer":{}}`, sixWant{"customer unknown_field"}, 0, nil},
		{"holdId is unknown", `{` + svc + `,` + at + `,"holdId":"` + sixHold + `"}`, sixWant{"holdId unknown_field"}, 0, nil},
		{"empty", ``, sixWant{"(body) required"}, 0, nil},
	} {
		in, err := decodeHold([]byte(c.body))
		sixExpect(t, c.name, c.body, err, c.want)
		if err != nil || c.want != nil {
			continue
		}
		if in.ServiceID.String() != sixSvc || !in.Start.Equal(start) || in.TTL != c.ttl || !sixSameUUID(in.StaffID, c.staff) {
			t.Errorf("%s: decoded %+v", c.name, *in)
		}
	}
}

func TestDecodeEntryCases(t *testing.T) {
	from := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	cu := `"customer":{"firstName":"Eva","email":" eva@example.com "}`
	body := func(from, to string) string {
		return `{"serviceId":"` + sixSvc + `","from":"` + from + `","to":"` + to + `",` + cu + `}`
	}
	for _, c := range []struct {
		name, body string
		want       sixWant
		to         time.Time
	}{
		{"31 days", body("2030-01-01T00:00:00Z", "2030-02-01T00:00:00Z"), nil, from.Add(31 * 24 * time.Hour)},
		{"31 days in offsets", body("2030-01-01T01:00:00+01:00", "2030-01-31T23:00:00-01:00"), nil, from.Add(31 * 24 * time.Hour)},
		{"31 days and 1 ms", body("2030-01-01T00:00:00Z", "2030-02-01T00:00:00.001Z"), sixWant{"to too_large 31"}, time.Time{}},
		{"one instant", body("2030-01-01T00:00:00Z", "2030-01-01T00:00:00Z"), nil, from},
		{"from after to", body("2030-01-01T00:00:00.001Z", "2030-01-01T00:00:00Z"), sixWant{"to invalid"}, time.Time{}},
		{"from after to, far", body("2030-03-01T00:00:00Z", "2030-01-01T00:00:00Z"), sixWant{"to invalid"}, time.Time{}},
		{"bad to", body("2030-01-01T00:00:00Z", "2030-02-01"), sixWant{"to invalid_date"}, time.Time{}},
		{"no customer", `{"serviceId":"` + sixSvc + `","from":"2030-01-01T00:00:00Z","to":"2030-01-02T00:00:00Z"}`,
			sixWant{"customer required"}, time.Time{}},
		{"no email", `{"serviceId":"` + sixSvc + `","from":"2030-01-01T00:00:00Z","to":"2030-01-02T00:00:00Z","customer":{"firstName":"Eva","email":" "}}`,
			sixWant{"customer.email required"}, time.Time{}},
		{"unknown members", `{"serviceId":"` + sixSvc + `","from":"2030-01-01T00:00:00Z","to":"2030-01-02T00:00:00Z",` +
			`"customer":{"firstName":"Eva","email":"e@x.io","id":1},"ttlSeconds":30}`,
			sixWant{"customer.id unknown_field", "ttlSeconds unknown_field"}, time.Time{}},
	} {
		in, err := decodeEntry([]byte(c.body))
		sixExpect(t, c.name, c.body, err, c.want)
		if err != nil || c.want != nil {
			continue
		}
		if in.ServiceID.String() != sixSvc || !in.From.Equal(from) || !in.To.Equal(c.to) || in.StaffID != nil ||
			in.Customer != (model.Person{FirstName: "Eva", Email: "eva@example.com"}) {
			t.Errorf("%s: decoded %+v", c.name, *in)
		}
	}
}

func TestDecodeCheckCases(t *testing.T) {
	body := func(starts string) string { return `{"serviceId":"` + sixSvc + `","startTimes":` + starts + `}` }
	bad3 := `["2030-01-07T09:00:00Z","2030-01-07T09:15:00Z","2030-01-07T09:30:00Z","2030-01-07T09:45:00","2030-01-07T10:00:00Z"]`
	for _, c := range []struct {
		name, body string
		want       sixWant
		n          int
	}{
		{"one", body(sixStarts(1)), nil, 1},
		{"100", body(sixStarts(100)), nil, 100},
		{"0", body(`[]`), sixWant{"startTimes too_small 1"}, 0},
		{"101", body(sixStarts(101)), sixWant{"startTimes too_large 100"}, 0},
		{"bad at 3", body(bad3), sixWant{"startTimes.3 invalid_date"}, 0},
		{"not an array", body(`"2030-01-07T09:00:00Z"`), sixWant{"startTimes invalid"}, 0},
		{"missing", `{"serviceId":"` + sixSvc + `"}`, sixWant{"startTimes required"}, 0},
		{"staff null", `{"serviceId":"` + sixSvc + `","staffMemberId":null,"startTimes":` + sixStarts(2) + `}`, nil, 2},
	} {
		in, err := decodeCheck([]byte(c.body))
		sixExpect(t, c.name, c.body, err, c.want)
		if err != nil || c.want != nil {
			continue
		}
		if in.ServiceID.String() != sixSvc || in.StaffID != nil || len(in.Starts) != c.n {
			t.Fatalf("%s: decoded %+v", c.name, *in)
		}
		for i, s := range in.Starts {
			if want := time.Date(2030, 1, 7, 9, 15*i, 0, 0, time.UTC); !s.Equal(want) {
				t.Errorf("%s: start %d is %v, want %v", c.name, i, s, want)
			}
		}
	}
}

func TestDecodeCreateHoldCases(t *testing.T) {
	hold := `"holdId":"` + sixHold + `"`
	for _, c := range []struct {
		name, body string
		want       sixWant
	}{
		{"hold", `{` + hold + `,` + sixCreateCustomer + `,"notes":"Hi."}`, nil},
		{"hold and serviceId", `{` + hold + `,"serviceId":"` + sixSvc + `",` + sixCreateCustomer + `}`,
			sixWant{"serviceId unknown_field"}},
		{"hold and footprint", `{` + hold + `,"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z","staffMemberId":null,` + sixCreateCustomer + `}`,
			sixWant{"serviceId unknown_field", "staffMemberId unknown_field", "startTime unknown_field"}},
		{"hold null", `{"holdId":null,` + sixCreateCustomer + `}`, sixWant{"holdId required"}},
		{"hold bad", `{"holdId":"x",` + sixCreateCustomer + `}`, sixWant{"holdId invalid_format"}},
		{"hold without customer", `{` + hold + `}`, sixWant{"customer required"}},
	} {
		in, err := decodeCreate([]byte(c.body))
		sixExpect(t, c.name, c.body, err, c.want)
		if err != nil || c.want != nil {
			continue
		}
		if in.HoldID == nil || in.HoldID.String() != sixHold || in.ServiceID != uuid.Nil || !in.Start.IsZero() ||
			in.StaffID != nil || in.Customer.Email != "eva@example.com" || !in.Enforce || in.Notes == nil || *in.Notes != "Hi." {
			t.Errorf("%s: decoded %+v", c.name, *in)
		}
	}
	// Without holdId it reads the footprint as before, and no HoldID.
	in, err := decodeCreate([]byte(`{"serviceId":"` + sixSvc + `","startTime":"2030-01-07T09:00:00Z",` + sixCreateCustomer + `}`))
	if err != nil || in.HoldID != nil || in.ServiceID.String() != sixSvc {
		t.Errorf("booking without a hold: %+v, %v", in, err)
	}
}

func TestIfMatchCases(t *testing.T) {
	for _, c := range []struct {
		value   string
		absent  bool
		want    []int
		refused bool
	}{
		{value: "", absent: true},
		{value: `"3"`, want: []int{3}},
		{value: `W/"3"`, want: []int{3}},
		{value: `3`, want: []int{3}},
		{value: `"1", "2"`, want: []int{1, 2}},
		{value: ` "1" ,W/"12",7 `, want: []int{1, 12, 7}},
		{value: `*`},
		{value: ` * `},
		{value: `"1", *`},
		{value: `abc`, refused: true},
		{value: `abc, *`, refused: true},
		{value: `"0"`, refused: true},
		{value: `-1`, refused: true},
		{value: `""`, refused: true},
		{value: `"*"`, refused: true},
		{value: `"3`, refused: true},
		{value: `"9999999999"`, want: []int{9999999999}},
		{value: `"10000000000"`, refused: true},
		// As implemented, an empty value or an empty list element is
		// refused (RFC 9110 §5.6.1 would have empty elements ignored).
		{value: ``, refused: true},
		{value: `"1",`, refused: true},
	} {
		got, errs, _ := sixRunIfMatch(c.value, c.absent)
		if !reflect.DeepEqual(got, c.want) || errs.Empty() == c.refused {
			t.Errorf("If-Match %q (absent %v): got %v, %+v; want %v, refused %v", c.value, c.absent, got, errs.List(), c.want, c.refused)
			continue
		}
		if c.refused {
			sixCheckIfMatchErrs(t, errs, c.value)
		}
	}
}

// FuzzFeedBody fuzzes the POST /calendar-feeds body decoder (decisions
// §8): a refusal names the members, and an accepted body says what it
// read.
func FuzzFeedBody(f *testing.F) {
	for _, b := range []string{`{}`, `{"staffMemberId":null}`, `{"staffMemberId":"5da640e0-c0df-50e8-88a4-59e25439bd74","includeCustomerNames":true}`,
		`{"includeCustomerNames":"yes"}`, `{"staffMemberId":7}`, `[]`, `{"x":1}`, `{"staffMemberId":"5da640e0-c0df-50e8-88a4-59e25439bd74","staffMemberId":null}`} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := decodeFeed(body)
		sixCheckRefusal(t, err, body, "staffMemberId", "includeCustomerNames")
		if err != nil {
			return
		}
		m := sixMembers(t, body)
		if !sixSameUUID(in.StaffID, sixNullUUID(t, m, "staffMemberId")) {
			t.Fatalf("staffMemberId %s read as %v", m["staffMemberId"], in.StaffID)
		}
		if want := string(m["includeCustomerNames"]) == "true"; in.IncludeCustomerNames != want {
			t.Fatalf("includeCustomerNames %s read as %v", m["includeCustomerNames"], in.IncludeCustomerNames)
		}
	})
}

// FuzzSourceBody fuzzes the calendar-source POST body decoder (decisions
// §8): a refusal names the members; an accepted body has an https:// or
// webcal:// URL (the scheme in any case), as sent, and a refresh of 5 to 1440 minutes, 15 when
// absent.
func FuzzSourceBody(f *testing.F) {
	for _, b := range []string{`{"url":"https://calendar.example.com/a.ics"}`, `{"url":"webcal://x.example/b.ics","refreshMinutes":60}`,
		`{"url":"http://x.example/a.ics"}`, `{"url":"https://x.example:8443/a.ics"}`, `{"refreshMinutes":4}`, `{"url":7}`,
		`{"url":"https://x.example/a.ics","refreshMinutes":1440.5}`, `[]`, `{"url":"https://x.example/a.ics","x":1}`} {
		f.Add([]byte(b))
	}
	s := &Server{}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := s.decodeSource(body)
		sixCheckRefusal(t, err, body, "url", "refreshMinutes")
		if err != nil {
			return
		}
		m := sixMembers(t, body)
		var url string
		if json.Unmarshal(m["url"], &url) != nil || url != in.URL {
			t.Fatalf("url %s read as %q", m["url"], in.URL)
		}
		// A scheme is case-insensitive (RFC 3986 §3.1): "hTtps://" is https.
		if lower := strings.ToLower(in.URL); !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "webcal://") {
			t.Fatalf("url %q accepted", in.URL)
		}
		if in.RefreshMinutes < 5 || in.RefreshMinutes > 1440 || m["refreshMinutes"] == nil && in.RefreshMinutes != 15 {
			t.Fatalf("refreshMinutes %s read as %d", m["refreshMinutes"], in.RefreshMinutes)
		}
	})
}

// FuzzBusyBody fuzzes the busy-time PUT body decoder (decisions §8): a
// refusal names the members; an accepted body has a window of at most
// 400 days and every interval, in order, inside it and not empty.
func FuzzBusyBody(f *testing.F) {
	for _, b := range []string{
		`{"from":"2026-12-08T08:00:00Z","to":"2026-12-08T18:00:00Z","busy":[]}`,
		`{"from":"2026-12-08T08:00:00Z","to":"2026-12-08T18:00:00Z","busy":[{"start":"2026-12-08T09:00:00Z","end":"2026-12-08T10:00:00.5Z","externalId":"e1","title":null}]}`,
		`{"from":"2026-12-08T08:00:00Z","to":"2026-12-08T07:00:00Z","busy":[]}`,
		`{"from":"2026-12-08T08:00:00Z","to":"2026-12-08T18:00:00Z","busy":[{"start":"2026-12-08T19:00:00Z","end":"2026-12-08T20:00:00Z"}]}`,
		`{"from":"2026-12-08T08:00:00Z","to":"2026-12-08T18:00:00Z","busy":[{"start":"2026-12-08T09:00:00Z"}],"x":1}`,
		`{"busy":{}}`, `[]`, `{"from":1}`,
	} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := decodeBusy(body)
		sixCheckRefusal(t, err, body, "from", "to", "busy")
		if err != nil {
			return
		}
		if !in.To.After(in.From) || in.To.Sub(in.From) > maxBusyWindow {
			t.Fatalf("window [%v, %v) accepted", in.From, in.To)
		}
		m := sixMembers(t, body)
		var raw []json.RawMessage
		if err := json.Unmarshal(m["busy"], &raw); err != nil || len(raw) != len(in.Busy) {
			t.Fatalf("busy %s read as %d intervals", m["busy"], len(in.Busy))
		}
		for i, b := range in.Busy {
			if !b.End.After(b.Start) || b.Start.Before(in.From) || b.End.After(in.To) {
				t.Fatalf("interval %d [%v, %v) accepted in [%v, %v)", i, b.Start, b.End, in.From, in.To)
			}
		}
	})
}
