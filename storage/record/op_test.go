package record

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
)

// TestOperationReadsBackFromEitherAge: an answer journalled with the
// method and path of its request (before operations) reads back as the
// operation, and an operation is written in exactly the bytes its POST
// and path were, so old and new records of one key compare equal.
func TestOperationReadsBackFromEitherAge(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         model.Operation
	}{
		{"POST", "/api/v1/appointments", model.OpBook},
		{"POST", "/api/v1/customers", model.OpAddCustomer},
		{"POST", "/api/v1/holds", model.OpCreateHold},
		{"POST", "/api/v1/waitlist-entries", model.OpAddEntry},
		{"PATCH", "/api/v1/appointments", "PATCH /api/v1/appointments"},
		{"POST", "/api/v1/other", "POST /api/v1/other"},
		{"OPTIONS", "/x", "OPTIONS /x"},
	} {
		var legacy w
		legacy.enum(tc.method, legacyMethods)
		legacy.enum(tc.path, legacyPaths)
		d := r{b: legacy.b}
		got := d.op()
		require.NoError(t, d.err)
		require.Empty(t, d.b)
		require.Equal(t, tc.want, got, "%s %s", tc.method, tc.path)

		var again w
		again.op(got)
		if model.Operations.Has(got) {
			require.Equal(t, legacy.b, again.b, "an operation is written as its request was")
		}
		d = r{b: again.b}
		require.Equal(t, got, d.op(), "written back, it reads the same")

		js, err := json.Marshal(map[string]string{"key": "k", "method": tc.method, "path": tc.path})
		require.NoError(t, err)
		var x Idem
		require.NoError(t, json.Unmarshal(js, &x))
		require.Equal(t, tc.want, x.Op, "a JSON record from before operations")
	}
	var x Idem
	require.NoError(t, json.Unmarshal([]byte(`{"key":"k","op":"hold.create"}`), &x))
	require.Equal(t, model.OpCreateHold, x.Op)
}
