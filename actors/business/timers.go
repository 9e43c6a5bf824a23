package business

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/ledger"
)

// Expiry of holds and waitlist entries (decisions §6) and reminders
// (decisions §9). The deadlines are state (a hold's expiresAt, an entry's
// to, an appointment's start less a reminder's offset), so one timer per
// business, set on the injected clock to the earliest of them, serves a
// fresh hold and a restart or cluster take-over alike: schedule re-arms
// it whenever a write touches holds, entries or appointments, and when it
// fires the actor journals every expiry that is due (freeing the time,
// which AddOffers then offers to the waitlist) and the reminders due, in
// one write.

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
	if r, rok := a.state.NextReminder(a.remindScan); rok && (!ok || r.Before(next)) {
		next, ok = r, true
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

// expire journals the expiries and reminders that are due and re-arms
// the timer.
func (a *businessActor) expire(ctx actor.Context) {
	a.timer = deadline{}
	if a.state == nil {
		return
	}
	now := a.now()
	ch := ledger.DecideExpiries(a.state, now, a.ids)
	reminded, outcomes := ledger.DecideReminders(a.state, a.remindScan, now, a.ids)
	// A scan that sends nothing writes nothing: the actor remembers how
	// far it looked, and after a restart looks again from what the
	// journal says (finding the same nothing). A write that fails is not
	// looked at again by this actor: a failed sync marks the handle
	// broken, and the actor that replaces it starts from the journal
	// (commit.go).
	a.remindScan = now
	metrics := a.env.Metrics
	metrics.reminded(outcomes, false)
	switch {
	case reminded == nil && ch == nil:
		a.schedule(ctx)
		return
	case ch == nil:
		ch = reminded
	case reminded != nil:
		ch.Events, ch.Mails, ch.Reminded = append(ch.Events, reminded.Events...), append(ch.Mails, reminded.Mails...), reminded.Reminded
	}
	log := a.env.Log
	a.commitThen(ctx, ch, func(err error) {
		if err != nil {
			log.Error("journalling expiries and reminders failed", "err", err)
			return
		}
		metrics.reminded(outcomes, true)
	})
}

// handle journals the expiries and reminders due.
func (*tick) handle(a *businessActor, ctx actor.Context) { a.expire(ctx) }
