package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/transport/edge"
)

// issueKey issues a key through the admin API and returns its plaintext and id.
func (s *server) issueKey(biz string, scopes ...string) (string, string) {
	body, _ := json.Marshal(map[string]any{"scopes": scopes})
	r := s.adminDo("POST", "/admin/v1/businesses/"+biz+"/keys", body)
	require.Equal(s.t, 201, r.Status, "%s", r.Raw)
	return r.Body["key"].(string), r.Body["id"].(string)
}

func TestRestartKeepsEverythingAcknowledged(t *testing.T) {
	s := startWorld(t)
	key, _ := s.issueKey(salonID, "services:read")
	require.Equal(t, 200, s.get("/api/v1/services", key).Status)
	revokeMe, revokeID := s.issueKey(salonID, "staff:read")
	r := s.adminDo("POST", "/admin/v1/businesses/"+salonID+"/keys/"+revokeID+"/revoke", nil)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	require.Equal(t, true, r.Body["revoked"])
	before := s.get("/api/v1/services/"+haircutID, keyFull).Raw
	s.stop()

	s2 := start(t, s.data)
	require.Equal(t, 200, s2.get("/api/v1/services", key).Status)
	requireError(t, s2.get("/api/v1/staff", revokeMe), 401, "KEY_REVOKED")
	require.Equal(t, string(before), string(s2.get("/api/v1/services/"+haircutID, keyFull).Raw))
	require.NotContains(t, s2.stdout.String(), "seeded", "a data directory with data is never re-seeded")
}

func TestDemoSeeding(t *testing.T) {
	s := start(t, "")
	out := s.stdout.String()
	keys := regexp.MustCompile(`demo API key, all scopes: (\S+)`).FindStringSubmatch(out)
	require.Len(t, keys, 2, "stdout: %s", out)
	r := s.get("/api/v1/me", keys[1])
	require.Equal(t, 200, r.Status)
	require.Equal(t, "Demo Salon", r.Body["name"])
	require.Equal(t, "Europe/Amsterdam", r.Body["timezone"])
	require.NotEmpty(t, s.get("/api/v1/services", keys[1]).Body["data"])
	require.NotEmpty(t, s.get("/api/v1/staff", keys[1]).Body["data"])
	s.stop()

	s2 := start(t, s.data)
	require.NotContains(t, s2.stdout.String(), "seeded")
	require.Equal(t, 200, s2.get("/api/v1/me", keys[1]).Status)
}

func TestWorldReloadChangesOnlyWhatChanged(t *testing.T) {
	s := startWorld(t)
	world, err := os.ReadFile("testdata/world.json")
	require.NoError(t, err)
	before := s.get("/api/v1/services/"+haircutID, keyFull).Body
	r := s.adminDo("POST", "/admin/v1/world", world)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	for _, b := range r.Body["businesses"].([]any) {
		require.Equal(t, false, b.(map[string]any)["changed"], "same file twice changes nothing")
	}
	require.Equal(t, before, s.get("/api/v1/services/"+haircutID, keyFull).Body)

	s.clock.Advance(time.Minute)
	changed := bytes.Replace(world, []byte(`"priceCents": 3500`), []byte(`"priceCents": 3700`), 1)
	r = s.adminDo("POST", "/admin/v1/world", changed)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	after := s.get("/api/v1/services/"+haircutID, keyFull).Body
	require.EqualValues(t, 3700, after["priceCents"])
	require.Equal(t, before["createdAt"], after["createdAt"])
	require.NotEqual(t, before["updatedAt"], after["updatedAt"])
	other := s.get("/api/v1/services/5d0dee30-031a-57e5-a32b-046b216baac0", keyFull).Body
	require.Equal(t, other["createdAt"], other["updatedAt"], "untouched services keep their updatedAt")

	// After a restart the state comes from the journal; loading the same
	// file again must still change nothing.
	s.stop()
	changedFile := filepath.Join(t.TempDir(), "world.json")
	require.NoError(t, os.WriteFile(changedFile, changed, 0o644))
	s2 := start(t, s.data, "--world", changedFile)
	s2.clock.Advance(time.Hour)
	r = s2.adminDo("POST", "/admin/v1/world", changed)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	for _, b := range r.Body["businesses"].([]any) {
		require.Equal(t, false, b.(map[string]any)["changed"], "%s", r.Raw)
	}
}

func TestAdminAPI(t *testing.T) {
	s := startWorld(t)
	r := do(t, "POST", s.admin+"/admin/v1/businesses/"+salonID+"/keys", "wrong", []byte(`{"scopes":[]}`))
	requireError(t, r, 401, "UNAUTHORIZED")
	r = s.adminDo("POST", "/admin/v1/businesses/"+salonID+"/keys", []byte(`{"scopes":"x","bogus":1}`))
	requireError(t, r, 400, "VALIDATION_ERROR")
	r = s.adminDo("POST", "/admin/v1/businesses/00000000-0000-4000-8000-000000000000/keys", []byte(`{"scopes":[]}`))
	requireError(t, r, 404, "NOT_FOUND")
	r = s.adminDo("GET", "/admin/v1/businesses/"+salonID+"/keys", nil)
	require.Equal(t, 200, r.Status)
	require.NotContains(t, string(r.Raw), "sk_example", "plaintext keys are never stored or shown")
	require.Equal(t, 200, do(t, "GET", s.admin+"/healthz", "", nil).Status)
	require.Equal(t, 200, do(t, "GET", s.admin+"/readyz", "", nil).Status)
	requireError(t, do(t, "GET", s.admin+"/metrics", "", nil), 401, "UNAUTHORIZED")
	require.Contains(t, string(s.adminDo("GET", "/metrics", nil).Raw), "slotd_journal_commits_total")

	// A business put in the world file format, then a bad one.
	biz := `{"id":"11111111-2222-4333-8444-555555555555","name":"Put Test","timezone":"Europe/Amsterdam","currency":"EUR","plan":"groei","apiKeys":[{"key":"sk_put_test_key_1","scopes":["services:read"]}],"categories":[],"services":[],"staff":[]}`
	r = s.adminDo("PUT", "/admin/v1/businesses/11111111-2222-4333-8444-555555555555", []byte(biz))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	require.Equal(t, 200, s.get("/api/v1/services", "sk_put_test_key_1").Status)
	r = s.adminDo("PUT", "/admin/v1/businesses/11111111-2222-4333-8444-555555555555", []byte(biz))
	require.Equal(t, 200, r.Status)
	require.Equal(t, false, r.Body["changed"])
	r = s.adminDo("PUT", "/admin/v1/businesses/11111111-2222-4333-8444-555555555555", []byte(strings.Replace(biz, "Europe/Amsterdam", "Mars/Olympus", 1)))
	requireError(t, r, 400, "VALIDATION_ERROR")
	require.Contains(t, string(r.Raw), `"path":"timezone"`)
	// A key another business holds is refused.
	r = s.adminDo("PUT", "/admin/v1/businesses/11111111-2222-4333-8444-555555555555", []byte(strings.Replace(biz, "sk_put_test_key_1", keyFull, 1)))
	requireError(t, r, 400, "VALIDATION_ERROR")
	require.Contains(t, string(r.Raw), `"path":"apiKeys"`, "a path of the one business's object")
	require.Equal(t, 200, s.get("/api/v1/services", keyFull).Status)
}

func TestAdminWithoutTokenRefusesWrites(t *testing.T) {
	dir := t.TempDir()
	c, err := parseConfig([]string{"--data", dir, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--world", "testdata/world.json"}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	s := startConfig(t, c)
	requireError(t, do(t, "POST", s.admin+"/admin/v1/businesses/"+salonID+"/keys", "", []byte(`{"scopes":[]}`)), 403, "FORBIDDEN")
	require.Equal(t, 200, do(t, "GET", s.admin+"/admin/v1/businesses", "", nil).Status)
	require.Contains(t, string(do(t, "GET", s.admin+"/metrics", "", nil).Raw), "slotd_journal_commits_total", "reads, /metrics included, are open")
}

func TestCommandLine(t *testing.T) {
	var out, errb bytes.Buffer
	env := func(string) string { return "" }
	require.Equal(t, 2, run(nil, env, &out, &errb))
	require.Equal(t, 2, run([]string{"frobnicate"}, env, &out, &errb))
	require.Contains(t, errb.String(), `slotd: unknown command "frobnicate"`, "the unknown command is named")
	require.Contains(t, errb.String(), "usage: slotd serve")
	errb.Reset()
	require.Equal(t, 2, run([]string{"version", "extra"}, env, &out, &errb))
	require.NotContains(t, errb.String(), "unknown command", "version is known; its arguments are not")
	for _, v := range []string{"--version", "-version"} {
		out.Reset()
		require.Equal(t, 0, run([]string{v}, env, &out, &errb), v)
		require.True(t, strings.HasPrefix(out.String(), "slotd "), "%s: %s", v, out.String())
	}
	require.Equal(t, 2, run([]string{"serve", "--no-such-flag"}, env, &out, &errb))
	require.Contains(t, errb.String(), "usage: slotd serve")
	// A mistyped flag: the complaint, a guess and two lines of usage, so
	// the complaint stays on the screen; -h lists the flags.
	errb.Reset()
	require.Equal(t, 2, run([]string{"serve", "--listne", ":9090"}, env, &out, &errb))
	require.Equal(t, "flag provided but not defined: -listne\nslotd: did you mean --listen?\nusage: slotd serve [flags]\nRun `slotd serve -h` for the flags.\n", errb.String())
	require.Equal(t, 2, run([]string{"serve", "--webhook-retry-scale", "0"}, env, &out, &errb))
	require.Equal(t, 2, run([]string{"serve", "--disable-module", "teleport"}, env, &out, &errb))
	require.Equal(t, 2, run([]string{"serve", "--listen", "nonsense"}, env, &out, &errb))
	for _, args := range [][]string{{"--read-timeout", "0"}, {"--write-timeout", "-1s"}, {"--idle-timeout", "2h"}, {"--read-timeout", "soon"}} {
		errb.Reset()
		require.Equal(t, 2, run(append([]string{"serve"}, args...), env, &out, &errb), args)
		require.Contains(t, errb.String(), args[0][1:])
	}
	errb.Reset()
	require.Equal(t, 2, run([]string{"serve", "--smtp-from", "not an address <"}, env, &out, &errb))
	require.Contains(t, errb.String(), "--smtp-from")
	bad := func(k string) string {
		if k == "SLOTD_WEBHOOKS_ALLOW_INSECURE" {
			return "maybe"
		}
		return ""
	}
	require.Equal(t, 2, run([]string{"serve"}, bad, &out, &errb))
	errb.Reset()
	require.Equal(t, 2, run([]string{"serve", "--public-url", "slotd.example.com"}, env, &out, &errb))
	require.Contains(t, errb.String(), "--public-url")

	c, err := parseConfig([]string{"--listen", "127.0.0.1:9999"}, func(k string) string {
		return map[string]string{"SLOTD_LISTEN": "127.0.0.1:1", "SLOTD_DATA": "/tmp/x", "SLOTD_DISABLE_MODULE": "customers,webhooks", "SLOTD_IDLE_TIMEOUT": "5s",
			"SLOTD_PUBLIC_URL": "https://slotd.example.com"}[k]
	}, io.Discard)
	require.NoError(t, err)
	require.Equal(t, edge.ConnLimits{ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 5 * time.Second}, c.Conn)
	require.Equal(t, "127.0.0.1:9999", c.Listen, "flags win over the environment")
	require.Equal(t, "/tmp/x", c.Data)
	require.Equal(t, "customers,webhooks", c.DisableModules.String())
	require.Equal(t, "https://slotd.example.com", c.PublicURL)
}

func TestBadWorldFileLoadsNothing(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad.json")
	world, _ := os.ReadFile("testdata/world.json")
	// The second business is broken; the first must not be stored either.
	require.NoError(t, os.WriteFile(bad, bytes.Replace(world, []byte(`"slotIntervalMinutes": 30`), []byte(`"slotIntervalMinutes": "half an hour"`), 1), 0o644))
	var out, errb bytes.Buffer
	code := run([]string{"serve", "--data", dir, "--world", bad, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"}, func(string) string { return "" }, &out, &errb)
	require.Equal(t, 1, code)
	require.Contains(t, errb.String(), bad)
	require.Contains(t, errb.String(), "businesses.1.bookingRules.slotIntervalMinutes")
	st, err := storage.Open(dir, storage.Options{})
	require.NoError(t, err)
	defer st.Close()
	empty, err := st.IsEmpty()
	require.NoError(t, err)
	require.True(t, empty)
}

// A world file whose business refuses its put (two appointments of one
// staff member overlap: only the put finds that) is refused with the path
// of that business in the file, through --world and through the admin
// API's world load; the same object put alone names its own path.
func TestWorldFileOverlapNamesItsBusiness(t *testing.T) {
	var w map[string][]map[string]any
	raw, err := os.ReadFile("testdata/world.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &w))
	studio := w["businesses"][1]
	staff := studio["staff"].([]any)[0].(map[string]any)
	svc := studio["services"].([]any)[0].(map[string]any)
	cust := "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d"
	studio["customers"] = []any{map[string]any{"id": cust, "firstName": "Ada", "email": "ada@example.com"}}
	day := time.Now().UTC().AddDate(0, 0, 9).Format("2006-01-02")
	appt := func(id, at string) map[string]any {
		return map[string]any{"id": id, "customerId": cust, "serviceId": svc["id"], "staffMemberId": staff["id"],
			"startTime": day + "T" + at + ":00Z", "status": "confirmed"}
	}
	studio["appointments"] = []any{appt("a1a1a1a1-0000-4000-8000-000000000001", "10:00"),
		appt("a1a1a1a1-0000-4000-8000-000000000002", "12:00"), appt("a1a1a1a1-0000-4000-8000-000000000003", "10:30")}
	file := filepath.Join(t.TempDir(), "world.json")
	data, err := json.Marshal(w)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, data, 0o644))
	const want = "businesses.1.appointments.2.startTime"

	var out, errb bytes.Buffer
	code := run([]string{"serve", "--data", t.TempDir(), "--world", file, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"},
		func(string) string { return "" }, &out, &errb)
	require.Equal(t, 1, code)
	require.Contains(t, errb.String(), want, errb.String())

	s := startWorld(t)
	r := s.adminDo("POST", "/admin/v1/world", data)
	requireError(t, r, 400, "VALIDATION_ERROR")
	require.Contains(t, string(r.Raw), `"path":"`+want+`"`)
	one, err := json.Marshal(studio)
	require.NoError(t, err)
	r = s.adminDo("PUT", "/admin/v1/businesses/"+studio["id"].(string), one)
	requireError(t, r, 400, "VALIDATION_ERROR")
	require.Contains(t, string(r.Raw), `"path":"appointments.2.startTime"`)
}

// TestHardKillLosesNothingAcknowledged runs the real binary, kills it with
// SIGKILL right after a write was acknowledged, and restarts it.
func TestHardKillLosesNothingAcknowledged(t *testing.T) {
	bin := buildBinary(t)
	data := t.TempDir()

	s, proc := startBinary(t, bin, data, "--world", "testdata/world.json")
	var keys []string
	for i := 0; i < 5; i++ {
		k, _ := s.issueKey(salonID, "services:read")
		keys = append(keys, k)
	}
	require.NoError(t, proc.Process.Signal(syscall.SIGKILL))
	_ = proc.Wait()

	s2, proc2 := startBinary(t, bin, data)
	for _, k := range keys {
		require.Equal(t, 200, s2.get("/api/v1/services", k).Status)
	}
	// SIGTERM drains and exits 0.
	require.NoError(t, proc2.Process.Signal(syscall.SIGTERM))
	require.NoError(t, proc2.Wait())
}

// buildBinary builds slotd into a temp dir and returns its path. The build
// cache makes every build after the first in a run a link step.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "slotd")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	return bin
}

var serving = regexp.MustCompile(`serving the API on (http://\S+) and the admin API on (http://\S+)`)

func startBinary(t *testing.T, bin, data string, args ...string) (*server, *exec.Cmd) {
	return startBinaryLog(t, bin, data, os.Stderr, args...)
}

// startBinaryLog is startBinary with the server's log (stderr) to log.
func startBinaryLog(t *testing.T, bin, data string, log io.Writer, args ...string) (*server, *exec.Cmd) {
	cmd := exec.Command(bin, append([]string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--admin-token", testAdminToken}, args...)...)
	cmd.Stderr = log
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(30 * time.Second)
	printed := &syncBuffer{}
	for {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "binary exited before serving")
			printed.Write([]byte(l + "\n"))
			if m := serving.FindStringSubmatch(l); m != nil {
				go func() {
					for range lines {
					}
				}()
				return &server{t: t, data: data, base: m[1], admin: m[2], stdout: printed}, cmd
			}
		case <-deadline:
			t.Fatal("binary did not start")
		}
	}
}

// A world file given with --world is read business by business; a key it
// gives to a business that another business outside the file holds is
// refused with the path of that business in the file, and nothing of the
// file is loaded.
func TestWorldFileKeyOfAnotherBusinessIsRefusedAtItsPath(t *testing.T) {
	s := startWorld(t)
	s.stop()
	var w map[string][]map[string]any
	raw, err := os.ReadFile("testdata/world.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &w))
	studio := w["businesses"][1]
	name := studio["name"]
	studio["name"] = "Renamed before the thief"
	thief := map[string]any{"id": "0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b", "name": "Thief", "timezone": "UTC", "currency": "EUR",
		"plan": "pro", "apiKeys": []any{map[string]any{"key": keyFull, "scopes": []any{"services:read"}}}}
	file := filepath.Join(t.TempDir(), "world.json")
	data, err := json.Marshal(map[string]any{"businesses": []any{studio, thief}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, data, 0o644))
	var out, errb bytes.Buffer
	code := run([]string{"serve", "--data", s.data, "--world", file, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"},
		func(string) string { return "" }, &out, &errb)
	require.Equal(t, 1, code)
	require.Contains(t, errb.String(), "businesses.1.apiKeys", errb.String())

	s2 := start(t, s.data)
	require.Equal(t, 200, s2.get("/api/v1/me", keyFull).Status, "the salon keeps its key")
	require.Equal(t, name, s2.get("/api/v1/me", keyStudio).Body["name"], "nothing of the file was put")
}

// A world file that is not JSON is reported in the file's words, with the
// line and column of the problem, and nothing is loaded (exit 1).
func TestWorldFileSyntaxErrorsNameLineAndColumn(t *testing.T) {
	for content, want := range map[string]string{
		"{\"businesses\": [\n  {\"id\": \"x\",\n   \"name\": }\n]}\n": "line 3, column 11: invalid character '}' looking for beginning of value",
		"{\"businesses\": [\n":   "line 1, column 17: the file ends in the middle of its JSON value",
		"{\"businesses\": []} x": "line 1, column 18: there is data after the JSON value",
		"":                       "the file is empty",
		"[1]":                    "the file must hold a JSON object with a businesses array",
	} {
		file := filepath.Join(t.TempDir(), "world.json")
		require.NoError(t, os.WriteFile(file, []byte(content), 0o644))
		var out, errb bytes.Buffer
		code := run([]string{"serve", "--data", t.TempDir(), "--world", file, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"},
			func(string) string { return "" }, &out, &errb)
		require.Equal(t, 1, code)
		require.Contains(t, errb.String(), "world file "+file+":\n  "+want, "%q", content)
		require.NotContains(t, errb.String(), "(body)", "a file is not a request body")
	}
}

// A --world file that is not there is said at once, before anything waits
// (in cluster mode the journal's replicas; here the data directory).
func TestMissingWorldFileFailsAtOnce(t *testing.T) {
	var out, errb bytes.Buffer
	missing := filepath.Join(t.TempDir(), "world.json")
	code := run([]string{"serve", "--data", t.TempDir(), "--world", missing, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
		"--cluster-node", "n1", "--cluster-peers", "127.0.0.1:7200", "--journal-peers", "127.0.0.1:6222,127.0.0.1:6223", "--journal-replicas", "2"},
		func(string) string { return "" }, &out, &errb)
	require.Equal(t, 1, code)
	require.Contains(t, errb.String(), "world file: stat "+missing+": no such file or directory")
}
