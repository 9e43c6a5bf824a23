package world

import (
	"fmt"
	"strings"

	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

// Error lists every problem found in a world document. Fields holds at
// most input.MaxFields entries; Omitted counts the problems left out.
type Error struct {
	Fields  []problem.Field
	Omitted int
}

// Error renders one problem per line as "path: message".
func (e *Error) Error() string {
	var b strings.Builder
	for i, f := range e.Fields {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f.Path)
		b.WriteString(": ")
		b.WriteString(f.Message)
	}
	if e.Omitted > 0 {
		fmt.Fprintf(&b, "\n(and %d more problems)", e.Omitted)
	}
	return b.String()
}

func newError(errs *input.Errors) *Error {
	fields := errs.List()
	return &Error{Fields: fields, Omitted: errs.Len() - len(fields)}
}
