package clock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFakeTimersFireWhenTimeReachesThem(t *testing.T) {
	f := NewFake(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	fired := make(chan string, 3)
	f.AfterFunc(time.Minute, func() { fired <- "1m" })
	stop := f.AfterFunc(2*time.Minute, func() { fired <- "2m" })
	f.AfterFunc(3*time.Minute, func() { fired <- "3m" })
	require.Equal(t, 3, f.Pending())

	f.Advance(59 * time.Second)
	assert.Empty(t, fired, "nothing is due yet")
	f.Advance(time.Second)
	assert.Equal(t, "1m", <-fired)
	assert.True(t, stop.Stop())
	assert.False(t, stop.Stop(), "a stopped timer stops once")
	f.Set(f.Now().Add(time.Hour))
	assert.Equal(t, "3m", <-fired)
	assert.Equal(t, 0, f.Pending())
	select {
	case s := <-fired:
		t.Fatalf("stopped timer fired: %s", s)
	default:
	}
}

func TestFakeTimerDueNowFiresAtOnce(t *testing.T) {
	f := NewFake(time.Now())
	done := make(chan struct{})
	tm := f.AfterFunc(0, func() { close(done) })
	<-done
	assert.False(t, tm.Stop(), "already fired")
}
