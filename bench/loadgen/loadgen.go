// Package loadgen is the engine of slotd's loopback load tools (bench/load
// and bench/harness): a fixed number of keep-alive connections, each with
// one request in flight, closed loop, for a duration or a number of
// requests, reporting throughput, statuses, transport failures and latency
// percentiles. It measures from outside: it speaks HTTP and knows nothing
// of slotd's packages.
package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Config describes one load run. Every run is bounded by Duration; MaxRequests
// optionally stops it earlier.
type Config struct {
	URL         string
	Method      string
	Headers     []Header // values may contain {{seq}} and {{uuid}}
	Body        string   // may contain {{seq}} and {{uuid}}
	Connections int
	Duration    time.Duration
	MaxRequests int64 // 0: unbounded within Duration
	Expect      int   // any other status counts as an error
	Timeout     time.Duration
	AllowRemote bool

	// Prepare, when set, is called before every request, after the
	// templates are rendered, with the request's sequence number: it may
	// change the method, the URI (path and query; the host stays the
	// target's), the headers and the body, for workloads a template cannot
	// express, such as rotating over a table of queries. The request is
	// the previous one of its connection, changed: what Prepare set once
	// stays until it sets it again. It is called from every
	// connection's goroutine at once.
	Prepare func(seq uint64, req *fasthttp.Request)
	// Observe, when set, is called with every response (any status) before
	// the next request of that connection, e.g. to record what a write
	// acknowledged. It is called from every connection's goroutine at once;
	// resp is only valid during the call.
	Observe func(seq uint64, resp *fasthttp.Response)

	// Kinds, when set, sorts the requests into kinds that are summarized
	// apart as well as together (Summary.Kinds), for a mixed workload whose
	// reads and writes have their own latencies and expected statuses:
	// Kind(seq) is request seq's index into Kinds, and that kind's Expect
	// replaces Expect for it (which may then be 0). Prepare makes each
	// kind's request: method, URI, headers and body.
	Kinds []Kind
	Kind  func(seq uint64) int
}

// Kind is one kind of request of a mixed run.
type Kind struct {
	Name   string
	Expect int // any other status counts as an error
}

// Header is one request header; Value is a template.
type Header struct {
	Name, Value string
}

// Limits that catch typos (-c 64000, -d 10h) before they hurt the machine.
const (
	maxConnections = 10_000
	maxDuration    = 24 * time.Hour
)

// latencyHint is an assumed upper bound on total throughput, used only to
// size each worker's latency slice up front so that recording a sample never
// reallocates mid-run; exceeding it merely costs an occasional append growth.
const (
	latencyHint        = 200_000 // requests/s across all connections
	maxLatencyPrealloc = 1 << 20 // samples per worker (8 MiB)
)

// ErrRemoteTarget refuses a target off loopback unless AllowRemote is set.
var ErrRemoteTarget = errors.New("target is not a loopback address (pass -allow-remote to load a remote server)")

// Validate checks the configuration; Run calls it too.
func (c *Config) Validate() error {
	switch {
	case c.Connections < 1 || c.Connections > maxConnections:
		return fmt.Errorf("-c must be in [1, %d], got %d", maxConnections, c.Connections)
	case c.Duration <= 0 || c.Duration > maxDuration:
		return fmt.Errorf("-d must be in (0, %s], got %s", maxDuration, c.Duration)
	case c.MaxRequests < 0:
		return fmt.Errorf("-n must be >= 0, got %d", c.MaxRequests)
	case len(c.Kinds) == 0 && !isStatus(c.Expect):
		return fmt.Errorf("-expect must be an HTTP status, got %d", c.Expect)
	case len(c.Kinds) > 0 && c.Kind == nil:
		return errors.New("kinds without a Kind function")
	case c.Timeout <= 0:
		return fmt.Errorf("-timeout must be > 0, got %s", c.Timeout)
	case c.Method == "" || strings.ContainsAny(c.Method, " \t\r\n"):
		return fmt.Errorf("invalid method %q", c.Method)
	}
	for _, k := range c.Kinds {
		if !isStatus(k.Expect) {
			return fmt.Errorf("kind %q: expected status must be an HTTP status, got %d", k.Name, k.Expect)
		}
	}
	for _, h := range c.Headers {
		if h.Name == "" || strings.ContainsAny(h.Name, " \t\r\n:") || strings.ContainsAny(h.Value, "\r\n") {
			return fmt.Errorf("invalid header %q: %q", h.Name, h.Value)
		}
	}
	return nil
}

func isStatus(code int) bool { return code >= 100 && code <= 999 }

// kinds is how many kinds of request a run has: one when it is not mixed.
func (c *Config) kinds() int { return max(1, len(c.Kinds)) }

// kindOf is request seq's kind.
func (c *Config) kindOf(seq uint64) int {
	if len(c.Kinds) == 0 {
		return 0
	}
	k := c.Kind(seq)
	if k < 0 || k >= len(c.Kinds) {
		panic(fmt.Sprintf("loadgen: Kind(%d) = %d, not an index of the %d kinds", seq, k, len(c.Kinds)))
	}
	return k
}

// expect is the status kind k's answers must have.
func (c *Config) expect(k int) int {
	if len(c.Kinds) == 0 {
		return c.Expect
	}
	return c.Kinds[k].Expect
}

// target is the validated destination.
type target struct {
	url  *url.URL
	addr string // host:port actually dialled
}

// resolveTarget parses rawURL and enforces the loopback rule. A host name is
// resolved here and the resolved IP is dialled, so the address that was
// checked is the address that is loaded (no second, different lookup).
func resolveTarget(ctx context.Context, rawURL string, allowRemote bool) (target, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return target{}, fmt.Errorf("-url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return target{}, fmt.Errorf("-url: scheme must be http or https, got %q", u.Scheme)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		return target{}, errors.New("-url: missing host")
	}
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if allowRemote {
		return target{url: u, addr: net.JoinHostPort(host, port)}, nil
	}
	ip, err := loopbackIP(ctx, host)
	if err != nil {
		return target{}, err
	}
	return target{url: u, addr: net.JoinHostPort(ip.String(), port)}, nil
}

// loopbackIP returns a loopback address for host, or ErrRemoteTarget if the
// host is, or resolves to anything, not on loopback.
func loopbackIP(ctx context.Context, host string) (net.IP, error) {
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return nil, ErrRemoteTarget
		}
		return ip, nil
	}
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("-url: resolving %q: %w", host, err)
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return nil, ErrRemoteTarget
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("-url: %q has no addresses", host)
	}
	return addrs[0].IP, nil
}

// Run executes one load run and returns its summary. It stops issuing
// requests when Duration elapses, MaxRequests have been issued, or ctx is
// cancelled; requests already in flight then finish (each bounded by
// Timeout), so every request that reached the server is counted.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	tgt, err := resolveTarget(ctx, cfg.URL, cfg.AllowRemote)
	if err != nil {
		return Summary{}, err
	}
	client := newClient(cfg, tgt)
	sched := newSchedule(cfg)
	workers := make([]*worker, cfg.Connections)
	for i := range workers {
		workers[i] = newWorker(cfg, tgt, client, sched)
	}

	start := time.Now()
	stop := context.AfterFunc(ctx, sched.stop) // e.g. Ctrl-C: end early, still report
	defer stop()
	timer := time.AfterFunc(cfg.Duration, sched.stop)
	defer timer.Stop()

	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(w.run)
	}
	wg.Wait()
	return summarize(cfg, workers, time.Since(start)), nil
}

func newClient(cfg Config, tgt target) *fasthttp.HostClient {
	c := &fasthttp.HostClient{
		Addr:                   tgt.addr,
		Name:                   "slotd-load",
		IsTLS:                  tgt.url.Scheme == "https",
		MaxConns:               cfg.Connections,
		DisablePathNormalizing: true, // send the path exactly as given
		// One attempt per request: silent retries would hide failures and
		// fold two round trips into one latency sample.
		MaxIdemponentCallAttempts: 1,
	}
	if c.IsTLS {
		// We dial the resolved IP, so name the host for SNI and verification.
		c.TLSConfig = &tls.Config{ServerName: tgt.url.Hostname()}
	}
	return c
}

// schedule hands out request sequence numbers and decides when to stop.
type schedule struct {
	max     int64 // 0: unbounded
	issued  atomic.Int64
	stopped atomic.Bool
}

func newSchedule(cfg Config) *schedule { return &schedule{max: cfg.MaxRequests} }

func (s *schedule) stop() { s.stopped.Store(true) }

// next returns the sequence number of the next request, or false when the
// run is over.
func (s *schedule) next() (uint64, bool) {
	if s.stopped.Load() {
		return 0, false
	}
	seq := s.issued.Add(1) - 1
	if s.max > 0 && seq >= s.max {
		return 0, false
	}
	return uint64(seq), true
}

// latencyCapacity sizes each worker's latency slice of each kind for the
// whole run; kinds share the hint, and the busiest outgrows its share once.
func latencyCapacity(cfg Config) int {
	n := int64(cfg.Duration.Seconds()*latencyHint)/int64(cfg.Connections) + 1
	if cfg.MaxRequests > 0 {
		n = min(n, cfg.MaxRequests/int64(cfg.Connections)+1)
	}
	return int(min(n, maxLatencyPrealloc)) / cfg.kinds()
}
