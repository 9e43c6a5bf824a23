package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSmoke runs the whole tool with tiny settings (it builds slotd,
// starts one node, then three) and checks that the report has every row
// and that the failover lost no acknowledged booking. About 40 s.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts slotd four times; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"-businesses", "3", "-c", "4", "-d", "1s", "-seq", "50",
		"-failover-c", "2", "-ready-timeout", "45s", "-json", jsonPath}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	t.Logf("progress:\n%s\nreport:\n%s", stderr.String(), stdout.String())
	for _, want := range []string{
		"| figure | single node | 3 nodes | ratio |",
		"| GET /api/v1/me sequential p50",
		"| bookings/s, 4 clients, total |",
		"| bookings/s per node |",
		"| bookings p99 |",
		"| GET /api/v1/me/s, 4 clients, total |",
		"| GET /api/v1/services/s per node |",
		"| time to ready",
		"**Forwarding overhead**",
		"**Failover**",
		"**missing: 0**",
		"| n1 |",
		"share this machine's",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	checkJSON(t, jsonPath)
}

// checkJSON checks the figures that must be there after any run.
func checkJSON(t *testing.T, path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*Phase{"single booking": r.Single.Book, "cluster booking": r.Cluster.Book,
		"single reads": r.Single.ReadMe, "cluster reads": r.Cluster.ReadMe} {
		if p == nil || p.OK == 0 {
			t.Errorf("%s: no successful request: %+v", name, p)
		}
	}
	f := r.Failover
	switch {
	case f == nil:
		t.Fatal("no failover figures")
	case !f.Recovered:
		t.Errorf("the business never answered again after its node was killed: %+v", f)
	case f.Acknowledged == 0 || f.Missing != 0:
		t.Errorf("failover: %d acknowledged, %d missing", f.Acknowledged, f.Missing)
	}
	if len(r.LoadMetrics) != clusterSize {
		t.Errorf("metrics of %d nodes, want %d", len(r.LoadMetrics), clusterSize)
	}
}
