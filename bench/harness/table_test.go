package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run below the full sizes says above its table, and in its summary
// line, that its performance verdicts mean nothing; a full-size run does
// not.
func TestTableToySizes(t *testing.T) {
	table := func(args ...string) (string, Report) {
		t.Helper()
		o, err := parseFlags(args, &bytes.Buffer{})
		require.NoError(t, err)
		h := &harness{}
		h.rep.Options = o
		h.evaluate()
		var out bytes.Buffer
		writeTable(&out, &h.rep)
		return out.String(), h.rep
	}

	out, rep := table()
	assert.True(t, strings.HasPrefix(out, "| Workload |"), "full size: the table comes first:\n%s", out)
	assert.NotContains(t, out, "oy sizes")
	assert.NotContains(t, rep.Summary, "toy sizes")

	// Larger than the defaults is full size too; the sizes of a phase that
	// does not run do not count.
	out, _ = table("-businesses", "400", "-storm-d", "1m", "-load=false", "-load-appointments", "10", "-pg", "off", "-pg-d", "1s")
	assert.NotContains(t, out, "oy sizes")

	out, rep = table("-businesses", "3", "-staff", "4", "-appointments", "60", "-queries", "90", "-d", "500ms",
		"-load-businesses", "10", "-load-staff", "3", "-load-appointments", "300")
	note, rest, ok := strings.Cut(out, "\n\n")
	require.True(t, ok, out)
	assert.True(t, strings.HasPrefix(note, "**Toy sizes: the performance verdicts mean nothing.** "), note)
	assert.Contains(t, note, "-businesses 3, -staff 4, -appointments 60, -queries 90, -d 500ms, -load-businesses 10, -load-staff 3, -load-appointments 300:")
	assert.NotContains(t, note, "-customers", "at its default")
	assert.True(t, strings.HasPrefix(rest, "| Workload |"), rest)
	assert.Contains(t, rep.Summary, "targets met (toy sizes: performance verdicts not meaningful)")
	assert.True(t, strings.HasSuffix(out, rep.Summary+"\n"), "the summary line still ends the output")
}
