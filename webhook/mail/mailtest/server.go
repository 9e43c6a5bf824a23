// Package mailtest owns an in-process SMTP server for tests of code that
// sends e-mail (webhook/mail's SMTP sender, and `slotd serve --smtp`
// end to end). It is test support only: nothing in slotd imports it
// outside of _test.go files.
//
// The Server listens on 127.0.0.1 at a free port and speaks just enough
// ESMTP for slotd's client: EHLO/HELO (advertising AUTH PLAIN, and
// PIPELINING and CHUNKING when asked; commands sent ahead are answered in
// order), AUTH PLAIN, MAIL FROM, RCPT TO, DATA, BDAT, RSET, NOOP and QUIT.
// It offers no STARTTLS; net/smtp sends AUTH PLAIN in the clear to
// 127.0.0.1 only because the address is local. Every accepted message is
// recorded with its envelope, its raw data and the credentials its
// connection authenticated with; Wait blocks until enough messages arrived.
//
// To test retries, the server can refuse messages (451 after the DATA,
// so the whole message went over the wire and was still not accepted:
// RefuseNext) or be "down" (it answers every new connection with 421 and
// hangs up: SetDown).
package mailtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Options configure a Server. The zero value accepts every message and
// any (or no) credentials.
type Options struct {
	// User and Password, when User is not empty, are the only credentials
	// AUTH PLAIN accepts (others get 535), and MAIL FROM needs a
	// successful AUTH first (530).
	User     string
	Password string
	// RefuseFirst is how many messages to refuse (451 after DATA) before
	// accepting any; see RefuseNext.
	RefuseFirst int
	// ConnTimeout bounds one connection; 0 means 10 s.
	ConnTimeout time.Duration
	// Pipelining offers PIPELINING (RFC 2920) in the EHLO reply.
	Pipelining bool
	// Chunking offers CHUNKING (RFC 3030): messages in BDAT chunks.
	Chunking bool
}

// Message is one message the server accepted.
type Message struct {
	Hello        string   // the EHLO/HELO argument
	AuthUser     string   // "" when the connection did not authenticate
	AuthPassword string   // as sent in AUTH PLAIN
	From         string   // MAIL FROM address, without <>
	To           []string // RCPT TO addresses, without <>
	Data         []byte   // the message as sent after DATA (dot-unstuffed) or in BDAT chunks, CRLF kept
}

// Stats count what the server saw.
type Stats struct {
	Connections int // accepted connections, rejected ones included
	Rejected    int // connections answered 421 while down
	AuthFailed  int // AUTH attempts answered 535
	Refused     int // messages refused with 451 after their DATA
	Delivered   int // messages accepted (len of Messages)
}

// Server is an in-process SMTP server. Create it with NewServer or Start.
type Server struct {
	// Addr is the listening address, "127.0.0.1:port".
	Addr string

	opts Options
	ln   net.Listener
	wg   sync.WaitGroup

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closed  bool
	down    bool
	refuse  int
	msgs    []Message
	stats   Stats
	changed chan struct{} // closed and replaced on every change
}

// NewServer starts a server on 127.0.0.1 at a free port. Close it when
// done.
func NewServer(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("mailtest: %w", err)
	}
	if opts.ConnTimeout <= 0 {
		opts.ConnTimeout = 10 * time.Second
	}
	s := &Server{
		Addr:    ln.Addr().String(),
		opts:    opts,
		ln:      ln,
		conns:   map[net.Conn]struct{}{},
		refuse:  opts.RefuseFirst,
		changed: make(chan struct{}),
	}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Start is NewServer for a test: it fails tb when the server cannot start
// and closes the server when the test ends.
func Start(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s, err := NewServer(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Close stops listening, hangs up on open connections and waits for their
// goroutines. Messages and Stats stay readable.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	_ = s.ln.Close()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// SetDown makes the server answer new connections with 421 and hang up
// (down is true), or serve them again (false). Connections already in a
// conversation are not affected.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// RefuseNext makes the server refuse the next n messages with 451 after
// their DATA, replacing any count still left.
func (s *Server) RefuseNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = n
}

// Messages returns a copy of the messages accepted so far, in order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.messagesLocked()
}

func (s *Server) messagesLocked() []Message {
	out := make([]Message, len(s.msgs))
	for i, m := range s.msgs {
		m.To = append([]string(nil), m.To...)
		m.Data = bytes.Clone(m.Data)
		out[i] = m
	}
	return out
}

// Stats returns the counters so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Wait blocks until at least n messages were accepted, then returns them
// all. When ctx ends first it returns what arrived and an error that says
// so (with the Stats, which tell why: nothing connected, AUTH failed …).
func (s *Server) Wait(ctx context.Context, n int) ([]Message, error) {
	var msgs []Message
	err := s.waitFor(ctx, func() bool {
		msgs = s.messagesLocked()
		return len(msgs) >= n
	})
	if err != nil {
		return msgs, fmt.Errorf("mailtest: %d of %d messages arrived (%+v): %w", len(msgs), n, s.Stats(), err)
	}
	return msgs, nil
}

// WaitStats blocks until cond holds for the Stats, and returns them. When
// ctx ends first it returns the last Stats and an error.
func (s *Server) WaitStats(ctx context.Context, cond func(Stats) bool) (Stats, error) {
	var st Stats
	err := s.waitFor(ctx, func() bool {
		st = s.stats
		return cond(st)
	})
	if err != nil {
		return st, fmt.Errorf("mailtest: waiting for a condition on %+v: %w", st, err)
	}
	return st, nil
}

// waitFor calls check, with s.mu held, until it returns true or ctx ends.
func (s *Server) waitFor(ctx context.Context, check func() bool) error {
	for {
		s.mu.Lock()
		ok := check()
		ch := s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// update changes the state under the lock and wakes the waiters.
func (s *Server) update(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn()
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return // closed
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.conns[c] = struct{}{}
		down := s.down
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				_ = c.Close()
			}()
			_ = c.SetDeadline(time.Now().Add(s.opts.ConnTimeout))
			s.update(func() {
				s.stats.Connections++
				if down {
					s.stats.Rejected++
				}
			})
			if down {
				_, _ = io.WriteString(c, "421 4.3.2 mailtest: service not available\r\n")
				return
			}
			s.serve(c)
		}()
	}
}

// session is the state of one connection.
type session struct {
	hello      string
	user, pass string
	authed     bool
	from       string
	inMail     bool
	to         []string
	chunks     []byte // the BDAT chunks of the message so far
}

func (s *Server) serve(conn net.Conn) {
	r := bufio.NewReader(conn)
	reply := func(line string) bool {
		_, err := io.WriteString(conn, line+"\r\n")
		return err == nil
	}
	if !reply("220 mailtest.invalid ESMTP ready") {
		return
	}
	var ses session
	reset := func() { ses.from, ses.inMail, ses.to, ses.chunks = "", false, nil, nil }
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		var out string
		switch strings.ToUpper(verb) {
		case "EHLO":
			ses.hello = arg
			reset()
			exts := []string{"mailtest.invalid greets " + arg, "AUTH PLAIN"}
			if s.opts.Pipelining {
				exts = append(exts, "PIPELINING")
			}
			if s.opts.Chunking {
				exts = append(exts, "CHUNKING")
			}
			out = "250-" + strings.Join(exts, "\r\n250-") + "\r\n250 8BITMIME"
		case "HELO":
			ses.hello = arg
			reset()
			out = "250 mailtest.invalid"
		case "AUTH":
			mech, initial, _ := strings.Cut(arg, " ")
			if !strings.EqualFold(mech, "PLAIN") {
				out = "504 5.5.4 only AUTH PLAIN"
				break
			}
			if ses.authed {
				out = "503 5.5.1 already authenticated"
				break
			}
			if initial == "" {
				if !reply("334 ") {
					return
				}
				if initial, err = r.ReadString('\n'); err != nil {
					return
				}
				initial = strings.TrimRight(initial, "\r\n")
			}
			user, pass, ok := decodePlain(initial)
			if !ok || (s.opts.User != "" && (user != s.opts.User || pass != s.opts.Password)) {
				s.update(func() { s.stats.AuthFailed++ })
				out = "535 5.7.8 authentication failed"
				break
			}
			ses.user, ses.pass, ses.authed = user, pass, true
			out = "235 2.7.0 authenticated"
		case "MAIL":
			switch {
			case ses.inMail:
				out = "503 5.5.1 nested MAIL"
			case s.opts.User != "" && !ses.authed:
				out = "530 5.7.0 authentication required"
			case !strings.HasPrefix(strings.ToUpper(arg), "FROM:"):
				out = "501 5.5.4 syntax: MAIL FROM:<address>"
			default:
				ses.from, ses.inMail, ses.to = angle(arg[len("FROM:"):]), true, nil
				out = "250 2.1.0 ok"
			}
		case "RCPT":
			switch {
			case !ses.inMail:
				out = "503 5.5.1 need MAIL first"
			case !strings.HasPrefix(strings.ToUpper(arg), "TO:"):
				out = "501 5.5.4 syntax: RCPT TO:<address>"
			default:
				ses.to = append(ses.to, angle(arg[len("TO:"):]))
				out = "250 2.1.5 ok"
			}
		case "DATA":
			if !ses.inMail || len(ses.to) == 0 {
				out = "503 5.5.1 need MAIL and RCPT first"
				break
			}
			if !reply("354 end with <CRLF>.<CRLF>") {
				return
			}
			data, err := readData(r)
			if err != nil {
				return
			}
			out = s.take(&ses, data)
			reset()
		case "BDAT":
			size, last, _ := strings.Cut(arg, " ")
			n, err := strconv.Atoi(size)
			if !s.opts.Chunking || err != nil || n < 0 || (last != "" && !strings.EqualFold(last, "LAST")) {
				reply("501 5.5.4 syntax: BDAT size [LAST]")
				return // where its data ends is unknown
			}
			chunk := make([]byte, n)
			if _, err := io.ReadFull(r, chunk); err != nil {
				return
			}
			ses.chunks = append(ses.chunks, chunk...)
			switch {
			case !ses.inMail || len(ses.to) == 0:
				out = "503 5.5.1 need MAIL and RCPT first"
				reset()
			case last == "":
				out = "250 2.0.0 chunk ok"
			default:
				out = s.take(&ses, ses.chunks)
				reset()
			}
		case "RSET":
			reset()
			out = "250 2.0.0 ok"
		case "NOOP":
			out = "250 2.0.0 ok"
		case "QUIT":
			reply("221 2.0.0 bye")
			return
		default:
			out = "502 5.5.2 command not implemented"
		}
		if !reply(out) {
			return
		}
	}
}

// take takes the message of ses with its data, or refuses it while
// RefuseFirst says so, and returns the reply.
func (s *Server) take(ses *session, data []byte) string {
	m := Message{Hello: ses.hello, AuthUser: ses.user, AuthPassword: ses.pass,
		From: ses.from, To: ses.to, Data: data}
	refused := false
	s.update(func() {
		if s.refuse > 0 {
			s.refuse--
			s.stats.Refused++
			refused = true
			return
		}
		s.msgs = append(s.msgs, m)
		s.stats.Delivered++
	})
	if refused {
		return "451 4.3.0 mailtest: try again later"
	}
	return "250 2.0.0 queued"
}

// readData reads DATA lines up to the lone dot, removing dot-stuffing.
func readData(r *bufio.Reader) ([]byte, error) {
	var data []byte
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		if l == ".\r\n" || l == ".\n" {
			return data, nil
		}
		data = append(data, strings.TrimPrefix(l, ".")...)
	}
}

// decodePlain decodes an AUTH PLAIN response: authzid NUL user NUL pass.
func decodePlain(b64 string) (user, pass string, ok bool) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return "", "", false
	}
	parts := strings.Split(string(raw), "\x00")
	if len(parts) != 3 {
		return "", "", false
	}
	return parts[1], parts[2], true
}

// angle returns the address inside <> of a MAIL/RCPT argument, ignoring
// any parameters after it.
func angle(s string) string {
	s = strings.TrimSpace(s)
	if open := strings.IndexByte(s, '<'); open >= 0 {
		if end := strings.IndexByte(s[open:], '>'); end >= 0 {
			return s[open+1 : open+end]
		}
	}
	addr, _, _ := strings.Cut(s, " ")
	return addr
}

// Parsed is a Message's data taken apart.
type Parsed struct {
	Header  mail.Header
	Subject string // RFC 2047-decoded
	// ContentType is the media type of the body, e.g.
	// "multipart/alternative".
	ContentType string
	// Parts are the parts of a multipart body, in order, with their
	// transfer encoding undone; a single-part body is one Part.
	Parts []Part
}

// Part is one body part.
type Part struct {
	ContentType string // media type without parameters, e.g. "text/plain"
	Charset     string
	Body        string
}

// Part returns the first part of media type ctype.
func (p *Parsed) Part(ctype string) (Part, bool) {
	for _, x := range p.Parts {
		if x.ContentType == ctype {
			return x, true
		}
	}
	return Part{}, false
}

// Parse takes the message's data apart: headers, decoded subject and the
// parts of its (multipart) body, quoted-printable decoded.
func (m Message) Parse() (*Parsed, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		return nil, fmt.Errorf("mailtest: %w", err)
	}
	p := &Parsed{Header: msg.Header}
	dec := new(mime.WordDecoder)
	if p.Subject, err = dec.DecodeHeader(msg.Header.Get("Subject")); err != nil {
		return nil, fmt.Errorf("mailtest: Subject: %w", err)
	}
	ctype, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return nil, fmt.Errorf("mailtest: Content-Type: %w", err)
	}
	p.ContentType = ctype
	if !strings.HasPrefix(ctype, "multipart/") {
		body, err := io.ReadAll(msg.Body)
		if err != nil {
			return nil, fmt.Errorf("mailtest: %w", err)
		}
		p.Parts = []Part{{ContentType: ctype, Charset: params["charset"], Body: string(body)}}
		return p, nil
	}
	if params["boundary"] == "" {
		return nil, errors.New("mailtest: multipart body without a boundary")
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		// NextPart undoes Content-Transfer-Encoding: quoted-printable.
		part, err := mr.NextPart()
		if err == io.EOF {
			return p, nil
		}
		if err != nil {
			return nil, fmt.Errorf("mailtest: %w", err)
		}
		pt, pp, err := mime.ParseMediaType(part.Header.Get("Content-Type"))
		if err != nil {
			return nil, fmt.Errorf("mailtest: part Content-Type: %w", err)
		}
		body, err := io.ReadAll(part)
		if err != nil {
			return nil, fmt.Errorf("mailtest: part body: %w", err)
		}
		p.Parts = append(p.Parts, Part{ContentType: pt, Charset: pp["charset"], Body: string(body)})
	}
}
