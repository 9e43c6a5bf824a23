package record

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAnswerKindsAreFrozen: the answer kind of a stored idempotent answer
// is one byte in the journal; a kind keeps its number forever.
func TestAnswerKindsAreFrozen(t *testing.T) {
	for kind, want := range map[AnswerKind]byte{
		AnswerBody: 0, AnswerBooked: 1, AnswerCustomer: 2, AnswerRefused: 3, AnswerHold: 4, AnswerEntry: 5, AnswerSeries: 6, AnswerBasket: 7,
	} {
		require.Equal(t, want, byte(kind))
	}
}
