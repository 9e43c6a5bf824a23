package loadgen

import (
	"errors"
	"net"
	"time"

	"github.com/valyala/fasthttp"
)

// failurePause is how long a worker waits after a request got no response.
const failurePause = 10 * time.Millisecond

// worker drives one connection's worth of sequential requests. All of its
// state is private until the run ends, so the hot loop takes no locks.
type worker struct {
	client  *fasthttp.HostClient
	sched   *schedule
	timeout time.Duration
	prepare func(uint64, *fasthttp.Request)
	observe func(uint64, *fasthttp.Response)
	kindOf  func(uint64) int

	req  *fasthttp.Request
	resp *fasthttp.Response

	dynHeaders []dynHeader // headers whose value changes per request
	body       template
	dynBody    bool
	needUUID   bool
	vars       requestVars
	buf        []byte // rendering scratch, reused

	stats []workerStats // one per kind of request
}

type dynHeader struct {
	name  string
	value template
}

// workerStats is what one worker observed of one kind of request;
// summarize merges them.
type workerStats struct {
	latencies []time.Duration  // one per response, any status
	statuses  map[int]int64    // responses by status code
	failures  map[string]int64 // requests that got no response, by cause
	firstErr  error            // a sample transport error for the report
}

func newWorker(cfg Config, tgt target, client *fasthttp.HostClient, sched *schedule) *worker {
	w := &worker{
		client:  client,
		sched:   sched,
		timeout: cfg.Timeout,
		prepare: cfg.Prepare,
		observe: cfg.Observe,
		kindOf:  cfg.kindOf,
		req:     fasthttp.AcquireRequest(),
		resp:    fasthttp.AcquireResponse(),
		body:    parseTemplate(cfg.Body),
		stats:   make([]workerStats, cfg.kinds()),
	}
	for k := range w.stats {
		w.stats[k] = workerStats{
			latencies: make([]time.Duration, 0, latencyCapacity(cfg)),
			statuses:  make(map[int]int64),
			failures:  make(map[string]int64),
		}
	}
	w.req.SetRequestURI(tgt.url.String())
	w.req.Header.SetMethod(cfg.Method)
	// Static parts are set once; only templated ones are rendered per request.
	for _, h := range cfg.Headers {
		t := parseTemplate(h.Value)
		if t.isStatic() {
			w.req.Header.Set(h.Name, h.Value)
			continue
		}
		w.dynHeaders = append(w.dynHeaders, dynHeader{name: h.Name, value: t})
		w.needUUID = w.needUUID || t.uses(uuidPart)
	}
	w.dynBody = !w.body.isStatic()
	w.needUUID = w.needUUID || w.body.uses(uuidPart)
	if !w.dynBody && cfg.Body != "" {
		w.req.SetBodyString(cfg.Body)
	}
	return w
}

func (w *worker) run() {
	defer w.release()
	for {
		seq, ok := w.sched.next()
		if !ok {
			return
		}
		st := &w.stats[w.kindOf(seq)]
		if err := w.render(seq); err != nil {
			st.fail(err)
			continue
		}
		if !w.send(seq, st) {
			// Without a pause a refused connection turns this loop into a
			// busy spin that inflates the failure count and, on a shared
			// machine, steals the CPU the server under test needs.
			time.Sleep(failurePause)
		}
	}
}

// render makes request seq: the templated headers and body, then the
// Prepare hook.
func (w *worker) render(seq uint64) error {
	w.vars.seq = seq
	if w.needUUID {
		if err := newUUID(&w.vars.uuid); err != nil {
			return err
		}
	}
	for _, h := range w.dynHeaders {
		w.buf = h.value.appendTo(w.buf[:0], &w.vars)
		w.req.Header.SetBytesV(h.name, w.buf)
	}
	if w.dynBody {
		w.buf = w.body.appendTo(w.buf[:0], &w.vars)
		w.req.SetBody(w.buf) // copies, so buf can be reused
	}
	if w.prepare != nil {
		w.prepare(seq, w.req)
	}
	return nil
}

// send performs one request and records its outcome in st, its kind's.
// It reports whether a response (of any status) arrived.
func (w *worker) send(seq uint64, st *workerStats) bool {
	start := time.Now()
	err := w.client.DoDeadline(w.req, w.resp, start.Add(w.timeout))
	elapsed := time.Since(start)
	if err != nil {
		st.fail(err)
		return false
	}
	st.latencies = append(st.latencies, elapsed)
	st.statuses[w.resp.StatusCode()]++
	if w.observe != nil {
		w.observe(seq, w.resp)
	}
	return true
}

func (st *workerStats) fail(err error) {
	st.failures[failureCause(err)]++
	if st.firstErr == nil {
		st.firstErr = err
	}
}

func (w *worker) release() {
	fasthttp.ReleaseRequest(w.req)
	fasthttp.ReleaseResponse(w.resp)
	w.req, w.resp = nil, nil
}

// failureCause buckets transport errors into a few stable labels so the
// report stays readable even when every error message differs.
func failureCause(err error) string {
	var opErr *net.OpError
	switch {
	case errors.Is(err, fasthttp.ErrTimeout):
		return "timeout"
	case errors.Is(err, fasthttp.ErrDialTimeout):
		return "dial timeout"
	case errors.Is(err, fasthttp.ErrConnectionClosed):
		return "connection closed"
	case errors.Is(err, fasthttp.ErrNoFreeConns):
		return "no free connections"
	case errors.As(err, &opErr):
		return opErr.Op // "dial", "read", "write"
	default:
		return "other"
	}
}
