package world

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
)

// CheckParallel accepts exactly the documents Check accepts, with Check's
// outline, and EachParallel hands on Each's businesses at their indexes;
// every document with a problem (in a business, across businesses, at the
// top level) is refused, at any number of workers.
func TestParallelAgreesWithCheck(t *testing.T) {
	for name, doc := range streamCorpus(t) {
		for _, workers := range []int{1, 3} {
			outline, cerr := Check(bytes.NewReader(doc))
			got, specs, valid, err := CheckParallel(bytes.NewReader(doc), workers, 1<<30)
			require.NoError(t, err, name)
			_, none, _, _ := CheckParallel(bytes.NewReader(doc), workers, 10)
			require.Nil(t, none, "%s: over the budget, nothing is kept", name)
			require.Equal(t, cerr == nil, valid, "%s: %v", name, cerr)
			if !valid {
				// EachParallel runs on files Check accepted: it sees each
				// business alone, so what only the whole file shows (an
				// id or key in two businesses) is Check's to find.
				if name != "duplicate id" && name != "duplicate key" {
					require.Error(t, EachParallel(bytes.NewReader(doc), workers, func(int, model.Spec) error { return nil }), name)
				}
				continue
			}
			require.Equal(t, outline, got, name)
			var want []model.Spec
			require.NoError(t, Each(bytes.NewReader(doc), func(s model.Spec) error {
				want = append(want, s)
				return nil
			}))
			var mu sync.Mutex
			each := make([]model.Spec, len(want))
			require.NoError(t, EachParallel(bytes.NewReader(doc), workers, func(i int, s model.Spec) error {
				mu.Lock()
				defer mu.Unlock()
				each[i] = s
				return nil
			}), name)
			require.Equal(t, want, each, name)
			require.Equal(t, want, specs, "%s: kept whole", name)
		}
	}
}

// EachParallel stops at fn's error and returns it.
func TestEachParallelStops(t *testing.T) {
	a, b := minimal(), minimal()
	set(b, "id", otherID)
	set(b, "apiKeys.0.key", "sk_test_second")
	stop := errors.New("stop")
	err := EachParallel(bytes.NewReader(file(a, b)), 1, func(i int, _ model.Spec) error {
		if i == 0 {
			return stop
		}
		t.Error("a business after the error was handed on")
		return nil
	})
	require.ErrorIs(t, err, stop)
}
