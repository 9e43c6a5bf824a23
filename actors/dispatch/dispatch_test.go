package dispatch

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
)

var _ actor.Dispatcher = (*Pool)(nil)

// TestPoolReusesIdleWorkers: runs that overlap get a worker each; once
// they are over, later runs go to those workers instead of new ones, and
// workers idle for maxIdle end.
func TestPoolReusesIdleWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFake(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
		p := New(300, time.Minute, clk)

		release := make(chan struct{})
		var ran atomic.Int32
		for range 3 {
			p.Schedule(func() { <-release; ran.Add(1) })
		}
		synctest.Wait()
		running, idle := p.Workers()
		assert.Equal(t, [2]int{3, 0}, [2]int{running, idle}, "three runs at once: three workers")

		close(release)
		synctest.Wait()
		assert.EqualValues(t, 3, ran.Load())
		running, idle = p.Workers()
		assert.Equal(t, [2]int{3, 3}, [2]int{running, idle}, "done: parked, not gone")

		for range 10 { // one after another: the same worker each time
			done := make(chan struct{})
			p.Schedule(func() { ran.Add(1); close(done) })
			<-done
			synctest.Wait()
		}
		running, idle = p.Workers()
		assert.Equal(t, [2]int{3, 3}, [2]int{running, idle}, "no new worker while one is idle")

		clk.Advance(59 * time.Second)
		synctest.Wait()
		p.Schedule(func() {}) // keeps the top worker busy, then fresh
		synctest.Wait()
		clk.Advance(time.Second) // the other two have been idle a minute
		synctest.Wait()
		running, idle = p.Workers()
		assert.Equal(t, [2]int{1, 1}, [2]int{running, idle}, "workers idle for maxIdle end; the fresh one stays")

		clk.Advance(time.Minute)
		synctest.Wait()
		running, idle = p.Workers()
		assert.Equal(t, [2]int{0, 0}, [2]int{running, idle})
		assert.Zero(t, clk.Pending(), "no sweep is armed for an empty pool")
	})
}

// TestPoolRunsActors: a protoactor actor system whose actors use a Pool
// delivers every message, in order per actor, under concurrent senders.
func TestPoolRunsActors(t *testing.T) {
	p := New(300, time.Second, nil)
	sys := actor.NewActorSystem()
	const actors, msgs = 8, 2000
	var wg sync.WaitGroup
	wg.Add(actors * msgs)
	got := make([][]int, actors)
	pids := make([]*actor.PID, actors)
	for i := range actors {
		pids[i] = sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
			if n, ok := ctx.Message().(int); ok {
				got[i] = append(got[i], n) // one goroutine at a time per actor
				wg.Done()
			}
		}, actor.WithDispatcher(p)))
	}
	for i := range actors {
		go func() {
			for n := range msgs {
				sys.Root.Send(pids[i], n)
				if n%100 == 0 {
					runtime.Gosched()
				}
			}
		}()
	}
	wg.Wait()
	for i := range actors {
		require.Len(t, got[i], msgs)
		for n, v := range got[i] {
			require.Equal(t, n, v, "actor %d: in order", i)
		}
	}
	// No bound on the workers here: a worker that has finished a run but
	// not yet parked is not idle, so a mailbox scheduled again at that
	// moment gets a new one. TestPoolReusesIdleWorkers checks reuse.
}

// BenchmarkDeepRun: a run that needs a deep stack, on a fresh goroutine
// each time (protoactor's default) and on a Pool's worker.
func BenchmarkDeepRun(b *testing.B) {
	deep := func() { recurse(200) }
	b.Run("goroutine", func(b *testing.B) {
		d := actor.NewDefaultDispatcher(300)
		done := make(chan struct{})
		for b.Loop() {
			d.Schedule(func() { deep(); done <- struct{}{} })
			<-done
		}
	})
	b.Run("pool", func(b *testing.B) {
		p := New(300, time.Minute, nil)
		done := make(chan struct{})
		for b.Loop() {
			p.Schedule(func() { deep(); done <- struct{}{} })
			<-done
		}
	})
}

//go:noinline
func recurse(n int) byte {
	var pad [128]byte
	if n == 0 {
		return pad[0]
	}
	pad[n%128] = byte(n)
	return recurse(n-1) + pad[(n+1)%128]
}
