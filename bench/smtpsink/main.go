// Command smtpsink is the mail server of bench/harness's SMTP storm, run
// in a process of its own so that the e-mail slotd sends costs slotd what
// a real server would: a connection, the protocol and the bytes, and
// nothing of the receiver's work on its cores' share of the harness. It
// accepts every message (ESMTP with PIPELINING, 8BITMIME and AUTH PLAIN
// with any credentials; no STARTTLS, so slotd talks plain text to it),
// keeps nothing of them but counts, and says the counts over HTTP:
//
//	GET /stats               {"messages":…, "unique":…, "duplicates":…, …}
//	GET /wait?unique=N&timeout=D
//	                         the same, once N distinct Message-IDs arrived
//	                         (200) or D passed first (408)
//
// Once both listeners are open it prints one line on stdout,
//
//	smtpsink: smtp on 127.0.0.1:PORT, status on http://127.0.0.1:PORT/
//
// and on SIGTERM or SIGINT the final counts, then exits 0.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}

// run is main without the process globals: 0 after a signal, 1 when a
// listener fails, 2 on bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("smtpsink", flag.ContinueOnError)
	fs.SetOutput(stderr)
	smtpAddr := fs.String("listen", "127.0.0.1:0", "SMTP `address`")
	statusAddr := fs.String("status", "127.0.0.1:0", "HTTP status `address`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	smtpLn, err := net.Listen("tcp", *smtpAddr)
	if err != nil {
		fmt.Fprintln(stderr, "smtpsink:", err)
		return 1
	}
	statusLn, err := net.Listen("tcp", *statusAddr)
	if err != nil {
		fmt.Fprintln(stderr, "smtpsink:", err)
		return 1
	}
	s := NewSink()
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	failed := make(chan error, 2)
	go func() { failed <- s.Serve(smtpLn) }()
	go func() { failed <- srv.Serve(statusLn) }()
	fmt.Fprintf(stdout, "smtpsink: smtp on %s, status on http://%s/\n", smtpLn.Addr(), statusLn.Addr())
	select {
	case <-ctx.Done():
	case err := <-failed:
		fmt.Fprintln(stderr, "smtpsink:", err)
		return 1
	}
	_ = smtpLn.Close()
	_ = srv.Close()
	b, _ := json.Marshal(s.Stats())
	fmt.Fprintf(stdout, "smtpsink: stopped: %s\n", b)
	return 0
}

// Handler serves /stats and /wait.
func (s *Sink) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		writeStats(w, http.StatusOK, s.Stats())
	})
	mux.HandleFunc("GET /wait", s.serveWait)
	return mux
}

func (s *Sink) serveWait(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.ParseInt(r.URL.Query().Get("unique"), 10, 64)
	if err != nil || n < 0 {
		http.Error(w, "want ?unique=N, a count", http.StatusBadRequest)
		return
	}
	timeout, err := time.ParseDuration(r.URL.Query().Get("timeout"))
	if err != nil || timeout <= 0 {
		http.Error(w, "want &timeout=D, a duration such as 30s", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	st, ok := s.Wait(ctx, n)
	code := http.StatusOK
	if !ok {
		code = http.StatusRequestTimeout
	}
	writeStats(w, code, st)
}

func writeStats(w http.ResponseWriter, code int, st Stats) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(st)
}
