package proc

import (
	"bufio"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestGroup: a child asked to stop with its clean-stop signal stops
// cleanly; one that ignores it is killed after grace; StopAll leaves none
// running.
func TestGroup(t *testing.T) {
	var g Group
	clean := startReady(t, &g, `trap 'exit 0' TERM`)
	stubborn := startReady(t, &g, `trap '' TERM`)
	other, err := g.Start("other", exec.Command("sleep", "60"), syscall.SIGTERM)
	require.NoError(t, err)
	require.False(t, clean.Exited())

	_, ok := clean.Terminate(10 * time.Second)
	require.True(t, ok, "stopped cleanly: %v", clean.Err())

	_, ok = stubborn.Terminate(300 * time.Millisecond)
	require.False(t, ok, "ignored SIGTERM: killed after grace")
	require.True(t, stubborn.Exited())

	g.StopAll(5 * time.Second)
	require.True(t, other.Exited())
	_, err = g.Start("missing", exec.Command("/nonexistent/binary"), syscall.SIGTERM)
	require.ErrorContains(t, err, "start missing")
}

// startReady starts a shell that runs trap, says so, and loops; it
// returns once the trap is in place.
func startReady(t *testing.T, g *Group, trap string) *Proc {
	cmd := exec.Command("sh", "-c", trap+`; echo ready; while :; do sleep 0.05; done`)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p, err := g.Start(trap, cmd, syscall.SIGTERM)
	require.NoError(t, err)
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	return p
}
