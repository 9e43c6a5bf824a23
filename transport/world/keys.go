package world

import (
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/slotd/slotd/storage/catalog"
	"github.com/slotd/slotd/storage/problem"
	"github.com/slotd/slotd/transport/input"
)

const (
	minKeyLen   = 8
	maxKeyLen   = 200
	maxScopeLen = 100
	maxLimit    = 1<<31 - 1
)

func (b *business) readKeys(o input.Object) {
	arr, _ := o.Array("apiKeys", input.Optional)
	b.spec.Keys = []catalog.Key{}
	eachObject(arr, func(ko input.Object) {
		b.spec.Keys = append(b.spec.Keys, b.key(ko))
	})
}

func (b *business) key(o input.Object) catalog.Key {
	k := catalog.Key{}
	if plain, ok := b.plaintext(o); ok {
		k.Hash = catalog.HashKey(plain)
		// Derived from the business and the hash, so loading the same file
		// again yields the same key id without storing any state.
		k.ID = uuid.NewSHA1(b.spec.Business.ID, k.Hash[:])
		if b.keys[k.Hash] {
			b.errs.Add(o.PathOf("key"), problem.Invalid, "Another API key in the file has the same value.")
		}
		b.keys[k.Hash] = true
	}
	k.Scopes = b.scopes(o)
	k.Revoked, _ = o.Bool("revoked", input.Optional)
	k.ExpiresAt, _ = o.NullableTime("expiresAt")
	k.Limits = b.limits(o)
	return k
}

// plaintext reads the key itself. It must be visible ASCII: keys travel in
// HTTP headers, where spaces and non-ASCII bytes do not survive reliably,
// and a key that can never be presented is a silent mistake.
func (b *business) plaintext(o input.Object) (string, bool) {
	s, ok := o.String("key", input.Required, maxKeyLen)
	if !ok {
		return "", false
	}
	if n := utf8.RuneCountInString(s); n < minKeyLen {
		b.errs.AddBound(o.PathOf("key"), problem.TooShort, minKeyLen, "Must be at least 8 characters.")
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			b.errs.Add(o.PathOf("key"), problem.InvalidFormat, "Must be printable ASCII without spaces.")
			return "", false
		}
	}
	return s, true
}

// scopes accepts any well-formed "area:action", so a scope added to the
// API later can be granted before this code lists it.
func (b *business) scopes(o input.Object) []string {
	arr, _ := o.Array("scopes", input.Optional)
	scopes := []string{}
	seen := map[string]bool{}
	for i := 0; i < arr.Len(); i++ {
		s, ok := arr.String(i, maxScopeLen)
		switch {
		case !ok:
		case !isScope(s):
			b.errs.Add(arr.PathOf(i), problem.InvalidFormat, "Must look like area:action, e.g. appointments:read.")
		case seen[s]:
			b.errs.Add(arr.PathOf(i), problem.Invalid, msgDuplicate)
		default:
			seen[s] = true
			scopes = append(scopes, s)
		}
	}
	return scopes
}

// isScope matches ^[a-z_]+:[a-z_]+$.
func isScope(s string) bool {
	colon := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':' && colon < 0:
			colon = i
		case c == '_' || 'a' <= c && c <= 'z':
		default:
			return false
		}
	}
	return colon > 0 && colon < len(s)-1
}

// limits reads the per-key quota override. A member left out stays 0,
// meaning the plan's default for that quota.
func (b *business) limits(o input.Object) *catalog.Limits {
	lo, ok := o.Object("limits", input.Optional)
	if !ok {
		return nil
	}
	l := &catalog.Limits{}
	intOr(lo, "perMinute", 1, maxLimit, &l.PerMinute)
	intOr(lo, "perHour", 1, maxLimit, &l.PerHour)
	intOr(lo, "mutationsPerMinute", 1, maxLimit, &l.MutationsPerMinute)
	lo.Done()
	return l
}
