package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replySender fails each message with the SMTP reply code in codes (the
// next one each time), then sends it.
type replySender struct {
	*fakeSender
	codes map[string][]int
}

func (s replySender) Send(ctx context.Context, m Message) error {
	s.mu.Lock()
	if cs := s.codes[m.ID]; len(cs) > 0 {
		s.codes[m.ID] = cs[1:]
		s.attempts[m.ID]++
		s.mu.Unlock()
		return fmt.Errorf("mail: smtp mx.example:25 RCPT TO: %w", &textproto.Error{Code: cs[0], Msg: "4.3.0 try again later"})
	}
	s.mu.Unlock()
	return s.fakeSender.Send(ctx, m)
}

// TestDrainerMetrics: the backlog is what the drainer saw, less what it
// sent; every send attempt is counted by outcome and every failure by
// cause, which the log line names too.
func TestDrainerMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		ob.put(1, "01A", mailRow("01A"))
		ob.put(1, "01B", mailRow("01B"))
		ob.put(1, "01C", []byte(`{"id":"01C"`)) // cannot be rendered: dropped
		snd := replySender{newFakeSender(), map[string][]int{"01A": {451}}}
		m := NewMetrics()
		h := startDrainer(t, ob, snd, func(d *Drainer) { d.Metrics = m })
		count := func(outcome string) float64 { return testutil.ToFloat64(m.sends.WithLabelValues(outcome)) }

		assert.Equal(t, time.Second, h.idle())
		assert.Equal(t, 1.0, testutil.ToFloat64(m.backlog), "01A waits")
		assert.Equal(t, 1.0, count("sent"))
		assert.Equal(t, 1.0, count("failed"))
		assert.Equal(t, 1.0, count("dropped"))
		assert.Equal(t, 1.0, testutil.ToFloat64(m.failures.WithLabelValues(CauseSMTP4xx)))
		assert.Regexp(t, `msg="mail: send failed" .*cause=smtp_4xx smtp_code=451 err=.*RCPT TO: 451`, h.logs.String())

		h.advance(time.Second)
		assert.Equal(t, testPoll, h.idle())
		assert.Zero(t, testutil.ToFloat64(m.backlog))
		assert.Equal(t, 2.0, count("sent"))
		for _, c := range m.Collectors() {
			problems, err := testutil.CollectAndLint(c)
			require.NoError(t, err)
			assert.Empty(t, problems)
		}
	})
}

func TestFailureCause(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	_, refused := net.Dial("tcp", addr)
	require.Error(t, refused)

	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, timedOut := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	require.Error(t, timedOut)

	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("mail: smtp dial %s: %w", addr, refused), CauseConnectionRefused},
		{fmt.Errorf("mail: smtp dial: %w", timedOut), CauseTimeout},
		{fmt.Errorf("x: %w (%w)", errors.New("read"), context.DeadlineExceeded), CauseTimeout},
		{fmt.Errorf("x: %w", &textproto.Error{Code: 550, Msg: "no such user"}), CauseSMTP5xx},
		{fmt.Errorf("x: %w", &textproto.Error{Code: 421, Msg: "busy"}), CauseSMTP4xx},
		{fmt.Errorf("x: %w", &net.DNSError{Err: "no such host", Name: "mx.invalid", IsNotFound: true}), CauseDNS},
		{fmt.Errorf("x: %w", &tls.CertificateVerificationError{Err: errors.New("unknown authority")}), CauseTLS},
		{fmt.Errorf("mail: write: %w", &os.PathError{Op: "open", Path: "/x", Err: os.ErrPermission}), CauseFile},
		{errors.New("something else"), CauseOther},
	} {
		assert.Equal(t, c.want, FailureCause(c.err), "%v", c.err)
	}
}

// TestDrainerOldestAge: the gauge says how long the oldest unsent e-mail
// has waited, by the time in its id, and 0 once none waits.
func TestDrainerOldestAge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ob := newFakeOutbox()
		id := ulid.MustNew(ulid.Timestamp(time.Now().Add(-90*time.Second)), ulid.DefaultEntropy()).String()
		ob.put(1, id, mailRow(id))
		ob.put(1, "not-a-ulid", mailRow("not-a-ulid"))
		snd := newFakeSender()
		snd.fails[id], snd.fails["not-a-ulid"] = 1, 1
		m := NewMetrics()
		h := startDrainer(t, ob, snd, func(d *Drainer) { d.Metrics = m })
		assert.Equal(t, time.Second, h.idle())
		assert.InDelta(t, 90, testutil.ToFloat64(m.oldest), 0.01)
		h.advance(time.Second)
		assert.Equal(t, testPoll, h.idle())
		assert.Zero(t, testutil.ToFloat64(m.oldest), "none waits")
	})
}
