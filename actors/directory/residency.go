package directory

import (
	"context"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/clock"
)

// Residency bounds the businesses held in memory (decisions §1): a
// business with no request for IdleAfter, and nothing in hand, is let go —
// its actor stopped, its state dropped — and at most MaxResident stay,
// the least recently used idle ones let go first. A business let go is
// loaded again by its next request, like a first answer, or on time by
// the directory when its next deadline comes (a hold or waitlist entry
// expiring, a reminder, a calendar pull): the wake table below.
//
// What a business has in hand only its actor knows, so the actor decides
// (business.LetGo) and retires its handle in the same step; a request on
// its way to it keeps it (business.Handle.Retire). Webhook deliveries
// still open and payment work keep a business resident until they end.
type Residency struct {
	IdleAfter   time.Duration // 0: idleness lets none go
	MaxResident int           // 0: no bound
}

func (r Residency) on() bool { return r.IdleAfter > 0 || r.MaxResident > 0 }

// period is how often the directory looks for businesses to let go: a
// quarter of IdleAfter, between a second and a minute; every second with
// a bound to keep (and at once when a business loaded passes it: kick).
func (r Residency) period() time.Duration {
	if r.IdleAfter == 0 || r.MaxResident > 0 {
		return time.Second
	}
	return min(max(r.IdleAfter/4, time.Second), time.Minute)
}

// window is how far ahead a deadline keeps a business resident: one due
// sooner would wake it again at once.
func (r Residency) window() time.Duration {
	if r.IdleAfter == 0 {
		return time.Minute
	}
	return r.IdleAfter
}

// resident is the directory's residency state.
type resident struct {
	cfg   Residency
	clock clock.Clock
	now   atomicTime // the clock as the last look read it: requests touch their handle with it
	wakes wakeTable
	gone  prometheus.Counter

	mu      sync.Mutex
	timer   clock.Timer
	closed  bool
	looking sync.Mutex   // held by a look
	kicked  atomic.Bool  // a look is on its way for a business past the bound
	kicks   atomic.Int64 // looks kicked, since the start (tests)
	// freed is when memory was last handed back to the system (giveBack).
	freed time.Time
}

// startResidency arms the first look, when residency is on.
func (d *Directory) startResidency(cfg Residency, c clock.Clock) {
	d.res = &resident{cfg: cfg, clock: c,
		gone: prometheus.NewCounter(prometheus.CounterOpts{Name: "slotd_businesses_let_go_total",
			Help: "Businesses let go (--idle-after, --max-resident): actor stopped, state dropped, loaded again on their next request or deadline."})}
	d.res.wakes.d = d
	d.res.now.store(c.Now())
	if cfg.on() {
		d.res.arm(d)
	}
}

func (r *resident) arm(d *Directory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.timer = r.clock.AfterFunc(r.cfg.period(), func() { d.look() })
	}
}

func (r *resident) close() {
	r.mu.Lock()
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
	}
	r.mu.Unlock()
	r.wakes.close()
}

// kick starts a look at once when the businesses in memory passed
// MaxResident: a burst of first requests is not kept until the next
// second's look. Kicks are one until a look has begun (lookNow clears
// kicked once it holds the turn), so at most one look runs and one waits
// behind it. (Cleared when the goroutine started instead, every first
// answer past the bound queued a look of its own behind the running one:
// at 1,500 first answers a second the looks took the CPU, and first
// answers waited up to 100 ms behind them.)
func (d *Directory) kick() {
	r := d.res
	if r.cfg.MaxResident == 0 || d.live.Load() <= int64(r.cfg.MaxResident) || !r.kicked.CompareAndSwap(false, true) {
		return
	}
	r.kicks.Add(1)
	go d.lookNow()
}

// touch records a request for h, when residency is on.
func (d *Directory) touch(h *business.Handle) {
	if d.res.cfg.on() {
		h.Touch(d.res.now.load())
	}
}

// look lets go the businesses idle for IdleAfter, and the least recently
// used idle ones past MaxResident, then arms the next look.
func (d *Directory) look() {
	// The next look is armed first, so that the clock moving on while
	// this one runs is never missed.
	d.res.arm(d)
	d.lookNow()
}

// lookNow is a look, without arming the next one.
func (d *Directory) lookNow() {
	r := d.res
	r.looking.Lock()
	defer r.looking.Unlock()
	// What was loaded until now is this look's: a kick from here on
	// starts the next.
	r.kicked.Store(false)
	if r.isClosed() {
		return
	}
	now := r.clock.Now()
	r.now.store(now)
	type cand struct {
		h    *business.Handle
		used int64
	}
	var cands []cand
	d.handles.Range(func(_, v any) bool {
		if h := v.(*business.Handle); h.Ready() && !h.Retired() {
			cands = append(cands, cand{h, h.Used()})
		}
		return true
	})
	slices.SortFunc(cands, func(a, b cand) int { return int(min(max(a.used-b.used, -1), 1)) })
	over := 0
	if r.cfg.MaxResident > 0 {
		// Counting those still loading: a kick comes from one of them.
		over = int(d.live.Load()) - r.cfg.MaxResident
		if over > 0 {
			// A twentieth more than the excess, so that a stream of first
			// requests starts a look every hundred loads (at 2,000), not
			// at each: a look sorts every business in memory, and one per
			// load took most of a core at 2,000 first answers a second.
			over += r.cfg.MaxResident / 20
		}
	}
	idleSince := now.Add(-r.cfg.IdleAfter).UnixNano()
	gone := 0
	for _, c := range cands {
		idle := r.cfg.IdleAfter > 0 && c.used <= idleSince
		if !idle && over <= 0 {
			break // sorted: every later one was used more recently
		}
		if d.letGo(c.h) {
			over--
			gone++
		}
	}
	r.giveBack(now, gone, len(cands))
}

// giveBack hands the memory of the businesses a look let go back to the
// system, when they were many (a tenth of those in memory, or a thousand)
// and it was not done within the last minute. A server that has gone
// quiet allocates nothing, so without a collection their states would
// stay garbage in the heap, and RSS would never come down (decisions §1:
// memory bounded however many businesses were touched). The collection
// runs on the look's goroutine; requests go on meanwhile.
func (r *resident) giveBack(now time.Time, gone, of int) {
	if gone == 0 || gone < of/10 && gone < 1000 || now.Sub(r.freed) < time.Minute {
		return
	}
	r.freed = now
	debug.FreeOSMemory()
}

func (r *resident) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// letGo asks h's actor to let its business go, and forgets the handle
// when it did. It reports whether it did.
func (d *Directory) letGo(h *business.Handle) bool {
	r := d.res
	res, err := d.sys.Root.RequestFuture(h.PID, &business.LetGo{Within: r.cfg.window()}, d.timeout).Result()
	rep, ok := res.(*business.Reply[business.Idleness])
	if err != nil || !ok || rep.Err != nil || !rep.Value.Idle {
		return false
	}
	d.mu.Lock()
	if d.handles.CompareAndDelete(h.ID, h) {
		d.live.Add(-1)
	}
	d.mu.Unlock()
	r.gone.Inc()
	if at := rep.Value.WakeAt; !at.IsZero() {
		r.wakes.add(h.ID, at)
	}
	return true
}

// atomicTime is a time read and written atomically, to the nanosecond.
type atomicTime struct{ ns atomic.Int64 }

func (t *atomicTime) store(v time.Time) { t.ns.Store(v.UnixNano()) }
func (t *atomicTime) load() int64       { return t.ns.Load() }

// wakeTable holds the deadlines of the businesses let go, and loads each
// when its deadline comes: one timer, on the clock, for the earliest.
type wakeTable struct {
	d      *Directory
	mu     sync.Mutex
	at     map[uuid.UUID]time.Time
	next   time.Time
	timer  clock.Timer
	closed bool
}

// add wakes business id at t (or sooner, if it is already due then).
func (w *wakeTable) add(id uuid.UUID, t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if w.at == nil {
		w.at = map[uuid.UUID]time.Time{}
	}
	if old, ok := w.at[id]; !ok || t.Before(old) {
		w.at[id] = t
	}
	if w.timer == nil || t.Before(w.next) {
		w.armLocked(t)
	}
}

// forget drops business id's deadline: it is resident again and its
// actor keeps its own.
func (w *wakeTable) forget(id uuid.UUID) {
	w.mu.Lock()
	delete(w.at, id)
	w.mu.Unlock()
}

func (w *wakeTable) armLocked(t time.Time) {
	if w.timer != nil {
		w.timer.Stop()
	}
	c := w.d.res.clock
	w.next, w.timer = t, c.AfterFunc(t.Sub(c.Now()), w.fire)
}

// fire loads every business whose deadline has come; each actor then
// does what is due, on its own timer.
func (w *wakeTable) fire() {
	now := w.d.res.clock.Now()
	w.mu.Lock()
	var due []uuid.UUID
	var next time.Time
	for id, t := range w.at {
		if !t.After(now) {
			due = append(due, id)
			delete(w.at, id)
		} else if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	w.timer = nil
	if !next.IsZero() && !w.closed {
		w.armLocked(next)
	}
	w.mu.Unlock()
	for _, id := range due {
		if w.isClosed() {
			return // shutting down: the next start wakes them from the journal
		}
		ctx, cancel := context.WithTimeout(context.Background(), w.d.timeout)
		if _, err := w.d.Business(ctx, id); err != nil {
			w.d.env.Log.Warn("a business let go could not be woken for its deadline", "business", id, "err", err)
		}
		cancel()
	}
}

// len is how many businesses wait to be woken.
func (w *wakeTable) len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.at)
}

func (w *wakeTable) isClosed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

func (w *wakeTable) close() {
	w.mu.Lock()
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
}
