package clock

import (
	"testing"

	"github.com/slotd/slotd/actors/deptest"
)

func TestPure(t *testing.T) { deptest.RequirePure(t, "github.com/slotd/slotd/storage/clock") }
