package input

import (
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/storage/problem"
)

// Presence says whether a member must be there.
type Presence uint8

const (
	// Optional members may be absent. Present, they must be valid; null is
	// refused except by the Nullable readers.
	Optional Presence = iota
	// Required members must be present, non-null and, for strings,
	// not empty or blank; otherwise the reason is required.
	Required
)

// Object is a JSON object at a path. It remembers which members were read,
// so Done can report the rest as unknown. The zero Object (what readers
// return for an absent or invalid member) reads as empty and reports
// nothing, so callers can read straight through without checking ok first.
//
// Every reader returns ok true only when the member is present and valid.
// On false a problem has been recorded, unless the member was optional and
// absent (or the Object is the zero value).
type Object struct {
	n    *node
	path string
	errs *Errors
}

// Path is the object's dotted path; "" for the document's top level.
func (o Object) Path() string { return o.path }

// PathOf is the dotted path of member key, for problems a caller finds
// itself (cross-field rules, references).
func (o Object) PathOf(key string) string { return join(o.path, key) }

// Has reports whether key is present, even if null. It does not count as
// reading the member.
func (o Object) Has(key string) bool {
	if o.n == nil {
		return false
	}
	_, ok := o.n.member(key)
	return ok
}

// take marks key as read and returns its value, nil when absent.
func (o Object) take(key string) *node {
	if o.n == nil {
		return nil
	}
	i, ok := o.n.member(key)
	if !ok {
		return nil
	}
	o.n.read[i] = true
	return o.n.vals[i]
}

// present applies the Presence rules and returns a non-null value to check.
func (o Object) present(key string, p Presence) (*node, bool) {
	v := o.take(key)
	path := o.PathOf(key)
	switch {
	case v == nil:
		if p == Required && o.n != nil {
			o.errs.Add(path, problem.Required, msgRequired)
		}
		return nil, false
	case v.kind == kindNull && p == Required:
		o.errs.Add(path, problem.Required, msgRequired)
		return nil, false
	case v.kind == kindNull:
		o.errs.Add(path, problem.Invalid, msgNotNull)
		return nil, false
	case p == Required && v.kind == kindString && strings.TrimSpace(v.text) == "":
		o.errs.Add(path, problem.Required, msgEmptyStr)
		return nil, false
	}
	return v, true
}

// nullable fetches a member that may be null: present reports whether it
// is there at all, and v is nil when it is null.
func (o Object) nullable(key string) (v *node, present bool) {
	v = o.take(key)
	if v == nil {
		return nil, false
	}
	if v.kind == kindNull {
		return nil, true
	}
	return v, true
}

// String reads a string of at most maxLen characters (runes).
func (o Object) String(key string, p Presence, maxLen int) (string, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return "", false
	}
	return checkString(o.errs, o.PathOf(key), v, maxLen)
}

// NullableString reads a string or null (nil, true). Absent is (nil, false).
func (o Object) NullableString(key string, maxLen int) (*string, bool) {
	v, present := o.nullable(key)
	if v == nil {
		return nil, present
	}
	s, ok := checkString(o.errs, o.PathOf(key), v, maxLen)
	if !ok {
		return nil, false
	}
	return &s, true
}

// Int reads a whole number in [min, max]. 1.5, 1.0 and 1e2 are refused.
func (o Object) Int(key string, p Presence, min, max int) (int, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return 0, false
	}
	return checkInt(o.errs, o.PathOf(key), v, min, max)
}

// NullableInt reads a whole number in [min, max] or null (nil, true).
func (o Object) NullableInt(key string, min, max int) (*int, bool) {
	v, present := o.nullable(key)
	if v == nil {
		return nil, present
	}
	n, ok := checkInt(o.errs, o.PathOf(key), v, min, max)
	if !ok {
		return nil, false
	}
	return &n, true
}

// Bool reads true or false.
func (o Object) Bool(key string, p Presence) (bool, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return false, false
	}
	return checkBool(o.errs, o.PathOf(key), v)
}

// UUID reads a UUID in canonical 8-4-4-4-12 form, either case.
func (o Object) UUID(key string, p Presence) (uuid.UUID, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return uuid.UUID{}, false
	}
	return checkUUID(o.errs, o.PathOf(key), v)
}

// NullableUUID reads a UUID or null (nil, true).
func (o Object) NullableUUID(key string) (*uuid.UUID, bool) {
	v, present := o.nullable(key)
	if v == nil {
		return nil, present
	}
	u, ok := checkUUID(o.errs, o.PathOf(key), v)
	if !ok {
		return nil, false
	}
	return &u, true
}

// Time reads an RFC 3339 timestamp (see ParseTime), returned in UTC.
func (o Object) Time(key string, p Presence) (time.Time, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return time.Time{}, false
	}
	return checkTime(o.errs, o.PathOf(key), v)
}

// NullableTime reads a timestamp or null (nil, true).
func (o Object) NullableTime(key string) (*time.Time, bool) {
	v, present := o.nullable(key)
	if v == nil {
		return nil, present
	}
	t, ok := checkTime(o.errs, o.PathOf(key), v)
	if !ok {
		return nil, false
	}
	return &t, true
}

// Email reads an e-mail address, trimmed (see ValidEmail). An optional
// member that is empty or blank reads as ("", true): no address.
func (o Object) Email(key string, p Presence) (string, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return "", false
	}
	return checkEmail(o.errs, o.PathOf(key), v)
}

// Option reads a string that must be one of allowed (exact match).
func (o Object) Option(key string, p Presence, allowed ...string) (string, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return "", false
	}
	return checkOption(o.errs, o.PathOf(key), v, allowed)
}

// Object reads a nested object. Call Done on it when finished.
func (o Object) Object(key string, p Presence) (Object, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return Object{}, false
	}
	return checkObject(o.errs, o.PathOf(key), v)
}

// Array reads an array.
func (o Object) Array(key string, p Presence) (Array, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return Array{}, false
	}
	return checkArray(o.errs, o.PathOf(key), v)
}

// Done reports every member no reader asked for as unknown_field, sorted
// by key so the output is stable whatever the document's key order. It
// marks them read, so calling Done twice reports them once.
func (o Object) Done() {
	if o.n == nil {
		return
	}
	var unknown []string
	for i, k := range o.n.keys {
		if !o.n.read[i] {
			o.n.read[i] = true
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		o.errs.Add(o.PathOf(k), problem.UnknownField, msgUnknown)
	}
}
