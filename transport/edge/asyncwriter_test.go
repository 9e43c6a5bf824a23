package edge

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// lockedBuffer is a bytes.Buffer the writer's goroutine and the test share.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
	sizes  []int
	gate   chan struct{} // if set, each write waits for it
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	if l.gate != nil {
		<-l.gate
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	l.sizes = append(l.sizes, len(p))
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAsyncWriterKeepsEveryLineWhole: lines written from many goroutines
// all arrive, each whole, in each writer's order, in fewer writes than
// lines; Close leaves nothing behind.
func TestAsyncWriterKeepsEveryLineWhole(t *testing.T) {
	var out lockedBuffer
	a := NewAsyncWriter(&out)
	const writers, lines = 8, 2000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(a, "writer %d line %d %s\n", w, i, strings.Repeat("x", i%50))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, a.Close())
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, got, writers*lines)
	next := make([]int, writers)
	for _, l := range got {
		var w, i int
		var xs string
		_, err := fmt.Sscanf(l, "writer %d line %d %s", &w, &i, &xs)
		if i%50 == 0 {
			_, err = fmt.Sscanf(l, "writer %d line %d", &w, &i)
		}
		require.NoError(t, err, l)
		require.Equal(t, next[w], i, "writer %d's lines in order", w)
		next[w]++
	}
	require.Less(t, out.writes, writers*lines, "lines are batched")
	n, err := a.Write([]byte("after close\n"))
	require.NoError(t, err)
	require.Equal(t, 12, n)
	require.True(t, strings.HasSuffix(out.String(), "after close\n"))
}

// TestAsyncWriterWritesAnIdleLineAtOnce: a line is written without
// waiting for more or for Close.
func TestAsyncWriterWritesAnIdleLineAtOnce(t *testing.T) {
	var out lockedBuffer
	a := NewAsyncWriter(&out)
	defer a.Close()
	_, _ = a.Write([]byte("one\n"))
	require.Eventually(t, func() bool { return out.String() == "one\n" }, 5*time.Second, time.Millisecond)
}

// TestAsyncWriterBoundsWhatWaits: while the destination is stuck, a
// writer that would pile up more than maxPending waits for it, so no
// batch is larger than that and a line.
func TestAsyncWriterBoundsWhatWaits(t *testing.T) {
	out := lockedBuffer{gate: make(chan struct{})}
	a := NewAsyncWriter(&out)
	line := bytes.Repeat([]byte("y"), 64<<10)
	const n = 40 // 2.5 MiB
	wrote := make(chan int, n)
	go func() {
		for i := range n {
			_, _ = a.Write(line)
			wrote <- i
		}
		close(wrote)
	}()
	// The first line is stuck in the destination; 16 more fill what may
	// wait.
	for i := 0; i <= maxPending/len(line); i++ {
		select {
		case <-wrote:
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d lines were taken", i)
		}
	}
	close(out.gate)
	for range wrote {
	}
	require.NoError(t, a.Close())
	require.Len(t, out.String(), n*len(line))
	for _, size := range out.sizes {
		require.LessOrEqual(t, size, maxPending+len(line))
	}
}
