package transport

import (
	"fmt"
	"sync/atomic"

	"github.com/valyala/fasthttp"
)

// metrics are the few counters /metrics exposes, in the Prometheus text
// format. They are plain atomics: counting must cost nothing on the hot path.
type metrics struct {
	byClass [6]atomic.Uint64 // responses by status class: index 1..5
}

func (m *metrics) count(status int) {
	if c := status / 100; c >= 1 && c <= 5 {
		m.byClass[c].Add(1)
	}
}

func (s *Server) serveMetrics(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("text/plain; version=0.0.4")
	w := ctx.Response.BodyWriter()
	fmt.Fprintln(w, "# HELP slotd_http_responses_total Public API responses by status class.")
	fmt.Fprintln(w, "# TYPE slotd_http_responses_total counter")
	for c := 1; c <= 5; c++ {
		fmt.Fprintf(w, "slotd_http_responses_total{class=\"%dxx\"} %d\n", c, s.metrics.byClass[c].Load())
	}
	st := s.Store.Stats()
	fmt.Fprintln(w, "# HELP slotd_journal_commits_total Synced journal commits.")
	fmt.Fprintln(w, "# TYPE slotd_journal_commits_total counter")
	fmt.Fprintf(w, "slotd_journal_commits_total %d\n", st.Commits)
	fmt.Fprintln(w, "# HELP slotd_journal_commit_seconds_total Time spent in synced journal commits.")
	fmt.Fprintln(w, "# TYPE slotd_journal_commit_seconds_total counter")
	fmt.Fprintf(w, "slotd_journal_commit_seconds_total %.6f\n", float64(st.CommitNanos)/1e9)
}
