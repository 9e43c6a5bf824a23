package mail

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/webhook/mail/mailtest"
)

// lf is m's bytes as an mbox holds them: LF line ends.
func lf(m Message) []byte { return bytes.ReplaceAll(m.Bytes(), []byte("\r\n"), []byte("\n")) }

// crlf turns an mbox entry back into the message as sent: CRLF line ends.
func crlf(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }

// trickyMessage has body lines an mbox must quote, and one it must not.
func trickyMessage(t *testing.T, id string) Message {
	m := testMessage(t)
	return newMessage(id, m.To, m.From, m.Subject,
		"From the salon, with love\n>From quoted already\n>>From twice\n From not at the start\n\nFrom after a blank line\n",
		"<p>From html</p>", time.Date(2026, 11, 26, 21, 5, 0, 0, time.UTC))
}

func TestMboxAppendsWholeMessages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "outbox")
	clk := clock.NewFake(time.Date(2026, 11, 26, 23, 59, 0, 0, time.UTC))
	b := &Mbox{Path: dir, Clock: clk}
	defer b.Close()
	ctx := context.Background()

	first := []Message{trickyMessage(t, "m1"), trickyMessage(t, "m2")}
	for _, err := range b.SendBatch(ctx, first) {
		require.NoError(t, err)
	}
	require.NoError(t, b.Send(ctx, trickyMessage(t, "m3")))
	clk.Advance(2 * time.Minute) // the next UTC day: a new file
	require.NoError(t, b.Send(ctx, trickyMessage(t, "m4")))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		info, err := e.Info()
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o640), info.Mode().Perm(), e.Name())
	}
	assert.Equal(t, []string{"2026-11-26.mbox", "2026-11-27.mbox"}, names)

	got, err := mailtest.ReadOutbox(filepath.Dir(dir))
	require.NoError(t, err)
	require.Len(t, got, 4)
	for i, g := range got {
		m := trickyMessage(t, []string{"m1", "m2", "m3", "m4"}[i])
		assert.Equal(t, string(lf(m)), string(g.Data), "message %d comes back exactly", i)
		assert.Equal(t, "From bookings@slotd.example Thu Nov 26 21:05:00 2026", g.FromLine)
		p := parseMessage(t, crlf(g.Data))
		assert.Equal(t, m.Text(), p.text)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "2026-11-26.mbox"))
	require.NoError(t, err)
	assert.Contains(t, string(raw), "\n>From the salon")
	assert.Contains(t, string(raw), "\n>>From quoted already")
	assert.Contains(t, string(raw), "\n>>>From twice")
	assert.Contains(t, string(raw), "\n From not at the start")
	assert.NotContains(t, string(raw), "\r")
}

// TestMboxKeepsWhatIsThere: a mailbox that exists (slotd restarted) is
// appended to, never replaced.
func TestMboxKeepsWhatIsThere(t *testing.T) {
	dir := t.TempDir()
	clk := clock.NewFake(time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC))
	ctx := context.Background()
	for i, id := range []string{"a", "b"} {
		b := &Mbox{Path: dir, Clock: clk}
		require.NoError(t, b.Send(ctx, trickyMessage(t, id)), i)
		require.NoError(t, b.Close())
	}
	got, err := mailtest.ReadMbox(filepath.Join(dir, "2026-11-26.mbox"))
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Contains(t, string(got[1].Data), "Message-ID: <b@slotd>")
}

// failingFile fails the n-th Write after half of it, or every Sync.
type failingFile struct {
	mboxFile
	writeErr, syncErr error
}

func (f *failingFile) Write(p []byte) (int, error) {
	if f.writeErr != nil {
		n, _ := f.mboxFile.Write(p[:len(p)/2])
		return n, f.writeErr
	}
	return f.mboxFile.Write(p)
}

func (f *failingFile) Sync() error {
	if f.syncErr != nil {
		return f.syncErr
	}
	return f.mboxFile.Sync()
}

// TestMboxFailedBatchLeavesNoTrace: a write that fails half way (a full
// disk) or a sync that fails fails every message of the batch, and the
// file is cut back to what it held, so the retry appends whole messages.
func TestMboxFailedBatchLeavesNoTrace(t *testing.T) {
	for _, fault := range []string{"write", "sync"} {
		t.Run(fault, func(t *testing.T) {
			dir := t.TempDir()
			var ff *failingFile
			b := &Mbox{Path: dir, Clock: clock.NewFake(time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)),
				openFile: func(name string) (mboxFile, error) {
					f, err := openMbox(name)
					ff = &failingFile{mboxFile: f}
					return ff, err
				}}
			defer b.Close()
			ctx := context.Background()
			require.NoError(t, b.Send(ctx, trickyMessage(t, "before")))

			enospc := &os.PathError{Op: fault, Path: "x", Err: syscall.ENOSPC}
			if fault == "write" {
				ff.writeErr = enospc
			} else {
				ff.syncErr = enospc
			}
			errs := b.SendBatch(ctx, []Message{trickyMessage(t, "x1"), trickyMessage(t, "x2")})
			for _, err := range errs {
				require.ErrorIs(t, err, syscall.ENOSPC)
				assert.Equal(t, CauseFile, FailureCause(err))
			}
			ff.writeErr, ff.syncErr = nil, nil
			require.NoError(t, b.Send(ctx, trickyMessage(t, "after")))

			got, err := mailtest.ReadMbox(filepath.Join(dir, "2026-11-26.mbox"))
			require.NoError(t, err)
			require.Len(t, got, 2)
			assert.Equal(t, string(lf(trickyMessage(t, "before"))), string(got[0].Data))
			assert.Equal(t, string(lf(trickyMessage(t, "after"))), string(got[1].Data))
		})
	}
}

func TestMboxCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := &Mbox{Path: t.TempDir()}
	assert.True(t, errors.Is(b.Send(ctx, testMessage(t)), context.Canceled))
}

// TestMboxReadByPython: Python's mailbox module, an independent mbox
// reader, finds every message whole: the same Message-IDs and bodies. (It
// reads without undoing mboxrd's quoting, as mboxo readers do: it shows
// each quoted "From " line with the '>' the writer added.)
func TestMboxReadByPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed (CI installs it)")
	}
	dir := t.TempDir()
	b := &Mbox{Path: dir, Clock: clock.NewFake(time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC))}
	var ms []Message
	for _, id := range []string{"p1", "p2", "p3"} {
		ms = append(ms, trickyMessage(t, id))
	}
	for _, err := range b.SendBatch(context.Background(), ms) {
		require.NoError(t, err)
	}
	require.NoError(t, b.Close())
	script := `
import mailbox, sys
for m in mailbox.mbox(sys.argv[1]):
    text = m.get_payload()[0].get_payload(decode=True).decode()
    print(m["Message-ID"], repr(text))
`
	out, err := exec.Command(python, "-c", script, filepath.Join(dir, "2026-11-26.mbox")).CombinedOutput()
	require.NoError(t, err, string(out))
	var want []string
	for _, m := range ms {
		quoted := quoteMboxrd(nil, []byte(m.Text()))
		want = append(want, "<"+m.ID+"@slotd> "+pyRepr(strings.TrimSuffix(string(quoted), "\n")))
	}
	assert.Equal(t, strings.Join(want, "\n")+"\n", string(out))
}

// pyRepr is Python's repr of an ASCII string holding no quote.
func pyRepr(s string) string {
	return "'" + strings.ReplaceAll(s, "\n", `\n`) + "'"
}

// TestMboxEntryShortcut: the in-place path for messages without lines to
// quote writes what the long way writes.
func TestMboxEntryShortcut(t *testing.T) {
	for _, text := range []string{"plain\nlines\n", "From the start", "x\n>quoted\n", "no final break", "", "a\r\nb"} {
		m := testMessage(t)
		m = newMessage(m.ID, m.To, m.From, m.Subject, text, m.HTML(), m.Date)
		got := appendMboxrd(nil, m)
		want := []byte(strings.SplitAfter(string(got), "\n")[0]) // the From line
		want = quoteMboxrd(want, m.Bytes())
		assert.Equal(t, string(want), string(got), "%q", text)
	}
}

func TestHasFromLine(t *testing.T) {
	for s, want := range map[string]bool{
		"From x": true, "a\nFrom x": true, "a\n>>From x": true, "a From x": false, "a\n> From x": false,
		"From": false, "x>From y": false, "": false, "a\nFrom": false, "a\r\nFrom y": true,
	} {
		assert.Equal(t, want, hasFromLine([]byte(s)), "%q", s)
	}
}
