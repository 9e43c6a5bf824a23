package business

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"
)

// A business actor's children do its waiting, so that the actor itself
// never waits on anything but its journal:
//
//   - a courier per webhook endpoint delivers its events (webhooks.go);
//   - the payer makes every payment provider call (payer.go, payments.go);
//   - the puller fetches the staff's calendar sources (pull.go).
//
// Each reports back as a message the actor handles in one step (a signal,
// or a courier's Outcome), and each is told only what is durable. They
// are the actor's children, so they stop, and restart, with it; children
// holds their PIDs, and startChildren and stopChildren are the only places
// that start or forget them all.
type children struct {
	couriers map[uuid.UUID]*actor.PID // by endpoint
	payer    *actor.PID               // spawned at its first call; nil without a provider client
	puller   *actor.PID               // spawned at the first calendar source
}

func newChildren() children {
	return children{couriers: map[uuid.UUID]*actor.PID{}}
}

// startChildren resumes the work the loaded state says is owed: a courier
// for every endpoint (each re-arms its open deliveries from the log), the
// next step of every payment waiting for one, and the calendar pulls.
func (a *businessActor) startChildren(ctx actor.Context) {
	a.startCouriers(ctx)
	a.startPayments(ctx)
	a.planPulls(ctx)
}

// stopChildren forgets the children, which stop with the actor (a payer
// cancels its calls in flight), and stops the payments' timers.
func (a *businessActor) stopChildren() {
	a.stopPayments()
	a.kids = newChildren()
}
