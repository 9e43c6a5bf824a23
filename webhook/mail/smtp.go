package mail

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/slotd/slotd/actors/clock"
)

// DefaultSMTPTimeout bounds, when SMTP.Timeout is 0, opening a connection
// (dial, greeting, EHLO, STARTTLS, AUTH) and then each message's
// transaction on it.
const DefaultSMTPTimeout = time.Minute

// DefaultSMTPIdle is how long, when SMTP.Idle is 0, an unused connection
// stays open for the next message: long enough to carry a storm's batches,
// well within the five minutes RFC 5321 lets a server wait for a command.
const DefaultSMTPIdle = 30 * time.Second

// SMTP sends over one SMTP connection that carries many messages (decisions
// §1): EHLO, STARTTLS when the server offers it, AUTH PLAIN when User is
// set, once per connection; then per message MAIL FROM, RCPT TO and DATA,
// with RSET between messages. When the server offers PIPELINING (RFC 2920)
// the commands up to DATA go out in one write and their replies are read
// together, and a message's end of data goes out with the next message's
// commands, its verdict read before their replies: a message costs one
// round trip instead of four. (Two, waiting for each verdict, left a
// storm's e-mail 6.9 s behind its bookings; the wait, not the CPU, was
// most of each message's time.)
//
// A connection that fails (an I/O error, a timeout, 421) is closed and the
// next message opens a new one; a message refused by the server's reply
// (say 550 for its recipient) fails alone and the connection goes on. A
// reused connection that turns out to be closed before the message's data
// went out (the server hung up while it was idle) is replaced once for the
// same message. An unused connection is closed after Idle.
//
// net/smtp refuses to send the password over a connection that is neither
// TLS nor to localhost; a server that offers STARTTLS but presents a
// certificate that does not verify is an error, never a fallback to plain
// text. One SMTP is safe for concurrent use; a long batch goes over up to
// Conns connections at once (SendBatch).
type SMTP struct {
	Addr     string // host:port
	User     string // "" sends no AUTH
	Password string
	// Timeout bounds opening a connection, and each message's
	// transaction; 0 means DefaultSMTPTimeout.
	Timeout time.Duration
	// Idle is how long an unused connection is kept; 0 means
	// DefaultSMTPIdle, negative closes it after every batch.
	Idle time.Duration
	// Hello is the name given in EHLO; "" means "localhost".
	Hello string
	// TLSConfig, when set, is the base of the STARTTLS configuration (a
	// test sets RootCAs to trust its own server); ServerName is filled from
	// Addr when empty.
	TLSConfig *tls.Config
	// Clock runs the idle timer; nil means clock.Real.
	Clock clock.Clock
	// Conns is the most connections open at once; 0 means
	// DefaultSMTPConns.
	Conns int

	once  sync.Once
	lanes []*smtpLane
}

// DefaultSMTPConns is how many connections, when SMTP.Conns is 0, a
// backlog is sent over at once. A message costs a round trip to the
// server whatever the pipelining (its data waits for DATA's 354), so one
// connection keeps the sender and the server waiting on each other in
// turn: behind a storm one connection sent 12.7k messages/s with slotd
// using 0.85 of its two cores. Two connections let both sides work at
// once.
const DefaultSMTPConns = 2

// minPerConn is the fewest messages of a batch worth a connection of
// their own: a trickle of mail stays on one connection.
const minPerConn = 32

// smtpLane is one connection of an SMTP and what keeps it: messages on a
// lane go one at a time.
type smtpLane struct {
	*SMTP // the configuration, shared by every lane

	mu    sync.Mutex
	conn  *smtpConn
	timer clock.Timer
	gen   int // bumped whenever the connection is used; stale timers see it
	// senders maps a From header to its envelope address. A business
	// sends under its own name, so there is one per business; parsing
	// them was 4 % of the CPU behind a storm.
	senders map[string]string
	body    []byte // the message being sent, reused
}

// maxSenders bounds smtpLane.senders; when full it starts again.
const maxSenders = 4096

// smtpConn is one open connection, past its greeting and AUTH.
type smtpConn struct {
	raw        net.Conn
	c          *smtp.Client
	pipelining bool
	chunking   bool // CHUNKING and PIPELINING offered: BDAT (bdat.go)
	utf8       bool // SMTPUTF8 offered
	used       bool // a transaction ran on it: RSET before the next
	// owed: the last message's end of data is written (maybe still in
	// the buffer) and its verdict not read yet.
	owed bool
}

// Send delivers m alone.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	return s.SendBatch(ctx, []Message{m})[0]
}

// SendBatch delivers ms, returning one error per message. A batch of a
// few messages goes over one connection; a longer one is cut into runs,
// each sent over a connection of its own at the same time (at most
// Conns).
func (s *SMTP) SendBatch(ctx context.Context, ms []Message) []error {
	errs := make([]error, len(ms))
	lanes := s.lanesFor(len(ms))
	if len(lanes) == 1 {
		lanes[0].sendBatch(ctx, ms, errs)
		return errs
	}
	per := (len(ms) + len(lanes) - 1) / len(lanes)
	var wg sync.WaitGroup
	for i, l := range lanes {
		a, b := i*per, min((i+1)*per, len(ms))
		wg.Go(func() { l.sendBatch(ctx, ms[a:b], errs[a:b]) })
	}
	wg.Wait()
	return errs
}

// lanesFor returns the lanes a batch of n messages goes over.
func (s *SMTP) lanesFor(n int) []*smtpLane {
	return s.allLanes()[:max(1, min(len(s.lanes), n/minPerConn))]
}

func (s *SMTP) allLanes() []*smtpLane {
	s.once.Do(func() {
		conns := s.Conns
		if conns <= 0 {
			conns = DefaultSMTPConns
		}
		s.lanes = make([]*smtpLane, conns)
		for i := range s.lanes {
			s.lanes[i] = &smtpLane{SMTP: s}
		}
	})
	return s.lanes
}

// sendBatch delivers ms one after another over the lane's open
// connection (or a new one), each message's error in errs.
func (s *smtpLane) sendBatch(ctx context.Context, ms []Message, errs []error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	defer s.armIdle()
	for len(ms) > 0 {
		if err := ctx.Err(); err != nil {
			failAll(errs, err)
			return
		}
		if s.conn == nil {
			var err error
			if s.conn, err = s.open(ctx); err != nil {
				failAll(errs, err)
				return
			}
		}
		if !s.conn.chunking {
			s.sendEach(ctx, ms, errs)
			return
		}
		n := min(len(ms), maxChunkRun)
		s.chunkRun(ctx, ms[:n], errs[:n])
		ms, errs = ms[n:], errs[n:]
	}
}

// sendEach sends ms one at a time, each message's data after its DATA's
// 354.
func (s *smtpLane) sendEach(ctx context.Context, ms []Message, errs []error) {
	owner := -1 // the message whose verdict the connection owes
	verdict := func(err error) {
		if owner >= 0 && err != nil {
			errs[owner] = fmt.Errorf("mail: smtp %s: %w", s.Addr, err)
		}
		owner = -1
	}
	for i, m := range ms {
		if errs[i] = ctx.Err(); errs[i] == nil {
			errs[i] = s.deliver(ctx, m, verdict)
			if errs[i] == nil && s.conn != nil && s.conn.owed {
				owner = i
			}
		}
	}
	verdict(s.settle(ctx))
}

// settle reads the verdict the connection owes, if any. A connection that
// fails to give it is dropped: its message may have been accepted, and is
// left to the Drainer rather than sent again here.
func (s *smtpLane) settle(ctx context.Context) error {
	sc := s.conn
	if sc == nil || !sc.owed {
		return nil
	}
	sc.owed = false
	_ = sc.raw.SetDeadline(time.Now().Add(s.timeout()))
	stop := context.AfterFunc(ctx, func() { _ = sc.raw.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	err := sc.c.Text.W.Flush()
	if err == nil {
		_, _, err = sc.c.Text.ReadResponse(250)
	}
	if err != nil && !refusal(err) {
		s.drop()
	}
	return err
}

// Close closes the open connection, if any (with QUIT); a later send opens
// a new one.
func (s *SMTP) Close() error {
	for _, l := range s.allLanes() {
		l.mu.Lock()
		l.gen++
		l.hangUp()
		l.mu.Unlock()
	}
	return nil
}

// deliver sends m. The verdict the connection owes for the message
// before m, read on the way, goes to verdict (nil when it was a yes).
func (s *smtpLane) deliver(ctx context.Context, m Message, verdict func(error)) error {
	from, to, err := s.envelope(m)
	if err != nil {
		return err
	}
	s.body = m.appendTo(s.body[:0], "\r\n") // Bytes, without a new 4 KiB each
	body := s.body
	for retried := false; ; retried = true {
		reused := s.conn != nil
		if s.conn == nil {
			if s.conn, err = s.open(ctx); err != nil {
				return err
			}
		}
		wrote, err := s.transact(ctx, from, to, body, verdict)
		if err == nil {
			return nil
		}
		if !refusal(err) {
			if s.conn.owed { // the verdict before m is lost with the connection
				verdict(err)
			}
			s.drop()
			if reused && !wrote && !retried && ctx.Err() == nil {
				continue
			}
		}
		return fmt.Errorf("mail: smtp %s: %w", s.Addr, err)
	}
}

// envelope returns m's envelope addresses, for MAIL FROM and RCPT TO.
func (s *smtpLane) envelope(m Message) (from, to string, err error) {
	from, ok := s.senders[m.From]
	if !ok {
		if from, err = envelopeAddress("sender", m.From); err != nil {
			return "", "", err
		}
		if len(s.senders) >= maxSenders || s.senders == nil {
			s.senders = make(map[string]string)
		}
		s.senders[m.From] = from
	}
	to, err = envelopeAddress("recipient", m.To)
	return from, to, err
}

// envelopeAddress is the bare address of an address header, for MAIL FROM
// and RCPT TO. A bare address of the common shape (what Render puts in
// To) is taken as it is: net/mail's parser was 5 % of the CPU behind a
// storm.
func envelopeAddress(what, s string) (string, error) {
	if plainAddress(s) {
		return s, nil
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		return "", fmt.Errorf("mail: %s %q: %w", what, s, err)
	}
	if strings.ContainsAny(a.Address, "\r\n<>") {
		return "", fmt.Errorf("mail: %s %q cannot go into an SMTP command", what, s)
	}
	return a.Address, nil
}

// refusal reports whether err is the server's reply to one message, after
// which the connection is still good: any reply but 421 ("closing the
// channel").
func refusal(err error) bool {
	var te *textproto.Error
	return errors.As(err, &te) && te.Code != 421
}

// step is one command of a transaction and the reply it expects
// (textproto's expectCode: 25 accepts 250 and 251).
type step struct {
	line string
	code int
}

// transact runs one message's transaction on s.conn. wrote reports whether
// its data went out whole, after which the server may have accepted it
// even when its reply got lost: such a message is not sent again on a new
// connection (it would be a second copy), but left to the Drainer.
func (s *smtpLane) transact(ctx context.Context, from, to string, body []byte, verdict func(error)) (wrote bool, err error) {
	sc := s.conn
	_ = sc.raw.SetDeadline(time.Now().Add(s.timeout()))
	stop := context.AfterFunc(ctx, func() { _ = sc.raw.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, context.Cause(ctx))
		}
	}()

	mailCmd := "MAIL FROM:<" + from + ">"
	if sc.utf8 && !isASCII(from+to) {
		mailCmd += " SMTPUTF8"
	}
	steps := make([]step, 0, 4)
	if sc.used {
		steps = append(steps, step{"RSET", 250})
	}
	sc.used = true
	steps = append(steps, step{mailCmd, 250}, step{"RCPT TO:<" + to + ">", 25}, step{"DATA", 354})
	if err := sc.run(steps, verdict); err != nil {
		return false, err
	}
	if sc.pipelining {
		// The end of data waits in the buffer for the next message's
		// commands (or SendBatch's settle); its verdict is read then.
		writeDotted(sc.c.Text.W, body)
		sc.owed = true
		return true, nil
	}
	w := sc.c.Text.DotWriter()
	if _, err := w.Write(body); err != nil {
		return false, err
	}
	if err := w.Close(); err != nil {
		return false, err
	}
	// From here on the message may be accepted: a failure to read the
	// verdict must not cause a second copy on a new connection.
	_, _, err = sc.c.Text.ReadResponse(250)
	return true, err
}

// writeDotted writes body, whose lines end in CRLF, as DATA's content:
// each line that starts with a dot gets another (RFC 5321 §4.5.2), a
// last line without its CRLF gets one (an empty body is one empty line),
// and ".\r\n" ends it. Errors stay
// in w (a bufio.Writer) and surface at its next flush.
func writeDotted(w *bufio.Writer, body []byte) {
	if len(body) == 0 {
		w.WriteString("\r\n") // an empty line, as textproto's DotWriter writes
	}
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line = body[:i+1]
		}
		body = body[len(line):]
		if line[0] == '.' {
			w.WriteByte('.')
		}
		w.Write(line)
		if line[len(line)-1] != '\n' {
			w.WriteString("\r\n")
		}
	}
	w.WriteString(".\r\n")
}

// run sends steps and reads their replies, all at once when the server
// pipelines, else one by one. It returns the first failing reply; every
// reply of what was sent is read, so the connection stays in step. When
// DATA was accepted although something before it failed, the empty
// message is ended at once (RFC 2920 §3.1) and the failure returned.
func (sc *smtpConn) run(steps []step, verdict func(error)) error {
	t := sc.c.Text
	if !sc.pipelining {
		for _, st := range steps {
			if err := sc.send(st.line); err != nil {
				return err
			}
			if _, _, err := t.ReadResponse(st.code); err != nil {
				return err
			}
		}
		return nil
	}
	for _, st := range steps {
		if _, err := t.W.WriteString(st.line + "\r\n"); err != nil {
			return err
		}
	}
	if err := t.W.Flush(); err != nil {
		return err
	}
	if sc.owed { // the last message's verdict comes before these replies
		sc.owed = false
		_, _, err := t.ReadResponse(250)
		if err != nil && !refusal(err) {
			sc.owed = true // lost: the caller drops the connection and reports it
			return err
		}
		verdict(err)
	}
	var first error
	for i, st := range steps {
		code, _, err := t.ReadResponse(st.code)
		if err != nil && !refusal(err) {
			return err // the connection is gone or out of step
		}
		if first == nil {
			first = err
		}
		if i == len(steps)-1 && code == 354 && first != nil {
			if err := sc.send("."); err != nil {
				return err
			}
			if _, _, err := t.ReadResponse(250); err != nil && !refusal(err) {
				return err
			}
		}
	}
	return first
}

func (sc *smtpConn) send(line string) error {
	if _, err := sc.c.Text.W.WriteString(line + "\r\n"); err != nil {
		return err
	}
	return sc.c.Text.W.Flush()
}

// open dials Addr and gets a connection ready for its first MAIL FROM.
func (s *smtpLane) open(ctx context.Context) (_ *smtpConn, err error) {
	host, _, err := net.SplitHostPort(s.Addr)
	if err != nil {
		return nil, fmt.Errorf("mail: smtp address %q: %w", s.Addr, err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return nil, fmt.Errorf("mail: smtp dial %s: %w", s.Addr, err)
	}
	dl, _ := ctx.Deadline()
	_ = raw.SetDeadline(dl)
	// Cancelling ctx (or its timeout) unblocks whatever read or write is
	// in progress, also after STARTTLS, which wraps raw.
	stop := context.AfterFunc(ctx, func() { _ = raw.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, context.Cause(ctx))
		}
	}()
	c, err := smtp.NewClient(raw, host)
	if err != nil {
		_ = raw.Close()
		return nil, fmt.Errorf("mail: smtp greeting from %s: %w", s.Addr, err)
	}
	if err := s.greet(c, host); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("mail: smtp %s %w", s.Addr, err)
	}
	sc := &smtpConn{raw: raw, c: c}
	sc.pipelining, _ = c.Extension("PIPELINING")
	sc.chunking, _ = c.Extension("CHUNKING")
	sc.chunking = sc.chunking && sc.pipelining
	sc.utf8, _ = c.Extension("SMTPUTF8")
	return sc, nil
}

// greet runs EHLO, STARTTLS and AUTH; its errors start with the command.
func (s *SMTP) greet(c *smtp.Client, host string) error {
	hello := s.Hello
	if hello == "" {
		hello = "localhost"
	}
	if err := c.Hello(hello); err != nil {
		return fmt.Errorf("EHLO: %w", err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		cfg := &tls.Config{}
		if s.TLSConfig != nil {
			cfg = s.TLSConfig.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = host
		}
		if err := c.StartTLS(cfg); err != nil {
			return fmt.Errorf("STARTTLS: %w", err)
		}
	}
	if s.User == "" {
		return nil
	}
	if ok, _ := c.Extension("AUTH"); !ok {
		return errors.New("AUTH: server does not offer AUTH")
	}
	if err := c.Auth(smtp.PlainAuth("", s.User, s.Password, host)); err != nil {
		return fmt.Errorf("AUTH: %w", err)
	}
	return nil
}

// armIdle closes the connection once it has been unused for Idle.
func (s *smtpLane) armIdle() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.conn == nil {
		return
	}
	idle := s.Idle
	if idle == 0 {
		idle = DefaultSMTPIdle
	}
	if idle < 0 {
		s.hangUp()
		return
	}
	gen := s.gen
	clk := s.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	s.timer = clk.AfterFunc(idle, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.gen == gen {
			s.hangUp()
		}
	})
}

// hangUp says QUIT (briefly) and closes the connection.
func (s *smtpLane) hangUp() {
	if s.conn == nil {
		return
	}
	_ = s.conn.raw.SetDeadline(time.Now().Add(2 * time.Second))
	_ = s.conn.c.Quit()
	s.drop()
}

// drop closes the connection without a word.
func (s *smtpLane) drop() {
	if s.conn != nil {
		_ = s.conn.c.Close()
		s.conn = nil
	}
}

func (s *SMTP) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultSMTPTimeout
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
