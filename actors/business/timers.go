package business

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/storage/clock"
)

// Expiry of holds and waitlist entries (decisions §6). The deadlines are
// state (a hold's expiresAt, an entry's to), so one timer per business,
// set on the injected clock to the earliest of them, serves a fresh hold
// and a restart alike: schedule re-arms it whenever a write touches holds
// or entries, and when it fires the actor journals every expiry that is
// due (freeing the time, which AddOffers then offers to the waitlist).

// tick: the earliest deadline has come.
type tick struct{}

// deadline is the business's one expiry timer.
type deadline struct {
	at    time.Time // when it fires; zero when unarmed
	timer clock.Timer
}

// schedule arms the timer for the earliest deadline of the state, or
// stops it when there is none.
func (a *businessActor) schedule(ctx actor.Context) {
	if a.state == nil {
		return
	}
	next, ok := a.state.NextHoldExpiry()
	if e, eok := a.state.NextEntryExpiry(); eok && (!ok || e.Before(next)) {
		// An entry expires once its window has passed: just after to.
		next, ok = e.Add(time.Millisecond), true
	}
	if !ok {
		a.stopTimer()
		return
	}
	if a.timer.timer != nil && a.timer.at.Equal(next) {
		return
	}
	a.stopTimer()
	root, self := ctx.ActorSystem().Root, ctx.Self()
	a.timer = deadline{at: next, timer: a.env.Clock.AfterFunc(max(next.Sub(a.now()), 0), func() { root.Send(self, &tick{}) })}
}

func (a *businessActor) stopTimer() {
	if a.timer.timer != nil {
		a.timer.timer.Stop()
	}
	a.timer = deadline{}
}

// expire journals the expiries that are due and re-arms the timer.
func (a *businessActor) expire(ctx actor.Context) {
	a.timer = deadline{}
	if a.state == nil {
		return
	}
	ch := ledger.DecideExpiries(a.state, a.now(), a.ids)
	if ch == nil {
		a.schedule(ctx)
		return
	}
	log := a.env.Log
	a.commitThen(ctx, ch, func(err error) {
		if err != nil {
			log.Error("journalling expiries failed", "err", err)
		}
	})
}
