package world

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

const (
	minKeyLen    = 8
	maxKeyLen    = 200
	maxScopeLen  = 100
	maxLimit     = 1<<31 - 1
	maxOrigins   = 50
	maxOriginLen = 300
)

func (b *business) readKeys(o input.Object) {
	arr, _ := o.Array("apiKeys", input.Optional)
	b.spec.Keys = []model.Key{}
	eachObject(arr, func(ko input.Object) {
		b.spec.Keys = append(b.spec.Keys, b.key(ko))
	})
}

func (b *business) key(o input.Object) model.Key {
	k := model.Key{}
	plain, havePlain := b.plaintext(o)
	if havePlain {
		k.Hash = model.HashKey(plain)
		k.ID = model.WorldKeyID(b.spec.Business.ID, k.Hash)
		if b.keys[k.Hash] {
			b.errs.Add(o.PathOf("key"), problem.Invalid, "Another API key in the file has the same value.")
		}
		b.keys[k.Hash] = true
	}
	k.Revoked, _ = o.Bool("revoked", input.Optional)
	grant(o, b.errs, &k, input.Optional)
	if havePlain && k.Publishable() != strings.HasPrefix(plain, model.PublishablePrefix) {
		if k.Publishable() {
			b.errs.Add(o.PathOf("key"), problem.InvalidFormat, "A publishable key starts with pk_live_.")
		} else {
			b.errs.Add(o.PathOf("key"), problem.InvalidFormat, `Only a publishable key (kind "publishable") starts with pk_live_.`)
		}
	}
	return k
}

// grant reads what a key grants, the members an apiKeys entry of the world
// file shares with the admin API's key request (ParseKey): scopes,
// expiresAt and limits. One function for both, so a key is held to the
// same rules, with the same paths, reasons and messages, whichever way it
// was made; p says whether scopes must be there. It returns how many
// scopes were given, valid or not (-1: no list).
//
// A publishable key (kind "publishable", decisions §7) needs its allowed
// origins and may leave its scopes out: it is limited to the booking
// flow's endpoints anyway, and scopes given narrow those further.
func grant(o input.Object, errs *input.Errors, k *model.Key, p input.Presence) int {
	var given int
	if kind, ok := o.Option("kind", input.Optional, string(model.SecretKey), string(model.PublishableKey)); ok && kind == string(model.PublishableKey) {
		k.Kind, p = model.PublishableKey, input.Optional // a secret key's kind stays empty, as before kinds
	}
	k.Scopes, given = scopes(o, errs, p)
	k.ExpiresAt, _ = o.NullableTime("expiresAt")
	k.Limits = limits(o)
	k.AllowedOrigins = origins(o, errs, k.Publishable())
	return given
}

// origins reads a publishable key's allowedOrigins: at least one, each an
// origin exactly as a browser sends it in the Origin header (isOrigin), so
// that a listed origin never silently fails to match.
func origins(o input.Object, errs *input.Errors, publishable bool) []string {
	arr, ok := o.Array("allowedOrigins", input.Optional)
	switch {
	case !publishable:
		if ok {
			errs.Add(o.PathOf("allowedOrigins"), problem.Invalid, `Only a publishable key (kind "publishable") has allowed origins.`)
		}
		return nil
	case !ok || arr.Len() == 0:
		errs.Add(o.PathOf("allowedOrigins"), problem.Required, "A publishable key needs the web origins it may be used from.")
		return nil
	case arr.Len() > maxOrigins:
		errs.AddBound(o.PathOf("allowedOrigins"), problem.TooLarge, maxOrigins, "At most 50 origins.")
		return nil
	}
	return distinct(errs, arr, func(i int) (string, bool) {
		s, ok := arr.String(i, maxOriginLen)
		if ok && !isOrigin(s) {
			errs.Add(arr.PathOf(i), problem.InvalidFormat,
				"Must be a web origin as browsers send it, e.g. https://salon.example: http or https, the host in lower case, a port only when it is not the scheme's own, and nothing after it.")
			return s, false
		}
		return s, ok
	})
}

// isOrigin reports whether s is a serialized web origin (RFC 6454 §6.2) of
// an http or https URL as browsers write it: the scheme, "://", a host in
// lower case (a name, an IPv4 address or a bracketed IPv6 one) and a port
// only when it is not the scheme's default. No "*": decisions §7 wants
// exact origins.
func isOrigin(s string) bool {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || (scheme != "http" && scheme != "https") || rest == "" {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" ||
		strings.ContainsAny(rest, "/?#@*\\ ") || u.Host != rest || u.Hostname() == "" {
		return false
	}
	if strings.ToLower(u.Host) != u.Host {
		return false
	}
	port := u.Port()
	if strings.HasSuffix(u.Host, ":") || (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		return false
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] == '0' {
			return false
		}
	}
	return true
}

// ParseKey reads the admin API's request to issue a key: {"kind",
// "scopes", "expiresAt", "limits", "allowedOrigins"}, an apiKeys entry of the world file without the
// key itself (the server makes it) and without revoked (a new key is not
// revoked). Besides the world file's rules (grant) it applies two that
// only make sense for a key issued now, at now: a secret key must grant a
// scope, and no key may have expired already. A world file may declare an
// expired key or one without scopes (it describes keys as they are, and a
// key without scopes can still call GET /me); issuing one is a mistake.
func ParseKey(data []byte, now time.Time) (model.Key, error) {
	var errs input.Errors
	o, ok := input.ParseObject(data, &errs)
	if !ok {
		return model.Key{}, newError(&errs)
	}
	var k model.Key
	if grant(o, &errs, &k, input.Required) == 0 && !k.Publishable() {
		errs.Add("scopes", problem.Required, "Must grant at least one scope.")
	}
	if k.ExpiresAt != nil && !k.ExpiresAt.After(now) {
		errs.Add("expiresAt", problem.Invalid, "Must be in the future, or null for a key that does not expire.")
	}
	o.Done()
	if !errs.Empty() {
		return model.Key{}, newError(&errs)
	}
	return k, nil
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
func scopes(o input.Object, errs *input.Errors, p input.Presence) (_ []string, given int) {
	arr, ok := o.Array("scopes", p)
	scopes := []string{}
	if !ok {
		return scopes, -1
	}
	scopes = distinct(errs, arr, func(i int) (string, bool) {
		s, ok := arr.String(i, maxScopeLen)
		if ok && !isScope(s) {
			errs.Add(arr.PathOf(i), problem.InvalidFormat, "Must look like area:action, e.g. appointments:read.")
			return s, false
		}
		return s, ok
	})
	return scopes, arr.Len()
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
func limits(o input.Object) *model.Limits {
	lo, ok := o.Object("limits", input.Optional)
	if !ok {
		return nil
	}
	l := &model.Limits{}
	intOr(lo, "perMinute", 1, maxLimit, &l.PerMinute)
	intOr(lo, "perHour", 1, maxLimit, &l.PerHour)
	intOr(lo, "mutationsPerMinute", 1, maxLimit, &l.MutationsPerMinute)
	lo.Done()
	return l
}
