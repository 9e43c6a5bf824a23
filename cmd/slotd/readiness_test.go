package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/transport/admin"
	"github.com/slotd/slotd/transport/edge"
)

// The log says when the node turns ready (once, with how long the start
// took), when it stops being ready and why, and when it is ready again;
// nothing while nothing changes.
func TestReadyWatchLogsChanges(t *testing.T) {
	synctest.Test(t, testReadyWatchLogsChanges)
}

func testReadyWatchLogsChanges(t *testing.T) {
	clk := clock.NewFake(testEpoch)
	tick := func() { clk.Advance(readyPoll); synctest.Wait() } // the fake clock fires on goroutines
	var mu sync.Mutex
	now := admin.Readiness{Status: "not ready", Reason: "not a member of the cluster"}
	set := func(r admin.Readiness) { mu.Lock(); now = r; mu.Unlock() }
	check := func() admin.Readiness { mu.Lock(); defer mu.Unlock(); return now }
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	w := watchReady(check, clk, log, testEpoch.Add(-18*time.Second))
	tick()
	assert.Empty(t, out.String(), "not ready during a start is no news")

	set(admin.Readiness{Status: "ready"})
	tick()
	tick()
	set(admin.Readiness{Status: "not ready", Reason: "this node's lease is not valid"})
	tick()
	tick()
	set(admin.Readiness{Status: "ready"})
	tick()
	w.stop()
	set(admin.Readiness{Status: "starting"})
	tick()

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3, out.String())
	assert.Contains(t, lines[0], `level=INFO msg="ready: /readyz answers 200" took=20s`)
	assert.Contains(t, lines[1], `level=WARN msg="not ready: /readyz answers 503" status="not ready" reason="this node's lease is not valid"`)
	assert.Contains(t, lines[2], `level=INFO msg="ready again: /readyz answers 200"`)
	assert.Zero(t, clk.Pending(), "stopped: no timer left")
}

// While slotd starts, the admin listener's answers are in the access log
// like the real server's: a probe that waited through the start shows as
// 503s. A path that is not a probe is not written (no client's path in
// the log).
func TestStartupProbesAreLogged(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var out syncBuffer
	access, err := edge.NewAccessLog(&out, edge.AccessLogCompact)
	require.NoError(t, err)
	boot := serveStartup(ln, "waiting for the journal", access, clock.Real{})
	defer boot.stop()
	for _, path := range []string{"/readyz", "/healthz", "/admin/v1/businesses/secret-id"} {
		res, err := http.Get("http://" + ln.Addr().String() + path)
		require.NoError(t, err)
		res.Body.Close()
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3, out.String())
	assert.Regexp(t, `^\S+Z access admin GET /readyz 503 \S+$`, lines[0])
	assert.Regexp(t, `^\S+Z access admin GET /healthz 200 \S+$`, lines[1])
	assert.Regexp(t, `^\S+Z access admin GET starting 503 \S+$`, lines[2])
	assert.NotContains(t, out.String(), "secret-id")
}

// What the binary says from start to stop, as text and as JSON: the
// world file's load, the ready line, and a final "stopped" line; under
// --log-format json every line on stdout and stderr is a JSON record,
// the banner's included.
func TestStartAndStopAreSaid(t *testing.T) {
	bin := buildBinary(t)
	for _, format := range []string{"text", "json"} {
		var log syncBuffer
		s, proc := startBinaryLog(t, bin, t.TempDir(), &log, "--world", "testdata/world.json", "--log-format", format)
		require.NoError(t, proc.Process.Signal(syscall.SIGTERM))
		require.NoError(t, proc.Wait())
		stderr, stdout := log.String(), s.stdout.String()
		switch format {
		case "text":
			assert.Regexp(t, `level=INFO msg="world file loaded" file=testdata/world.json businesses=\d+ took=`, stderr)
			assert.Contains(t, stderr, `msg="ready: /readyz answers 200"`)
			assert.Regexp(t, `level=INFO msg=stopped\n$`, stderr, "the last line")
			assert.True(t, strings.HasPrefix(stdout, "slotd: serving the API on http://"), stdout)
		case "json":
			for _, out := range []string{stdout, stderr} {
				for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
					var rec map[string]any
					require.NoError(t, json.Unmarshal([]byte(line), &rec), "not JSON: %s", line)
				}
			}
			assert.Contains(t, stdout, `"msg":"serving the API on http://`)
			assert.Contains(t, stdout, `"api":"`+s.base+`"`)
			assert.Contains(t, stderr, `"msg":"world file loaded"`)
			assert.Regexp(t, `"msg":"stopped"}\n$`, stderr, "the last line")
		}
	}
}

// The demo's banner as JSON: each key a record with its values.
func TestDemoBannerAsJSON(t *testing.T) {
	s := start(t, "", "--log-format", "json")
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(s.stdout.String()), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "not JSON: %s", line)
		if k, ok := rec["kind"].(string); ok {
			require.NotEmpty(t, rec["key"], line)
			kinds = append(kinds, k)
		}
	}
	assert.Equal(t, []string{"secret", "secret", "publishable"}, kinds)
	assert.Regexp(t, `"msg":"demo booking page: +http://\S+","url":"`+regexp.QuoteMeta(s.base)+`/book/`, s.stdout.String())
}

// TestHandoffTakesAConnectionAtOnce: a client that connects the moment
// the listener is handed over (a run book's wait loop, a harness's first
// probe) reaches the first server; the pump once took it before any
// server was current, and the node died on a nil pointer.
func TestHandoffTakesAConnectionAtOnce(t *testing.T) {
	for range 50 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		dialed := make(chan net.Conn, 1)
		go func() {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err == nil {
				dialed <- c
			}
		}()
		_, first := newHandoff(ln)
		c, err := first.Accept()
		require.NoError(t, err)
		require.NoError(t, c.Close())
		(<-dialed).Close()
		require.NoError(t, ln.Close())
	}
}
