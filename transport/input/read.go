package input

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/slotd/slotd/storage/problem"
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

func checkString(errs *Errors, path string, v *node, maxLen int) (string, bool) {
	if v.kind != kindString {
		errs.Add(path, problem.Invalid, msgString)
		return "", false
	}
	if utf8.RuneCountInString(v.text) > maxLen {
		errs.AddBound(path, problem.TooLong, int64(maxLen), fmt.Sprintf("Must be at most %d characters.", maxLen))
		return "", false
	}
	return v.text, true
}

func checkInt(errs *Errors, path string, v *node, min, max int) (int, bool) {
	if v.kind != kindNumber {
		errs.Add(path, problem.Invalid, msgWhole)
		return 0, false
	}
	n, res := parseInt(v.text)
	switch {
	case res == intNotWhole:
		errs.Add(path, problem.Invalid, msgWhole)
	case res == intTooSmall || res == intOK && n < min:
		errs.AddBound(path, problem.TooSmall, int64(min), fmt.Sprintf("Must be at least %d.", min))
	case res == intTooLarge || n > max:
		errs.AddBound(path, problem.TooLarge, int64(max), fmt.Sprintf("Must be at most %d.", max))
	default:
		return n, true
	}
	return 0, false
}

func checkBool(errs *Errors, path string, v *node) (bool, bool) {
	if v.kind != kindBool {
		errs.Add(path, problem.Invalid, msgBool)
		return false, false
	}
	return v.b, true
}

func checkUUID(errs *Errors, path string, v *node) (uuid.UUID, bool) {
	if v.kind == kindString {
		if u, ok := parseUUID(v.text); ok {
			return u, true
		}
	}
	errs.Add(path, problem.InvalidFormat, msgUUID)
	return uuid.UUID{}, false
}

func checkTime(errs *Errors, path string, v *node) (time.Time, bool) {
	if v.kind == kindString {
		if t, err := ParseTime(v.text); err == nil {
			return t, true
		}
	}
	errs.Add(path, problem.InvalidDate, msgTime)
	return time.Time{}, false
}

func checkOption(errs *Errors, path string, v *node, allowed []string) (string, bool) {
	if v.kind == kindString {
		for _, a := range allowed {
			if v.text == a {
				return a, true
			}
		}
	}
	errs.Add(path, problem.InvalidOption, "Must be one of: "+strings.Join(allowed, ", ")+".")
	return "", false
}

// checkEmail trims the address: clients paste addresses with stray spaces,
// and the trimmed form is what is stored and compared.
func checkEmail(errs *Errors, path string, v *node) (string, bool) {
	if v.kind != kindString {
		errs.Add(path, problem.InvalidEmail, msgEmail)
		return "", false
	}
	s := strings.TrimSpace(v.text)
	switch {
	case s == "":
		return "", true // only optional fields get here; Required catches ""
	case utf8.RuneCountInString(s) > MaxEmailLen:
		errs.AddBound(path, problem.TooLong, MaxEmailLen, msgEmailLong)
	case !ValidEmail(s):
		errs.Add(path, problem.InvalidEmail, msgEmail)
	default:
		return s, true
	}
	return "", false
}

func checkObject(errs *Errors, path string, v *node) (Object, bool) {
	if v.kind != kindObject {
		errs.Add(path, problem.Invalid, msgObject)
		return Object{}, false
	}
	return Object{n: v, path: path, errs: errs}, true
}

func checkArray(errs *Errors, path string, v *node) (Array, bool) {
	if v.kind != kindArray {
		errs.Add(path, problem.Invalid, msgArray)
		return Array{}, false
	}
	return Array{n: v, path: path, errs: errs}, true
}
