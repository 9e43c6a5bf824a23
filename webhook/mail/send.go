package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/smtp"
	"os"
	"path/filepath"
	"time"
)

// Sender delivers one message. A nil error means the message is handed
// over for good (the SMTP server accepted it, the file is on disk); the
// Drainer deletes the outbox row only then.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// BatchSender is a Sender that hands over many messages for less than it
// costs one by one; the Drainer uses it when its Sender has it. SendBatch
// returns one error per message, nil for each that was sent.
type BatchSender interface {
	Sender
	SendBatch(ctx context.Context, ms []Message) []error
}

// NewSender returns the sender the serve flags ask for (decisions §1):
// SMTP to smtpAddr when it is set, else a Dir writing dataDir/outbox.
func NewSender(smtpAddr, user, password, dataDir string) Sender {
	if smtpAddr != "" {
		return &SMTP{Addr: smtpAddr, User: user, Password: password}
	}
	return Dir{Path: filepath.Join(dataDir, "outbox")}
}

// DefaultSMTPTimeout bounds one SMTP conversation when SMTP.Timeout is 0.
const DefaultSMTPTimeout = time.Minute

// SMTP sends over SMTP with net/smtp, one connection per message: EHLO,
// STARTTLS when the server offers it, AUTH PLAIN when User is set, then
// MAIL FROM, RCPT TO and DATA. net/smtp refuses to send the password over
// a connection that is neither TLS nor to localhost; a server that offers
// STARTTLS but presents a certificate that does not verify is an error,
// never a fallback to plain text.
type SMTP struct {
	Addr     string // host:port
	User     string // "" sends no AUTH
	Password string
	// Timeout bounds the whole conversation, dial included; 0 means
	// DefaultSMTPTimeout.
	Timeout time.Duration
	// Hello is the name given in EHLO; "" means "localhost".
	Hello string
	// TLSConfig, when set, is the base of the STARTTLS configuration (a
	// test sets RootCAs to trust its own server); ServerName is filled from
	// Addr when empty.
	TLSConfig *tls.Config
}

// Send delivers m, or returns why not.
func (s *SMTP) Send(ctx context.Context, m Message) (err error) {
	host, _, err := net.SplitHostPort(s.Addr)
	if err != nil {
		return fmt.Errorf("mail: smtp address %q: %w", s.Addr, err)
	}
	from, err := mail.ParseAddress(m.From)
	if err != nil {
		return fmt.Errorf("mail: sender %q: %w", m.From, err)
	}
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return fmt.Errorf("mail: recipient %q: %w", m.To, err)
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultSMTPTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("mail: smtp dial %s: %w", s.Addr, err)
	}
	dl, _ := ctx.Deadline()
	_ = conn.SetDeadline(dl)
	// Cancelling ctx (or its timeout) unblocks whatever read or write is
	// in progress, also after STARTTLS, which wraps conn.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, context.Cause(ctx))
		}
	}()

	c, err := smtp.NewClient(conn, host)
	if err != nil {
		_ = conn.Close()
		return fmt.Errorf("mail: smtp greeting from %s: %w", s.Addr, err)
	}
	defer c.Close()
	step := func(what string, err error) error {
		if err != nil {
			return fmt.Errorf("mail: smtp %s %s: %w", s.Addr, what, err)
		}
		return nil
	}
	hello := s.Hello
	if hello == "" {
		hello = "localhost"
	}
	if err := step("EHLO", c.Hello(hello)); err != nil {
		return err
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		cfg := &tls.Config{}
		if s.TLSConfig != nil {
			cfg = s.TLSConfig.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = host
		}
		if err := step("STARTTLS", c.StartTLS(cfg)); err != nil {
			return err
		}
	}
	if s.User != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			return step("AUTH", errors.New("server does not offer AUTH"))
		}
		if err := step("AUTH", c.Auth(smtp.PlainAuth("", s.User, s.Password, host))); err != nil {
			return err
		}
	}
	if err := step("MAIL FROM", c.Mail(from.Address)); err != nil {
		return err
	}
	if err := step("RCPT TO", c.Rcpt(to.Address)); err != nil {
		return err
	}
	w, err := c.Data()
	if err := step("DATA", err); err != nil {
		return err
	}
	if _, err := w.Write(m.Bytes()); err != nil {
		return step("DATA", err)
	}
	// Close sends the final dot and reads the server's verdict: from here
	// on the message is accepted, and a failing QUIT must not cause a
	// second copy.
	if err := step("DATA", w.Close()); err != nil {
		return err
	}
	_ = c.Quit()
	return nil
}

// Dir "sends" by writing Path/<ID>.eml, for running without an SMTP
// server. The file appears whole or not at all (a temporary file is synced
// and renamed over it), so a reader globbing *.eml never sees a partial
// message; sending the same message again replaces the file with the same
// bytes.
type Dir struct {
	Path string
}

// Send writes m to Path/<m.ID>.eml, creating Path when needed.
func (d Dir) Send(ctx context.Context, m Message) error {
	return d.SendBatch(ctx, []Message{m})[0]
}

// SendBatch writes each message to Path/<ID>.eml by way of a temporary
// file, and makes the whole batch durable at once: every file is written
// first, their contents reach the disk together (syncData: one syncfs on
// Linux, instead of an fsync per file, which held the outbox to about a
// thousand messages a second), then they are renamed into place and one
// sync of the directory makes every rename durable. The Drainer deletes
// the rows of the messages sent next, so all of this must be durable
// first.
func (d Dir) SendBatch(ctx context.Context, ms []Message) []error {
	errs := make([]error, len(ms))
	fail := func(err error) []error {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = fmt.Errorf("mail: %w", err)
			}
		}
		return errs
	}
	if err := os.MkdirAll(d.Path, 0o750); err != nil {
		return fail(err)
	}
	tmps := make([]string, len(ms))
	var written []string
	for i := range ms {
		if errs[i] = ctx.Err(); errs[i] == nil {
			tmps[i], errs[i] = d.write(ms[i])
		}
		if errs[i] == nil {
			written = append(written, tmps[i])
		}
	}
	if len(written) == 0 {
		return errs
	}
	if err := syncData(d.Path, written); err != nil {
		for _, tmp := range written {
			_ = os.Remove(tmp)
		}
		return fail(fmt.Errorf("sync %s: %w", d.Path, err))
	}
	for i := range ms {
		if errs[i] != nil {
			continue
		}
		final := filepath.Join(d.Path, ms[i].ID+".eml")
		if err := os.Rename(tmps[i], final); err != nil {
			_ = os.Remove(tmps[i])
			errs[i] = fmt.Errorf("mail: write %s: %w", final, err)
		}
	}
	if err := syncDir(d.Path); err != nil {
		return fail(fmt.Errorf("sync %s: %w", d.Path, err))
	}
	return errs
}

// write puts m in a temporary file beside its final name, not yet synced,
// and returns the file's name.
func (d Dir) write(m Message) (string, error) {
	if !validID(m.ID) {
		return "", fmt.Errorf("mail: message id %q cannot name a file", m.ID)
	}
	f, err := os.CreateTemp(d.Path, "."+m.ID+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("mail: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(m.Bytes())
	if err == nil {
		err = f.Chmod(0o640)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("mail: write %s: %w", tmp, err)
	}
	return tmp, nil
}

// syncFiles fsyncs each of files: syncData where the system has nothing
// better.
func syncFiles(files []string) error {
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
