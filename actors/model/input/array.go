package input

import (
	"time"

	"github.com/google/uuid"
)

// Array is a JSON array at a path. Elements have no Presence: they are
// there by definition, and null is simply the wrong type. Reading an index
// outside [0, Len) returns (zero, false) and records nothing. The zero
// Array has length 0.
type Array struct {
	d    *doc // nil for the zero Array
	i    int32
	errs *Errors
}

// Len is the number of elements.
func (a Array) Len() int {
	if a.d == nil {
		return 0
	}
	return int(a.d.nodes[a.i].n)
}

// Path is the array's dotted path.
func (a Array) Path() string {
	if a.d == nil {
		return ""
	}
	return a.d.path(a.i)
}

// PathOf is the dotted path of element i.
func (a Array) PathOf(i int) string { return indexPath(a.Path(), i) }

func (a Array) item(i int) value {
	if i < 0 || i >= a.Len() {
		return value{}
	}
	return value{a.d, a.d.children(a.i)[i]}
}

// Object reads element i as an object. Call Done on it when finished.
func (a Array) Object(i int) (Object, bool) {
	v := a.item(i)
	if v.none() {
		return Object{}, false
	}
	return checkObject(a.errs, v)
}

// Array reads element i as an array.
func (a Array) Array(i int) (Array, bool) {
	v := a.item(i)
	if v.none() {
		return Array{}, false
	}
	return checkArray(a.errs, v)
}

// String reads element i as a string of at most maxLen characters.
func (a Array) String(i int, maxLen int) (string, bool) {
	v := a.item(i)
	if v.none() {
		return "", false
	}
	return checkString(a.errs, v, maxLen)
}

// UUID reads element i as a canonical UUID.
func (a Array) UUID(i int) (uuid.UUID, bool) {
	v := a.item(i)
	if v.none() {
		return uuid.UUID{}, false
	}
	return checkUUID(a.errs, v)
}

// Option reads element i as one of allowed.
func (a Array) Option(i int, allowed ...string) (string, bool) {
	v := a.item(i)
	if v.none() {
		return "", false
	}
	return checkOption(a.errs, v, allowed)
}

// Time reads element i as an RFC 3339 timestamp (see ParseTime), in UTC.
func (a Array) Time(i int) (time.Time, bool) {
	v := a.item(i)
	if v.none() {
		return time.Time{}, false
	}
	return checkTime(a.errs, v)
}
