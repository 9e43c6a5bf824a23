package mail

import (
	"context"
	"os"
	"path/filepath"

	"github.com/slotd/slotd/actors/clock"
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
// SMTP to smtpAddr when it is set, else an Mbox appending to
// dataDir/outbox/YYYY-MM-DD.mbox, its day read from clk.
func NewSender(smtpAddr, user, password, dataDir string, clk clock.Clock) Sender {
	if smtpAddr != "" {
		return &SMTP{Addr: smtpAddr, User: user, Password: password}
	}
	return &Mbox{Path: filepath.Join(dataDir, "outbox"), Clock: clk}
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
