package business

import (
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"
)

// Residency (decisions §1, --idle-after and --max-resident): the
// directory lets a business go — its actor stopped, its state dropped —
// when it has nothing in hand. The actor, which alone knows what it has
// in hand, answers whether it may go (LetGo); the directory then retires
// the handle (Handle.Retire), which fails only if a request is on its way,
// and stops the actor. A business let go is loaded again by its next
// request, or on time by the directory when its next deadline comes.

// Idleness is a business actor's answer to LetGo.
type Idleness struct {
	// Idle: nothing is in hand — no write being synced or published, no
	// snapshot, no payment call or payment work, no webhook delivery
	// open, and no deadline within the window asked about.
	Idle bool
	// WakeAt is the business's next deadline (a hold or waitlist entry
	// expiring, a reminder, a calendar pull); zero when it has none.
	WakeAt time.Time
}

// LetGo asks the actor to let its business go if it is idle and has no
// deadline within Within: it then retires its handle and stops.
type LetGo struct {
	request[Idleness]
	Within time.Duration
}

func (m *LetGo) run(a *businessActor, ctx actor.Context) {
	idle := a.idleness(m.Within)
	if idle.Idle {
		if !a.h.Retire() {
			idle = Idleness{} // a request is on its way
		} else {
			// Stop, not poison: whatever a timer or child queued after
			// this is dropped rather than done by an actor that is no
			// longer the business's (its successor redoes it from the
			// journal).
			ctx.Stop(ctx.Self())
		}
	}
	respondNow(ctx, idle, nil)
}

// idleness is LetGo's answer.
func (a *businessActor) idleness(within time.Duration) Idleness {
	st := a.state
	if st == nil {
		return Idleness{Idle: true} // no such business: nothing to keep
	}
	if !a.h.pub.idle() || len(a.unsynced) > 0 || a.h.snapshotting.Load() ||
		st.HasPaymentWork() || len(a.pay.waiting) > 0 || len(a.pay.owing) > 0 {
		return Idleness{}
	}
	for ep := range a.kids.couriers {
		if a.deliveriesOpen(ep) {
			return Idleness{} // its couriers have work, or we cannot tell
		}
	}
	next, ok := a.nextDeadline()
	if ok && !next.After(a.now().Add(within)) {
		return Idleness{}
	}
	return Idleness{Idle: true, WakeAt: next}
}

// nextDeadline is the business's earliest deadline: what schedule arms
// its timer for, and its calendar sources' next pulls.
func (a *businessActor) nextDeadline() (time.Time, bool) {
	next, ok := a.state.NextHoldExpiry()
	earlier := func(t time.Time, tok bool) {
		if tok && (!ok || t.Before(next)) {
			next, ok = t, true
		}
	}
	if e, eok := a.state.NextEntryExpiry(); eok {
		earlier(e.Add(time.Millisecond), true)
	}
	earlier(a.state.NextReminder(a.remindScan))
	earlier(a.state.NextPull())
	return next, ok
}

// errOpen stops the walk of an endpoint's open deliveries at the first.
var errOpen = errors.New("an open delivery")

// deliveriesOpen reports whether endpoint ep has a delivery open (sent
// or waiting for its retry), or whether it cannot tell.
func (a *businessActor) deliveriesOpen(ep uuid.UUID) bool {
	err := a.env.Store.OpenDeliveries(a.h.ID, ep, func([16]byte) error { return errOpen })
	return err != nil
}
