package ledger

import (
	"time"

	"github.com/slotd/slotd/storage/record"
)

// An Op is one write of a business: the command and its decision in one
// type. The business's actor decides it against its state in one step
// (business.Do) and journals the change; R is what the caller gets back.
// A new write is a type beside its decision, here in ledger, and the
// handler that sends it (directory.Do): nothing in between names it.
//
// Decide must not change s: it returns the change, which the actor
// applies once it is journalled. A nil change with a nil error is a
// write that changes nothing (answered at once, after any write in
// flight).
type Op[R any] interface {
	Decide(s *State, now time.Time, ids IDs) (*record.Change, R, error)
}

// Done is the answer of an Op that has nothing to return.
type Done struct{}

// deref is *p, or R's zero value when p is nil (a refused decision).
func deref[R any](p *R) R {
	var v R
	if p != nil {
		v = *p
	}
	return v
}
