package mail

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/textproto"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
)

func testMessage(t *testing.T) Message {
	t.Helper()
	m, err := Render(testRow(testID, model.MailConfirmation, salon, testAppointment(model.Confirmed)), "Bookings <bookings@slotd.example>")
	require.NoError(t, err)
	return m
}

func TestNewSender(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC))
	assert.Equal(t, &Mbox{Path: filepath.Join("data", "outbox"), Clock: clk}, NewSender("", "", "", "data", clk))
	assert.Equal(t, &SMTP{Addr: "mx:25", User: "u", Password: "p"}, NewSender("mx:25", "u", "p", "data", clk))
}

// smtpServer is just enough of an SMTP server for the client of net/smtp.
type smtpServer struct {
	t    testing.TB
	ln   net.Listener
	tls  *tls.Config // offers STARTTLS when set
	user string      // requires AUTH PLAIN with user and pass when set
	pass string
	mute bool // accepts connections and never says anything
	// pipelining offers PIPELINING; refuseTo is a recipient RCPT refuses
	// with 550; hangUpAfter > 0 closes the connection after that many
	// messages, as a server does with an idle one.
	pipelining  bool
	chunking    bool // offers CHUNKING (BDAT)
	refuseTo    string
	hangUpAfter int
	refuseData  int // refuse the n-th message's data (1-based) of a session

	wg     sync.WaitGroup
	active sync.WaitGroup // connections being served
	mu     sync.Mutex
	got    []session
}

// session is what one connection did.
type session struct {
	ehlo     []string
	authUser string
	authTLS  bool // AUTH came over TLS
	mailTLS  bool // MAIL FROM came over TLS
	from     string
	to       []string
	data     []byte // the last message, dot-unstuffed, CRLF kept
	bareLF   bool   // DATA held a line ending in LF only
	quit     bool

	seen      int      // messages whose data came, accepted or not
	msgs      [][]byte // every message accepted, in order
	rsets     int      // RSET commands
	pipelined int      // MAIL commands that came with RCPT and DATA behind them in one read
}

func startSMTP(t testing.TB, s *smtpServer) *smtpServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s.t, s.ln = t, ln
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			s.active.Add(1)
			go func() {
				defer s.wg.Done()
				defer s.active.Done()
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				s.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *smtpServer) addr() string { return s.ln.Addr().String() }

// sessions returns the sessions so far, once every connection accepted
// has ended: a client's Send returns on the server's reply to QUIT, before
// the server's side of the session is over.
func (s *smtpServer) sessions() []session {
	s.active.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]session(nil), s.got...)
}

func (s *smtpServer) serve(conn net.Conn) {
	var ses session
	defer func() {
		s.mu.Lock()
		s.got = append(s.got, ses)
		s.mu.Unlock()
	}()
	if s.mute {
		_, _ = conn.Read(make([]byte, 1)) // until the client gives up
		return
	}
	r := bufio.NewReader(conn)
	reply := func(lines ...string) {
		for _, l := range lines {
			_, _ = fmt.Fprintf(conn, "%s\r\n", l)
		}
	}
	reply("220 test.invalid ESMTP ready")
	// accept takes a message's data, DATA's or BDAT's: refused when it is
	// the refuseData-th of the session, else kept; true when the server
	// then hangs up (hangUpAfter).
	accept := func(data []byte) bool {
		ses.data = data
		if ses.seen++; ses.seen == s.refuseData {
			reply("554 5.6.0 message refused")
			return false
		}
		ses.msgs = append(ses.msgs, data)
		reply("250 2.0.0 queued")
		return len(ses.msgs) == s.hangUpAfter
	}
	tlsOn, authed := false, false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO":
			ses.ehlo = append(ses.ehlo, arg)
			lines := []string{"250-test.invalid greets " + arg}
			if s.tls != nil && !tlsOn {
				lines = append(lines, "250-STARTTLS")
			}
			if s.pipelining {
				lines = append(lines, "250-PIPELINING")
			}
			if s.chunking {
				lines = append(lines, "250-CHUNKING")
			}
			reply(append(lines, "250-AUTH PLAIN", "250 8BITMIME")...)
		case "STARTTLS":
			if s.tls == nil || tlsOn {
				reply("503 5.5.1 no")
				continue
			}
			reply("220 2.0.0 go ahead")
			tc := tls.Server(conn, s.tls)
			if err := tc.Handshake(); err != nil {
				return
			}
			conn, r, tlsOn = tc, bufio.NewReader(tc), true
		case "AUTH":
			mech, resp, _ := strings.Cut(arg, " ")
			raw, err := base64.StdEncoding.DecodeString(resp)
			parts := strings.Split(string(raw), "\x00")
			if mech != "PLAIN" || err != nil || len(parts) != 3 || parts[1] != s.user || parts[2] != s.pass {
				reply("535 5.7.8 authentication failed")
				continue
			}
			ses.authUser, ses.authTLS, authed = parts[1], tlsOn, true
			reply("235 2.7.0 authenticated")
		case "MAIL":
			if s.user != "" && !authed {
				reply("530 5.7.0 authentication required")
				continue
			}
			if ahead, _ := r.Peek(r.Buffered()); bytes.Contains(ahead, []byte("\r\nDATA\r\n")) || bytes.Contains(ahead, []byte("\r\nBDAT ")) {
				ses.pipelined++
			}
			ses.from, ses.mailTLS, ses.to = between(arg, "<", ">"), tlsOn, nil
			reply("250 2.1.0 ok")
		case "RCPT":
			to := between(arg, "<", ">")
			if to == s.refuseTo {
				reply("550 5.1.1 no such user")
				continue
			}
			ses.to = append(ses.to, to)
			reply("250 2.1.5 ok")
		case "DATA":
			if len(ses.to) == 0 {
				reply("554 5.5.1 no valid recipients")
				continue
			}
			reply("354 end with <CRLF>.<CRLF>")
			var data []byte
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if !strings.HasSuffix(l, "\r\n") {
					ses.bareLF = true
				}
				if l == ".\r\n" {
					break
				}
				data = append(data, strings.TrimPrefix(l, ".")...)
			}
			if accept(data) {
				return
			}
		case "BDAT":
			size, last, _ := strings.Cut(arg, " ")
			n, err := strconv.Atoi(size)
			if err != nil || (last != "" && last != "LAST") || !s.chunking {
				reply("501 5.5.4 bad BDAT")
				return // the data's length is unknown: out of step
			}
			data := make([]byte, n)
			if _, err := io.ReadFull(r, data); err != nil {
				return
			}
			if last != "LAST" {
				reply("504 5.5.4 one chunk only, please")
				continue
			}
			if len(ses.to) == 0 {
				reply("554 5.5.1 no valid recipients")
				continue
			}
			if accept(data) {
				return
			}
		case "RSET":
			ses.rsets++
			ses.to = nil
			reply("250 2.0.0 ok")
		case "NOOP":
			reply("250 2.0.0 ok")
		case "QUIT":
			ses.quit = true
			reply("221 2.0.0 bye")
			return
		default:
			reply("502 5.5.2 unknown command")
		}
	}
}

func between(s, open, close string) string {
	_, after, _ := strings.Cut(s, open)
	in, _, _ := strings.Cut(after, close)
	return in
}

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "slotd test SMTP"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, pool
}

func checkDelivered(t *testing.T, ses session, m Message) {
	t.Helper()
	assert.Equal(t, "bookings@slotd.example", ses.from)
	assert.Equal(t, []string{"ana@example.com"}, ses.to)
	assert.False(t, ses.bareLF, "DATA lines end in CRLF")
	assert.Equal(t, string(m.Bytes()), string(ses.data))
	p := parseMessage(t, ses.data)
	assert.Equal(t, m.Subject, decodeHeader(t, p.header.Get("Subject")))
	assert.Equal(t, m.Text(), p.text)
	assert.Equal(t, m.HTML(), p.html)
	assert.True(t, ses.quit)
}

func TestSMTPPlainWithAuthOnLocalhost(t *testing.T) {
	srv := startSMTP(t, &smtpServer{user: "slotd", pass: "s3cret"})
	m := testMessage(t)
	s := &SMTP{Addr: srv.addr(), User: "slotd", Password: "s3cret", Timeout: 5 * time.Second}
	require.NoError(t, s.Send(context.Background(), m))
	require.NoError(t, s.Close())
	got := srv.sessions()
	require.Len(t, got, 1)
	assert.Equal(t, []string{"localhost"}, got[0].ehlo)
	assert.Equal(t, "slotd", got[0].authUser)
	assert.False(t, got[0].authTLS)
	checkDelivered(t, got[0], m)
}

func TestSMTPWithoutAuth(t *testing.T) {
	srv := startSMTP(t, &smtpServer{})
	m := testMessage(t)
	s := &SMTP{Addr: srv.addr(), Hello: "slotd.example"}
	require.NoError(t, s.Send(context.Background(), m))
	require.NoError(t, s.Close())
	got := srv.sessions()
	require.Len(t, got, 1)
	assert.Equal(t, []string{"slotd.example"}, got[0].ehlo)
	assert.Empty(t, got[0].authUser)
	checkDelivered(t, got[0], m)
}

func TestSMTPStartTLS(t *testing.T) {
	serverTLS, pool := selfSigned(t)
	srv := startSMTP(t, &smtpServer{tls: serverTLS, user: "slotd", pass: "s3cret"})
	m := testMessage(t)
	s := &SMTP{Addr: srv.addr(), User: "slotd", Password: "s3cret", Timeout: 5 * time.Second,
		TLSConfig: &tls.Config{RootCAs: pool}}
	require.NoError(t, s.Send(context.Background(), m))
	require.NoError(t, s.Close())
	got := srv.sessions()
	require.Len(t, got, 1)
	assert.Len(t, got[0].ehlo, 2, "EHLO again after STARTTLS")
	assert.True(t, got[0].authTLS, "the password went over TLS")
	assert.True(t, got[0].mailTLS)
	assert.Equal(t, "slotd", got[0].authUser)
	checkDelivered(t, got[0], m)
	assert.Empty(t, s.TLSConfig.ServerName, "the caller's config is not modified")
}

func TestSMTPUntrustedCertificateIsAnError(t *testing.T) {
	serverTLS, _ := selfSigned(t)
	srv := startSMTP(t, &smtpServer{tls: serverTLS})
	err := (&SMTP{Addr: srv.addr(), Timeout: 5 * time.Second}).Send(context.Background(), testMessage(t))
	require.ErrorContains(t, err, "STARTTLS")
	for _, ses := range srv.sessions() {
		assert.Empty(t, ses.from, "nothing is sent in the clear after a failed STARTTLS")
	}
}

func TestSMTPAuthRefused(t *testing.T) {
	srv := startSMTP(t, &smtpServer{user: "slotd", pass: "s3cret"})
	err := (&SMTP{Addr: srv.addr(), User: "slotd", Password: "wrong"}).Send(context.Background(), testMessage(t))
	require.ErrorContains(t, err, "AUTH")
	require.ErrorContains(t, err, "535")
}

func TestSMTPTimeoutAndCancel(t *testing.T) {
	srv := startSMTP(t, &smtpServer{mute: true})
	start := time.Now()
	err := (&SMTP{Addr: srv.addr(), Timeout: 150 * time.Millisecond}).Send(context.Background(), testMessage(t))
	require.Error(t, err)
	assert.Less(t, time.Since(start), 3*time.Second)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	err = (&SMTP{Addr: srv.addr()}).Send(ctx, testMessage(t))
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 3*time.Second)
}

func TestSMTPBadAddress(t *testing.T) {
	require.Error(t, (&SMTP{Addr: "no-port"}).Send(context.Background(), testMessage(t)))
	// Nothing listens on a port just closed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	require.ErrorContains(t, (&SMTP{Addr: addr}).Send(context.Background(), testMessage(t)), "dial")
}

// smtpModes are the ways a server can take a message: DATA, one command
// at a time or pipelined, and BDAT.
var smtpModes = []struct {
	name                 string
	pipelining, chunking bool
}{{"plain", false, false}, {"pipelining", true, false}, {"chunking", true, true}}

func messagesTo(t *testing.T, tos ...string) []Message {
	var ms []Message
	for i, to := range tos {
		m := testMessage(t)
		m.ID, m.To = fmt.Sprintf("m%d", i), to
		ms = append(ms, m)
	}
	return ms
}

// One connection carries every message of a batch and of the batches
// after it, with RSET between them; with PIPELINING the commands before
// each message's data go out in one write.
func TestSMTPOneConnectionManyMessages(t *testing.T) {
	for _, md := range smtpModes {
		t.Run(md.name, func(t *testing.T) {
			pipelining := md.pipelining
			srv := startSMTP(t, &smtpServer{pipelining: pipelining, chunking: md.chunking, user: "slotd", pass: "s3cret"})
			s := &SMTP{Addr: srv.addr(), User: "slotd", Password: "s3cret", Timeout: 5 * time.Second}
			ms := messagesTo(t, "a@example.com", "b@example.com", "c@example.com", "d@example.com")
			for _, err := range s.SendBatch(context.Background(), ms[:3]) {
				require.NoError(t, err)
			}
			require.NoError(t, s.Send(context.Background(), ms[3]))
			require.NoError(t, s.Close())

			got := srv.sessions()
			require.Len(t, got, 1, "one connection")
			require.Len(t, got[0].msgs, 4)
			for i, m := range ms {
				assert.Equal(t, string(m.Bytes()), string(got[0].msgs[i]))
			}
			assert.Equal(t, 3, got[0].rsets, "RSET between messages")
			if pipelining {
				assert.Equal(t, 4, got[0].pipelined)
			} else {
				assert.Zero(t, got[0].pipelined)
			}
			assert.True(t, got[0].quit)
		})
	}
}

// A long batch is cut into runs that go over DefaultSMTPConns connections
// at once: every message arrives once, and each error is its own
// message's, whichever connection carried it.
func TestSMTPLongBatchUsesConnectionsAtOnce(t *testing.T) {
	srv := startSMTP(t, &smtpServer{pipelining: true, chunking: true, refuseTo: "nobody@example.com"})
	s := &SMTP{Addr: srv.addr(), Timeout: 5 * time.Second}
	tos := make([]string, 2*maxChunkRun+minPerConn) // runs of maxChunkRun, and a shorter one
	for i := range tos {
		tos[i] = fmt.Sprintf("c%d@example.com", i)
	}
	refused := len(tos) - 3 // in the last connection's run
	tos[refused] = "nobody@example.com"
	ms := messagesTo(t, tos...)
	errs := s.SendBatch(context.Background(), ms)
	for i, err := range errs {
		if i == refused {
			assert.Equal(t, CauseSMTP5xx, FailureCause(err), "message %d", i)
		} else {
			assert.NoError(t, err, "message %d", i)
		}
	}
	require.NoError(t, s.Close())

	got := srv.sessions()
	require.Len(t, got, DefaultSMTPConns)
	want := map[string]int{}
	for i, m := range ms {
		if i != refused {
			want[string(m.Bytes())]++
		}
	}
	arrived := map[string]int{}
	for _, sess := range got {
		assert.NotEmpty(t, sess.msgs, "every connection carried a run")
		for _, m := range sess.msgs {
			arrived[string(m)]++
		}
	}
	assert.Equal(t, want, arrived)

	// A short batch stays on one connection.
	srv2 := startSMTP(t, &smtpServer{pipelining: true})
	s2 := &SMTP{Addr: srv2.addr(), Timeout: 5 * time.Second}
	for _, err := range s2.SendBatch(context.Background(), ms[:2*minPerConn-1]) {
		require.NoError(t, err)
	}
	require.NoError(t, s2.Close())
	assert.Len(t, srv2.sessions(), 1)
}

// A recipient the server refuses fails its own message only; the
// connection goes on with the next.
func TestSMTPRefusedRecipientFailsAlone(t *testing.T) {
	for _, md := range smtpModes {
		t.Run(md.name, func(t *testing.T) {
			pipelining := md.pipelining
			srv := startSMTP(t, &smtpServer{pipelining: pipelining, chunking: md.chunking, refuseTo: "nobody@example.com"})
			s := &SMTP{Addr: srv.addr(), Timeout: 5 * time.Second}
			ms := messagesTo(t, "a@example.com", "nobody@example.com", "c@example.com")
			errs := s.SendBatch(context.Background(), ms)
			require.NoError(t, errs[0])
			require.Error(t, errs[1])
			assert.Equal(t, CauseSMTP5xx, FailureCause(errs[1]))
			assert.Contains(t, errs[1].Error(), "550")
			require.NoError(t, errs[2])
			require.NoError(t, s.Close())
			got := srv.sessions()
			require.Len(t, got, 1)
			require.Len(t, got[0].msgs, 2)
			assert.Equal(t, string(ms[2].Bytes()), string(got[0].msgs[1]))
		})
	}
}

// A message whose data the server refuses fails alone, also when its
// verdict is read with the next message's replies (pipelining) or at the
// end of the batch.
func TestSMTPRefusedDataFailsItsOwnMessage(t *testing.T) {
	for _, md := range smtpModes {
		for _, refused := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/refused=%d", md.name, refused), func(t *testing.T) {
				srv := startSMTP(t, &smtpServer{pipelining: md.pipelining, chunking: md.chunking, refuseData: refused})
				s := &SMTP{Addr: srv.addr(), Timeout: 5 * time.Second}
				ms := messagesTo(t, "a@example.com", "b@example.com", "c@example.com")
				errs := s.SendBatch(context.Background(), ms)
				for i, err := range errs {
					if i == refused-1 {
						require.Error(t, err, "message %d", i)
						assert.Contains(t, err.Error(), "554")
						assert.Equal(t, CauseSMTP5xx, FailureCause(err))
					} else {
						require.NoError(t, err, "message %d", i)
					}
				}
				require.NoError(t, s.Send(context.Background(), testMessage(t)), "the connection goes on")
				require.NoError(t, s.Close())
				got := srv.sessions()
				require.Len(t, got, 1)
				require.Len(t, got[0].msgs, 3)
			})
		}
	}
}

// writeDotted writes what textproto's DotWriter writes for a message with
// CRLF line ends.
func TestWriteDottedIsTheDotWriter(t *testing.T) {
	for _, body := range []string{"", "a\r\n", ".\r\n", "..x\r\n.\r\nend", "x\r\n.y\r\n\r\n.", "no break"} {
		var want, got bytes.Buffer
		dw := textproto.NewWriter(bufio.NewWriter(&want)).DotWriter()
		_, _ = dw.Write([]byte(body))
		require.NoError(t, dw.Close())
		bw := bufio.NewWriter(&got)
		writeDotted(bw, []byte(body))
		require.NoError(t, bw.Flush())
		assert.Equal(t, want.String(), got.String(), "%q", body)
	}
}

// A server that hung up on the kept connection costs nothing but a new
// connection: the message goes out on it, once.
func TestSMTPReconnectsAfterHangUp(t *testing.T) {
	for _, md := range smtpModes[1:] {
		t.Run(md.name, func(t *testing.T) {
			srv := startSMTP(t, &smtpServer{pipelining: true, chunking: md.chunking, hangUpAfter: 1})
			s := &SMTP{Addr: srv.addr(), Timeout: 5 * time.Second}
			ms := messagesTo(t, "a@example.com", "b@example.com", "c@example.com")
			for _, m := range ms {
				require.NoError(t, s.Send(context.Background(), m))
			}
			require.NoError(t, s.Close())
			got := srv.sessions()
			require.Len(t, got, 3)
			for i, ses := range got {
				require.Len(t, ses.msgs, 1, "session %d", i)
			}
		})
	}
}

// A connection that fails in the middle of a BDAT run fails the messages
// whose verdict did not come, and only those: the Drainer sends them
// again (they may have been accepted), this run does not.
func TestSMTPChunkRunCutShort(t *testing.T) {
	srv := startSMTP(t, &smtpServer{pipelining: true, chunking: true, hangUpAfter: 2})
	s := &SMTP{Addr: srv.addr(), Timeout: 5 * time.Second}
	ms := messagesTo(t, "a@example.com", "b@example.com", "c@example.com", "d@example.com")
	errs := s.SendBatch(context.Background(), ms)
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	for _, err := range errs[2:] {
		require.Error(t, err)
		assert.NotEqual(t, CauseSMTP5xx, FailureCause(err), "%v", err)
	}
	require.NoError(t, s.Send(context.Background(), ms[2]), "a new connection takes the next")
	require.NoError(t, s.Close())
	got := srv.sessions()
	require.Len(t, got, 2)
	assert.Len(t, got[0].msgs, 2)
	assert.Equal(t, [][]byte{ms[2].Bytes()}, got[1].msgs)
}

// An unused connection is closed, with QUIT, once Idle has passed on the
// sender's clock.
func TestSMTPClosesIdleConnection(t *testing.T) {
	srv := startSMTP(t, &smtpServer{})
	clk := clock.NewFake(time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC))
	s := &SMTP{Addr: srv.addr(), Timeout: 5 * time.Second, Idle: time.Minute, Clock: clk}
	require.NoError(t, s.Send(context.Background(), testMessage(t)))
	clk.Advance(59 * time.Second)
	require.NoError(t, s.Send(context.Background(), testMessage(t)))
	clk.Advance(59 * time.Second) // a minute after the first send, not after the last
	l := s.allLanes()[0]
	l.mu.Lock()
	open := l.conn != nil
	l.mu.Unlock()
	assert.True(t, open, "used 59 s ago")
	clk.Advance(time.Second)
	got := srv.sessions() // returns once the connection ended
	require.Len(t, got, 1)
	assert.Len(t, got[0].msgs, 2)
	assert.True(t, got[0].quit)
}

// BenchmarkSMTPSendBatch: batches of 64 confirmations over one connection
// to the test server in this process, pipelined DATA or BDAT runs.
func BenchmarkSMTPSendBatch(b *testing.B) {
	for _, md := range smtpModes[1:] {
		b.Run(md.name, func(b *testing.B) {
			srv := startSMTP(b, &smtpServer{pipelining: true, chunking: md.chunking})
			s := &SMTP{Addr: srv.addr(), Timeout: 5 * time.Second, Conns: 1}
			defer s.Close()
			row := testMailRow(testID, model.MailConfirmation, salon, testAppointment(model.Confirmed))
			m, err := RenderRow(row, "Bookings <bookings@slotd.example>")
			if err != nil {
				b.Fatal(err)
			}
			batch := make([]Message, 64)
			for i := range batch {
				batch[i] = m
			}
			n := 0
			for b.Loop() {
				for _, err := range s.SendBatch(context.Background(), batch) {
					if err != nil {
						b.Fatal(err)
					}
				}
				n += len(batch)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/msg")
		})
	}
}
