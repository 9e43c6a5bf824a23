// Command load is slotd's HTTP load generator for end-to-end benchmarks. It
// owns nothing but the measurement: it drives a running slotd with a fixed
// number of keep-alive connections and reports throughput, errors and
// latency percentiles. The engine is package bench/loadgen, which
// bench/harness drives too.
//
// # Usage
//
//	go run ./bench/load -url URL [flags]
//
// Flags:
//
//	-url          target URL (required); must be on loopback unless -allow-remote
//	-method       HTTP method (default GET)
//	-H            request header "Name: value"; repeatable
//	-body         request body
//	-body-file    read the request body from a file (exclusive with -body)
//	-c            concurrent connections, one in-flight request each (default 64)
//	-d            run duration (default 10s); always bounds the run
//	-n            stop after this many requests (default 0: only -d applies)
//	-expect       expected status; any other status counts as an error (default 200)
//	-timeout      per-request timeout (default 5s)
//	-allow-remote permit a non-loopback target
//	-json         print the summary as one JSON object instead of text
//
// Header values and the body are templates: {{seq}} becomes a per-request
// counter (0, 1, 2, ... across all connections) and {{uuid}} a fresh random
// UUID. Within one request every occurrence gets the same value, so a body can
// echo its Idempotency-Key.
//
// The run stops issuing requests when -d elapses, -n requests have been
// issued, or on Ctrl-C; in-flight requests then complete (bounded by
// -timeout), so the run always ends by itself within -d + -timeout.
// Latency percentiles cover every response, whatever its status; requests
// that got no response (refused, timed out, ...) are reported as failures by
// cause, and the connection that saw one pauses 10 ms before its next request.
// req/s counts responses only. Each request is attempted exactly once: no
// retries hide failures or blur latencies.
//
// # Example
//
// Create distinct bookings for 30 s over 128 connections, expecting 201:
//
//	go run ./bench/load -url http://127.0.0.1:8080/v1/businesses/b1/bookings \
//	  -method POST -c 128 -d 30s -expect 201 \
//	  -H 'Content-Type: application/json' \
//	  -H 'Idempotency-Key: {{uuid}}' \
//	  -body '{"slot":"2030-01-01T09:00:00Z","ref":"load-{{seq}}"}'
//
// Output:
//
//	target:      POST http://127.0.0.1:8080/v1/businesses/b1/bookings (128 connections)
//	requests:    412345 in 30.002s (13744.1 req/s)
//	statuses:    201: 412000, 409: 345
//	errors:      345 (status 409: 345)
//	latency:     p50 8.21ms  p90 14.5ms  p99 31.02ms  p99.9 55.7ms  max 120ms
//
// With -json the same summary is printed as one JSON object (latencies in
// milliseconds) for scripts to collect.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/bench/loadgen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process globals, returning the exit code: 0 on a
// completed run (even with errors: they are results, not failures of the
// tool), 2 on bad usage, 1 if the run could not start.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, asJSON, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		fmt.Fprintln(stderr, "load:", err)
		return 2
	}
	// A pool of random bytes makes {{uuid}} cheap enough not to skew the
	// client's own throughput.
	uuid.EnableRandPool()

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	sum, err := loadgen.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "load:", err)
		return 1
	}
	if asJSON {
		err = sum.WriteJSON(stdout)
	} else {
		err = sum.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "load:", err)
		return 1
	}
	return 0
}

// headerFlags collects repeated -H flags.
type headerFlags []loadgen.Header

func (h *headerFlags) String() string {
	var parts []string
	for _, hdr := range *h {
		parts = append(parts, hdr.Name+": "+hdr.Value)
	}
	return strings.Join(parts, "; ")
}

func (h *headerFlags) Set(s string) error {
	hdr, err := parseHeader(s)
	if err != nil {
		return err
	}
	*h = append(*h, hdr)
	return nil
}

func parseHeader(s string) (loadgen.Header, error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return loadgen.Header{}, fmt.Errorf("header %q: want \"Name: value\"", s)
	}
	return loadgen.Header{Name: name, Value: strings.TrimSpace(value)}, nil
}

func parseFlags(args []string, stderr io.Writer) (loadgen.Config, bool, error) {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg      loadgen.Config
		headers  headerFlags
		bodyFile string
		asJSON   bool
	)
	fs.StringVar(&cfg.URL, "url", "", "target URL (required)")
	fs.StringVar(&cfg.Method, "method", "GET", "HTTP method")
	fs.Var(&headers, "H", `request header "Name: value" (repeatable; {{seq}} and {{uuid}} are substituted)`)
	fs.StringVar(&cfg.Body, "body", "", "request body ({{seq}} and {{uuid}} are substituted)")
	fs.StringVar(&bodyFile, "body-file", "", "read the request body from `file`")
	fs.IntVar(&cfg.Connections, "c", 64, "concurrent connections")
	fs.DurationVar(&cfg.Duration, "d", 10*time.Second, "run duration (always bounds the run)")
	fs.Int64Var(&cfg.MaxRequests, "n", 0, "stop after this many requests (0: only -d applies)")
	fs.IntVar(&cfg.Expect, "expect", 200, "expected status; others count as errors")
	fs.DurationVar(&cfg.Timeout, "timeout", 5*time.Second, "per-request timeout")
	fs.BoolVar(&cfg.AllowRemote, "allow-remote", false, "permit a non-loopback target")
	fs.BoolVar(&asJSON, "json", false, "print the summary as one JSON object")
	if err := fs.Parse(args); err != nil {
		return loadgen.Config{}, false, err
	}
	switch {
	case fs.NArg() > 0:
		return loadgen.Config{}, false, fmt.Errorf("unexpected arguments %q", fs.Args())
	case cfg.URL == "":
		return loadgen.Config{}, false, errors.New("-url is required")
	case bodyFile != "" && cfg.Body != "":
		return loadgen.Config{}, false, errors.New("-body and -body-file are exclusive")
	}
	if bodyFile != "" {
		b, err := os.ReadFile(bodyFile)
		if err != nil {
			return loadgen.Config{}, false, err
		}
		cfg.Body = string(b)
	}
	cfg.Headers = headers
	return cfg, asJSON, nil
}
