package main

import (
	"context"
	"net/mail"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/webhook/mail/mailtest"
)

const (
	smtpUser     = "slotd-relay"
	smtpPassword = "s3cret pass"
	smtpFrom     = "bookings@salon.example"
	mailCustomer = "smtp@example.com"
)

// startSMTPWorld starts slotd on the test world with the --smtp flags
// pointing at srv.
func startSMTPWorld(t *testing.T, srv *mailtest.Server) *server {
	t.Helper()
	return startWorld(t, "--smtp", srv.Addr, "--smtp-user", smtpUser,
		"--smtp-password", smtpPassword, "--smtp-from", smtpFrom)
}

// waitMail waits, at most 10 s, until srv has accepted n messages.
func waitMail(t *testing.T, srv *mailtest.Server, n int) []mailtest.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msgs, err := srv.Wait(ctx, n)
	require.NoError(t, err)
	return msgs
}

// advanceUntilMail moves the server's clock a second at a time until srv
// has accepted n messages (at most 10 s of real time): a failed send is
// retried when the mailer's backoff timer, on that clock, fires, and the
// test cannot know the instant the timer is armed.
func advanceUntilMail(t *testing.T, s *server, srv *mailtest.Server, n int) []mailtest.Message {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.clock.Advance(time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		msgs, err := srv.Wait(ctx, n)
		cancel()
		if err == nil {
			return msgs
		}
		require.True(t, time.Now().Before(deadline), "%d messages never arrived: %v", n, err)
	}
}

// requireSMTPMail checks one message slotd sent: envelope, credentials,
// headers and a multipart/alternative body with a text and an HTML part.
func requireSMTPMail(t *testing.T, m mailtest.Message, subject string) *mailtest.Parsed {
	t.Helper()
	require.Equal(t, smtpUser, m.AuthUser)
	require.Equal(t, smtpPassword, m.AuthPassword)
	require.Equal(t, smtpFrom, m.From, "envelope sender")
	require.Equal(t, []string{mailCustomer}, m.To, "envelope recipients")
	require.NotContains(t, strings.ReplaceAll(string(m.Data), "\r\n", ""), "\n", "DATA lines end in CRLF")

	p, err := m.Parse()
	require.NoError(t, err, "%s", m.Data)
	from, err := mail.ParseAddress(p.Header.Get("From"))
	require.NoError(t, err)
	require.Equal(t, smtpFrom, from.Address, "From header")
	require.Equal(t, "Salon Example", from.Name, "a bare --smtp-from gets the business's name")
	to, err := mail.ParseAddress(p.Header.Get("To"))
	require.NoError(t, err)
	require.Equal(t, mailCustomer, to.Address, "To header")
	require.Equal(t, subject, p.Subject)
	require.NotEmpty(t, p.Header.Get("Message-ID"))
	_, err = p.Header.Date()
	require.NoError(t, err, "Date header")

	require.Equal(t, "multipart/alternative", p.ContentType)
	text, ok := p.Part("text/plain")
	require.True(t, ok, "text/plain part in %s", m.Data)
	html, ok := p.Part("text/html")
	require.True(t, ok, "text/html part in %s", m.Data)
	for _, part := range []mailtest.Part{text, html} {
		require.Equal(t, "utf-8", strings.ToLower(part.Charset))
		require.Contains(t, part.Body, "Haircut")
	}
	require.Contains(t, strings.ToLower(html.Body), "<html")
	require.NotContains(t, text.Body, "<html")
	return p
}

// requireNoOutboxFiles asserts that nothing was written to DATA/outbox:
// with --smtp set, mail goes over SMTP only.
func requireNoOutboxFiles(t *testing.T, s *server) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(s.data, "outbox", "*"))
	require.NoError(t, err)
	require.Empty(t, files)
}

// TestSMTPSendsConfirmationAndStatusMail books and cancels with --smtp
// set (mirroring TestConfirmationMailIsWritten): both mails reach the SMTP
// server, authenticated, over one connection (decisions §1), and none is
// written to DATA/outbox.
func TestSMTPSendsConfirmationAndStatusMail(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{User: smtpUser, Password: smtpPassword, Pipelining: true})
	s := startSMTPWorld(t, srv)

	r := s.post("/api/v1/appointments", keyFull, "smtp-1", booking(haircutID, tue+"10:00:00Z", annaID, mailCustomer))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	id := r.Body["appointment"].(map[string]any)["id"].(string)
	link := r.Body["appointment"].(map[string]any)["manageUrl"].(string)

	msgs := waitMail(t, srv, 1)
	require.Len(t, msgs, 1)
	confirm := requireSMTPMail(t, msgs[0], "Your appointment at Salon Example is confirmed")
	for _, ctype := range []string{"text/plain", "text/html"} {
		part, _ := confirm.Part(ctype)
		require.Contains(t, part.Body, link, "the confirmation carries the API's manage link (decisions §7)")
	}

	require.Equal(t, 200, s.post("/api/v1/appointments/"+id+"/status", keyFull, "", `{"status":"cancelled"}`).Status)
	msgs = waitMail(t, srv, 2)
	require.Len(t, msgs, 2)
	status := requireSMTPMail(t, msgs[1], "Your appointment at Salon Example has been cancelled")
	text, _ := status.Part("text/plain")
	require.Contains(t, text.Body, "cancelled")
	require.NotContains(t, text.Body, "/manage/", "a cancelled booking has nothing left to manage")
	require.NotEqual(t, confirm.Header.Get("Message-ID"), status.Header.Get("Message-ID"))

	requireNoOutboxFiles(t, s)
	// Stopping waits for the mailer: a delivered row was deleted, so
	// nothing is sent twice.
	s.stop()
	require.Len(t, srv.Messages(), 2)
	require.Equal(t, mailtest.Stats{Connections: 1, Delivered: 2}, srv.Stats(), "one connection carried both")
	requireNoOutboxFiles(t, s)
}

// TestSMTPRetriesUntilDelivered: a confirmation whose first send meets a
// server that is down (421 at the greeting), and a status mail the server
// first refuses with 451 after its DATA, are both delivered once the
// server accepts them, exactly once each. The mailer runs on the server's
// clock, so the test moves that clock past the first retry's backoff
// (retry.Mail.Wait(1) = 1 s) instead of waiting for it.
func TestSMTPRetriesUntilDelivered(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{User: smtpUser, Password: smtpPassword})
	srv.SetDown(true)
	s := startSMTPWorld(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	r := s.post("/api/v1/appointments", keyFull, "smtp-retry-1", booking(haircutID, tue+"10:00:00Z", annaID, mailCustomer))
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	id := r.Body["appointment"].(map[string]any)["id"].(string)
	_, err := srv.WaitStats(ctx, func(st mailtest.Stats) bool { return st.Rejected >= 1 })
	require.NoError(t, err, "the mailer tries the down server")
	require.Empty(t, srv.Messages())
	srv.SetDown(false)
	msgs := advanceUntilMail(t, s, srv, 1)
	requireSMTPMail(t, msgs[0], "Your appointment at Salon Example is confirmed")

	srv.RefuseNext(1)
	require.Equal(t, 200, s.post("/api/v1/appointments/"+id+"/status", keyFull, "", `{"status":"cancelled"}`).Status)
	_, err = srv.WaitStats(ctx, func(st mailtest.Stats) bool { return st.Refused >= 1 })
	require.NoError(t, err, "the server refuses the status mail once")
	msgs = advanceUntilMail(t, s, srv, 2)
	requireSMTPMail(t, msgs[1], "Your appointment at Salon Example has been cancelled")

	requireNoOutboxFiles(t, s)
	s.stop()
	require.Len(t, srv.Messages(), 2, "each mail is delivered once")
	st := srv.Stats()
	require.Equal(t, 1, st.Refused)
	require.GreaterOrEqual(t, st.Rejected, 1)
	require.Zero(t, st.AuthFailed)
	require.Equal(t, 2, st.Delivered)
	requireNoOutboxFiles(t, s)
}
