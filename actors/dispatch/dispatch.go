// Package dispatch runs actors' mailboxes on goroutines that outlive them.
//
// protoactor-go's default dispatcher starts a new goroutine each time an
// idle mailbox receives a message. A business actor's call chain is deep
// (decide, apply, index, journal), so every such goroutine grew its stack
// from the minimum, copying it two or three times: 5 % of slotd's CPU in a
// booking storm went to runtime.copystack under ledger.book.addCustomers
// and sorted.Map.Get (issue 23). A Pool hands each mailbox run to an idle
// worker whose stack has already grown, most recently used first, and
// starts a worker only when none is idle.
package dispatch

import (
	"sync"
	"time"

	"github.com/slotd/slotd/actors/clock"
)

// Pool is an actor.Dispatcher. Its zero value is not usable; New makes
// one.
type Pool struct {
	throughput int
	maxIdle    time.Duration
	clock      clock.Clock

	mu      sync.Mutex
	idle    []*worker // a stack: the most recently used on top
	running int       // workers alive, idle or busy
	sweep   clock.Timer
}

type worker struct {
	work      chan func() // nil ends the worker
	idleSince time.Time
}

// DefaultMaxIdle is how long a worker waits for work before it ends.
const DefaultMaxIdle = 10 * time.Second

// New returns a Pool whose mailboxes process at most throughput messages
// before yielding (protoactor's default is 300), and whose workers end
// after maxIdle without work. clk nil means clock.Real.
func New(throughput int, maxIdle time.Duration, clk clock.Clock) *Pool {
	if clk == nil {
		clk = clock.Real{}
	}
	return &Pool{throughput: throughput, maxIdle: maxIdle, clock: clk}
}

// Throughput is protoactor's: messages per run before the run yields.
func (p *Pool) Throughput() int { return p.throughput }

// Schedule runs fn on an idle worker, or on a new one. It never blocks.
func (p *Pool) Schedule(fn func()) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		w.work <- fn // buffered: an idle worker's channel is empty
		return
	}
	p.running++
	p.mu.Unlock()
	w := &worker{work: make(chan func(), 1)}
	go p.run(w, fn)
}

// run is one worker: fn, then whatever it is handed next, until the
// sweep ends it.
func (p *Pool) run(w *worker, fn func()) {
	for fn != nil {
		fn()
		p.park(w)
		fn = <-w.work
	}
}

// park puts w on top of the idle stack and makes sure a sweep is due.
func (p *Pool) park(w *worker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w.idleSince = p.clock.Now()
	p.idle = append(p.idle, w)
	if p.sweep == nil {
		p.sweep = p.clock.AfterFunc(p.maxIdle, p.sweepIdle)
	}
}

// sweepIdle ends the workers idle for maxIdle or longer. They are at the
// bottom of the stack: the stack is ordered by the time each was parked.
func (p *Pool) sweepIdle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock.Now()
	n := 0
	for n < len(p.idle) && now.Sub(p.idle[n].idleSince) >= p.maxIdle {
		p.idle[n].work <- nil
		n++
	}
	p.running -= n
	p.idle = append(p.idle[:0], p.idle[n:]...)
	p.sweep = nil
	if len(p.idle) > 0 {
		p.sweep = p.clock.AfterFunc(p.maxIdle, p.sweepIdle)
	}
}

// Workers reports how many workers are alive and how many of them are
// idle.
func (p *Pool) Workers() (running, idle int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running, len(p.idle)
}
