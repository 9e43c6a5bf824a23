package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/webhook/mail/mailtest"
)

// Bounded residency (decisions §1: --idle-after, --max-resident).

// metricValue is the value of an unlabelled metric on s's /metrics.
func metricValue(t *testing.T, s *server, name string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(string(s.adminDo("GET", "/metrics", nil).Raw))
	require.NotNil(t, m, "no %s on /metrics", name)
	v, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	return v
}

// TestResidencyWakesBusinessesLetGo: with --idle-after, a business with
// nothing in hand is let go; a hold of it still expires and its reminder
// is still sent on time, each by the business woken for it with no
// request; and it answers its next request as before.
func TestResidencyWakesBusinessesLetGo(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{User: smtpUser, Password: smtpPassword})
	s := start(t, "", "--idle-after", "5m", "--world", reminderWorld(t), "--smtp", srv.Addr, "--smtp-user", smtpUser,
		"--smtp-password", smtpPassword, "--smtp-from", smtpFrom)
	now := s.clock.Now()
	// A booking whose e-mail reminder (a day before) is due in two days,
	// and a hold of 30 minutes on another start.
	at, err := time.Parse(time.RFC3339, tue+"12:00:00Z")
	require.NoError(t, err)
	require.True(t, at.After(now.Add(48*time.Hour)))
	r := s.post("/api/v1/appointments", keyFull, "res-1", `{"serviceId":"`+haircutID+`","staffMemberId":"`+annaID+`","startTime":"`+
		at.Format(time.RFC3339)+`","enforceBookingRules":false,"customer":{"firstName":"Ria","email":"ria@example.com"}}`)
	require.Equal(t, 201, r.Status, "%s", r.Raw)
	appt := appointmentOf(r)["id"].(string)
	h := s.post("/api/v1/holds", keyFull, "res-2", `{"serviceId":"`+haircutID+`","staffMemberId":"`+bramID+`","startTime":"`+
		at.Format(time.RFC3339)+`","ttlSeconds":1800}`)
	require.Equal(t, 201, h.Status, "%s", h.Raw)
	hold := h.Body["id"].(string)
	waitMail(t, srv, 1) // the confirmation

	// Six minutes of silence: every business is let go, the salon with
	// its deadlines in the wake table.
	s.clock.Advance(6 * time.Minute)
	require.Eventually(t, func() bool { return metricValue(t, s, "slotd_businesses_resident") == 0 }, 10*time.Second, 5*time.Millisecond)
	require.Positive(t, metricValue(t, s, "slotd_businesses_let_go_total"))
	require.Equal(t, 1.0, metricValue(t, s, "slotd_businesses_waiting_to_wake"))

	// The hold's end wakes the salon, which lets the hold go (journalled:
	// the state read afterwards says so), and goes back to sleep.
	s.clock.Advance(25 * time.Minute)
	require.Eventually(t, func() bool { return metricValue(t, s, "slotd_businesses_resident") == 1 }, 10*time.Second, 5*time.Millisecond)
	s.clock.Advance(6 * time.Minute)
	require.Eventually(t, func() bool { return metricValue(t, s, "slotd_businesses_resident") == 0 }, 10*time.Second, 5*time.Millisecond)

	// The reminder a day before the booking: sent on time with nobody asking.
	s.clock.Set(at.Add(-24 * time.Hour))
	msgs := waitMail(t, srv, 2)
	n, _ := reminderMails(t, msgs)
	require.Equal(t, map[string]int{"ria@example.com": 1}, n)

	// Its next requests are answered as before, from the journal.
	g := s.get("/api/v1/holds/"+hold, keyFull)
	require.Equal(t, 200, g.Status, "%s", g.Raw)
	require.Contains(t, []string{"expired", "released"}, g.Body["status"])
	require.Equal(t, "confirmed", s.get("/api/v1/appointments/"+appt, keyFull).Body["status"])
}

// TestResidencyMaxResidentOverHTTP: --max-resident 1 keeps one business
// in memory however many are asked about, and each still answers.
func TestResidencyMaxResidentOverHTTP(t *testing.T) {
	s := start(t, "", "--max-resident", "1", "--idle-after", "0", "--world", "testdata/world.json")
	for range 2 {
		for _, key := range []string{keyFull, keyStudio} {
			require.Equal(t, 200, s.get("/api/v1/services", key).Status)
		}
		s.clock.Advance(time.Second)
		require.Eventually(t, func() bool { return metricValue(t, s, "slotd_businesses_resident") <= 1 }, 10*time.Second, 5*time.Millisecond)
	}
	require.GreaterOrEqual(t, metricValue(t, s, "slotd_businesses_let_go_total"), 2.0)
}

// TestResidencyFlags: the flags refuse what they cannot mean.
func TestResidencyFlags(t *testing.T) {
	for _, args := range [][]string{{"--idle-after", "-1s"}, {"--max-resident", "-1"}, {"--idle-after", "soon"}} {
		var out strings.Builder
		_, err := parseConfig(args, func(string) string { return "" }, &out)
		require.Error(t, err, "%v", args)
		require.Contains(t, out.String(), args[0][1:], "%v", args)
	}
}
