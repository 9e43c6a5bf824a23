package main

import (
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHelpGoesToStdoutAndExitsZero(t *testing.T) {
	env := func(string) string { return "" }
	for _, args := range [][]string{{"serve", "--help"}, {"serve", "-h"}, {"serve", "--data", "x", "-help"}} {
		var out, errb bytes.Buffer
		require.Equal(t, 0, run(args, env, &out, &errb), args)
		require.Contains(t, out.String(), "usage: slotd serve [flags]", args)
		require.Contains(t, out.String(), "-admin-listen", "the flags are listed")
		require.Empty(t, errb.String(), args)
	}
	for _, args := range [][]string{nil, {"frobnicate"}, {"version", "extra"}, {"serve", "--no-such-flag"}} {
		var out, errb bytes.Buffer
		require.Equal(t, 2, run(args, env, &out, &errb), args)
		require.Contains(t, errb.String(), "usage: slotd", args)
		require.Empty(t, out.String(), args)
	}
}

// TestVersionWithoutVCSInformation: a test binary, like `go run`, carries
// no VCS stamp.
func TestVersionWithoutVCSInformation(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"version"}, func(string) string { return "" }, &out, &errb))
	require.Empty(t, errb.String())
	require.True(t, strings.HasPrefix(out.String(), "slotd (devel)\nunknown revision"), out.String())
	require.Regexp(t, `\ngo1\.\d+\S* \w+/\w+\n$`, out.String())
}

func TestVersionFormatsTheVCSStamp(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-05-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	require.Equal(t, "slotd v1.4.0\nrevision 0123456789abcdef0123456789abcdef01234567 (committed 2026-05-01T10:00:00Z, working tree modified)\ngo1.26.0 linux/amd64\n",
		formatVersion(info, "linux/amd64"))
	require.Equal(t, "slotd (devel)\nunknown revision (built without version control information)\ngo1.26.0 linux/amd64\n",
		formatVersion(&debug.BuildInfo{GoVersion: "go1.26.0"}, "linux/amd64"))
}

// TestBinaryVersion runs `slotd version` on the built binary and checks it
// against what `go version -m` reads from the same file.
func TestBinaryVersion(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "version").Output()
	require.NoError(t, err, "exit 0")
	meta, err := exec.Command("go", "version", "-m", bin).Output()
	require.NoError(t, err)
	require.Regexp(t, `^slotd \S+\n`, string(out))
	require.Contains(t, string(out), strings.Fields(string(meta))[1]+" ", "the Go version")
	if rev := regexp.MustCompile(`vcs\.revision=(\w+)`).FindSubmatch(meta); rev != nil {
		require.Contains(t, string(out), "revision "+string(rev[1]))
	} else {
		require.Contains(t, string(out), "unknown revision")
	}
}

func TestSecondServerOnALockedDataDirectory(t *testing.T) {
	s := start(t, "")
	key := regexp.MustCompile(`all scopes: (\S+)`).FindStringSubmatch(s.stdout.String())[1]
	var out, errb bytes.Buffer
	code := run([]string{"serve", "--data", s.data, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"}, func(string) string { return "" }, &out, &errb)
	require.Equal(t, 1, code)
	require.Contains(t, errb.String(), "slotd: data directory "+s.data+" is locked ("+filepath.Join(s.data, "LOCK")+" is held by this process)")
	require.Contains(t, errb.String(), "another slotd is probably running on it")
	require.NotContains(t, out.String(), "serving")

	// The first server is untouched: it serves, and stops cleanly.
	require.Equal(t, 200, s.get("/api/v1/me", key).Status)
	s.stop()
}

// TestSecondBinaryOnALockedDataDirectory is the operator's case: two
// processes, and the error names the one holding the directory.
func TestSecondBinaryOnALockedDataDirectory(t *testing.T) {
	bin := buildBinary(t)
	data := t.TempDir()
	s, first := startBinary(t, bin, data, "--world", "testdata/world.json")

	second := exec.Command(bin, "serve", "--data", data, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0")
	var out, errb bytes.Buffer
	second.Stdout, second.Stderr = &out, &errb
	err := second.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 1, exit.ExitCode())
	require.Contains(t, errb.String(), fmt.Sprintf("slotd: data directory %s is locked (%s is held by process %d): another slotd is probably running on it",
		data, filepath.Join(data, "LOCK"), first.Process.Pid))
	require.Empty(t, out.String())

	require.Equal(t, 200, s.get("/api/v1/me", keyFull).Status)
	require.NoError(t, first.Process.Signal(syscall.SIGTERM))
	require.NoError(t, first.Wait(), "the first exits 0")
}

// TestFailedStartSpendsNoDemoKeys: the listeners are bound before the demo
// business is seeded, so a start that cannot listen prints no key and
// leaves the data directory for a later start to seed.
func TestFailedStartSpendsNoDemoKeys(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	data := t.TempDir()
	env := func(string) string { return "" }
	for _, flag := range []string{"--listen", "--admin-listen"} {
		args := []string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", flag, taken.Addr().String()}
		var out, errb bytes.Buffer
		require.Equal(t, 1, run(args, env, &out, &errb), flag)
		require.Contains(t, errb.String(), "slotd: "+flag+" "+taken.Addr().String()+": cannot listen: bind: address already in use")
		require.Empty(t, out.String(), "no key printed")
	}

	s := start(t, data)
	require.Contains(t, s.stdout.String(), "seeded the demo business")
	require.Regexp(t, `demo API key, all scopes: sk_`, s.stdout.String())
}

func TestOutOfRangePortIsACommandLineError(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	var out, errb bytes.Buffer
	code := run([]string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:99999"}, func(string) string { return "" }, &out, &errb)
	require.Equal(t, 2, code)
	require.Contains(t, errb.String(), `slotd: --admin-listen: port "99999": want a number from 0 to 65535`)
	require.Empty(t, out.String())
	require.NoDirExists(t, data, "nothing was created")
}

// TestClusterFlagsAreCheckedBeforeStart: a cluster flag set that could
// never start (a malformed address, no peers, fewer embedded journal
// replicas than each record needs) is a command-line error naming the
// flag, not a node that waits for ever.
func TestClusterFlagsAreCheckedBeforeStart(t *testing.T) {
	base := map[string]string{
		"--cluster-node": "n1", "--cluster-listen": "127.0.0.1:7101", "--cluster-membership": "127.0.0.1:7201",
		"--cluster-handover": "127.0.0.1:7301", "--cluster-peers": "127.0.0.1:7201,127.0.0.1:7202,127.0.0.1:7203",
		"--journal-listen": "127.0.0.1:7401", "--journal-routes": "127.0.0.1:7501",
		"--journal-peers": "127.0.0.1:7501,127.0.0.1:7502,127.0.0.1:7503",
	}
	for _, tc := range []struct {
		set  map[string]string
		flag string
	}{
		{map[string]string{"--cluster-listen": "7101"}, "--cluster-listen"},
		{map[string]string{"--cluster-handover": "127.0.0.1:x"}, "--cluster-handover"},
		{map[string]string{"--cluster-peers": ""}, "--cluster-peers"},
		{map[string]string{"--journal-peers": ""}, "--journal-peers"},
		{map[string]string{"--journal-routes": "nowhere"}, "--journal-routes"},
		{map[string]string{"--journal-replicas": "0"}, "--journal-replicas"},
		{map[string]string{"--journal-sync": "sometimes"}, "--journal-sync"},
		{map[string]string{"--journal-peers": "127.0.0.1:7501"}, "--journal-peers"},
		{map[string]string{"--journal-peers": "127.0.0.1:7501,127.0.0.1:7502"}, "--journal-peers"},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			args := []string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"}
			for k, v := range base {
				if nv, ok := tc.set[k]; ok {
					v = nv
				}
				args = append(args, k+"="+v)
			}
			for k, v := range tc.set {
				if _, ok := base[k]; !ok {
					args = append(args, k+"="+v)
				}
			}
			var out, errb bytes.Buffer
			code := run(args, func(string) string { return "" }, &out, &errb)
			require.Equal(t, 2, code, "stderr: %s", errb.String())
			require.Contains(t, errb.String(), "slotd: "+tc.flag)
			require.NoDirExists(t, data, "nothing was created")
		})
	}
}
