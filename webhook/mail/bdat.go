package mail

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// BDAT (RFC 3030's CHUNKING) gives a message's size up front instead of
// ending it with a lone dot, so its data needs no 354 to go out: with
// PIPELINING a whole run of messages is written at once, commands and
// data, and their replies are read together after it. A run costs one
// round trip instead of one per message. Behind a booking storm that
// round trip, not the CPU, set the pace: two connections sending one
// message per round trip left 45k of 80k e-mails unsent at the storm's
// end. (The data needs no dot-stuffing either.) Postfix (3.4 on),
// Exchange and the large mail services offer CHUNKING; a server that
// does not gets DATA (SMTP.sendEach).

// maxChunkRun bounds the messages written before their replies are read.
// The replies wait in the sockets' buffers meanwhile (4 lines, about 60
// bytes, a message); a server whose replies no longer fit stops reading,
// and both sides would wait on each other.
const maxChunkRun = 64

// chunkRun sends ms (at most maxChunkRun) over the lane's open connection,
// which offers CHUNKING, each message's error in errs. A connection that
// fails is dropped; its messages whose verdict was not read get its error
// (they may have been accepted: the Drainer sends them again rather than
// this). A reused connection that fails before its first reply (the server
// hung up while it was idle) is replaced once, for the whole run.
func (s *smtpLane) chunkRun(ctx context.Context, ms []Message, errs []error) {
	for retried := false; ; retried = true {
		reused := s.conn.used
		got, err := s.chunkWrite(ctx, ms, errs)
		if err == nil {
			return
		}
		s.drop()
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, context.Cause(ctx))
		}
		if got == 0 && reused && !retried && ctx.Err() == nil {
			if s.conn, err = s.open(ctx); err == nil {
				continue
			}
		}
		for i := range ms {
			if errs[i] == errUnsettled {
				errs[i] = fmt.Errorf("mail: smtp %s: %w", s.Addr, err)
			}
		}
		return
	}
}

// errUnsettled marks, inside chunkRun, a message whose verdict is still
// to be read.
var errUnsettled = errors.New("mail: smtp: no verdict")

// chunkWrite writes ms as one pipelined run and reads its replies. It
// returns the number of replies read and, when the connection failed (an
// I/O error, a timeout, 421), why; the messages of the run whose verdict
// was not read are errUnsettled in errs then.
func (s *smtpLane) chunkWrite(ctx context.Context, ms []Message, errs []error) (got int, err error) {
	sc := s.conn
	_ = sc.raw.SetDeadline(time.Now().Add(s.timeout()))
	stop := context.AfterFunc(ctx, func() { _ = sc.raw.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	w := sc.c.Text.W
	var rset [maxChunkRun]bool // the message's commands start with RSET
	var num [20]byte
	for i, m := range ms {
		from, to, err := s.envelope(m)
		if err != nil {
			errs[i] = err
			continue
		}
		errs[i] = errUnsettled
		s.body = m.appendTo(s.body[:0], "\r\n")
		if rset[i] = sc.used; sc.used {
			w.WriteString("RSET\r\n")
		}
		sc.used = true
		w.WriteString("MAIL FROM:<")
		w.WriteString(from)
		if sc.utf8 && !isASCII(from+to) {
			w.WriteString("> SMTPUTF8\r\nRCPT TO:<")
		} else {
			w.WriteString(">\r\nRCPT TO:<")
		}
		w.WriteString(to)
		w.WriteString(">\r\nBDAT ")
		w.Write(strconv.AppendInt(num[:0], int64(len(s.body)), 10))
		w.WriteString(" LAST\r\n")
		w.Write(s.body)
	}
	// A write that failed (the server hung up after some of the run) still
	// leaves the replies that came before it to read: messages accepted
	// are not to be sent again.
	werr := w.Flush()
	t := sc.c.Text
	for i := range ms {
		if errs[i] != errUnsettled {
			continue
		}
		codes := [4]int{250, 250, 25, 250} // RSET, MAIL, RCPT, BDAT
		first := 1
		if rset[i] {
			first = 0
		}
		var verdict error
		for _, code := range codes[first:] {
			_, _, err := t.ReadResponse(code)
			if err != nil && !refusal(err) {
				return got, cmp.Or(werr, err)
			}
			got++
			if verdict == nil && err != nil {
				verdict = fmt.Errorf("mail: smtp %s: %w", s.Addr, err)
			}
		}
		errs[i] = verdict
	}
	return got, werr
}
