package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// recordingServer is an in-process target that answers 500 for every fifth
// sequence number (body "seq=N") and 200 otherwise, and remembers what it
// saw so the generator's counts can be checked exactly.
type recordingServer struct {
	url string

	mu       sync.Mutex
	statuses map[int]int64
	seqs     map[uint64]int
	keys     map[string]int
	badReqs  int
}

func startServer(t *testing.T) *recordingServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rs := &recordingServer{
		url:      "http://" + ln.Addr().String() + "/v1/bookings?x=1",
		statuses: make(map[int]int64),
		seqs:     make(map[uint64]int),
		keys:     make(map[string]int),
	}
	srv := &fasthttp.Server{Handler: rs.handle}
	go srv.Serve(ln) //nolint:errcheck // returns when the listener closes
	t.Cleanup(func() { _ = srv.Shutdown() })
	return rs
}

func (rs *recordingServer) handle(ctx *fasthttp.RequestCtx) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	body := string(ctx.PostBody())
	seq, err := strconv.ParseUint(strings.TrimPrefix(body, "seq="), 10, 64)
	key := string(ctx.Request.Header.Peek("Idempotency-Key"))
	if err != nil || !ctx.IsPost() || string(ctx.RequestURI()) != "/v1/bookings?x=1" ||
		string(ctx.Request.Header.Peek("X-Seq")) != strconv.FormatUint(seq, 10) {
		rs.badReqs++
	}
	rs.seqs[seq]++
	rs.keys[key]++
	status := fasthttp.StatusOK
	if seq%5 == 0 {
		status = fasthttp.StatusInternalServerError
	}
	rs.statuses[status]++
	ctx.SetStatusCode(status)
}

func testConfig(url string) Config {
	return Config{
		URL:    url,
		Method: "POST",
		Headers: []Header{
			{Name: "Content-Type", Value: "text/plain"},
			{Name: "Idempotency-Key", Value: "{{uuid}}"},
			{Name: "X-Seq", Value: "{{seq}}"},
		},
		Body:        "seq={{seq}}",
		Connections: 8,
		Duration:    200 * time.Millisecond,
		Expect:      200,
		Timeout:     2 * time.Second,
	}
}

// checkAgainstServer asserts the generator's summary matches exactly what
// the server observed: in-flight requests finish before Run returns, so
// nothing may be lost or double counted.
func checkAgainstServer(t *testing.T, rs *recordingServer, sum Summary) {
	t.Helper()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	assert.Zero(t, rs.badReqs, "requests with wrong method, path, headers or body")
	assert.Equal(t, rs.statuses, sum.Statuses)
	assert.Empty(t, sum.Failures)
	assert.Equal(t, sum.Statuses[500], sum.Errors)
	assert.Equal(t, map[int]int64{500: sum.Statuses[500]}, sum.ErrorStatuses())

	// Sequence numbers are distinct and dense; every UUID is fresh.
	// Plain loops: tens of thousands of testify calls would dominate the test.
	assert.Len(t, rs.seqs, int(sum.Requests))
	for seq, n := range rs.seqs {
		if n != 1 || seq >= uint64(sum.Requests) {
			t.Fatalf("seq %d sent %d times (requests: %d)", seq, n, sum.Requests)
		}
	}
	assert.Len(t, rs.keys, int(sum.Requests))
	for key := range rs.keys {
		if _, err := uuid.Parse(key); err != nil {
			t.Fatalf("Idempotency-Key %q: %v", key, err)
		}
	}

	l := sum.Latency
	assert.Positive(t, l.P50)
	assert.True(t, l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max, "%+v", l)
}

func TestRunForDuration(t *testing.T) {
	rs := startServer(t)
	cfg := testConfig(rs.url)

	start := time.Now()
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	took := time.Since(start)

	assert.GreaterOrEqual(t, took, cfg.Duration)
	assert.Less(t, took, cfg.Duration+cfg.Timeout, "run must stop by itself")
	assert.Greater(t, sum.Requests, int64(10))
	assert.Positive(t, sum.RPS())
	checkAgainstServer(t, rs, sum)
}

func TestRunStopsAfterMaxRequests(t *testing.T) {
	rs := startServer(t)
	cfg := testConfig(rs.url)
	cfg.Duration = 5 * time.Second // must not be what ends the run
	cfg.MaxRequests = 100
	cfg.Connections = 3

	start := time.Now()
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)

	assert.Less(t, time.Since(start), cfg.Duration)
	assert.Equal(t, int64(100), sum.Requests)
	assert.Equal(t, map[int]int64{200: 80, 500: 20}, sum.Statuses)
	assert.Equal(t, int64(20), sum.Errors)
	checkAgainstServer(t, rs, sum)
}

func TestRunStopsOnCancel(t *testing.T) {
	rs := startServer(t)
	cfg := testConfig(rs.url)
	cfg.Duration = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()

	start := time.Now()
	sum, err := Run(ctx, cfg)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	checkAgainstServer(t, rs, sum)
}

func TestRunCountsTransportFailures(t *testing.T) {
	// A port nobody listens on: every request fails to connect.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	cfg := testConfig("http://" + addr + "/")
	cfg.Duration = 50 * time.Millisecond
	cfg.Connections = 2
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)

	assert.Positive(t, sum.Requests)
	assert.Equal(t, sum.Requests, sum.Errors)
	assert.Empty(t, sum.Statuses)
	assert.NotEmpty(t, sum.Failures)
	assert.NotEmpty(t, sum.FirstErr)
	assert.Zero(t, sum.Latency)
}

func TestResolveTarget(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{"http://127.0.0.1:8080/", "http://127.3.4.5/", "http://[::1]:9/x", "https://127.0.0.1/"} {
		_, err := resolveTarget(ctx, u, false)
		assert.NoError(t, err, u)
	}
	for _, u := range []string{"http://192.0.2.1/", "http://10.0.0.1:8080/", "http://[2001:db8::1]/", "http://0.0.0.0:80/"} {
		_, err := resolveTarget(ctx, u, false)
		assert.ErrorIs(t, err, ErrRemoteTarget, u)
		tgt, err := resolveTarget(ctx, u, true)
		assert.NoError(t, err, u)
		assert.NotEmpty(t, tgt.addr)
	}
	for _, u := range []string{"ftp://127.0.0.1/", "http:///path", "://bad"} {
		_, err := resolveTarget(ctx, u, false)
		assert.Error(t, err, u)
	}

	tgt, err := resolveTarget(ctx, "http://127.0.0.1/", false)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:80", tgt.addr)
}

func TestValidate(t *testing.T) {
	for name, mutate := range map[string]func(*Config){
		"zero connections": func(c *Config) { c.Connections = 0 },
		"zero duration":    func(c *Config) { c.Duration = 0 },
		"negative n":       func(c *Config) { c.MaxRequests = -1 },
		"bad expect":       func(c *Config) { c.Expect = 42 },
		"zero timeout":     func(c *Config) { c.Timeout = 0 },
		"bad method":       func(c *Config) { c.Method = "GE T" },
		"header injection": func(c *Config) { c.Headers = []Header{{Name: "X", Value: "a\r\nEvil: 1"}} },
	} {
		cfg := testConfig("http://127.0.0.1:1/")
		mutate(&cfg)
		_, err := Run(context.Background(), cfg)
		assert.Error(t, err, name)
	}
}

func TestTemplate(t *testing.T) {
	vars := requestVars{seq: 42}
	copy(vars.uuid[:], "0f8fad5b-d9cb-469f-a165-70867728950e")
	for in, want := range map[string]string{
		"":                            "",
		"plain":                       "plain",
		"{{seq}}":                     "42",
		"k-{{uuid}}":                  "k-0f8fad5b-d9cb-469f-a165-70867728950e",
		`{"a":{{seq}},"b":"{{seq}}"}`: `{"a":42,"b":"42"}`,
		"{{nope}} {{ {{seq":           "{{nope}} {{ {{seq",
		"{{{{seq}}}}":                 "{{42}}",
	} {
		tmpl := parseTemplate(in)
		assert.Equal(t, want, string(tmpl.appendTo(nil, &vars)), in)
		assert.Equal(t, in == want, tmpl.isStatic(), in)
	}
}

func TestFormatUUID(t *testing.T) {
	for range 10 {
		id := uuid.New()
		var got [36]byte
		formatUUID(&got, id)
		assert.Equal(t, id.String(), string(got[:]))
	}
}

func TestPercentile(t *testing.T) {
	samples := make([]time.Duration, 1000)
	for i := range samples {
		samples[len(samples)-1-i] = time.Duration(i + 1) // reversed: latencyOf must sort
	}
	assert.Equal(t, Latency{P50: 500, P90: 900, P99: 990, P999: 999, Max: 1000}, LatencyOf(samples))
	assert.Equal(t, Latency{P50: 7, P90: 7, P99: 7, P999: 7, Max: 7}, LatencyOf([]time.Duration{7}))
	assert.Equal(t, Latency{}, LatencyOf(nil))
}

func TestOutput(t *testing.T) {
	sum := Summary{
		Method: "POST", URL: "http://127.0.0.1/", Connections: 2, Elapsed: 2 * time.Second,
		Requests: 10, Errors: 3, Expected: 200,
		Statuses: map[int]int64{200: 8, 409: 1}, Failures: map[string]int64{"timeout": 1},
		Latency: Latency{P50: time.Millisecond, Max: 3 * time.Millisecond},
	}
	var text bytes.Buffer
	require.NoError(t, sum.WriteText(&text))
	assert.Contains(t, text.String(), "requests:    10 in 2s (4.5 req/s)")
	assert.Contains(t, text.String(), "errors:      3 (status 409: 1, timeout: 1)")

	var js bytes.Buffer
	require.NoError(t, sum.WriteJSON(&js))
	assert.Equal(t, 1, strings.Count(js.String(), "\n"), "one JSON object on one line")
	var got map[string]any
	require.NoError(t, json.Unmarshal(js.Bytes(), &got))
	assert.Equal(t, 10.0, got["requests"])
	assert.Equal(t, map[string]any{"409": 1.0}, got["error_statuses"])
	assert.Equal(t, 1.0, got["latency_ms"].(map[string]any)["p50"])
}

// The hooks see every request and response of a run: Prepare makes each
// request's path from its sequence number, and Observe gets each answer
// for that sequence number, which the server echoes.
func TestPrepareAndObserve(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		ctx.SetBody(ctx.Path())
		ctx.Response.Header.Set("X-Auth", string(ctx.Request.Header.Peek("Authorization")))
	}}
	go srv.Serve(ln) //nolint:errcheck // returns when the listener closes
	t.Cleanup(func() { _ = srv.Shutdown() })

	var mu sync.Mutex
	seen := map[uint64]string{}
	cfg := Config{
		URL: "http://" + ln.Addr().String() + "/", Method: "GET", Connections: 4,
		Duration: 5 * time.Second, MaxRequests: 200, Expect: 200, Timeout: 2 * time.Second,
		Prepare: func(seq uint64, req *fasthttp.Request) {
			req.URI().SetPath("/q/" + strconv.FormatUint(seq, 10))
			req.Header.Set("Authorization", "Bearer k"+strconv.FormatUint(seq%3, 10))
		},
		Observe: func(seq uint64, resp *fasthttp.Response) {
			mu.Lock()
			defer mu.Unlock()
			seen[seq] = string(resp.Body()) + " " + string(resp.Header.Peek("X-Auth"))
		},
	}
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, int64(200), sum.Requests)
	assert.Zero(t, sum.Errors)
	require.Len(t, seen, 200)
	for seq, got := range seen {
		want := "/q/" + strconv.FormatUint(seq, 10) + " Bearer k" + strconv.FormatUint(seq%3, 10)
		if got != want {
			t.Fatalf("seq %d: got %q, want %q", seq, got, want)
		}
	}
}

// A mixed run summarizes each kind of request apart, with its own
// expected status, and all of them together: reads are GETs that must
// answer 200, writes POSTs that must answer 201, and the server fails
// every seventh read.
func TestKinds(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		seq, _ := strconv.Atoi(strings.TrimPrefix(string(ctx.Path()), "/q/"))
		switch {
		case ctx.IsPost() && string(ctx.PostBody()) == "book":
			ctx.SetStatusCode(201)
		case ctx.IsGet() && len(ctx.PostBody()) == 0 && seq%7 != 0:
			ctx.SetStatusCode(200)
		default:
			ctx.SetStatusCode(500)
		}
	}}
	go srv.Serve(ln) //nolint:errcheck // returns when the listener closes
	t.Cleanup(func() { _ = srv.Shutdown() })

	write := func(seq uint64) bool { return seq%4 == 3 }
	cfg := Config{
		URL: "http://" + ln.Addr().String() + "/", Method: "GET", Connections: 3,
		Duration: 5 * time.Second, MaxRequests: 400, Timeout: 2 * time.Second,
		Kinds: []Kind{{Name: "read", Expect: 200}, {Name: "write", Expect: 201}},
		Kind: func(seq uint64) int {
			if write(seq) {
				return 1
			}
			return 0
		},
		Prepare: func(seq uint64, req *fasthttp.Request) {
			req.URI().SetPath("/q/" + strconv.FormatUint(seq, 10))
			if write(seq) {
				req.Header.SetMethod("POST")
				req.SetBodyString("book")
			} else {
				// A request reused after a POST keeps its Content-Length.
				req.Header.SetMethod("GET")
				req.ResetBody()
				req.Header.Del("Content-Length")
			}
		},
	}
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, sum.Kinds, 2)
	reads, writes := sum.Kinds[0], sum.Kinds[1]
	assert.Equal(t, "read", reads.Kind)
	assert.Equal(t, "write", writes.Kind)
	assert.Equal(t, int64(300), reads.Requests)
	assert.Equal(t, int64(100), writes.Requests)
	failed := int64(0) // reads whose sequence number is a multiple of 7
	for seq := range uint64(400) {
		if !write(seq) && seq%7 == 0 {
			failed++
		}
	}
	assert.Equal(t, map[int]int64{200: 300 - failed, 500: failed}, reads.Statuses)
	assert.Equal(t, failed, reads.Errors)
	assert.Equal(t, 200, reads.Expected)
	assert.Equal(t, map[int]int64{201: 100}, writes.Statuses)
	assert.Zero(t, writes.Errors)
	assert.Equal(t, 201, writes.Expected)
	assert.Positive(t, writes.Latency.Max)
	assert.Positive(t, writes.RPS())

	assert.Equal(t, int64(400), sum.Requests)
	assert.Equal(t, failed, sum.Errors)
	assert.Zero(t, sum.Expected, "a mixed run has no one expected status")
	assert.Equal(t, map[int]int64{200: 300 - failed, 201: 100, 500: failed}, sum.Statuses)
	assert.GreaterOrEqual(t, sum.Latency.Max, max(reads.Latency.Max, writes.Latency.Max))
}

func TestValidateKinds(t *testing.T) {
	cfg := testConfig("http://127.0.0.1:1/")
	cfg.Expect = 0
	cfg.Kinds = []Kind{{Name: "read", Expect: 200}}
	assert.Error(t, cfg.Validate(), "kinds need a Kind function")
	cfg.Kind = func(uint64) int { return 0 }
	assert.NoError(t, cfg.Validate(), "the kinds' statuses replace Expect")
	cfg.Kinds[0].Expect = 42
	assert.Error(t, cfg.Validate())
}
