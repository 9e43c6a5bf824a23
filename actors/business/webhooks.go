package business

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/tenant"
	"github.com/slotd/slotd/storage/catalog"
	"github.com/slotd/slotd/storage/record"
)

// Each webhook endpoint has a courier, a child of the business actor
// (package courier), so a business's deliveries stop and restart with it.
// The business actor keeps the couriers in step with the endpoints: it
// spawns one when an endpoint appears, tells it every change, and retires
// it when the endpoint is deleted. Couriers report how deliveries ended;
// the business actor turns that into consecutiveFailures and auto-disable,
// which are endpoint state and so its to journal.

// startCouriers spawns a courier for every endpoint of the loaded state;
// each re-arms its open deliveries from the log.
func (a *businessActor) startCouriers(ctx actor.Context) {
	if a.env.Couriers == nil || a.state == nil {
		return
	}
	for _, ep := range a.state.Endpoints() {
		a.couriers[ep.ID] = ctx.Spawn(courier.Props(a.env.Couriers, a.h.ID, ep))
	}
}

// tellCouriers brings the couriers in step with the endpoints ch changed.
func (a *businessActor) tellCouriers(ctx actor.Context, ch *record.Change) {
	if a.env.Couriers == nil {
		return
	}
	for _, ep := range ch.Endpoints {
		if pid := a.couriers[ep.ID]; pid != nil {
			ctx.Send(pid, &courier.Configure{Endpoint: ep})
		} else {
			a.couriers[ep.ID] = ctx.Spawn(courier.Props(a.env.Couriers, a.h.ID, ep))
		}
	}
	for _, id := range ch.Removed {
		if pid := a.couriers[id]; pid != nil {
			ctx.Send(pid, &courier.Retire{})
			delete(a.couriers, id)
		}
	}
}

// freshFor pairs new deliveries with their couriers' PIDs, looked up now,
// in the actor, so the goroutine that hands them over after the sync does
// not touch actor state.
func (a *businessActor) freshFor(fresh map[uuid.UUID][]catalog.Delivery) map[*actor.PID][]catalog.Delivery {
	if len(fresh) == 0 {
		return nil
	}
	out := make(map[*actor.PID][]catalog.Delivery, len(fresh))
	for id, ds := range fresh {
		if pid := a.couriers[id]; pid != nil {
			out[pid] = ds
		}
	}
	return out
}

// outcome journals what a courier reported about a delivery that ended.
func (a *businessActor) outcome(ctx actor.Context, m *courier.Outcome) {
	if a.state == nil {
		return
	}
	if ch := tenant.DecideDeliveryOutcome(a.state, m.EndpointID, m.Delivered, a.now(), a.ids); ch != nil {
		a.commitAsync(ctx, ch, nil)
	}
}

// forwardReplay hands a replay request to the endpoint's courier, which answers
// the original sender.
func (a *businessActor) forwardReplay(ctx actor.Context, m *courier.Replay) {
	if pid := a.couriers[m.EndpointID]; pid != nil {
		ctx.Forward(pid)
		return
	}
	ctx.Respond(&courier.ReplayReply{Err: courier.ErrNoDelivery})
}
