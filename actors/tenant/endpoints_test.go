package tenant

import (
	"fmt"
	"testing"

	"github.com/slotd/slotd/actors/catalog"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
	"github.com/stretchr/testify/require"
)

func applyChangeT(t *testing.T, s *State, ch *record.Change) *State {
	t.Helper()
	n, err := Apply(s, s.Seq+1, &record.Record{Kind: record.KindChange, Change: ch})
	require.NoError(t, err)
	return n
}

func code(err error) problem.Code {
	if pe, ok := err.(*problem.Error); ok {
		return pe.Code
	}
	return ""
}

func TestEndpointLifecycle(t *testing.T) {
	s, _ := put(t, nil, spec(), t0)
	ids := &fixedIDs{}
	in := &EndpointInput{URL: "https://hooks.example.com/a", EventTypes: []string{"appointment.created"}}
	ch, e, err := DecideRegister(s, in, "whsec_x", t0, ids)
	require.NoError(t, err)
	require.Equal(t, catalog.EndpointActive, e.Status)
	require.Equal(t, "full", e.PayloadStyle)
	s = applyChangeT(t, s, ch)
	require.Len(t, s.Endpoints(), 1)

	_, _, err = DecideRegister(s, in, "whsec_y", t0, ids)
	require.Equal(t, problem.Conflict, code(err))
	require.Equal(t, "url", err.(*problem.Error).Fields[0].Path)
	for i := 2; i <= MaxEndpoints; i++ {
		ch, _, err := DecideRegister(s, &EndpointInput{URL: fmt.Sprintf("https://hooks.example.com/%d", i)}, "whsec_z", t0, ids)
		require.NoError(t, err)
		s = applyChangeT(t, s, ch)
	}
	require.Equal(t, problem.Conflict, code(CheckRegister(s, "https://hooks.example.com/six")), "a sixth endpoint")

	// Auto-disabled (as the deliverer will leave it), then re-enabled.
	dis := *s.Endpoint(e.ID)
	dis.Status, dis.IsActive, dis.ConsecutiveFailures = catalog.EndpointAutoDisabled, false, 10
	s = applyChangeT(t, s, &record.Change{At: t0, Endpoints: []catalog.Endpoint{dis}})
	on := true
	ch, e2, err := DecideEndpointPatch(s, e.ID, &EndpointPatch{IsActive: &on}, t0)
	require.NoError(t, err)
	require.Equal(t, catalog.EndpointActive, e2.Status)
	require.Zero(t, e2.ConsecutiveFailures)
	s = applyChangeT(t, s, ch)
	ch, _, err = DecideEndpointPatch(s, e.ID, &EndpointPatch{IsActive: &on}, t0)
	require.NoError(t, err)
	require.Nil(t, ch, "nothing changed, nothing written")

	taken := "https://hooks.example.com/2"
	_, _, err = DecideEndpointPatch(s, e.ID, &EndpointPatch{URL: &taken}, t0)
	require.Equal(t, problem.Conflict, code(err))

	ch, err = DecideEndpointDelete(s, e.ID, t0)
	require.NoError(t, err)
	s = applyChangeT(t, s, ch)
	require.Nil(t, s.Endpoint(e.ID))
	require.Len(t, s.Endpoints(), MaxEndpoints-1)
	_, err = DecideEndpointDelete(s, e.ID, t0)
	require.Equal(t, problem.NotFound, code(err))

	// Endpoints survive a snapshot.
	r, err := FromSnapshot(s.Seq, Snapshot(s))
	require.NoError(t, err)
	require.Equal(t, s.Endpoints(), r.Endpoints())
}
