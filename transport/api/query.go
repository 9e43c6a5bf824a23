package api

import (
	"strings"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

// query is a request's query string after the strict checks of api-v1 §4.1
// and decisions §4: an unknown parameter is unknown_field, and a repeated or
// empty one is refused by name. Problems accumulate; err reports them all.
//
// A query lives on its handler's stack, and its values share one string:
// the availability read, whose query is most of its request, allocated the
// struct and each value apart.
type query struct {
	vals [maxParams]param // the accepted parameters given, each once, in order
	n    int
	errs []problem.Field
}

// maxParams bounds the parameters an endpoint accepts: each is kept at
// most once.
const maxParams = 10

// param is one accepted parameter. Its name is the caller's allowed
// string, so naming it costs nothing.
type param struct{ name, value string }

// parseQuery checks the request's query against the allowed names.
func parseQuery(ctx *fasthttp.RequestCtx, allowed ...string) query {
	if len(allowed) > maxParams {
		panic("api: too many query parameters allowed")
	}
	var q query
	var spans [maxParams]struct{ from, to int }
	var arena [256]byte
	text := arena[:0]
	for k, v := range ctx.QueryArgs().All() {
		if len(k) == 0 {
			// "?=1": nothing to name, so the whole query is refused.
			q.add("(query)", problem.UnknownField, "A query parameter has no name.")
			continue
		}
		name := allowedName(allowed, k)
		switch {
		case name == "":
			q.add(string(k), problem.UnknownField, "This query parameter is not accepted here.")
		case q.has(name):
			q.add(name, problem.Invalid, "This query parameter must appear at most once.")
		default:
			if len(v) == 0 {
				q.add(name, problem.Required, "This query parameter must not be empty.")
			}
			spans[q.n].from = len(text)
			text = append(text, v...)
			spans[q.n].to = len(text)
			q.vals[q.n] = param{name: name}
			q.n++
		}
	}
	all := string(text)
	for i := range q.n {
		q.vals[i].value = all[spans[i].from:spans[i].to]
	}
	return q
}

// noQuery refuses any query parameter: for endpoints that take none.
func noQuery(ctx *fasthttp.RequestCtx) *problem.Error {
	q := parseQuery(ctx)
	return q.err()
}

// noBody refuses a body that is neither empty nor an empty object: for
// POSTs that take none (an object's members are each unknown_field).
func noBody(body []byte) error {
	if len(body) == 0 {
		return nil
	}
	var errs input.Errors
	if obj, ok := input.ParseObject(body, &errs); ok {
		obj.Done()
	}
	return errs.Err()
}

// allowedName returns the entry of allowed that equals k, or "".
func allowedName(allowed []string, k []byte) string {
	for _, a := range allowed {
		if a == string(k) {
			return a
		}
	}
	return ""
}

// has reports whether name was given, even empty or refused.
func (q *query) has(name string) bool {
	_, ok := q.get(name)
	return ok
}

func (q *query) get(name string) (string, bool) {
	for _, p := range q.vals[:q.n] {
		if p.name == name {
			return p.value, true
		}
	}
	return "", false
}

func (q *query) add(path string, r problem.Reason, msg string) {
	for _, f := range q.errs {
		if f.Path == path {
			return
		}
	}
	q.errs = append(q.errs, problem.Field{Path: path, Reason: r, Message: msg})
}

// err returns the accumulated problems as one VALIDATION_ERROR, or nil.
func (q *query) err() *problem.Error {
	if len(q.errs) == 0 {
		return nil
	}
	return problem.Fields(q.errs...)
}

// ok reports whether name was given and passed the generic checks.
func (q *query) ok(name string) (string, bool) {
	v, present := q.get(name)
	if !present || v == "" {
		return "", false
	}
	for _, f := range q.errs {
		if f.Path == name {
			return "", false
		}
	}
	return v, true
}

// limit returns the page size: 50 by default, 1 to 100, never clamped.
func (q *query) limit() int {
	v, ok := q.ok("limit")
	if !ok {
		return 50
	}
	neg := strings.HasPrefix(v, "-")
	digits := strings.TrimPrefix(v, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		q.add("limit", problem.InvalidFormat, "Must be a whole number from 1 to 100.")
		return 0
	}
	digits = strings.TrimLeft(digits, "0")
	switch {
	case neg || digits == "":
		q.errs = append(q.errs, problem.Bound("limit", problem.TooSmall, 1, "Must be at least 1."))
		return 0
	case len(digits) > 3 || atoi(digits) > 100:
		q.errs = append(q.errs, problem.Bound("limit", problem.TooLarge, 100, "Must be at most 100."))
		return 0
	}
	return atoi(digits)
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// uuidParam returns the UUID parameter name, if given and well formed.
func (q *query) uuidParam(name string) (uuid.UUID, bool) {
	v, ok := q.ok(name)
	if !ok {
		return uuid.UUID{}, false
	}
	id, err := uuid.Parse(v)
	if err != nil || len(v) != 36 {
		q.add(name, problem.InvalidFormat, "Must be a UUID.")
		return uuid.UUID{}, false
	}
	return id, true
}

// boolParam returns the boolean parameter name ("true" or "false").
func (q *query) boolParam(name string) (value, given bool) {
	v, ok := q.ok(name)
	if !ok {
		return false, false
	}
	switch v {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	q.add(name, problem.InvalidOption, "Must be true or false.")
	return false, false
}
