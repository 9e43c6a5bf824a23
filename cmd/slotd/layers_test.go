package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The layering of the tree, checked for every package in the module, in
// the style of tailscale's tstest/deptest: each rule names packages, what
// they must not depend on, and why. A package depends on what `go list
// -deps` names for it (its whole build graph) and, for the layer rules,
// on what its tests import directly. The test fails, never skips: without the go tool it cannot
// know, and a layering check that quietly does nothing is worse than none.

const module = "github.com/slotd/slotd"

// The top-level layers; every package belongs to exactly one.
var layers = []string{"cmd", "actors", "storage", "transport", "webhook", "bench"}

// pure packages hold scheduling logic, codecs, encodings and policies:
// no actor system, HTTP stack, database or metrics library, so that they
// are deterministic, cheap to test and usable from any layer.
var pure = []string{
	"actors/calendar", "actors/interval", "actors/sorted", "actors/ledger",
	"actors/model", "actors/model/input", "actors/model/wire", "actors/model/world", "actors/problem",
	"actors/clock", "storage/record",
	"transport/cursor",
	"webhook", "webhook/retry",
}

// vocabulary is the engine's language: the domain model, its formats,
// the problem codes and the clock every part reads time from. A rule that
// forbids a layer the engine (actors/...) lets it use these only where
// the rule says so (rule.allow): storage journals the model and times its
// health, the senders render it and time their retries, and the model's
// packages use each other.
var vocabulary = []string{"actors/model/...", "actors/problem", "actors/clock"}

var impure = []string{
	"github.com/asynkron/protoactor-go", "github.com/valyala/fasthttp", "github.com/fasthttp/router",
	"github.com/cockroachdb/pebble", "github.com/prometheus", "net/http",
}

type rule struct {
	pkgs   []string // module-relative package patterns: "x" or "x/..."
	forbid []string // import-path patterns: module-relative ("transport/...") or full
	why    string
	// build: the rule binds the build graph only, not what tests import
	// (a pure package's example may show an integrator net/http).
	build bool
	// direct: the rule binds what the packages import themselves (not
	// through another package, not in tests), and a pattern without
	// "/..." names that package alone.
	direct bool
	// allow: what the rule lets the packages use among what it forbids
	// (the vocabulary, for the layers that speak it).
	allow []string
}

var rules = []rule{
	{[]string{"actors/..."}, []string{"transport/...", "cmd/...", "bench/..."},
		"the engine speaks no HTTP: the transport calls it, never the reverse", false, false, nil},
	{[]string{"actors/model", "actors/model/input", "actors/model/wire", "actors/problem"}, []string{"actors/...", "storage/...", "webhook/..."},
		"the model and its formats are the vocabulary of every layer, so they use no layer but each other", false, false, vocabulary},
	{[]string{"actors/model/world"}, []string{"actors/business", "actors/directory", "actors/courier", "actors/placement", "actors/ledger", "storage/...", "webhook/..."},
		"the world file is a format: it uses the model, and the pure calendar to check recurrence rules, and nothing that runs", false, false, nil},
	{[]string{"storage/..."}, []string{"actors/...", "transport/...", "webhook/...", "cmd/...", "bench/..."},
		"storage keeps what the engine decides: the journal's format and the store know nothing of who uses them but its vocabulary", false, false, vocabulary},
	{[]string{"webhook/..."}, []string{"actors/...", "transport/...", "cmd/...", "bench/..."},
		"the outbound senders are told what to send, in the engine's vocabulary; they do not reach into the engine or the front end", false, false, vocabulary},
	{[]string{"transport/..."}, []string{"cmd/...", "bench/..."},
		"the front end is wired by cmd, not the other way round", false, false, nil},
	{[]string{"transport/edge"}, []string{"transport/api", "transport/admin"},
		"the edge is the front door every listener shares: it knows no listener's routes, so a listener's routes change without touching it", false, false, nil},
	{[]string{"transport/api"}, []string{"transport/admin"},
		"the public API and the admin listener share only the edge: a public route never reaches the admin token, the world put or the probes", false, false, nil},
	{[]string{"transport/admin"}, []string{"transport/api"},
		"the admin listener and the public API share only the edge: an admin route never reaches API keys' quotas, the public routes or their caches", false, false, nil},
	{[]string{"bench/..."}, []string{"actors/...", "storage/...", "transport/...", "webhook/...", "cmd/..."},
		"the load tools measure slotd from outside, as a harness would", false, false, nil},
	{pure, impure,
		"pure packages do no I/O and start no goroutines: no actors, HTTP, database or metrics", true, false, nil},
	{[]string{"transport/..."}, []string{"storage", "actors/courier"},
		"the front end reads the store's tables only through the engine's door (actors/directory), whose reads sync before they answer: nothing a crash could undo is shown", false, true, nil},
	{[]string{"transport/..."}, []string{"actors/business", "actors/ledger", "actors/calendar", "actors/interval", "actors/sorted", "storage/record"},
		"one door into the engine: every read and write goes through actors/directory, whose views hold only synced state; the transport never builds a calendar query or reads a business's state or journal itself", false, true, nil},
}

type pkg struct {
	ImportPath   string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

func TestLayering(t *testing.T) {
	pkgs := listPackages(t)
	byPath := map[string]bool{}
	for _, p := range pkgs {
		rel := relative(p.ImportPath)
		byPath[rel] = true
		if !inLayer(rel) {
			t.Errorf("%s is in no layer of %v: put it in one, or add the layer with its rules", p.ImportPath, layers)
		}
	}
	for _, p := range pure {
		if !byPath[p] {
			t.Errorf("pure package %s does not exist: keep the list in step with the tree", p)
		}
	}
	for _, p := range pkgs {
		rel := relative(p.ImportPath)
		withTests := append(append(append([]string{}, p.Deps...), p.TestImports...), p.XTestImports...)
		for _, r := range rules {
			if !matchAny(rel, r.pkgs) {
				continue
			}
			if r.direct {
				for _, d := range p.Imports {
					if matchAny(relative(d), r.forbid) {
						t.Errorf("%s imports %s: %s", rel, d, r.why)
					}
				}
				continue
			}
			deps := withTests
			if r.build {
				deps = p.Deps
			}
			for _, d := range deps {
				if d != p.ImportPath && forbidden(relative(d), r.forbid) && !matchAny(relative(d), r.allow) {
					t.Errorf("%s depends on %s: %s", rel, d, r.why)
				}
			}
		}
	}
}

// listPackages runs go list over the module.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		if _, serr := os.Stat(goTool); serr != nil {
			t.Fatalf("the go tool is needed to check the layering: %v", err)
		}
	}
	cmd := exec.Command(goTool, "list", "-e", "-json=ImportPath,Imports,Deps,TestImports,XTestImports,Error", module+"/...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages; is the test running in the module?", len(pkgs))
	}
	return pkgs
}

// relative is path without the module prefix; other paths stay whole.
func relative(path string) string {
	if path == module {
		return "."
	}
	if rel, ok := strings.CutPrefix(path, module+"/"); ok {
		return rel
	}
	return path
}

func inLayer(rel string) bool {
	for _, l := range layers {
		if within(rel, l) {
			return true
		}
	}
	return false
}

// matchAny reports whether path is one of patterns: "x/..." is x and
// everything below it, anything else that package alone.
func matchAny(path string, patterns []string) bool {
	for _, pat := range patterns {
		if base, ok := strings.CutSuffix(pat, "/..."); ok && within(path, base) || path == pat {
			return true
		}
	}
	return false
}

// forbidden reports whether path is, or is below, one of patterns: what a
// rule forbids, it forbids with its subpackages.
func forbidden(path string, patterns []string) bool {
	for _, pat := range patterns {
		if within(path, strings.TrimSuffix(pat, "/...")) {
			return true
		}
	}
	return false
}

func within(path, base string) bool { return path == base || strings.HasPrefix(path, base+"/") }
