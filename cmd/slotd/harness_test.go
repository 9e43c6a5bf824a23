package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
)

// testEpoch is where the clock of an in-process test server starts: a fixed
// day well before the dates in testdata/world.json, so tests do not depend
// on today.
var testEpoch = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

// server is a real slotd started in-process on loopback ports.
type server struct {
	t      *testing.T
	data   string
	base   string // http://127.0.0.1:port
	admin  string
	cancel context.CancelFunc
	done   chan error
	stdout *syncBuffer
	log    *syncBuffer // the server's log (its stderr)
	clock  *clock.Fake // the server's clock; tests advance it by hand
}

// syncBuffer is a bytes.Buffer safe for the server and the test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const testAdminToken = "test-admin-token"

// start runs `slotd serve` with args on a data directory (a fresh temp dir
// when data is "") and waits until it serves.
func start(t *testing.T, data string, args ...string) *server {
	t.Helper()
	if data == "" {
		data = t.TempDir()
	}
	all := append([]string{"--data", data, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--admin-token", testAdminToken}, args...)
	c, err := parseConfig(all, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	return startConfig(t, c)
}

// stop shuts the server down gracefully (as SIGTERM does) and waits.
func (s *server) stop() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		require.NoError(s.t, err)
	case <-time.After(30 * time.Second):
		s.t.Fatal("server did not stop within 30 s")
	}
}

// resp is a decoded response.
type resp struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

var client = &http.Client{Timeout: 15 * time.Second}

func do(t *testing.T, method, url, key string, body []byte) resp {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	r := resp{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if len(raw) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(raw, &r.Body), "body: %s", raw)
	}
	return r
}

func (s *server) get(path, key string) resp { return do(s.t, "GET", s.base+path, key, nil) }

func (s *server) adminDo(method, path string, body []byte) resp {
	req, err := http.NewRequest(method, s.admin+path, bytes.NewReader(body))
	require.NoError(s.t, err)
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	res, err := client.Do(req)
	require.NoError(s.t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := resp{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

// requireError asserts an error response of the §7.1 shape.
func requireError(t *testing.T, r resp, status int, code string) {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Raw)
	require.Equal(t, code, r.Body["code"], "body: %s", r.Raw)
	msg, _ := r.Body["error"].(string)
	require.NotEmpty(t, msg, "error sentence")
}

// requireField asserts a VALIDATION_ERROR naming path with reason.
func requireField(t *testing.T, r resp, path, reason string) map[string]any {
	t.Helper()
	requireError(t, r, 400, "VALIDATION_ERROR")
	fields, _ := r.Body["fields"].([]any)
	for _, f := range fields {
		m := f.(map[string]any)
		if m["path"] == path {
			require.Equal(t, reason, m["reason"], "body: %s", r.Raw)
			require.NotEmpty(t, m["message"])
			return m
		}
	}
	t.Fatalf("no field %q in %s", path, r.Raw)
	return nil
}

// The keys and ids of testdata/world.json (the published example plus two
// test keys).
const (
	keyFull     = "sk_example_salon_full"
	keyRead     = "sk_example_salon_readonly"
	keyRevoked  = "sk_example_salon_revoked"
	keyExpired  = "sk_example_salon_expired"
	keyServices = "sk_test_salon_services_only"
	keyStudio   = "sk_example_studio_full"

	salonID      = "f719a757-6018-5706-847c-e556c8b6c4b7"
	haircutID    = "53b482a1-21f5-5ac8-935a-e510da576e07"
	deletedSvcID = "4cf3bcf5-792a-5be6-a209-c7ffb69711ea"
	hairCatID    = "a6527942-ec49-515c-b83d-8a3e8480a2a9"
	annaID       = "5da640e0-c0df-50e8-88a4-59e25439bd74"
	evaID        = "8655f79b-a982-58c8-9a30-d42c1d7f0156"
	massageID    = "5ddfbba6-6487-5bdc-9540-1825e641c698"
	eliID        = "31e761bc-765c-5e95-9ef3-6a8d51952bc9"
)

func startWorld(t *testing.T, args ...string) *server {
	return start(t, "", append([]string{"--world", "testdata/world.json"}, args...)...)
}

// startConfig starts a server from a parsed configuration.
func startConfig(t *testing.T, c *config) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	fake := clock.NewFake(testEpoch)
	c.clock = fake
	s := &server{t: t, data: c.Data, cancel: cancel, done: make(chan error, 1), stdout: &syncBuffer{}, log: &syncBuffer{}, clock: fake}
	ready := make(chan addrs, 1)
	go func() { s.done <- serve(ctx, c, s.stdout, s.log, func(a addrs) { ready <- a }) }()
	select {
	case a := <-ready:
		s.base, s.admin = "http://"+a.Public, "http://"+a.Admin
	case err := <-s.done:
		t.Fatalf("server did not start: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("server did not start within 20 s")
	}
	t.Cleanup(s.stop)
	return s
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func sortStrings(s []string) { sort.Strings(s) }

// salonWorld writes testdata/world.json with the salon changed by edit
// and returns the file's path.
// putSalon puts the test world's salon, edited, through the admin API,
// as an operator's tool would.
func (s *server) putSalon(edit func(biz map[string]any)) resp {
	s.t.Helper()
	var w map[string]any
	require.NoError(s.t, json.Unmarshal(mustRead(s.t, salonWorld(s.t, edit)), &w))
	for _, b := range w["businesses"].([]any) {
		if b.(map[string]any)["id"] == salonID {
			body, err := json.Marshal(b)
			require.NoError(s.t, err)
			return s.adminDo("PUT", "/admin/v1/businesses/"+salonID, body)
		}
	}
	s.t.Fatal("the test world has no salon")
	return resp{}
}

func salonWorld(t *testing.T, edit func(biz map[string]any)) string {
	t.Helper()
	var w map[string]any
	require.NoError(t, json.Unmarshal(mustRead(t, "testdata/world.json"), &w))
	for _, b := range w["businesses"].([]any) {
		if biz := b.(map[string]any); biz["id"] == salonID {
			edit(biz)
		}
	}
	out, err := json.Marshal(w)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "world.json")
	require.NoError(t, os.WriteFile(path, out, 0o600))
	return path
}
