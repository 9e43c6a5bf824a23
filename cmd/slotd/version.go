package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// versionText is what `slotd version` prints: enough for an operator to
// tell which build runs, and for a bug report to name the exact source.
// The Go tool stamps the module version and the VCS state into binaries it
// builds inside a checkout; `go run`, `go test` and builds outside one carry
// none, which is said rather than left blank.
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = &debug.BuildInfo{}
	}
	return formatVersion(info, runtime.GOOS+"/"+runtime.GOARCH)
}

// formatVersion renders build information: the module version, the VCS
// revision with its commit time and whether the working tree had
// uncommitted changes, and the Go version and platform.
func formatVersion(info *debug.BuildInfo, platform string) string {
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	vcs := map[string]string{}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	revision := "unknown revision (built without version control information)"
	if rev := vcs["vcs.revision"]; rev != "" {
		var notes []string
		if t := vcs["vcs.time"]; t != "" {
			notes = append(notes, "committed "+t)
		}
		if vcs["vcs.modified"] == "true" {
			notes = append(notes, "working tree modified")
		}
		revision = "revision " + rev
		if len(notes) > 0 {
			revision += " (" + strings.Join(notes, ", ") + ")"
		}
	}
	goVersion := info.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	return fmt.Sprintf("slotd %s\n%s\n%s %s\n", version, revision, goVersion, platform)
}
