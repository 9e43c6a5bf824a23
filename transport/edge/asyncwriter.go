package edge

import (
	"io"
	"sync"
	"time"
)

// AsyncWriter is what the access log writes to: it copies each line into
// memory and returns, and a goroutine of its own hands what has piled up
// to w in one write. Written synchronously, one write(2) per request under
// the log handler's lock made every request wait for the disk or the pipe
// behind stderr; batched, a busy server makes one write per couple of
// milliseconds (linger), and an idle one writes each line within that.
//
// At most maxPending bytes wait besides the batch being written; a writer
// beyond that waits for that write to finish (a stalled stderr slows requests down rather than
// filling memory). Close writes what is left and stops the goroutine;
// lines written after Close go straight to w. A crash loses the lines not
// written yet: those of the last couple of milliseconds.
type AsyncWriter struct {
	w io.Writer

	mu      sync.Mutex
	drained *sync.Cond // broadcast after each write to w
	buf     []byte     // waiting to be written
	spare   []byte     // the buffer being written, then reused
	closed  bool
	wake    chan struct{} // a line is waiting; closed by Close
	done    chan struct{} // the goroutine has stopped
}

const maxPending = 1 << 20

// linger is how long a line may wait for others to share its write.
const linger = 2 * time.Millisecond

// NewAsyncWriter starts an AsyncWriter writing to w.
func NewAsyncWriter(w io.Writer) *AsyncWriter {
	a := &AsyncWriter{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	a.drained = sync.NewCond(&a.mu)
	go a.run()
	return a
}

// Write queues p; it never fails (an error of w is not reported back to
// a log line that has long returned).
func (a *AsyncWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	for len(a.buf) >= maxPending && !a.closed {
		a.drained.Wait()
	}
	if a.closed {
		a.mu.Unlock()
		return a.w.Write(p)
	}
	a.buf = append(a.buf, p...)
	select {
	case a.wake <- struct{}{}:
	default: // the goroutine is already due to write
	}
	a.mu.Unlock()
	return len(p), nil
}

func (a *AsyncWriter) run() {
	defer close(a.done)
	for range a.wake {
		// Let a burst gather: under load the lines of a couple of
		// milliseconds go out in one write, not one write each.
		time.Sleep(linger)
		a.flush()
	}
	a.flush()
}

// flush writes what is waiting.
func (a *AsyncWriter) flush() {
	a.mu.Lock()
	b := a.buf
	a.buf = a.spare[:0]
	// Room again: writers may fill the next batch while this one is
	// written (so at most twice maxPending is held, never more).
	a.drained.Broadcast()
	a.mu.Unlock()
	if len(b) > 0 {
		_, _ = a.w.Write(b)
	}
	if cap(b) > 4*maxPending {
		b = nil // a burst's buffer is not kept for ever
	}
	a.mu.Lock()
	a.spare = b[:0]
	a.mu.Unlock()
}

// Close writes every line written so far and stops the goroutine.
func (a *AsyncWriter) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	close(a.wake)
	a.drained.Broadcast()
	a.mu.Unlock()
	<-a.done
	return nil
}
