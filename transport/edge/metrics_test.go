package edge

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRequestMetricsAllocateNothing: counting a request allocates nothing
// once its route's children exist.
func TestRequestMetricsAllocateNothing(t *testing.T) {
	e := New(Config{})
	ro := e.metrics.route(Public, "GET", "/x")
	ro.observe(e.metrics, 200, time.Millisecond)
	e.metrics.unmatchedRoute(Public, []byte("GET")).observe(e.metrics, 404, time.Millisecond)
	got := testing.AllocsPerRun(100, func() {
		ro.observe(e.metrics, 200, time.Millisecond)
		e.metrics.unmatchedRoute(Public, []byte("GET")).observe(e.metrics, 404, time.Millisecond)
	})
	require.Zero(t, got)
}
