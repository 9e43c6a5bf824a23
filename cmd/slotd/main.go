// Command slotd is the slotd appointment scheduling server.
//
//	slotd serve [flags]   run the server
//	slotd version         print the version, VCS revision and Go version (also --version)
//
// See `slotd serve -h` and the README for the flags and their SLOTD_*
// environment equivalents.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code. 0 after a
// clean stop or when help or the version was asked for, 1 when serving
// failed (a bad world file included), 2 for a bad command line.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
	case args[0] == "serve":
		return runServe(args[1:], getenv, stdout, stderr)
	case len(args) == 1 && (args[0] == "version" || args[0] == "--version" || args[0] == "-version"):
		fmt.Fprint(stdout, versionText())
		return 0
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help"):
		usage(stdout)
		return 0
	case !strings.HasPrefix(args[0], "-") && args[0] != "version":
		fmt.Fprintf(stderr, "slotd: unknown command %q\n", args[0])
	}
	usage(stderr)
	return 2
}

// runServe is `slotd serve`. Usage asked for with -h or --help goes to
// stdout and exits 0, as an operator piping it into a pager expects; a bad
// command line prints its complaint and usage to stderr and exits 2.
func runServe(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	var msgs bytes.Buffer
	c, err := parseConfig(args, getenv, &msgs)
	switch {
	case errors.Is(err, errHelp):
		stdout.Write(msgs.Bytes())
		return 0
	case err != nil:
		stderr.Write(msgs.Bytes())
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := serve(ctx, c, stdout, stderr, nil); err != nil {
		if c.jsonLog() { // every line on stderr is JSON, the last one too
			newLogger(c, stderr).Error("slotd stopped", "err", err.Error())
		} else {
			fmt.Fprintln(stderr, "slotd:", err)
		}
		return 1
	}
	// The last line of a clean stop: the listeners drained, the actors
	// stopped and the journal closed, every acknowledged write on disk.
	newLogger(c, stderr).Info("stopped")
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: slotd serve [flags]")
	fmt.Fprintln(w, "       slotd version")
	fmt.Fprintln(w, "Run `slotd serve -h` for the flags.")
}
