package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runBook is the shell block that starts three nodes in doc, the one
// that builds the binary.
func runBook(t *testing.T, doc string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("../..", doc))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```sh\n(go build -o slotd ./cmd/slotd.*?)```\n").FindSubmatch(raw)
	require.NotNil(t, m, "%s has the run book's block", doc)
	return string(m[1])
}

// TestClusterRunBook runs the README's cluster block exactly as printed,
// in a copy of the repository's tree, as a newcomer pastes it into a
// shell: the wait loop prints each node ready, the last line prints the
// node the salon lives on, and a healthy start logs no WARN or ERROR
// (each node's log says when it was ready). docs/cluster.md prints the
// same block.
func TestClusterRunBook(t *testing.T) {
	clusterFaultTest(t)
	script := runBook(t, "README.md")
	require.Equal(t, script, runBook(t, "docs/cluster.md"), "the README and docs/cluster.md print the same run book")

	// The block's ports are fixed: a node left running from an earlier
	// paste would answer the wait loop instead.
	for _, port := range []string{"18081", "18091", "7101", "7201", "7301", "4201", "6201"} {
		ln, err := net.Listen("tcp", "127.0.0.1:"+port)
		require.NoError(t, err, "the run book's port %s is taken: stop what runs there", port)
		ln.Close()
	}

	// The tree the block runs in: the repository's own files, linked.
	dir := t.TempDir()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	for _, name := range []string{"go.mod", "go.sum", "actors", "cmd", "storage", "transport", "webhook", "bench", "docs"} {
		require.NoError(t, os.Symlink(filepath.Join(root, name), filepath.Join(dir, name)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-c", script)
	sh.Dir = dir
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Files, not pipes: the nodes the block leaves running hold its
	// stdout, and Wait would wait for them to close a pipe.
	outFile, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	require.NoError(t, err)
	defer outFile.Close()
	sh.Stdout, sh.Stderr = outFile, outFile
	// The nodes run on in the background after the block ends: stop them
	// all (the block's process group) as a person's Ctrl-C would not.
	t.Cleanup(func() {
		_ = syscall.Kill(-sh.Process.Pid, syscall.SIGTERM)
		time.Sleep(5 * time.Second) // each drains and leaves; then whatever is left goes
		_ = syscall.Kill(-sh.Process.Pid, syscall.SIGKILL)
	})
	start := time.Now()
	require.NoError(t, sh.Start())
	werr := sh.Wait()
	raw, err := os.ReadFile(outFile.Name())
	require.NoError(t, err)
	printed := string(raw)
	require.NoError(t, werr, "the block's output:\n%s", printed)
	t.Logf("the block took %v (build included); it printed:\n%s", time.Since(start).Round(time.Second), printed)

	// The nodes' own "serving" lines go to the same terminal, in
	// between.
	assert.Equal(t, 3, strings.Count(printed, `{"status":"ready"}`), printed)
	for _, n := range []string{"n1", "n2", "n3"} {
		assert.Regexp(t, `(?m)^(\{"status":"ready"\})? `+n+`$`, printed)
	}
	assert.Regexp(t, `(?m)^X-Slotd-Node: n[123]\r?$`, printed)
	for _, n := range []string{"n1", "n2", "n3"} {
		// The line comes from the readiness watch, which looks once a
		// second (readyPoll): /readyz may answer 200, and the block end,
		// before it has looked.
		var log []byte
		assert.Eventually(t, func() bool {
			var err error
			log, err = os.ReadFile(filepath.Join(dir, n+".log"))
			return err == nil && strings.Contains(string(log), `msg="ready: /readyz answers 200"`)
		}, 10*readyPoll, 50*time.Millisecond, "%s logs that it is ready", n)
		for _, line := range strings.Split(string(log), "\n") {
			assert.NotRegexp(t, `level=(WARN|ERROR)`, line, "%s: a healthy start logs no WARN", n)
		}
	}
	log, err := os.ReadFile(filepath.Join(dir, "n1.log"))
	require.NoError(t, err)
	assert.Regexp(t, `access admin GET /readyz 503`, string(log), "the probes that waited for n1's start are logged")
}
