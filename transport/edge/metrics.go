package edge

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/model"
)

// The request metrics: requests by listener, route pattern, method and
// status with a latency histogram, and the old responses-by-class counter
// of the public API.
//
// Counting must stay cheap on the hot path: every label child a request
// touches is resolved before it arrives. Each route resolves its own
// children when it is registered (the route pattern and method are fixed
// there) and caches the counter of each status code it answers the first
// time it answers it; requests that match no route share one set per
// listener and method. A request then costs two user-value writes, an
// atomic load, a counter increment and a histogram observation, and no
// allocation.

// Label values of the route label for requests that matched no route.
const unmatched = "unmatched"

// durationBuckets span a cached read (~100 µs) to a webhook registration
// waiting for its ping (up to 10 s), in seconds.
var durationBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// knownStatuses are the status codes a route's counter children are
// cached for; any other code is looked up on every use (rare by
// definition).
var knownStatuses = [...]int{200, 201, 202, 204, 304, 400, 401, 403, 404, 405, 408, 409, 413, 422, 429, 431, 500, 502, 503, 504}

// statusSlot maps a status code to 1 + its index in knownStatuses, or 0.
var statusSlot [600]uint8

func init() {
	for i, c := range knownStatuses {
		statusSlot[c] = uint8(i + 1)
	}
}

// httpMetrics are the request metric vectors and their resolved children.
type httpMetrics struct {
	requests *prometheus.CounterVec   // listener, route, method, code
	duration *prometheus.HistogramVec // listener, route, method
	classes  *prometheus.CounterVec   // class: the public API's responses by status class

	byClass [6]prometheus.Counter // index 1..5
	// unmatched holds the routes of requests that matched none, per
	// listener (public, admin) and method (methodSlot), made on first use.
	unmatched [2][len(methodNames)]atomic.Pointer[routeObs]
}

// methodNames are the method label values of unmatched requests; any
// other method is "other", so a client cannot mint label values.
var methodNames = [...]string{"other", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"}

func methodSlot(m []byte) int {
	switch string(m) {
	case "GET":
		return 1
	case "HEAD":
		return 2
	case "POST":
		return 3
	case "PUT":
		return 4
	case "PATCH":
		return 5
	case "DELETE":
		return 6
	case "OPTIONS":
		return 7
	case "TRACE":
		return 8
	case "CONNECT":
		return 9
	}
	return 0
}

func newHTTPMetrics() *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_http_requests_total",
			Help: "HTTP requests answered, by listener (public, admin), route pattern (unmatched: no route), method and status code.",
		}, []string{"listener", "route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "slotd_http_request_duration_seconds",
			Help:    "Time from the start of handling a request (its headers read) to its answer being ready, by listener, route pattern and method.",
			Buckets: durationBuckets,
		}, []string{"listener", "route", "method"}),
		classes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_http_responses_total",
			Help: "Public API responses by status class (1xx..5xx).",
		}, []string{"class"}),
	}
	for c := 1; c <= 5; c++ {
		m.byClass[c] = m.classes.WithLabelValues(strconv.Itoa(c) + "xx")
	}
	return m
}

// unmatchedRoute is the route of the requests to listener with method
// that matched no route.
func (m *httpMetrics) unmatchedRoute(listener string, method []byte) *routeObs {
	slot := methodSlot(method)
	l := 0
	if listener == Admin {
		l = 1
	}
	p := &m.unmatched[l][slot]
	if r := p.Load(); r != nil {
		return r
	}
	p.CompareAndSwap(nil, m.route(listener, methodNames[slot], unmatched))
	return p.Load()
}

// routeObs is one route's share of the metrics, curried when the route is
// registered: its labels for the access log, and its latency observer and
// the counter of each status it answers, each made on first use (so a
// route shows in /metrics once it has answered).
type routeObs struct {
	listener, method, pattern string
	public                    bool
	codes                     *prometheus.CounterVec // curried: only code is left
	labels                    prometheus.Labels
	duration                  atomic.Pointer[prometheus.Observer]
	byStatus                  [len(knownStatuses) + 1]atomic.Pointer[prometheus.Counter]
}

func (m *httpMetrics) route(listener, method, pattern string) *routeObs {
	labels := prometheus.Labels{"listener": listener, "route": pattern, "method": method}
	return &routeObs{listener: listener, method: method, pattern: pattern, public: listener == Public,
		codes: m.requests.MustCurryWith(labels), labels: labels}
}

// observe counts one answer of the route.
func (r *routeObs) observe(m *httpMetrics, status int, took time.Duration) {
	d := r.duration.Load()
	if d == nil {
		o := m.duration.With(r.labels)
		d = &o
		r.duration.Store(d)
	}
	(*d).Observe(took.Seconds())
	if r.public {
		if c := status / 100; c >= 1 && c <= 5 {
			m.byClass[c].Inc()
		}
	}
	slot := 0
	if status >= 0 && status < len(statusSlot) {
		slot = int(statusSlot[status])
	}
	if slot == 0 {
		r.codes.WithLabelValues(strconv.Itoa(status)).Inc()
		return
	}
	c := r.byStatus[slot].Load()
	if c == nil {
		// Two requests racing here resolve the same child.
		child := r.codes.WithLabelValues(strconv.Itoa(status))
		c = &child
		r.byStatus[slot].Store(c)
	}
	(*c).Inc()
}

// User-value keys of what a request's route and authentication tell
// Observe (metrics and the access log) about it.
const (
	routeKey    = "slotd.route"
	businessKey = "slotd.business"
)

// Authenticated records the business a request authenticated as, for the
// access log. It keeps the business's settings, a pointer into the
// immutable view, so that recording it allocates nothing.
func Authenticated(ctx *fasthttp.RequestCtx, biz *model.Business) {
	ctx.SetUserValue(businessKey, biz)
}

// finish counts and logs the answer of a request Observe handled since
// start: its route (or listener's unmatched one for its method).
func (e *Edge) finish(ctx *fasthttp.RequestCtx, listener string, start time.Time) {
	end := time.Now()
	took := end.Sub(start)
	status := ctx.Response.StatusCode()
	ro, _ := ctx.UserValue(routeKey).(*routeObs)
	if ro == nil {
		ro = e.metrics.unmatchedRoute(listener, ctx.Method())
	}
	ro.observe(e.metrics, status, took)
	if e.AccessLog != nil {
		biz, _ := ctx.UserValue(businessKey).(*model.Business)
		e.logAccess(ctx, ro, biz, status, end, took)
	}
}

// Collectors are the request metrics of both listeners; register them
// once, in the registry /metrics serves.
func (e *Edge) Collectors() []prometheus.Collector { return e.metrics.Collectors() }

// Collectors are the request metrics of both listeners.
func (m *httpMetrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.requests, m.duration, m.classes}
}
