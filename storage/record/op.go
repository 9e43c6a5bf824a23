package record

import (
	"encoding/json"

	"github.com/slotd/slotd/actors/model"
)

// An idempotent answer's operation is written where records before it
// wrote the request's method and path: the method's code, then the path's.
// Every idempotent request was a POST, and model.Operations gives each
// operation its path's old code, so an operation is written as POST's code
// and its own, and both ages of record read back as the same operation.
// The two tables below are that old format's, frozen; append, never
// reorder.
var (
	legacyMethods = []string{"POST", "PATCH", "PUT", "DELETE", "GET"}
	legacyPaths   = []string{"/api/v1/appointments", "/api/v1/customers", "/api/v1/holds", "/api/v1/waitlist-entries"}
)

const legacyPost = 1 // legacyMethods' code of "POST"

func (e *w) op(op model.Operation) {
	if c, ok := model.Operations.Code(op); ok {
		e.u(legacyPost)
		e.u(uint64(c))
		return
	}
	// Not an operation of this version: a legacy request read back as the
	// text of its method and path (legacyOperation), kept as it was.
	e.u(0)
	e.str("")
	e.u(0)
	e.str(string(op))
}

func (d *r) op() model.Operation {
	method := d.enum(legacyMethods)
	code := d.u()
	if code == 0 {
		return legacyOperation(method, d.str())
	}
	if op, ok := model.Operations.Value(byte(code)); ok && method == "POST" && code <= 255 {
		return op
	}
	if code <= uint64(len(legacyPaths)) { // a path's code under another method
		return legacyOperation(method, legacyPaths[code-1])
	}
	d.fail()
	return ""
}

// legacyOperation is the operation of a request recorded by its method
// and path. A pair that was never an operation reads as its own text,
// which equals no operation of a new request: a repeat of the key is
// refused as reused, as it was before.
func legacyOperation(method, path string) model.Operation {
	if method == "POST" {
		for i, p := range legacyPaths {
			if p == path {
				if op, ok := model.Operations.Value(byte(i + 1)); ok {
					return op
				}
			}
		}
	}
	if method == "" {
		return model.Operation(path)
	}
	return model.Operation(method + " " + path)
}

// UnmarshalJSON reads an answer of either age: with its operation, or
// (written before operations) with the method and path of its request.
func (x *Idem) UnmarshalJSON(b []byte) error {
	type plain Idem
	var v struct {
		plain
		Method string `json:"method"`
		Path   string `json:"path"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*x = Idem(v.plain)
	if x.Op == "" && (v.Method != "" || v.Path != "") {
		x.Op = legacyOperation(v.Method, v.Path)
	}
	return nil
}
