package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/bench/proc"
)

// The SMTP storm: the booking storm again, for -smtp-storm-d, against a
// second slotd on the main world (a fresh data directory) started with
// --smtp to bench/smtpsink, a mail server in a process of its own that
// counts what it receives. It measures what the main storm cannot: slotd
// sending its confirmations over pipelined SMTP connections instead of
// appending them to a mailbox, and how long after the storm's end the
// last of them arrives. The main slotd is stopped by then, so the two
// never share the cores.

func (h *harness) smtpStorm(ctx context.Context, l *layout) error {
	if !h.opt.SMTPStorm {
		h.progress("SMTP storm skipped (-smtp-storm=false)")
		return nil
	}
	st := &SMTPStorm{DrainSeconds: -1}
	h.rep.SMTPStorm = st
	sk, err := h.startSink(ctx)
	if err != nil {
		return err
	}
	defer sk.p.Terminate(5 * time.Second)
	h.progress("smtpsink: SMTP on %s, status on %s", sk.smtp, sk.status)
	s, ready, err := h.startReady(ctx, "slotd-smtp", filepath.Join(h.tmp, "data-smtp"), h.world, "--smtp", sk.smtp)
	if err != nil {
		return err
	}
	st.ReadySeconds = ready.Seconds()
	// Like the main storm, which runs after the read phases: a business
	// loads on its first request, and 200 first loads at the storm's start
	// were its p99.9 (0.4 s) and max (1.2 s).
	if err := h.warm(ctx, s, l); err != nil {
		return err
	}
	if err := h.smtpStormOn(ctx, st, s, l, sk); err != nil {
		return err
	}
	return h.stopSlotd(s, "smtp")
}

// smtpStormOn runs the storm against s and waits for the sink to hold
// every confirmation.
func (h *harness) smtpStormOn(ctx context.Context, st *SMTPStorm, s *slotd, l *layout, sk *sink) error {
	before, _, err := sk.wait(ctx, 0, time.Second)
	if err != nil {
		return err
	}
	got := &acks{}
	title := fmt.Sprintf("booking storm, e-mail over SMTP to bench/smtpsink, %d connections", h.opt.StormConnections)
	p, err := h.runStorm(ctx, stormSpec{name: "smtp-storm", title: title, s: s, l: l, duration: h.opt.SMTPDuration,
		keys: "smtp-storm-" + strconv.FormatUint(h.opt.Seed, 10) + "-", acks: got, profile: true})
	if err != nil {
		return err
	}
	end := p.ended // not after the profile's reading
	atEnd, _, err := sk.wait(ctx, 0, time.Second)
	if err != nil {
		return err
	}
	atEndTime := time.Now()
	st.Acknowledged, st.UnexpectedAnswers = int64(len(got.list)), got.odd
	st.MailsExpected = before.Unique + st.Acknowledged
	behind := st.MailsExpected - atEnd.Unique
	var drainProfile func() *Profile
	if behind > 0 { // the drain's profile, when there is a drain
		drainProfile = h.startProfile(ctx, s, "smtp-drain", 3*time.Second)
	}
	if ps, err := proc.Read(s.p.PID()); err == nil {
		st.RSSAfter = ps.RSS
	}
	h.progress("smtp-storm: %d bookings acknowledged (%.0f/s); waiting for %d e-mails at the sink", st.Acknowledged, p.RPS, st.MailsExpected)
	if len(got.odd) > 0 {
		h.progress("smtp-storm: unexpected answers, e.g. %s", got.odd[0])
	}
	after, reached, err := sk.wait(ctx, st.MailsExpected, h.opt.DrainTimeout)
	if err != nil {
		return err
	}
	if reached {
		st.DrainSeconds = time.Since(end).Seconds()
		// The backlog and the rate it went at tell a slow sender (rate)
		// from one that fell behind during the storm (backlog).
		h.progress("smtp-storm: %d e-mails were behind when the storm's profile was read, sent at %.0f/s after that", behind, float64(behind)/max(time.Since(atEndTime).Seconds(), 1e-3))
	}
	if drainProfile != nil {
		h.progress("smtp-storm: CPU profile shares of the first seconds after it: %s", profileText(drainProfile()))
	}
	st.MailsReceived, st.Messages, st.SinkConnections = after.Unique, after.Messages, after.Connections
	h.progress("smtp-storm: the sink holds %d of %d e-mails (%d messages, copies included, over %s) %.2fs after the storm%s",
		after.Unique, st.MailsExpected, after.Messages, plural(after.Connections, "connection"), st.DrainSeconds, notDrained(reached, h.opt.DrainTimeout))
	return nil
}

func notDrained(reached bool, limit time.Duration) string {
	if reached {
		return ""
	}
	return fmt.Sprintf(": not all within -drain-timeout %s", limit)
}

// sink is bench/smtpsink, running.
type sink struct {
	p      *proc.Proc
	smtp   string // host:port
	status string // http://host:port/
}

// sinkStats are the counts bench/smtpsink tells.
type sinkStats struct {
	Connections int64 `json:"connections"`
	Messages    int64 `json:"messages"`
	Unique      int64 `json:"unique"`
}

// startSink starts bench/smtpsink on free loopback ports.
func (h *harness) startSink(ctx context.Context) (*sink, error) {
	// It prints "smtpsink: smtp on ADDR, status on http://ADDR/".
	const prefix = "smtpsink: smtp on "
	p, line, err := h.startAnnounced(ctx, "smtpsink", h.bin.sink, []string{"-listen", "127.0.0.1:0", "-status", "127.0.0.1:0"},
		func(line string) bool { return strings.HasPrefix(line, prefix) })
	if err != nil {
		return nil, err
	}
	smtp, status, ok := strings.Cut(strings.TrimPrefix(line, prefix), ", status on ")
	if !ok {
		p.Terminate(5 * time.Second)
		return nil, fmt.Errorf("smtpsink: cannot read its addresses from %q", line)
	}
	return &sink{p: p, smtp: smtp, status: status}, nil
}

// wait asks the sink to answer once it holds n distinct messages, or
// after timeout, and returns its counts and whether it got there. The
// sink answers the moment the n-th arrives: no polling.
func (sk *sink) wait(ctx context.Context, n int64, timeout time.Duration) (sinkStats, bool, error) {
	var st sinkStats
	q := url.Values{"unique": {strconv.FormatInt(n, 10)}, "timeout": {timeout.String()}}
	req, err := http.NewRequestWithContext(ctx, "GET", sk.status+"wait?"+q.Encode(), nil)
	if err != nil {
		return st, false, err
	}
	client := &http.Client{Timeout: timeout + 30*time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return st, false, fmt.Errorf("smtpsink: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusRequestTimeout {
		return st, false, fmt.Errorf("smtpsink: /wait: status %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return st, false, fmt.Errorf("smtpsink: /wait: %w", err)
	}
	return st, resp.StatusCode == http.StatusOK, nil
}
