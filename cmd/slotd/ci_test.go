package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEveryFuzzTargetRunsInCI: .ci/run fuzzes every fuzz target of the
// module, each in its own package, so a new target cannot be forgotten
// and a moved one cannot silently stop running.
func TestEveryFuzzTargetRunsInCI(t *testing.T) {
	ci, err := os.ReadFile("../../.ci/run")
	require.NoError(t, err)
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^fuzz (\./\S+) (Fuzz\w+)$`).FindAllStringSubmatch(string(ci), -1) {
		listed = append(listed, strings.TrimPrefix(m[1], "./")+" "+m[2])
	}
	decl := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	var found []string
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../..", filepath.Dir(path))
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			found = append(found, filepath.ToSlash(rel)+" "+m[1])
		}
		return nil
	})
	require.NoError(t, err)
	slices.Sort(listed)
	slices.Sort(found)
	require.NotEmpty(t, found)
	require.Equal(t, found, listed, ".ci/run must fuzz exactly the module's fuzz targets (package, target)")
}

// TestEveryClusterFaultTestRunsInCI: a test gated by clusterFaultTest is
// skipped by the README's test command, so .ci/run's cluster step must
// name it, or it never runs at all.
func TestEveryClusterFaultTestRunsInCI(t *testing.T) {
	ci, err := os.ReadFile("../../.ci/run")
	require.NoError(t, err)
	m := regexp.MustCompile(`SLOTD_CLUSTER_FAULTS=1 go test [^\n]*\\\n\s*-run '\^\(([^)]*)\)\$'`).FindSubmatch(ci)
	require.NotNil(t, m, "the cluster step of .ci/run")
	listed := strings.Split(string(m[1]), "|")
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	gated := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\) \{\n\tclusterFaultTest\(t\)`)
	var found []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, g := range gated.FindAllSubmatch(src, -1) {
			found = append(found, string(g[1]))
		}
	}
	require.NotEmpty(t, found)
	for _, name := range found {
		require.True(t, slices.Contains(listed, name), "%s is gated by clusterFaultTest but .ci/run does not run it", name)
	}
}
