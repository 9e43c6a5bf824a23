package model

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/enums.golden from the tables (only to append new values)")

// table is an Enum of any value type, for listing.
type table interface {
	Name() string
	lines() []string
}

func (e Enum[T]) lines() []string {
	var out []string
	for _, x := range e.entries {
		out = append(out, fmt.Sprintf("%s\t%d\t%s", e.name, x.Code, x.Value))
	}
	return out
}

var tables = []table{Statuses, SegmentKinds, EventTypes, MailKinds, EndpointStatuses, PaymentStatuses, Providers,
	AmountKinds, HoldStatuses, EntryStatuses, Operations}

// TestEnumCodesAreFrozen: every code ever given keeps its value. The
// golden file is the record of the codes in journals and snapshots on
// disk: a line may be added (a new value with a new code), never changed
// or removed. With -update the file is rewritten from the tables, and the
// test then checks that every old line is still there.
func TestEnumCodesAreFrozen(t *testing.T) {
	var now []string
	for _, tb := range tables {
		now = append(now, tb.lines()...)
	}
	golden := filepath.Join("testdata", "enums.golden")
	old, err := os.ReadFile(golden)
	require.NoError(t, err)
	have := map[string]bool{}
	for _, l := range now {
		have[l] = true
	}
	for _, l := range strings.Split(strings.TrimSpace(string(old)), "\n") {
		require.True(t, have[l], "frozen code %q is gone or changed: codes in journals on disk would read back wrong", l)
	}
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(strings.Join(now, "\n")+"\n"), 0o644))
		return
	}
	require.Equal(t, strings.TrimSpace(string(old)), strings.Join(now, "\n"), "a new value: run go test -run TestEnumCodesAreFrozen -update ./actors/model")
}

func TestEnumLookups(t *testing.T) {
	c, ok := Statuses.Code(NoShow)
	require.True(t, ok)
	require.Equal(t, byte(5), c)
	v, ok := Statuses.Value(5)
	require.True(t, ok)
	require.Equal(t, NoShow, v)
	_, ok = Statuses.Value(0)
	require.False(t, ok, "0 is nobody's code")
	_, ok = Statuses.Code("sleeping")
	require.False(t, ok)
	require.True(t, Statuses.Has(Confirmed))
	require.Equal(t, EventTypes.Strings(), Subscribable)
	require.Equal(t, EventAppointmentNoShow, StatusEvent(NoShow))
	require.Panics(t, func() { newEnum("twice", EnumEntry[string]{"a", 1}, EnumEntry[string]{"b", 1}) })
	require.Panics(t, func() { newEnum("zero", EnumEntry[string]{"a", 0}) })
}
