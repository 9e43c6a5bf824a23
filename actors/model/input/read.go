package input

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/problem"
)

// The checks in this file turn one parsed value into a Go value or a
// problem at path. Object and Array share them, so a member and an array
// element are judged by exactly the same rules and words.

const (
	msgString    = "Must be a string."
	msgWhole     = "Must be a whole number."
	msgBool      = "Must be true or false."
	msgObject    = "Must be an object."
	msgArray     = "Must be an array."
	msgUUID      = "Must be a UUID."
	msgTime      = "Must be an ISO 8601 timestamp with Z or an offset, like 2026-01-02T15:04:05Z."
	msgEmail     = "Must be a valid e-mail address."
	msgRequired  = "Is required."
	msgEmptyStr  = "Must not be empty."
	msgNotNull   = "Must not be null."
	msgUnknown   = "Is not an accepted field."
	msgEmailLong = "Must be at most 254 characters."
)

// value is one parsed value being read: a node of a document. The zero
// value is none (absent, or null where a reader was told to skip it).
type value struct {
	d *doc
	i int32
}

func (v value) none() bool { return v.d == nil }

func (v value) kind() kind { return v.d.nodes[v.i].kind }

// text is a string's decoded content or a number's literal, still in the
// document: copy it (string(...)) before it leaves the package.
func (v value) text() []byte { return v.d.text(v.i) }

// path is the value's dotted path, built now: call it only to record a
// problem.
func (v value) path() string { return v.d.path(v.i) }

func checkString(errs *Errors, v value, maxLen int) (string, bool) {
	if v.kind() != kindString {
		errs.Add(v.path(), problem.Invalid, msgString)
		return "", false
	}
	text := v.text()
	if utf8.RuneCount(text) > maxLen {
		errs.AddBound(v.path(), problem.TooLong, int64(maxLen), fmt.Sprintf("Must be at most %d characters.", maxLen))
		return "", false
	}
	return string(text), true
}

func checkInt(errs *Errors, v value, min, max int) (int, bool) {
	if v.kind() != kindNumber {
		errs.Add(v.path(), problem.Invalid, msgWhole)
		return 0, false
	}
	n, res := parseInt(v.text())
	switch {
	case res == intNotWhole:
		errs.Add(v.path(), problem.Invalid, msgWhole)
	case res == intTooSmall || res == intOK && n < min:
		errs.AddBound(v.path(), problem.TooSmall, int64(min), fmt.Sprintf("Must be at least %d.", min))
	case res == intTooLarge || n > max:
		errs.AddBound(v.path(), problem.TooLarge, int64(max), fmt.Sprintf("Must be at most %d.", max))
	default:
		return n, true
	}
	return 0, false
}

func checkBool(errs *Errors, v value) (bool, bool) {
	if v.kind() != kindBool {
		errs.Add(v.path(), problem.Invalid, msgBool)
		return false, false
	}
	return v.d.nodes[v.i].flags&flagTrue != 0, true
}

func checkUUID(errs *Errors, v value) (uuid.UUID, bool) {
	if v.kind() == kindString {
		if u, ok := parseUUID(v.text()); ok {
			return u, true
		}
	}
	errs.Add(v.path(), problem.InvalidFormat, msgUUID)
	return uuid.UUID{}, false
}

func checkTime(errs *Errors, v value) (time.Time, bool) {
	if v.kind() == kindString {
		if t, err := parseTime(v.text()); err == nil {
			return t, true
		}
	}
	errs.Add(v.path(), problem.InvalidDate, msgTime)
	return time.Time{}, false
}

func checkOption(errs *Errors, v value, allowed []string) (string, bool) {
	if v.kind() == kindString {
		text := v.text()
		for _, a := range allowed {
			if string(text) == a {
				return a, true
			}
		}
	}
	errs.Add(v.path(), problem.InvalidOption, "Must be one of: "+strings.Join(allowed, ", ")+".")
	return "", false
}

// checkEmail trims the address: clients paste addresses with stray spaces,
// and the trimmed form is what is stored and compared.
func checkEmail(errs *Errors, v value) (string, bool) {
	if v.kind() != kindString {
		errs.Add(v.path(), problem.InvalidEmail, msgEmail)
		return "", false
	}
	text := bytes.TrimSpace(v.text())
	switch {
	case len(text) == 0:
		return "", true // only optional fields get here; Required catches ""
	case utf8.RuneCount(text) > MaxEmailLen:
		errs.AddBound(v.path(), problem.TooLong, MaxEmailLen, msgEmailLong)
	default:
		if s := string(text); ValidEmail(s) {
			return s, true
		}
		errs.Add(v.path(), problem.InvalidEmail, msgEmail)
	}
	return "", false
}

func checkObject(errs *Errors, v value) (Object, bool) {
	if v.kind() != kindObject {
		errs.Add(v.path(), problem.Invalid, msgObject)
		return Object{}, false
	}
	return Object{d: v.d, i: v.i, errs: errs}, true
}

func checkArray(errs *Errors, v value) (Array, bool) {
	if v.kind() != kindArray {
		errs.Add(v.path(), problem.Invalid, msgArray)
		return Array{}, false
	}
	return Array{d: v.d, i: v.i, errs: errs}, true
}
