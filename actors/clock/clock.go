// Package clock owns the notion of "now" for slotd's stateful parts, in
// every layer: the engine's actors, the store's health, the senders'
// retries and the front end's quotas read time from one Clock. Pure
// packages take a now time.Time argument instead; only cmd/ uses the real
// clock, and tests use Fake, which moves only when told.
//
// Timers come from the clock too, so that a retry twelve hours away can be
// tested by moving a Fake forward rather than by waiting.
package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock tells the current time and runs functions later.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f on its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not started; it reports whether it
	// did so.
	Stop() bool
}

// Real is the system clock.
type Real struct{}

// Now returns the current UTC time.
func (Real) Now() time.Time { return time.Now().UTC() }

// AfterFunc is time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Fake is a manually advanced clock, safe for concurrent use. Its timers
// fire, each on its own goroutine, when Advance or Set moves the time to or
// past their deadline, in deadline order.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	f    *Fake
	at   time.Time
	fn   func()
	done bool
}

// NewFake returns a Fake reading t.
func NewFake(t time.Time) *Fake { return &Fake{now: t.UTC()} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the fake time forward by d.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.fire()
}

// Set moves the fake time to t.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	f.now = t.UTC()
	f.fire()
}

// AfterFunc arranges for fn to run once the fake time reaches now+d. A d of
// zero or less fires at once.
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer {
	f.mu.Lock()
	t := &fakeTimer{f: f, at: f.now.Add(d), fn: fn}
	f.timers = append(f.timers, t)
	f.fire()
	return t
}

// Pending is the number of timers that have not fired or been stopped.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// fire starts every due timer and unlocks f.mu, which the caller holds.
func (f *Fake) fire() {
	var due []*fakeTimer
	kept := f.timers[:0]
	for _, t := range f.timers {
		if !t.at.After(f.now) {
			t.done = true
			due = append(due, t)
		} else {
			kept = append(kept, t)
		}
	}
	clear(f.timers[len(kept):])
	f.timers = kept
	f.mu.Unlock()
	sort.SliceStable(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		go t.fn()
	}
}

func (t *fakeTimer) Stop() bool {
	f := t.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.done {
		return false
	}
	t.done = true
	for i, x := range f.timers {
		if x == t {
			f.timers = append(f.timers[:i], f.timers[i+1:]...)
			break
		}
	}
	return true
}
