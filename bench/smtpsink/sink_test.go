package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/smtp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func startSink(t *testing.T) (*Sink, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := NewSink()
	done := make(chan struct{})
	go func() { _ = s.Serve(ln); close(done) }()
	t.Cleanup(func() { ln.Close(); <-done })
	return s, ln.Addr().String()
}

func message(id, body string) string {
	return "From: a@bench.example\r\nTo: b@bench.example\r\nMessage-ID: " + id + "\r\nSubject: x\r\n\r\n" + body
}

// The standard library's client, which does not pipeline: greeting, EHLO,
// AUTH PLAIN, then a message at a time.
func TestSinkCountsNetSMTP(t *testing.T) {
	s, addr := startSink(t)
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	require.NoError(t, c.Hello("localhost"))
	ok, _ := c.Extension("PIPELINING")
	assert.True(t, ok, "PIPELINING is offered")
	ok, _ = c.Extension("STARTTLS")
	assert.False(t, ok, "no STARTTLS: slotd would insist on a verified certificate")
	require.NoError(t, c.Auth(smtp.PlainAuth("", "u", "p", "127.0.0.1")))
	for i, id := range []string{"<1@slotd>", "<2@slotd>", "<1@slotd>"} {
		require.NoError(t, c.Mail("a@bench.example"))
		require.NoError(t, c.Rcpt("b@bench.example"))
		w, err := c.Data()
		require.NoError(t, err)
		// net/smtp dot-stuffs the line that starts with a dot.
		_, err = fmt.Fprintf(w, "%s.hidden dot\r\n.\r\nline %d\r\n", message(id, ""), i)
		require.NoError(t, err)
		require.NoError(t, w.Close())
		require.NoError(t, c.Reset())
	}
	require.NoError(t, c.Quit())
	st := s.Stats()
	assert.Equal(t, int64(3), st.Messages)
	assert.Equal(t, int64(2), st.Unique)
	assert.Equal(t, int64(1), st.Duplicates)
	assert.Equal(t, int64(1), st.Connections)
	assert.Zero(t, st.Errors)
	assert.Positive(t, st.Bytes)
}

// slotd's client pipelines: RSET, MAIL, RCPT and DATA in one write, then
// the data. A message without a Message-ID counts as distinct; a line
// longer than the reader's buffer, or one that merely starts with a dot,
// does not end the message.
func TestSinkPipelined(t *testing.T) {
	s, addr := startSink(t)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	r := bufio.NewReader(c)
	expect := func(code string) {
		t.Helper()
		for {
			line, err := r.ReadString('\n')
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(line, code), "want %s, got %q", code, line)
			if line[3] == ' ' {
				return
			}
		}
	}
	expect("220")
	_, err = io.WriteString(c, "EHLO localhost\r\n")
	require.NoError(t, err)
	expect("250")
	long := strings.Repeat("x", 100<<10)
	bodies := []string{
		message("<a@slotd>", "..\r\n"+long+"\r\n"),
		message("", "no id\r\n"),
		message("", "no id either\r\n"),
		message("<a@slotd>", "again\r\n"),
	}
	for i, body := range bodies {
		cmds := "MAIL FROM:<a@bench.example>\r\nRCPT TO:<b@bench.example>\r\nDATA\r\n"
		if i > 0 {
			cmds = "RSET\r\n" + cmds
			_, err = io.WriteString(c, cmds)
			require.NoError(t, err)
			expect("250")
		} else {
			_, err = io.WriteString(c, cmds)
			require.NoError(t, err)
		}
		expect("250")
		expect("250")
		expect("354")
		_, err = io.WriteString(c, body+".\r\n")
		require.NoError(t, err)
		expect("250")
	}
	_, err = io.WriteString(c, "DATA\r\nNOPE\r\nQUIT\r\n")
	require.NoError(t, err)
	expect("503")
	expect("502")
	expect("221")
	st := s.Stats()
	assert.Equal(t, int64(4), st.Messages)
	assert.Equal(t, int64(3), st.Unique)
	assert.Equal(t, int64(1), st.Duplicates)
	assert.Equal(t, int64(2), st.Errors)
	assert.Greater(t, st.Bytes, int64(100<<10))
}

// With CHUNKING slotd writes a whole run of messages, BDAT data
// included, before it reads a reply. A BDAT without a recipient is refused
// after its data is read, so the next command is still found; a message
// may come in several chunks.
func TestSinkChunked(t *testing.T) {
	s, addr := startSink(t)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	r := bufio.NewReader(c)
	var ehlo strings.Builder
	_, err = io.WriteString(c, "EHLO localhost\r\n")
	require.NoError(t, err)
	for {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		ehlo.WriteString(line)
		if len(line) > 3 && line[3] == ' ' && !strings.HasPrefix(line, "220") {
			break
		}
	}
	assert.Contains(t, ehlo.String(), "250-CHUNKING")

	one, two := message("<c1@slotd>", ".a dot, not stuffed\r\n"), message("<c2@slotd>", "in two chunks\r\n")
	run := "MAIL FROM:<a@bench.example>\r\nRCPT TO:<b@bench.example>\r\n" +
		fmt.Sprintf("BDAT %d LAST\r\n%s", len(one), one) +
		"RSET\r\nMAIL FROM:<a@bench.example>\r\n" + // no RCPT
		"BDAT 5 LAST\r\nhello" +
		"RSET\r\nMAIL FROM:<a@bench.example>\r\nRCPT TO:<b@bench.example>\r\n" +
		fmt.Sprintf("BDAT 10\r\n%sBDAT %d LAST\r\n%s", two[:10], len(two)-10, two[10:]) +
		"QUIT\r\n"
	_, err = io.WriteString(c, run)
	require.NoError(t, err)
	var codes []string
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		codes = append(codes, line[:3])
	}
	assert.Equal(t, []string{"250", "250", "250", "250", "250", "503", "250", "250", "250", "250", "250", "221"}, codes)
	st := s.Stats()
	assert.Equal(t, int64(2), st.Messages)
	assert.Equal(t, int64(2), st.Unique)
	assert.Equal(t, int64(1), st.Errors)
	assert.Equal(t, int64(len(one)+len(two)), st.Bytes)
}

func TestReadMessage(t *testing.T) {
	for name, tc := range map[string]struct {
		in, id string
		size   int64
	}{
		"id":            {"Message-ID: <x@slotd>\r\n\r\nbody\r\n.\r\n", "<x@slotd>", 31},
		"case":          {"message-id:<y@slotd>\r\n\r\n.\r\n", "<y@slotd>", 24},
		"in the body":   {"Subject: s\r\n\r\nMessage-ID: <z@slotd>\r\n.\r\n", "", 37},
		"stuffed dot":   {"\r\n..\r\n.x\r\n.\r\n", "", 10},
		"bare line end": {"Message-ID: <w@slotd>\n\n.\n", "<w@slotd>", 23},
	} {
		id, size, err := readMessage(bufio.NewReader(strings.NewReader(tc.in)))
		require.NoError(t, err, name)
		assert.Equal(t, tc.id, id, name)
		assert.Equal(t, tc.size, size, name)
	}
	_, _, err := readMessage(bufio.NewReader(strings.NewReader("Subject: cut short\r\n")))
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestWait(t *testing.T) {
	s := NewSink()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, ok := s.Wait(ctx, 1)
	assert.False(t, ok, "nothing arrived")

	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 3 {
			s.delivered(fmt.Sprintf("<%d@slotd>", i), 10)
		}
	})
	st, ok := s.Wait(context.Background(), 3)
	wg.Wait()
	assert.True(t, ok)
	assert.GreaterOrEqual(t, st.Unique, int64(3))
}

func TestStatusHandler(t *testing.T) {
	s := NewSink()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	get := func(path string) (int, Stats) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		var st Stats
		if resp.StatusCode != http.StatusBadRequest {
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
		}
		return resp.StatusCode, st
	}
	s.delivered("<1@slotd>", 5)
	code, st := get("/stats")
	assert.Equal(t, 200, code)
	assert.Equal(t, int64(1), st.Unique)
	code, _ = get("/wait?unique=1&timeout=1s")
	assert.Equal(t, 200, code)
	code, st = get("/wait?unique=2&timeout=20ms")
	assert.Equal(t, http.StatusRequestTimeout, code)
	assert.Equal(t, int64(1), st.Unique)
	for _, bad := range []string{"/wait", "/wait?unique=x&timeout=1s", "/wait?unique=1", "/wait?unique=1&timeout=-1s"} {
		code, _ = get(bad)
		assert.Equal(t, http.StatusBadRequest, code, bad)
	}
}

// The command prints where it listens, serves, and stops on its signal
// (here: its context) with the final counts.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() { done <- run(ctx, nil, pw, &stderr); pw.Close() }()
	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan())
	first := lines.Text()
	smtpAddr, status, ok := strings.Cut(strings.TrimPrefix(first, "smtpsink: smtp on "), ", status on ")
	require.True(t, ok, first)
	require.NoError(t, smtp.SendMail(smtpAddr, nil, "a@bench.example", []string{"b@bench.example"}, []byte(message("<r@slotd>", "hi\r\n"))))
	resp, err := http.Get(status + "stats")
	require.NoError(t, err)
	var st Stats
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	resp.Body.Close()
	assert.Equal(t, int64(1), st.Unique)
	cancel()
	require.True(t, lines.Scan())
	assert.Contains(t, lines.Text(), `smtpsink: stopped: {"connections":1,"messages":1,"unique":1`)
	assert.Equal(t, 0, <-done, stderr.String())
}
