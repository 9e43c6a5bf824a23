package ledger

import (
	"slices"

	"github.com/google/uuid"
)

// upsert returns list with each of up put in place of the element with its
// id (or added at the end) and those with an id in removed deleted, in the
// list's order: a new slice, since the old one is another state's. id
// tells an element's id. The state's short lists (webhook endpoints,
// calendar feeds, calendar sources) change this way.
func upsert[T any](list, up []T, removed []uuid.UUID, id func(*T) uuid.UUID) []T {
	out := make([]T, 0, len(list)+len(up))
	for i := range list {
		if !slices.Contains(removed, id(&list[i])) {
			out = append(out, list[i])
		}
	}
	for i := range up {
		want := id(&up[i])
		if j := slices.IndexFunc(out, func(x T) bool { return id(&x) == want }); j >= 0 {
			out[j] = up[i]
		} else {
			out = append(out, up[i])
		}
	}
	return out
}
