package input

import (
	"bytes"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/problem"
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
	d    *doc // nil for the zero Object
	i    int32
	errs *Errors
}

// Path is the object's dotted path; "" for the document's top level.
func (o Object) Path() string {
	if o.d == nil {
		return ""
	}
	return o.d.path(o.i)
}

// PathOf is the dotted path of member key, for problems a caller finds
// itself (cross-field rules, references).
func (o Object) PathOf(key string) string { return join(o.Path(), key) }

// Has reports whether key is present, even if null. It does not count as
// reading the member.
func (o Object) Has(key string) bool {
	if o.d == nil {
		return false
	}
	_, ok := o.d.member(o.i, key)
	return ok
}

// take marks key as read and returns its value, none when absent.
func (o Object) take(key string) value {
	if o.d == nil {
		return value{}
	}
	i, ok := o.d.member(o.i, key)
	if !ok {
		return value{}
	}
	o.d.nodes[i].flags |= flagRead
	return value{o.d, i}
}

// present applies the Presence rules and returns a non-null value to check.
// Paths are built only for the problems recorded.
func (o Object) present(key string, p Presence) (value, bool) {
	v := o.take(key)
	switch {
	case v.none():
		if p == Required && o.d != nil {
			o.errs.Add(o.PathOf(key), problem.Required, msgRequired)
		}
		return value{}, false
	case v.kind() == kindNull && p == Required:
		o.errs.Add(v.path(), problem.Required, msgRequired)
		return value{}, false
	case v.kind() == kindNull:
		o.errs.Add(v.path(), problem.Invalid, msgNotNull)
		return value{}, false
	case p == Required && v.kind() == kindString && len(bytes.TrimSpace(v.text())) == 0:
		o.errs.Add(v.path(), problem.Required, msgEmptyStr)
		return value{}, false
	}
	return v, true
}

// nullable fetches a member that may be null: present reports whether it
// is there at all, and v is none when it is null.
func (o Object) nullable(key string) (v value, present bool) {
	v = o.take(key)
	if v.none() {
		return value{}, false
	}
	if v.kind() == kindNull {
		return value{}, true
	}
	return v, true
}

// String reads a string of at most maxLen characters (runes).
func (o Object) String(key string, p Presence, maxLen int) (string, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return "", false
	}
	return checkString(o.errs, v, maxLen)
}

// NullableString reads a string or null (nil, true). Absent is (nil, false).
func (o Object) NullableString(key string, maxLen int) (*string, bool) {
	v, present := o.nullable(key)
	if v.none() {
		return nil, present
	}
	s, ok := checkString(o.errs, v, maxLen)
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
	return checkInt(o.errs, v, min, max)
}

// NullableInt reads a whole number in [min, max] or null (nil, true).
func (o Object) NullableInt(key string, min, max int) (*int, bool) {
	v, present := o.nullable(key)
	if v.none() {
		return nil, present
	}
	n, ok := checkInt(o.errs, v, min, max)
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
	return checkBool(o.errs, v)
}

// UUID reads a UUID in canonical 8-4-4-4-12 form, either case.
func (o Object) UUID(key string, p Presence) (uuid.UUID, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return uuid.UUID{}, false
	}
	return checkUUID(o.errs, v)
}

// NullableUUID reads a UUID or null (nil, true).
func (o Object) NullableUUID(key string) (*uuid.UUID, bool) {
	v, present := o.nullable(key)
	if v.none() {
		return nil, present
	}
	u, ok := checkUUID(o.errs, v)
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
	return checkTime(o.errs, v)
}

// NullableTime reads a timestamp or null (nil, true).
func (o Object) NullableTime(key string) (*time.Time, bool) {
	v, present := o.nullable(key)
	if v.none() {
		return nil, present
	}
	t, ok := checkTime(o.errs, v)
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
	return checkEmail(o.errs, v)
}

// Option reads a string that must be one of allowed (exact match).
func (o Object) Option(key string, p Presence, allowed ...string) (string, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return "", false
	}
	return checkOption(o.errs, v, allowed)
}

// Object reads a nested object. Call Done on it when finished.
func (o Object) Object(key string, p Presence) (Object, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return Object{}, false
	}
	return checkObject(o.errs, v)
}

// NullableObject reads an object or null: ok reports an object to read,
// false for null, absence or a value that is not an object (reported).
func (o Object) NullableObject(key string) (Object, bool) {
	v, _ := o.nullable(key)
	if v.none() {
		return Object{}, false
	}
	return checkObject(o.errs, v)
}

// Array reads an array.
func (o Object) Array(key string, p Presence) (Array, bool) {
	v, ok := o.present(key, p)
	if !ok {
		return Array{}, false
	}
	return checkArray(o.errs, v)
}

// Keys returns the object's member names in document order (a name given
// twice once), for an object whose members are the client's own names,
// such as metadata. It reads nothing: read each member by its name.
func (o Object) Keys() []string {
	if o.d == nil {
		return nil
	}
	var keys []string
	seen := map[string]bool{}
	for _, v := range o.d.children(o.i) {
		if k := string(o.d.key(v)); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// Done reports every member no reader asked for as unknown_field, sorted
// by key so the output is stable whatever the document's key order. It
// marks them read, so calling Done twice reports them once.
func (o Object) Done() {
	if o.d == nil {
		return
	}
	var unknown []string
	for _, v := range o.d.children(o.i) {
		if n := &o.d.nodes[v]; n.flags&flagRead == 0 {
			n.flags |= flagRead
			unknown = append(unknown, string(o.d.key(v)))
		}
	}
	if len(unknown) == 0 {
		return
	}
	sort.Strings(unknown)
	path := o.Path()
	for _, k := range unknown {
		o.errs.Add(join(path, k), problem.UnknownField, msgUnknown)
	}
}
