package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The README's "Receive webhooks locally", as a newcomer runs it: slotd
// with --webhooks-allow-insecure, the receiver in docs/, the registration
// pipeline that keeps the secret in ./whsec; the ping is answered before
// the secret is known, and a booking's event arrives with a signature the
// receiver verifies. The README's own lines are run (its ports swapped for
// free ones).
func TestReadmeWebhookRecipe(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	section := regexp.MustCompile("(?s)## Receive webhooks locally\n.*?```sh\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, section, "the README has the section")
	lines := strings.Split(string(section[1]), "\n")
	require.Contains(t, lines[0], "serve --webhooks-allow-insecure")
	require.Contains(t, lines[1], "python3 docs/webhook-receiver.py 9000")
	register := strings.Join(lines[2:5], "\n")
	require.Contains(t, register, "> whsec")

	// The real binary on the real clock: the receiver checks the
	// signature's timestamp against its own.
	s, _ := startBinary(t, buildBinary(t), t.TempDir(), "--webhooks-allow-insecure")
	when := readmeShellValues(t)
	key := regexp.MustCompile(`all scopes: (\S+)`).FindStringSubmatch(s.stdout.String())[1]
	port := fmt.Sprint(freePort(t))

	dir := t.TempDir() // the receiver's working directory, where whsec goes
	root, err := os.Getwd()
	require.NoError(t, err)
	recv := exec.Command("python3", root+"/../../docs/webhook-receiver.py", port)
	recv.Dir = dir
	out, err := recv.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, recv.Start())
	t.Cleanup(func() { _ = recv.Process.Signal(syscall.SIGTERM); _ = recv.Wait() })
	printed := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			printed <- sc.Text()
		}
		close(printed)
	}()
	next := func() string {
		select {
		case l, ok := <-printed:
			require.True(t, ok, "the receiver stopped")
			return l
		case <-time.After(20 * time.Second):
			t.Fatal("the receiver printed nothing")
			return ""
		}
	}
	require.Equal(t, "receiving webhooks on http://127.0.0.1:"+port+"/", next())

	register = strings.NewReplacer("localhost:8080", strings.TrimPrefix(s.base, "http://"), "127.0.0.1:9000", "127.0.0.1:"+port).Replace(register)
	sh := exec.Command("sh", "-c", register)
	sh.Dir, sh.Env = dir, append(os.Environ(), "KEY="+key)
	msg, err := sh.CombinedOutput()
	if err != nil {
		raw := strings.Split(register, "|")[0]
		d := exec.Command("sh", "-c", raw)
		d.Env = sh.Env
		dbg, _ := d.CombinedOutput()
		t.Fatalf("%v: %s\nthe registration answered: %s", err, msg, dbg)
	}
	require.Regexp(t, `^webhook webhook\.test id=evt_\S+ no secret yet \(\./whsec\)$`, next())
	secret, err := os.ReadFile(dir + "/whsec")
	require.NoError(t, err)
	require.Regexp(t, `^whsec_\S+\n$`, string(secret))

	svc := s.get("/api/v1/services?isActive=true&limit=1", key).Body["data"].([]any)[0].(map[string]any)["id"].(string)
	slots := s.get("/api/v1/availability/slots?serviceId="+svc+"&from="+when["FROM"]+"&to="+when["TO"], key).Body["data"].([]any)
	require.NotEmpty(t, slots)
	r := s.post("/api/v1/appointments", key, "recipe-1", fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"customer":{"firstName":"Noor","email":"noor@example.com"}}`,
		svc, slots[0].(map[string]any)["startTime"]))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	require.Regexp(t, `^webhook appointment\.created id=evt_\S+ signature ok$`, next())
}
