package courier

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// TestDisabledEndpointParksRetriesAndTakesReplays: while an endpoint is
// switched off, due retries wait (they are older than the switch) and
// replays still go out; switching it back on sends what waited.
func TestDisabledEndpointParksRetriesAndTakesReplays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, "", down503)
		r.fresh("evt_01")
		r.awaitSend()
		first := r.awaitLog(1, model.DeliveryFailed)[0]

		off := r.ep
		off.IsActive, off.Status = false, model.EndpointAutoDisabled
		r.tell(&Configure{Endpoint: off})
		r.clock.Advance(time.Minute)
		r.noSend()

		// A replay goes out anyway, as attempt 7, with the original event id.
		r.send.answer(ok200)
		rep := r.replay(first.ID)
		require.Equal(t, 7, rep.Attempt)
		require.Equal(t, model.DeliveryPending, rep.Status)
		require.Equal(t, "evt_01", rep.EventID)
		require.Equal(t, first.Payload, rep.Payload)
		require.Equal(t, "evt_01", r.awaitSend().req.ID)
		ds := r.awaitLog(2, model.DeliveryDelivered)
		require.Equal(t, rep.ID, ds[1].ID, "the replay's record is rewritten with its outcome")
		require.Equal(t, &Outcome{EndpointID: r.ep.ID, Delivered: true}, r.awaitOutcome())
		r.noSend()

		// The next replay continues the numbering, whichever record it names.
		require.Equal(t, 8, r.replay(first.ID).Attempt)
		r.awaitSend()
		require.Equal(t, 9, r.replay(ds[1].ID).Attempt)
		r.awaitSend()

		r.tell(&Configure{Endpoint: r.ep})
		require.Equal(t, "evt_01", r.awaitSend().req.ID, "the parked retry goes out once switched on")
		synctest.Wait()
		require.True(t, r.openCount() == 0)
	})
}

func (r *rig) replay(id [16]byte) *model.Delivery {
	r.t.Helper()
	res, err := r.sys.Root.RequestFuture(r.courier, &Replay{DeliveryID: id, Reply: replyOf}, 5*time.Second).Result()
	require.NoError(r.t, err)
	rep := res.(*replayReply)
	require.NoError(r.t, rep.err)
	return rep.d
}

// replayReply is the tests' answer to a Replay.
type replayReply struct {
	d   *model.Delivery
	err error
}

func replyOf(d *model.Delivery, err error) any { return &replayReply{d, err} }

func TestReplayOfUnknownDelivery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, "", ok200)
		res, err := r.sys.Root.RequestFuture(r.courier, &Replay{DeliveryID: NewID(r.ep.ID, t0), Reply: replyOf}, 5*time.Second).Result()
		require.NoError(t, err)
		require.ErrorIs(t, res.(*replayReply).err, ErrNoDelivery)
	})
}

// TestSweepKeepsThirtyDays writes records of several ages and lets the
// hourly sweep run: closed records past 30 days go, an open one stays
// however old, and so does everything after it.
func TestSweepKeepsThirtyDays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, "", ok200)
		r.stop()
		put := func(age time.Duration, status string) model.Delivery {
			at := t0.Add(-age)
			d := First(r.ep.ID, "evt_x", "appointment.created", []byte(`{}`), at)
			d.Status = status
			if status == model.DeliveryFailed {
				d.NextRetryAt = t0.Add(time.Hour)
			}
			enc, err := record.EncodeDelivery(&d)
			require.NoError(t, err)
			b := r.store.NewBatch()
			b.PutDelivery(r.biz, r.ep.ID, d.ID, d.Open(), enc)
			require.NoError(t, b.Commit())
			return d
		}
		put(40*24*time.Hour, model.DeliveryDelivered)
		put(31*24*time.Hour, model.DeliveryExhausted)
		keep := put(29*24*time.Hour, model.DeliveryDelivered)
		recent := put(time.Hour, model.DeliveryDelivered)

		r.start()
		r.clock.Advance(time.Minute) // the first sweep
		synctest.Wait()
		require.True(t, len(r.log()) == 2)
		require.Equal(t, []model.Delivery{keep, recent}, stripPayloads(r.log(), keep.Payload))

		// An open delivery holds the horizon back.
		r.stop()
		open := put(35*24*time.Hour, model.DeliveryFailed)
		r.start()
		r.clock.Advance(time.Minute)
		synctest.Wait()
		ds := r.log()
		require.Len(t, ds, 3)
		require.Equal(t, open.ID, ds[0].ID)
	})
}

func stripPayloads(ds []model.Delivery, p []byte) []model.Delivery {
	for i := range ds {
		ds[i].Payload = p
		ds[i].CreatedAt = ds[i].CreatedAt.UTC()
	}
	return ds
}

func TestRetireDeletesTheLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, "", down503)
		r.fresh("evt_01")
		r.awaitSend()
		r.awaitLog(1, model.DeliveryFailed)
		r.tell(&Retire{})
		synctest.Wait()
		require.True(t, len(r.log()) == 0 && r.openCount() == 0)
		r.clock.Advance(time.Hour)
		r.noSend()
	})
}

// TestInFlightIsBounded: a slow consumer holds at most MaxInFlight
// attempts; the rest wait their turn rather than pile up.
func TestInFlightIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, "", ok200)
		r.stop()
		r.env.MaxInFlight = 2
		gate := make(chan struct{})
		r.send.gate = gate
		r.start()
		for _, id := range []string{"evt_1", "evt_2", "evt_3", "evt_4", "evt_5"} {
			r.fresh(id)
		}
		r.awaitSend()
		r.awaitSend()
		r.noSend()
		close(gate)
		for i := 0; i < 3; i++ {
			r.awaitSend()
		}
		synctest.Wait()
		require.True(t, r.openCount() == 0 && len(r.log()) == 5)
	})
}

// TestOneWritesDeliveriesGoInOrder: the deliveries one write hands over
// are sent one after another, each once the one before has its answer;
// another write's delivery does not wait for them.
func TestOneWritesDeliveriesGoInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, "", ok200)
		gate := make(chan struct{})
		r.send.gate = gate
		cancelled, offered := r.logged("evt_cancelled"), r.logged("evt_offered")
		r.tell(&Fresh{Deliveries: []model.Delivery{cancelled, offered}})
		require.Equal(t, "evt_cancelled", r.awaitSend().req.ID)
		r.noSend()
		r.fresh("evt_other_write")
		require.Equal(t, "evt_other_write", r.awaitSend().req.ID, "another write does not wait")
		close(gate)
		require.Equal(t, "evt_offered", r.awaitSend().req.ID, "after the first has its answer")
		synctest.Wait()
		require.Zero(t, r.openCount())
	})
}

// TestOneWritesDeliveriesKeepTheirOrderAcrossASwitch: deliveries parked
// while the endpoint was off go out, once it is back on, in their write's
// order, one after another.
func TestOneWritesDeliveriesKeepTheirOrderAcrossASwitch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, "", ok200)
		off := r.ep
		off.IsActive = false
		r.tell(&Configure{Endpoint: off})
		var ds []model.Delivery
		for _, id := range []string{"evt_1", "evt_2", "evt_3"} {
			ds = append(ds, r.logged(id))
		}
		r.tell(&Fresh{Deliveries: ds})
		r.noSend()
		gate := make(chan struct{})
		r.send.gate = gate
		r.tell(&Configure{Endpoint: r.ep})
		require.Equal(t, "evt_1", r.awaitSend().req.ID)
		r.noSend()
		close(gate)
		synctest.Wait()
		r.send.mu.Lock()
		var order []string
		for _, x := range r.send.sent {
			order = append(order, x.req.ID)
		}
		r.send.mu.Unlock()
		require.Equal(t, []string{"evt_1", "evt_2", "evt_3"}, order)
	})
}
