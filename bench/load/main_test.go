package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/bench/loadgen"
)

func TestParseFlags(t *testing.T) {
	var stderr bytes.Buffer
	cfg, asJSON, err := parseFlags([]string{
		"-url", "http://127.0.0.1:8080/x", "-method", "POST", "-c", "4", "-d", "3s", "-n", "9",
		"-expect", "201", "-H", "Idempotency-Key: {{uuid}}", "-H", "X-A:b:c", "-body", "{}", "-json",
	}, &stderr)
	require.NoError(t, err)
	assert.True(t, asJSON)
	assert.Equal(t, loadgen.Config{
		URL: "http://127.0.0.1:8080/x", Method: "POST", Connections: 4, Duration: 3 * time.Second,
		MaxRequests: 9, Expect: 201, Timeout: 5 * time.Second, Body: "{}",
		Headers: []loadgen.Header{{Name: "Idempotency-Key", Value: "{{uuid}}"}, {Name: "X-A", Value: "b:c"}},
	}, cfg)

	bodyFile := filepath.Join(t.TempDir(), "body.json")
	require.NoError(t, os.WriteFile(bodyFile, []byte(`{"n":{{seq}}}`), 0o600))
	cfg, _, err = parseFlags([]string{"-url", "http://127.0.0.1/", "-body-file", bodyFile}, &stderr)
	require.NoError(t, err)
	assert.Equal(t, `{"n":{{seq}}}`, cfg.Body)

	for _, args := range [][]string{
		{},
		{"-url", "http://127.0.0.1/", "-body", "x", "-body-file", bodyFile},
		{"-url", "http://127.0.0.1/", "-H", "no colon"},
		{"-url", "http://127.0.0.1/", "stray"},
	} {
		_, _, err := parseFlags(args, &stderr)
		assert.Error(t, err, args)
	}
}

func TestMainExitCodes(t *testing.T) {
	var out, errOut bytes.Buffer
	assert.Equal(t, 2, run([]string{"-c", "0", "-url", "http://127.0.0.1/"}, &out, &errOut))
	assert.Equal(t, 1, run([]string{"-url", "http://192.0.2.1/"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "-allow-remote")
}
