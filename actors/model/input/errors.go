package input

import "github.com/slotd/slotd/actors/problem"

// MaxFields caps how many problems one document can produce. A hostile 64 KiB
// body of unknown keys would otherwise turn into an error response many times
// its size; a person fixing a document needs the first hundred at most.
const MaxFields = 100

// Errors collects the problems found while reading a document. The zero value
// is ready to use. Problems keep the order in which they were found.
type Errors struct {
	fields []problem.Field
	total  int
}

// Add records a problem at path.
func (e *Errors) Add(path string, reason problem.Reason, message string) {
	e.add(problem.Field{Path: path, Reason: reason, Message: message})
}

// AddBound records a crossed bound (too_short, too_long, too_small,
// too_large) at path; limit is the bound, in characters for lengths.
func (e *Errors) AddBound(path string, reason problem.Reason, limit int64, message string) {
	e.add(problem.Bound(path, reason, limit, message))
}

func (e *Errors) add(f problem.Field) {
	e.total++
	if len(e.fields) < MaxFields {
		e.fields = append(e.fields, f)
	}
}

// Empty reports whether no problem was recorded.
func (e *Errors) Empty() bool { return e.total == 0 }

// Len is the number of problems recorded, including any beyond MaxFields
// that List leaves out.
func (e *Errors) Len() int { return e.total }

// List returns a copy of the recorded problems (at most MaxFields).
func (e *Errors) List() []problem.Field {
	return append([]problem.Field(nil), e.fields...)
}

// Err returns the problems as a VALIDATION_ERROR, or nil when there are none.
func (e *Errors) Err() error {
	if e.Empty() {
		return nil // an untyped nil: a nil *problem.Error in an error is non-nil
	}
	return problem.Fields(e.List()...)
}
