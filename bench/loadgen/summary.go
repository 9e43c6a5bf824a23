package loadgen

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Summary is the outcome of one run.
type Summary struct {
	Method      string
	URL         string
	Connections int
	Elapsed     time.Duration

	// Requests counts every request issued: those answered (Statuses) plus
	// those that got no response (Failures).
	Requests int64
	// Errors counts answers with a status other than Expected, plus Failures.
	Errors   int64
	Expected int
	Statuses map[int]int64    // all responses, by status code
	Failures map[string]int64 // requests without a response, by cause
	FirstErr string           // one failure message, to diagnose e.g. refused connections

	// Latency is measured over responses of any status; requests that got
	// no response are excluded, as their "latency" is just a timeout.
	Latency Latency

	// Kinds are the summaries of each kind of request of a mixed run
	// (Config.Kinds), in its order; the fields above count them all, and
	// Expected is then 0.
	Kinds []Summary
	Kind  string // in a summary of Kinds: the kind's name
}

// Latency holds response-time percentiles (nearest rank).
type Latency struct {
	P50, P90, P99, P999, Max time.Duration
}

// RPS is the throughput of answered requests.
func (s Summary) RPS() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	var answered int64
	for _, n := range s.Statuses {
		answered += n
	}
	return float64(answered) / s.Elapsed.Seconds()
}

// ErrorStatuses returns the responses that did not have the expected status.
func (s Summary) ErrorStatuses() map[int]int64 {
	m := maps.Clone(s.Statuses)
	delete(m, s.Expected)
	return m
}

func summarize(cfg Config, workers []*worker, elapsed time.Duration) Summary {
	if len(cfg.Kinds) == 0 {
		s := emptySummary(cfg, elapsed, cfg.Expect)
		s.Latency = LatencyOf(kindSummary(&s, workers, 0))
		return s
	}
	s := emptySummary(cfg, elapsed, 0) // the whole of a mixed run expects no one status
	var all []time.Duration
	for k, kind := range cfg.Kinds {
		ks := emptySummary(cfg, elapsed, kind.Expect)
		ks.Kind = kind.Name
		samples := kindSummary(&ks, workers, k)
		all = append(all, samples...)
		ks.Latency = LatencyOf(samples)
		mergeCounts(s.Statuses, ks.Statuses)
		mergeCounts(s.Failures, ks.Failures)
		s.Requests += ks.Requests
		s.Errors += ks.Errors
		s.FirstErr = cmp.Or(s.FirstErr, ks.FirstErr)
		s.Kinds = append(s.Kinds, ks)
	}
	s.Latency = LatencyOf(all)
	return s
}

func emptySummary(cfg Config, elapsed time.Duration, expect int) Summary {
	return Summary{
		Method:      cfg.Method,
		URL:         cfg.URL,
		Connections: cfg.Connections,
		Elapsed:     elapsed,
		Expected:    expect,
		Statuses:    make(map[int]int64),
		Failures:    make(map[string]int64),
	}
}

// kindSummary counts into s what the workers saw of kind k, errors
// judged by s.Expected, and returns that kind's latency samples.
func kindSummary(s *Summary, workers []*worker, k int) []time.Duration {
	var total int
	for _, w := range workers {
		total += len(w.stats[k].latencies)
	}
	samples := make([]time.Duration, 0, total)
	for _, w := range workers {
		st := &w.stats[k]
		samples = append(samples, st.latencies...)
		mergeCounts(s.Statuses, st.statuses)
		mergeCounts(s.Failures, st.failures)
		if s.FirstErr == "" && st.firstErr != nil {
			s.FirstErr = st.firstErr.Error()
		}
	}
	for status, n := range s.Statuses {
		s.Requests += n
		if status != s.Expected {
			s.Errors += n
		}
	}
	for _, n := range s.Failures {
		s.Requests += n
		s.Errors += n
	}
	return samples
}

func mergeCounts[K comparable](dst, src map[K]int64) {
	for k, n := range src {
		dst[k] += n
	}
}

// LatencyOf sorts samples in place and returns their percentiles.
func LatencyOf(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	slices.Sort(samples)
	return Latency{
		P50:  percentile(samples, 0.50),
		P90:  percentile(samples, 0.90),
		P99:  percentile(samples, 0.99),
		P999: percentile(samples, 0.999),
		Max:  samples[len(samples)-1],
	}
}

// percentile uses the nearest-rank method on sorted samples: the smallest
// sample such that at least q of all samples are <= it.
func percentile(sorted []time.Duration, q float64) time.Duration {
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

// WriteText prints the human-readable report.
func (s Summary) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, `target:      %s %s (%d connections)
requests:    %d in %s (%.1f req/s)
statuses:    %s
errors:      %d%s
latency:     %s
`,
		s.Method, s.URL, s.Connections,
		s.Requests, s.Elapsed.Round(time.Millisecond), s.RPS(),
		formatCounts(s.Statuses),
		s.Errors, s.errorDetail(),
		s.latencyLine())
	if err == nil && s.FirstErr != "" {
		_, err = fmt.Fprintf(w, "first error: %s\n", s.FirstErr)
	}
	return err
}

func (s Summary) latencyLine() string {
	if len(s.Statuses) == 0 {
		return "n/a (no responses)"
	}
	l := s.Latency
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  p99.9 %s  max %s",
		fmtDur(l.P50), fmtDur(l.P90), fmtDur(l.P99), fmtDur(l.P999), fmtDur(l.Max))
}

func (s Summary) errorDetail() string {
	if s.Errors == 0 {
		return ""
	}
	var parts []string
	if e := s.ErrorStatuses(); len(e) > 0 {
		parts = append(parts, "status "+formatCounts(e))
	}
	if len(s.Failures) > 0 {
		parts = append(parts, formatCounts(s.Failures))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// formatCounts renders a count map as "k: n, k: n" in key order, so runs
// are easy to diff.
func formatCounts[K int | string](m map[K]int64) string {
	if len(m) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%v: %d", k, m[k])
	}
	return b.String()
}

// fmtDur rounds to 3 significant-ish digits: nanosecond noise hides the
// signal in a latency report.
func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	default:
		return d.Round(time.Microsecond).String()
	}
}

// jsonSummary is the -json wire form, with durations in (fractional)
// milliseconds because nanosecond integers are unreadable in dashboards.
type jsonSummary struct {
	Method         string           `json:"method"`
	URL            string           `json:"url"`
	Connections    int              `json:"connections"`
	ElapsedSeconds float64          `json:"elapsed_s"`
	Requests       int64            `json:"requests"`
	Errors         int64            `json:"errors"`
	Expected       int              `json:"expected_status"`
	Statuses       map[int]int64    `json:"statuses"`
	ErrorStatuses  map[int]int64    `json:"error_statuses"`
	Failures       map[string]int64 `json:"failures"`
	FirstError     string           `json:"first_error,omitempty"`
	RPS            float64          `json:"rps"`
	LatencyMs      jsonLatency      `json:"latency_ms"`
}

type jsonLatency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

// WriteJSON prints the summary as a single JSON object on one line.
func (s Summary) WriteJSON(w io.Writer) error {
	return json.NewEncoder(w).Encode(jsonSummary{
		Method:         s.Method,
		URL:            s.URL,
		Connections:    s.Connections,
		ElapsedSeconds: s.Elapsed.Seconds(),
		Requests:       s.Requests,
		Errors:         s.Errors,
		Expected:       s.Expected,
		Statuses:       s.Statuses,
		ErrorStatuses:  s.ErrorStatuses(),
		Failures:       s.Failures,
		FirstError:     s.FirstErr,
		RPS:            s.RPS(),
		LatencyMs: jsonLatency{
			P50:  ms(s.Latency.P50),
			P90:  ms(s.Latency.P90),
			P99:  ms(s.Latency.P99),
			P999: ms(s.Latency.P999),
			Max:  ms(s.Latency.Max),
		},
	})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
