package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/slotd/slotd/actors/clock"
)

// Mbox "sends" by appending messages to Path/YYYY-MM-DD.mbox, one mailbox
// file per UTC day (decisions §1), in the mboxrd format of RFC 4155: each
// message starts with a "From " line, its own lines starting with any
// number of '>' and then "From " get one more '>', line ends are LF, and a
// blank line ends it. Any mail client, or Python's mailbox module, reads
// the files; slotd never deletes them.
//
// A batch is appended with one write and made durable with one fdatasync
// before SendBatch returns nil for its messages: the Drainer deletes their
// outbox rows next, so a message leaves the journal only once the file
// holding it is synced. When any step fails, the file is cut back to its
// length before the batch and every message of the batch fails, to be
// retried whole; a message is never half in a mailbox. A crash between the
// sync and the rows' deletion appends the batch again on the next start:
// delivery is at least once, as with SMTP.
//
// One Mbox is safe for concurrent use; it keeps the day's file open
// between batches. Close closes it.
type Mbox struct {
	Path  string
	Clock clock.Clock // nil: clock.Real; it picks the day's file

	// openFile opens a day's file for appending; nil means openMbox. A
	// test puts a failing file here.
	openFile func(name string) (mboxFile, error)

	mu   sync.Mutex
	f    mboxFile
	day  string
	size int64 // f's length after the last batch that went well
	buf  []byte
}

// mboxFile is what Mbox needs of an open mailbox file.
type mboxFile interface {
	Write(p []byte) (int, error)
	Sync() error // of the data; the file's length included
	Truncate(size int64) error
	Stat() (os.FileInfo, error)
	Name() string
	Close() error
}

// appendFile is an *os.File whose Sync is fdatasync.
type appendFile struct{ *os.File }

func (f appendFile) Sync() error { return datasync(f.File) }

func openMbox(name string) (mboxFile, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o640)
	if err != nil {
		return nil, err
	}
	return appendFile{f}, nil
}

// Send appends m alone.
func (b *Mbox) Send(ctx context.Context, m Message) error {
	return b.SendBatch(ctx, []Message{m})[0]
}

// SendBatch appends ms to today's mailbox and syncs it once; it returns
// one error per message, all nil or (when the batch failed) all set.
func (b *Mbox) SendBatch(ctx context.Context, ms []Message) []error {
	errs := make([]error, len(ms))
	if len(ms) == 0 {
		return errs
	}
	if err := ctx.Err(); err != nil {
		return failAll(errs, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now().UTC()
	if b.Clock != nil {
		now = b.Clock.Now().UTC()
	}
	if err := b.open(now.Format(time.DateOnly)); err != nil {
		return failAll(errs, err)
	}
	b.buf = b.buf[:0]
	for _, m := range ms {
		b.buf = appendMboxrd(b.buf, m)
	}
	if err := b.append(b.buf); err != nil {
		return failAll(errs, err)
	}
	// A storm's batch can be large; do not keep a huge buffer for good.
	if cap(b.buf) > 4<<20 {
		b.buf = nil
	}
	return errs
}

// append writes p at the end of the open file and syncs it, or cuts the
// file back to where it was.
func (b *Mbox) append(p []byte) error {
	_, err := b.f.Write(p)
	if err == nil {
		err = b.f.Sync()
	}
	if err == nil {
		b.size += int64(len(p))
		return nil
	}
	err = fmt.Errorf("mail: append to %s: %w", b.f.Name(), err)
	// Whatever part of the batch reached the file goes: a message must be
	// in the mailbox whole or not at all. When even that fails, the file
	// is closed, and the next batch reopens it and tries the cut again.
	if terr := b.f.Truncate(b.size); terr != nil {
		b.closeFile()
		return errors.Join(err, fmt.Errorf("mail: cut %s back to %d bytes: %w", b.Path, b.size, terr))
	}
	return err
}

// open makes b.f the file of day, creating the directory and the file as
// needed. A new file's name is made durable (a sync of the directory)
// before anything is appended to it.
func (b *Mbox) open(day string) error {
	if b.f != nil && b.day == day {
		return nil
	}
	b.closeFile()
	if err := os.MkdirAll(b.Path, 0o750); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	name := filepath.Join(b.Path, day+".mbox")
	open := b.openFile
	if open == nil {
		open = openMbox
	}
	f, err := open(name)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = syncDir(b.Path)
	}
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("mail: open %s: %w", name, err)
	}
	b.f, b.day, b.size = f, day, fi.Size()
	return nil
}

// Close closes the open mailbox file, if any; a later SendBatch opens it
// again.
func (b *Mbox) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closeFile()
}

func (b *Mbox) closeFile() error {
	if b.f == nil {
		return nil
	}
	err := b.f.Close()
	b.f, b.day = nil, ""
	return err
}

func failAll(errs []error, err error) []error {
	for i := range errs {
		errs[i] = err
	}
	return errs
}

// appendMboxrd appends m to dst as one mboxrd entry: the "From " line
// (envelope sender and date in asctime form, UTC), the message with LF
// line ends and its "From " lines quoted, then a blank line.
func appendMboxrd(dst []byte, m Message) []byte {
	sender := envelopeSender(m.From)
	date := m.Date
	if date.IsZero() {
		date = time.Unix(0, 0)
	}
	dst = append(append(dst, "From "...), sender...)
	dst = append(dst, ' ')
	dst = append(date.UTC().AppendFormat(dst, time.ANSIC), '\n')
	start := len(dst)
	dst = m.appendTo(dst, "\n")
	if msg := dst[start:]; hasFromLine(msg) {
		// Lines to quote (rare: a body line starting so): the long way.
		own := bytes.Clone(msg)
		return quoteMboxrd(dst[:start], own)
	}
	return append(dst, '\n') // the blank line that ends the entry
}

// hasFromLine reports whether a line of msg matches ^>*From , which
// mboxrd quotes.
func hasFromLine(msg []byte) bool {
	for off := 0; ; {
		i := bytes.Index(msg[off:], []byte("From "))
		if i < 0 {
			return false
		}
		j := off + i
		for j > 0 && msg[j-1] == '>' {
			j--
		}
		if j == 0 || msg[j-1] == '\n' {
			return true
		}
		off += i + 1
	}
}

// envelopeSender is the bare address of a sender header for the "From "
// line, MAILER-DAEMON when it has none; remembered.
func envelopeSender(from string) string { return envelopeSenders.get(from) }

var envelopeSenders = newMemo(func(from string) string {
	if a, err := mail.ParseAddress(from); err == nil && a.Address != "" && !strings.ContainsAny(a.Address, " \t\r\n") {
		return a.Address
	}
	return "MAILER-DAEMON"
})

// quoteMboxrd appends to dst msg (CRLF or LF line ends) with LF line ends, a '>'
// before every line that matches ^>*From , a final line end when msg lacks
// one, and the blank line that separates it from the next entry. Reading
// removes one '>' from each such line, so any message comes back exactly.
func quoteMboxrd(dst, msg []byte) []byte {
	for len(msg) > 0 {
		line := msg
		rest := []byte(nil)
		if i := bytes.IndexByte(msg, '\n'); i >= 0 {
			line, rest = msg[:i], msg[i+1:]
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if isFromLine(line) {
			dst = append(dst, '>')
		}
		dst = append(append(dst, line...), '\n')
		msg = rest
	}
	return append(dst, '\n')
}

// isFromLine reports whether line is ">*From ".
func isFromLine(line []byte) bool {
	line = bytes.TrimLeft(line, ">")
	return bytes.HasPrefix(line, []byte("From "))
}
