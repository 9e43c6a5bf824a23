package ledger

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
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
	require.Equal(t, model.EndpointActive, e.Status)
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
	dis.Status, dis.IsActive, dis.ConsecutiveFailures = model.EndpointAutoDisabled, false, 10
	s = applyChangeT(t, s, &record.Change{At: t0, Endpoints: []model.Endpoint{dis}})
	on := true
	ch, e2, err := DecideEndpointPatch(s, e.ID, &EndpointPatch{IsActive: &on}, t0)
	require.NoError(t, err)
	require.Equal(t, model.EndpointActive, e2.Status)
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

// TestTenExhaustedInARowAutoDisable walks api-v1 §3.2: exhausted
// deliveries count up, a delivery resets the count, the tenth in a row
// disables the endpoint and e-mails the owner in the same write, nothing
// counts while disabled, and isActive true re-enables with a zero count.
func TestTenExhaustedInARowAutoDisable(t *testing.T) {
	sp := spec()
	sp.Business.OwnerEmail = "owner@example.com"
	s, _ := put(t, nil, sp, t0)
	ids := &fixedIDs{}
	ch, e, err := DecideRegister(s, &EndpointInput{URL: "https://hooks.example.com/a", EventTypes: []string{"appointment.created"}}, "whsec_x", t0, ids)
	require.NoError(t, err)
	s = applyChangeT(t, s, ch)
	id := e.ID
	require.True(t, s.Endpoint(id).Delivers("appointment.created"))
	require.False(t, s.Endpoint(id).Delivers("customer.created"), "not subscribed")

	require.Nil(t, DecideDeliveryOutcome(s, id, true, t0, ids), "a delivery at zero writes nothing")
	for i := 0; i < 9; i++ {
		s = applyChangeT(t, s, DecideDeliveryOutcome(s, id, false, t0, ids))
	}
	require.Equal(t, 9, s.Endpoint(id).ConsecutiveFailures)
	ch = DecideDeliveryOutcome(s, id, true, t0, ids)
	require.Empty(t, ch.Mails)
	s = applyChangeT(t, s, ch)
	require.Zero(t, s.Endpoint(id).ConsecutiveFailures, "a delivery resets the count")

	for i := 0; i < AutoDisableAfter-1; i++ {
		s = applyChangeT(t, s, DecideDeliveryOutcome(s, id, false, t0, ids))
		require.Equal(t, model.EndpointActive, s.Endpoint(id).Status)
	}
	ch = DecideDeliveryOutcome(s, id, false, t0, ids)
	require.Len(t, ch.Mails, 1)
	require.Equal(t, model.MailEndpointDisabled, ch.Mails[0].Kind)
	require.Equal(t, s.Business.OwnerEmail, ch.Mails[0].To)
	require.Equal(t, id, *ch.Mails[0].Endpoint)
	s = applyChangeT(t, s, ch)
	got := s.Endpoint(id)
	require.Equal(t, model.EndpointAutoDisabled, got.Status)
	require.False(t, got.IsActive)
	require.Equal(t, AutoDisableAfter, got.ConsecutiveFailures)
	require.False(t, got.Delivers("appointment.created"))

	require.Nil(t, DecideDeliveryOutcome(s, id, false, t0, ids), "nothing counts while disabled")
	on := true
	ch, e, err = DecideEndpointPatch(s, id, &EndpointPatch{IsActive: &on}, t0)
	require.NoError(t, err)
	require.Equal(t, model.EndpointActive, e.Status)
	require.Zero(t, e.ConsecutiveFailures)
	s = applyChangeT(t, s, ch)
	require.True(t, s.Endpoint(id).Delivers("appointment.created"), "back on: events get records again")
	require.Nil(t, DecideDeliveryOutcome(s, uuid.Nil, false, t0, ids), "an unknown endpoint")
}
