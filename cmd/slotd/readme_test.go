package main

import (
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeQuickStart runs the quick start's shell lines that compute
// times and the Idempotency-Key, as a reader's shell would, and uses them
// against the built binary on the real clock with the demo business: the
// week ahead offers slots, a booking succeeds, and the last hour's changes
// list it.
func TestReadmeQuickStart(t *testing.T) {
	vars := readmeShellValues(t)
	s, proc := startBinary(t, buildBinary(t), t.TempDir())
	key := regexp.MustCompile(`all scopes: (\S+)`).FindStringSubmatch(s.stdout.String())[1]

	svc := s.get("/api/v1/services?isActive=true&limit=2", key).Body["data"].([]any)[0].(map[string]any)["id"].(string)
	slots := s.get("/api/v1/availability/slots?serviceId="+svc+"&from="+vars["FROM"]+"&to="+vars["TO"], key)
	require.Equal(t, 200, slots.Status, "%s", slots.Raw)
	require.NotEmpty(t, slots.Body["data"], "the coming week has slots")
	start := slots.Body["data"].([]any)[0].(map[string]any)["startTime"].(string)

	book := func() resp {
		req, err := http.NewRequest("POST", s.base+"/api/v1/appointments", strings.NewReader(
			`{"serviceId":"`+svc+`","startTime":"`+start+`","customer":{"firstName":"Noor","email":"noor@example.com"}}`))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Idempotency-Key", vars["IDEMPOTENCY_KEY"])
		req.Header.Set("Content-Type", "application/json")
		return send(t, req)
	}
	first := book()
	require.Equal(t, 201, first.Status, "%s", first.Raw)
	require.Equal(t, string(first.Raw), string(book().Raw), "the key makes a retry safe")

	changed := s.get("/api/v1/appointments?updatedSince="+vars["SINCE"], key)
	require.Equal(t, 200, changed.Status, "%s", changed.Raw)
	require.Len(t, changed.Body["data"], 1)

	require.NoError(t, proc.Process.Signal(syscall.SIGTERM))
	require.NoError(t, proc.Wait())
}

// readmeShellValues evaluates with sh the README's FROM=, TO= and SINCE=
// lines and the command substitution of its Idempotency-Key header.
func readmeShellValues(t *testing.T) map[string]string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	script := ""
	for _, name := range []string{"FROM", "TO", "SINCE"} {
		line := regexp.MustCompile(`(?m)^` + name + `=.*$`).Find(readme)
		require.NotNil(t, line, "README sets %s", name)
		script += string(line) + "\n"
	}
	ik := regexp.MustCompile(`Idempotency-Key: (\$\(.*?\))"`).FindSubmatch(readme)
	require.NotNil(t, ik, "README makes an Idempotency-Key")
	script += "IDEMPOTENCY_KEY=" + string(ik[1]) + "\n" + `printf '%s\n' "$FROM" "$TO" "$SINCE" "$IDEMPOTENCY_KEY"`
	out, err := exec.Command("sh", "-c", script).Output()
	require.NoError(t, err, script)
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	require.Len(t, got, 4, "%s", out)
	for _, v := range got[:3] {
		require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, v)
	}
	require.Regexp(t, `^[0-9a-f]{32}$`, got[3])
	return map[string]string{"FROM": got[0], "TO": got[1], "SINCE": got[2], "IDEMPOTENCY_KEY": got[3]}
}

// TestRunBookLeavesNothingToCommit: what the cluster run book (README,
// docs/cluster.md) leaves in the repository's root — the binary, the
// example world, each node's data directory and log — is ignored by git.
func TestRunBookLeavesNothingToCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if err := exec.Command("git", "-C", "../..", "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	for _, p := range []string{"slotd", "world.json", "data-n1/journal/x", "data-n3/node/x", "n1.log", "n3.log", "data/x", "whsec"} {
		out, err := exec.Command("git", "-C", "../..", "check-ignore", "--no-index", p).CombinedOutput()
		require.NoError(t, err, "%s is not ignored: %s", p, out)
	}
}

// TestReadmeTestCommandIsCIs: the test command of the README's quick start
// is the one .ci/run runs for the suite, flag for flag, so a newcomer's
// run and CI's are the same run. The command must be a line of .ci/run of
// its own (not merely named by the echo line before it).
func TestReadmeTestCommandIsCIs(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	block := regexp.MustCompile("(?s)\n## Quick start\n.*?```sh\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, block, "the README's quick start has a sh block")
	line := regexp.MustCompile(`(?m)^go test .*$`).Find(block[1])
	require.NotNil(t, line, "the quick start's first block has a go test line:\n%s", block[1])
	command, _, _ := strings.Cut(string(line), "#")
	command = strings.TrimSpace(command)
	require.Contains(t, command, "./...", "the quick start's test command runs the whole suite")

	ci, err := os.ReadFile("../../.ci/run")
	require.NoError(t, err)
	runs := false
	for _, l := range strings.Split(string(ci), "\n") {
		runs = runs || strings.TrimSpace(l) == command
	}
	require.True(t, runs, ".ci/run does not run the README's test command %q as a line of its own", command)
}
