package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Sink is the SMTP side: it accepts every message and keeps only counts.
// A message is counted once its DATA has ended, when its 250 is queued;
// distinct Message-IDs are counted apart, because a client that lost a
// 250 sends the message again (slotd's outbox is at least once) and the
// harness asks whether every confirmation arrived, not how many copies.
//
// The reply to a command is buffered until the client has nothing more
// in flight (RFC 2920 §3.1 lets a server group its replies), so a
// pipelined RSET, MAIL, RCPT and DATA cost one write.
type Sink struct {
	// IdleTimeout ends a connection that sends nothing for that long.
	IdleTimeout time.Duration

	mu      sync.Mutex
	st      Stats
	ids     map[string]struct{}
	changed chan struct{} // closed and replaced whenever st changes
}

// Stats are what the sink counted.
type Stats struct {
	Connections int64  `json:"connections"`
	Messages    int64  `json:"messages"`                  // DATA transactions accepted
	Unique      int64  `json:"unique"`                    // distinct Message-IDs; a message without one counts as distinct
	Duplicates  int64  `json:"duplicates"`                // messages whose Message-ID came before
	Bytes       int64  `json:"bytes"`                     // message data, dot-stuffing and line ends included
	Errors      int64  `json:"errors"`                    // commands answered 5xx
	LastMessage string `json:"last_message_at,omitempty"` // RFC 3339 with nanoseconds
}

// NewSink returns a sink with no connection yet.
func NewSink() *Sink {
	return &Sink{IdleTimeout: 5 * time.Minute, ids: map[string]struct{}{}, changed: make(chan struct{})}
}

// Stats returns the counts so far.
func (s *Sink) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// Wait returns once at least n distinct messages arrived, or ctx ended;
// it reports which.
func (s *Sink) Wait(ctx context.Context, n int64) (Stats, bool) {
	for {
		s.mu.Lock()
		st, ch := s.st, s.changed
		s.mu.Unlock()
		if st.Unique >= n {
			return st, true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return s.Stats(), false
		}
	}
}

func (s *Sink) update(fn func(*Stats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(&s.st)
	close(s.changed)
	s.changed = make(chan struct{})
}

// delivered counts one message of size bytes and Message-ID id ("" when
// it had none).
func (s *Sink) delivered(id string, size int64) {
	s.update(func(st *Stats) {
		st.Messages++
		st.Bytes += size
		st.LastMessage = time.Now().UTC().Format(time.RFC3339Nano)
		_, seen := s.ids[id]
		switch {
		case id == "" || !seen:
			st.Unique++
			if id != "" {
				s.ids[id] = struct{}{}
			}
		default:
			st.Duplicates++
		}
	})
}

// Serve accepts connections on ln until it is closed.
func (s *Sink) Serve(ln net.Listener) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		s.update(func(st *Stats) { st.Connections++ })
		wg.Go(func() {
			defer c.Close()
			s.serveConn(c)
		})
	}
}

// conn is one SMTP conversation.
type conn struct {
	s      *Sink
	c      net.Conn
	r      *bufio.Reader
	w      *bufio.Writer
	inMail bool
	rcpts  int
	chunks []byte // the BDAT chunks of the message so far
}

func (s *Sink) serveConn(c net.Conn) {
	cn := &conn{s: s, c: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 4<<10)}
	cn.reply("220 smtpsink ESMTP ready")
	for {
		line, err := cn.readLine()
		if err != nil {
			return
		}
		if !cn.command(line) {
			_ = cn.w.Flush()
			return
		}
	}
}

// readLine reads a command line, flushing the replies first when the
// client has sent nothing more: then it waits for them.
func (cn *conn) readLine() ([]byte, error) {
	if cn.r.Buffered() == 0 {
		if err := cn.w.Flush(); err != nil {
			return nil, err
		}
		_ = cn.c.SetReadDeadline(time.Now().Add(cn.s.IdleTimeout))
	}
	line, err := cn.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull { // no command is 64 KiB long
		return []byte("TOO-LONG"), skipLine(cn.r)
	}
	return bytes.TrimRight(line, "\r\n"), err
}

func (cn *conn) reply(line string) {
	_, _ = cn.w.WriteString(line)
	_, _ = cn.w.WriteString("\r\n")
}

// command answers one command line; false ends the conversation.
func (cn *conn) command(line []byte) bool {
	verb, arg, _ := bytes.Cut(line, []byte(" "))
	switch string(bytes.ToUpper(verb)) {
	case "EHLO":
		cn.reset()
		cn.reply("250-smtpsink\r\n250-PIPELINING\r\n250-CHUNKING\r\n250-8BITMIME\r\n250 AUTH PLAIN")
	case "HELO":
		cn.reset()
		cn.reply("250 smtpsink")
	case "AUTH":
		return cn.auth(arg)
	case "MAIL":
		cn.inMail, cn.rcpts = true, 0
		cn.reply("250 2.1.0 ok")
	case "RCPT":
		if !cn.inMail {
			cn.fail("503 5.5.1 need MAIL first")
			break
		}
		cn.rcpts++
		cn.reply("250 2.1.5 ok")
	case "DATA":
		if !cn.inMail || cn.rcpts == 0 {
			cn.fail("503 5.5.1 need MAIL and RCPT first")
			break
		}
		return cn.data()
	case "BDAT":
		return cn.bdat(arg)
	case "RSET":
		cn.reset()
		cn.reply("250 2.0.0 ok")
	case "NOOP":
		cn.reply("250 2.0.0 ok")
	case "QUIT":
		cn.reply("221 2.0.0 bye")
		return false
	default:
		cn.fail("502 5.5.2 command not implemented")
	}
	return true
}

func (cn *conn) reset() { cn.inMail, cn.rcpts, cn.chunks = false, 0, cn.chunks[:0] }

func (cn *conn) fail(line string) {
	cn.s.update(func(st *Stats) { st.Errors++ })
	cn.reply(line)
}

// auth accepts any AUTH PLAIN credentials, given at once or after a 334.
func (cn *conn) auth(arg []byte) bool {
	mech, initial, _ := bytes.Cut(arg, []byte(" "))
	if !bytes.EqualFold(mech, []byte("PLAIN")) {
		cn.fail("504 5.5.4 only AUTH PLAIN")
		return true
	}
	if len(initial) == 0 {
		cn.reply("334 ")
		if _, err := cn.readLine(); err != nil {
			return false
		}
	}
	cn.reply("235 2.7.0 authenticated")
	return true
}

// data reads a message up to its lone dot and counts it.
func (cn *conn) data() bool {
	cn.reply("354 end with <CRLF>.<CRLF>")
	if cn.w.Flush() != nil {
		return false
	}
	id, size, err := readMessage(cn.r)
	if err != nil {
		return false
	}
	cn.reset()
	cn.s.delivered(id, size)
	cn.reply("250 2.0.0 ok")
	return true
}

// bdat reads a BDAT chunk (RFC 3030) and counts the message at its LAST
// one. A chunk's data is read whatever the verdict: its size says where
// the next command starts.
func (cn *conn) bdat(arg []byte) bool {
	size, last, _ := bytes.Cut(arg, []byte(" "))
	n, err := strconv.ParseInt(string(size), 10, 64)
	if err != nil || n < 0 || (len(last) > 0 && !bytes.EqualFold(last, []byte("LAST"))) {
		cn.fail("501 5.5.4 BDAT needs a size and maybe LAST")
		return false // where its data ends is unknown
	}
	if err := cn.chunk(n); err != nil {
		return false
	}
	switch {
	case !cn.inMail || cn.rcpts == 0:
		cn.chunks = cn.chunks[:0]
		cn.fail("503 5.5.1 need MAIL and RCPT first")
	case len(last) == 0:
		cn.reply("250 2.0.0 chunk ok")
	default:
		cn.s.delivered(headerID(cn.chunks), int64(len(cn.chunks)))
		cn.chunks = cn.chunks[:0]
		cn.reset()
		cn.reply("250 2.0.0 ok")
	}
	return true
}

// chunk appends the next n bytes to the message's chunks.
func (cn *conn) chunk(n int64) error {
	if n > maxMessage-int64(len(cn.chunks)) {
		return errors.New("message too long")
	}
	at := len(cn.chunks)
	cn.chunks = slices.Grow(cn.chunks, int(n))[:at+int(n)]
	_, err := io.ReadFull(cn.r, cn.chunks[at:])
	return err
}

// maxMessage bounds a message sent in BDAT chunks, which the sink keeps
// whole until its last chunk.
const maxMessage = 64 << 20

// headerID is the Message-ID of a whole message, or "".
func headerID(msg []byte) string {
	for len(msg) > 0 {
		line, rest, _ := bytes.Cut(msg, []byte("\n"))
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 {
			return "" // the end of the header
		}
		if id := messageID(line); id != "" {
			return id
		}
		msg = rest
	}
	return ""
}

// readMessage reads DATA lines up to the line holding a lone dot and
// returns the message's Message-ID and size. Lines longer than the
// reader's buffer arrive in pieces; only the start of a line can end the
// message or name a header.
func readMessage(r *bufio.Reader) (id string, size int64, err error) {
	atStart, inHeader := true, true
	for {
		piece, err := r.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", 0, err
		}
		whole := err == nil
		if atStart {
			line := bytes.TrimRight(piece, "\r\n")
			switch {
			case whole && string(line) == ".":
				return id, size, nil
			case whole && len(line) == 0:
				inHeader = false
			case whole && inHeader && id == "":
				id = messageID(line)
			}
		}
		size += int64(len(piece))
		atStart = whole
	}
}

// messageID is the value of a Message-ID header line, or "".
func messageID(line []byte) string {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok || !bytes.EqualFold(name, []byte("Message-ID")) {
		return ""
	}
	return string(bytes.TrimSpace(value))
}

// skipLine reads past the end of an overlong line.
func skipLine(r *bufio.Reader) error {
	for {
		_, err := r.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			return err
		}
	}
}
