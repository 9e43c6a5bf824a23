package business

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// Each webhook endpoint has a courier, a child of the business actor
// (package courier), so a business's deliveries stop and restart with it.
// The business actor keeps the couriers in step with the endpoints: it
// spawns one when an endpoint appears, tells it every change, and retires
// it when the endpoint is deleted. Couriers report how deliveries ended;
// the business actor turns that into consecutiveFailures and auto-disable,
// which are endpoint state and so its to journal.
//
// What a courier is told comes from a write, so it is told only once that
// write is durable (commit.go): a courier never sends an event, or acts on
// an endpoint change, that a crash could undo. A courier for a new
// endpoint is spawned at once (only the actor can spawn its children), but
// it has nothing to send until its first deliveries arrive after the sync.

// startCouriers spawns a courier for every endpoint of the loaded state;
// each re-arms its open deliveries from the log.
func (a *businessActor) startCouriers(ctx actor.Context) {
	if a.env.Couriers == nil || a.state == nil {
		return
	}
	for _, ep := range a.state.Endpoints() {
		a.kids.couriers[ep.ID] = ctx.Spawn(courier.Props(a.env.Couriers, a.h.ID, ep))
	}
}

// tell is a message for a courier, sent once its write is durable.
type tell struct {
	pid *actor.PID
	msg any
}

// courierMessages brings the set of couriers in step with the endpoints ch
// changes and returns what to tell them once ch is durable: new endpoint
// states, retirements, and the new deliveries by endpoint.
func (a *businessActor) courierMessages(ctx actor.Context, ch *record.Change, fresh map[uuid.UUID][]model.Delivery) []tell {
	if a.env.Couriers == nil {
		return nil
	}
	var out []tell
	for _, ep := range ch.Endpoints {
		if pid := a.kids.couriers[ep.ID]; pid != nil {
			out = append(out, tell{pid, &courier.Configure{Endpoint: ep}})
		} else {
			a.kids.couriers[ep.ID] = ctx.Spawn(courier.Props(a.env.Couriers, a.h.ID, ep))
		}
	}
	for _, id := range ch.Removed {
		if pid := a.kids.couriers[id]; pid != nil {
			out = append(out, tell{pid, &courier.Retire{}})
			delete(a.kids.couriers, id)
		}
	}
	for id, ds := range fresh {
		if pid := a.kids.couriers[id]; pid != nil {
			out = append(out, tell{pid, &courier.Fresh{Deliveries: ds}})
		}
	}
	return out
}

// outcome journals what a courier reported about a delivery that ended.
func (a *businessActor) outcome(ctx actor.Context, m *courier.Outcome) {
	if a.state == nil {
		return
	}
	if ch := ledger.DecideDeliveryOutcome(a.state, m.EndpointID, m.Delivered, a.now(), a.ids); ch != nil {
		commitChange(a, ctx, ch, Done{})
	}
}

// Replay asks for webhook delivery DeliveryID of endpoint EndpointID to
// be sent again; the endpoint's courier answers it.
type Replay struct {
	request[*model.Delivery]
	EndpointID uuid.UUID
	DeliveryID uuid.UUID
}

// run hands the replay to the endpoint's courier, which answers the
// original sender.
func (m *Replay) run(a *businessActor, ctx actor.Context) {
	pid := a.kids.couriers[m.EndpointID]
	if pid == nil {
		respondNow(ctx, (*model.Delivery)(nil), courier.ErrNoDelivery)
		return
	}
	ctx.RequestWithCustomSender(pid, &courier.Replay{DeliveryID: m.DeliveryID, Reply: replayReply}, ctx.Sender())
}

// replayReply is a courier's answer to a Replay, as this protocol's reply.
func replayReply(d *model.Delivery, err error) any {
	return &Reply[*model.Delivery]{Value: d, Err: err}
}
