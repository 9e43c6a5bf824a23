package mail

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/storage/catalog"
)

func testMessage(t *testing.T) Message {
	t.Helper()
	m, err := Render(testRow(testID, KindConfirmation, salon, testAppointment(catalog.Confirmed)), "Bookings <bookings@slotd.example>")
	require.NoError(t, err)
	return m
}

func TestDirSend(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "outbox")
	m := testMessage(t)
	require.NoError(t, Dir{Path: dir}.Send(context.Background(), m))
	// Sending again (at least once) replaces the file with the same bytes.
	require.NoError(t, Dir{Path: dir}.Send(context.Background(), m))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")
	require.Equal(t, testID+".eml", entries[0].Name())
	raw, err := os.ReadFile(filepath.Join(dir, testID+".eml"))
	require.NoError(t, err)
	assert.Equal(t, m.Bytes(), raw)
	p := parseMessage(t, raw)
	assert.Equal(t, m.Subject, decodeHeader(t, p.header.Get("Subject")))
	assert.Equal(t, m.Text, p.text)
	assert.Equal(t, m.HTML, p.html)

	bad := m
	bad.ID = "../escape"
	require.Error(t, Dir{Path: dir}.Send(context.Background(), bad))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.Error(t, Dir{Path: dir}.Send(ctx, m))
}

func TestNewSender(t *testing.T) {
	assert.Equal(t, Dir{Path: filepath.Join("data", "outbox")}, NewSender("", "", "", "data"))
	assert.Equal(t, &SMTP{Addr: "mx:25", User: "u", Password: "p"}, NewSender("mx:25", "u", "p", "data"))
}

// smtpServer is just enough of an SMTP server for the client of net/smtp.
type smtpServer struct {
	t    *testing.T
	ln   net.Listener
	tls  *tls.Config // offers STARTTLS when set
	user string      // requires AUTH PLAIN with user and pass when set
	pass string
	mute bool // accepts connections and never says anything

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
	data     []byte // the message, dot-unstuffed, CRLF kept
	bareLF   bool   // DATA held a line ending in LF only
	quit     bool
}

func startSMTP(t *testing.T, s *smtpServer) *smtpServer {
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
			ses.from, ses.mailTLS = between(arg, "<", ">"), tlsOn
			reply("250 2.1.0 ok")
		case "RCPT":
			ses.to = append(ses.to, between(arg, "<", ">"))
			reply("250 2.1.5 ok")
		case "DATA":
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
			ses.data = data
			reply("250 2.0.0 queued")
		case "RSET", "NOOP":
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
	assert.Equal(t, m.Text, p.text)
	assert.Equal(t, m.HTML, p.html)
	assert.True(t, ses.quit)
}

func TestSMTPPlainWithAuthOnLocalhost(t *testing.T) {
	srv := startSMTP(t, &smtpServer{user: "slotd", pass: "s3cret"})
	m := testMessage(t)
	s := &SMTP{Addr: srv.addr(), User: "slotd", Password: "s3cret", Timeout: 5 * time.Second}
	require.NoError(t, s.Send(context.Background(), m))
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
	require.NoError(t, (&SMTP{Addr: srv.addr(), Hello: "slotd.example"}).Send(context.Background(), m))
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
