//go:build invariants

package interval

import (
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// invariants reports whether this is the invariants build, in which Index
// re-verifies every staff member it touches.
const invariants = true

// errOverlap is wrapped by the panic of an update that left two items of one
// staff member overlapping.
var errOverlap = errors.New("overlapping items")

// verifyUsed panics unless res's tree in x is well formed; its items may
// overlap (Index.Take).
func verifyUsed(x Index, res uuid.UUID) {
	if err := x.Used(res).Check(); err != nil {
		panic(fmt.Errorf("interval: resource %v: %w", res, err))
	}
}

// verify panics unless staff's tree in x is well formed and holds no two
// overlapping items. It costs O(n) per update, which is why it is confined to
// the invariants build.
func verify(x Index, staff uuid.UUID) {
	t := x.Tree(staff)
	if err := t.Check(); err != nil {
		panic(fmt.Errorf("interval: staff %v: %w", staff, err))
	}
	if a, b, found := firstOverlap(t); found {
		panic(fmt.Errorf("interval: staff %v: %w: %v and %v", staff, errOverlap, a, b))
	}
}
