// Command slotd is the slotd appointment scheduling server.
//
//	slotd serve [flags]
//
// See `slotd serve -h` and the README for the flags and their SLOTD_*
// environment equivalents.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code. 0 after a
// clean stop, 1 when serving failed (a bad world file included), 2 for a
// bad command line.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "serve" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			usage(stdout)
			return 0
		}
		usage(stderr)
		return 2
	}
	c, err := parseConfig(args[1:], getenv, stderr)
	if errors.Is(err, errUsage) {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := serve(ctx, c, stdout, stderr, nil); err != nil {
		fmt.Fprintln(stderr, "slotd:", err)
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: slotd serve [flags]")
	fmt.Fprintln(w, "Run `slotd serve -h` for the flags.")
}
