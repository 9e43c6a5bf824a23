package calendar

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The calendar's behaviour is written down as diaries: testdata/*.txt, one
// scenario per file. Each file is a list of commands, one per line; a command
// that answers something is followed by a line "----" and the expected answer,
// which runs to the next blank line. Lines starting with "#", and anything
// after " #" on a command line, are comments. The commands are described in
// scenario_cmds_test.go. Run with -rewrite to write the actual answers into
// the files, then review the diff.
var rewrite = flag.Bool("rewrite", false, "rewrite the expected answers in testdata/*.txt")

func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runScenario(t, f) })
	}
}

func runScenario(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	sc := newScenario()
	var out []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		out = append(out, line)
		cmd := strings.TrimSpace(line)
		if j := strings.Index(cmd, " #"); j >= 0 {
			cmd = strings.TrimSpace(cmd[:j])
		}
		if cmd == "" || strings.HasPrefix(cmd, "#") {
			continue
		}
		at := i + 1 // the command's line number
		// The expected answer, if the command has one.
		var want []string
		hasBlock := i+1 < len(lines) && lines[i+1] == "----"
		if hasBlock {
			i += 2
			for ; i < len(lines) && lines[i] != ""; i++ {
				want = append(want, lines[i])
			}
			i-- // the blank line (or the end) is copied by the loop
		}
		got, err := sc.run(cmd)
		if err != nil {
			t.Fatalf("%s:%d: %s: %v", file, at, cmd, err)
		}
		if got == "" && !hasBlock {
			continue
		}
		gotLines := strings.Split(got, "\n")
		out = append(out, "----")
		out = append(out, gotLines...)
		if !*rewrite && strings.Join(want, "\n") != got {
			t.Errorf("%s:%d: %s\n--- want:\n%s\n--- got:\n%s", file, at, cmd, strings.Join(want, "\n"), got)
		}
	}
	if *rewrite {
		if err := os.WriteFile(file, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// args splits a command's arguments into positional ones and key=value
// options.
type args struct {
	pos  []string
	opts map[string]string
}

func parseArgs(fields []string) args {
	a := args{opts: map[string]string{}}
	for _, f := range fields {
		if k, v, ok := strings.Cut(f, "="); ok {
			a.opts[k] = v
		} else {
			a.pos = append(a.pos, f)
		}
	}
	return a
}

// need fails unless there are at least n positional arguments.
func (a args) need(n int, usage string) error {
	if len(a.pos) < n {
		return fmt.Errorf("usage: %s", usage)
	}
	return nil
}
