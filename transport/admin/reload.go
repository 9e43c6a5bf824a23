package admin

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// PutWorld makes each business match its spec, as Directory.Put does, for
// every way a world reaches slotd: --world at start, POST /admin/v1/world
// and PUT /admin/v1/businesses/{id}. A reload takes away the keys the file
// no longer declares (keys issued through the admin API are the
// operator's and stay; decisions §4, "World reload"). A key that stops
// working is a surprise to whoever holds it, so each one is logged with
// its id and business, never the key itself (slotd only has its hash).
func PutWorld(ctx context.Context, dir *directory.Directory, specs []model.Spec, now time.Time, log *slog.Logger, alsoInLoad ...uuid.UUID) ([]directory.PutResult, error) {
	before := make([]directory.View, len(specs))
	existed := make([]bool, len(specs))
	for i := range specs {
		var err error
		if before[i], existed[i], err = dir.ExistingView(ctx, specs[i].Business.ID); err != nil {
			return nil, err
		}
	}
	rs, err := dir.Put(ctx, specs, alsoInLoad...)
	for i, r := range rs { // the businesses put, also when a later one failed
		if !r.Changed || !existed[i] {
			continue
		}
		after, ok, herr := dir.ExistingView(ctx, r.ID)
		if herr != nil || !ok {
			continue
		}
		for _, k := range stoppedKeys(before[i], after, now) {
			log.Warn("world reload: an API key stopped working", "business", r.ID, "key_id", k.id, "reason", k.why)
		}
	}
	return rs, err
}

// stoppedKey is a key a put stopped, and why.
type stoppedKey struct {
	id  uuid.UUID
	why string
}

// stoppedKeys returns the keys that authenticated in before and do not in
// after, at now, because of the world file. A key it no longer holds can
// only have been removed by the put; a key it holds revoked or expired
// counts only when it is the file's, so a key of the operator's revoked
// through the admin API meanwhile is not blamed on the file.
func stoppedKeys(before, after directory.View, now time.Time) []stoppedKey {
	var out []stoppedKey
	for i := range before.Keys() {
		k := &before.Keys()[i]
		if !keyWorks(k, now) {
			continue
		}
		n := after.Key(k.Hash)
		switch {
		case n == nil:
			out = append(out, stoppedKey{k.ID, "removed from the world file"})
		case n.Origin != model.FromWorld || keyWorks(n, now):
		case n.Revoked:
			out = append(out, stoppedKey{k.ID, "revoked by the world file"})
		default:
			out = append(out, stoppedKey{k.ID, "expired by the world file"})
		}
	}
	return out
}

// keyWorks reports whether k authenticates at now: not revoked, not expired.
func keyWorks(k *model.Key, now time.Time) bool {
	return !k.Revoked && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// InFile makes the paths of a put's problem name business i of a file
// whose businesses are put one at a time, each as the only one of its put
// ("businesses.0…" becomes "businesses.i…").
func InFile(err error, i int) error {
	return problem.MapPaths(err, func(p string) string {
		if rest, ok := strings.CutPrefix(p, "businesses.0"); ok {
			return "businesses." + strconv.Itoa(i) + rest
		}
		return p
	})
}
