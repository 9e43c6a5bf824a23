package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/webhook/mail/mailtest"
)

// Reminders through the real server (decisions §9): an e-mail a day
// before and an appointment.reminder event an hour before each confirmed
// appointment, on the server's clock.

func reminderWorld(t *testing.T) string {
	return salonWorld(t, func(biz map[string]any) {
		biz["reminders"] = []any{map[string]any{"offsetMinutes": 1440, "channel": "email"},
			map[string]any{"offsetMinutes": 60, "channel": "webhook"}}
	})
}

// startReminders starts a server on data, with world when it is not ""
// (else as the journal has it: only the businesses with timed work start
// at boot).
func startReminders(t *testing.T, data, world string, srv *mailtest.Server) *server {
	args := []string{"--webhooks-allow-insecure", "--smtp", srv.Addr, "--smtp-user", smtpUser,
		"--smtp-password", smtpPassword, "--smtp-from", smtpFrom}
	if world != "" {
		args = append(args, "--world", world)
	}
	return start(t, data, args...)
}

// reminderMails are the subjects of the reminders among msgs, by
// recipient, each with the text part of the last one.
func reminderMails(t *testing.T, msgs []mailtest.Message) (map[string]int, map[string]string) {
	t.Helper()
	n, text := map[string]int{}, map[string]string{}
	for _, m := range msgs {
		p, err := m.Parse()
		require.NoError(t, err)
		if strings.HasPrefix(p.Subject, "Reminder: ") {
			n[m.To[0]]++
			body, _ := p.Part("text/plain")
			text[m.To[0]] = p.Subject + "\n" + body.Body
		}
	}
	return n, text
}

// reminderEvents are the appointment.reminder events rcv got, as
// "<appointment id> <offset>".
func reminderEvents(t *testing.T, rcv *receiver) []string {
	t.Helper()
	var out []string
	_, bodies := rcv.events()
	for _, body := range bodies {
		var ev struct {
			Type string `json:"type"`
			Data struct {
				ID       string `json:"id"`
				Status   string `json:"status"`
				Reminder struct {
					OffsetMinutes int `json:"offsetMinutes"`
				} `json:"reminder"`
				Customer map[string]any `json:"customer"`
			} `json:"data"`
			ChangedBy string `json:"changedBy"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &ev))
		require.Equal(t, "appointment.reminder", ev.Type, "only what the endpoint subscribed to")
		require.Equal(t, "confirmed", ev.Data.Status)
		require.NotEmpty(t, ev.Data.Customer["email"], "the data is the Appointment, with its customer")
		require.Equal(t, "business", ev.ChangedBy)
		out = append(out, ev.Data.ID+" "+itoa(ev.Data.Reminder.OffsetMinutes))
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestReminders(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{User: smtpUser, Password: smtpPassword})
	world, data := reminderWorld(t), t.TempDir()
	s := startReminders(t, data, world, srv)
	rcv := newReceiver(t)
	reminded, _ := s.register(rcv, "/r", "appointment.reminder")
	created, _ := s.register(newReceiver(t), "/c", "appointment.created")

	book := func(key, at, email string) map[string]any {
		r := s.post("/api/v1/appointments", keyFull, key, booking(haircutID, tue+at, annaID, email))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
		return appointmentOf(r)
	}
	ann := book("r-1", "10:00:00Z", "ann@example.com")
	ben := book("r-2", "12:00:00Z", "ben@example.com")
	cas := book("r-3", "14:00:00Z", "cas@example.com")
	require.Equal(t, 200, s.call("POST", "/api/v1/appointments/"+cas["id"].(string)+"/status", `{"status":"cancelled"}`).Status)
	waitMail(t, srv, 4) // three confirmations and a cancellation

	// Ann's e-mail at 10:00 the day before, with her manage link.
	s.clock.Set(time.Date(2026, 12, 7, 9, 59, 59, 0, time.UTC))
	s.clock.Advance(time.Second)
	n, text := reminderMails(t, waitMail(t, srv, 5))
	require.Equal(t, map[string]int{"ann@example.com": 1}, n)
	require.Contains(t, text["ann@example.com"], "Reminder: your appointment at Salon Example on Tuesday 8 December 2026, 11:00")
	require.Contains(t, text["ann@example.com"], ann["manageUrl"].(string))

	// After a restart nothing is sent twice, and Ben's comes at its time:
	// nothing but the reminders owed wakes the business. (Mail is at least
	// once: the mailer deletes a row just after the server has its message,
	// and a stop in between sends it again. The test stops after that.)
	require.Eventually(t, func() bool {
		v, ok := value(s.scrape(), "slotd_outbox_backlog", "channel", "mail")
		return ok && v == 0
	}, 10*time.Second, 10*time.Millisecond)
	s.stop()
	s = startReminders(t, data, "", srv)
	s.clock.Set(time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC))
	n, _ = reminderMails(t, waitMail(t, srv, 6))
	require.Equal(t, map[string]int{"ann@example.com": 1, "ben@example.com": 1}, n)

	// Ben moves a day on: his reminders are armed again for the new time.
	// Dan books inside the day: he gets the hour's event only.
	s.clock.Set(time.Date(2026, 12, 7, 13, 0, 0, 0, time.UTC))
	r := s.call("PATCH", "/api/v1/appointments/"+ben["id"].(string), `{"startTime":"2026-12-09T12:00:00Z"}`)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	dan := book("r-4", "12:30:00Z", "dan@example.com")
	waitMail(t, srv, 7) // Dan's confirmation (a PATCH sends none)
	for i, at := range []time.Time{
		time.Date(2026, 12, 8, 9, 0, 0, 0, time.UTC),   // Ann's event
		time.Date(2026, 12, 8, 11, 30, 0, 0, time.UTC), // Dan's
		time.Date(2026, 12, 9, 11, 0, 0, 0, time.UTC),  // Ben's, for his new time
	} {
		if i == 2 {
			s.clock.Set(time.Date(2026, 12, 8, 12, 0, 0, 0, time.UTC))
			n, _ = reminderMails(t, waitMail(t, srv, 8))
			require.Equal(t, map[string]int{"ann@example.com": 1, "ben@example.com": 2}, n, "Ben's again for his new time; none for Cas or Dan")
		}
		s.clock.Set(at)
		s.waitDeliveries(reminded, func(ds []map[string]any) bool { return len(ds) == i+1 && settled(ds) })
	}
	require.Equal(t, []string{ann["id"].(string) + " 60", dan["id"].(string) + " 60", ben["id"].(string) + " 60"}, reminderEvents(t, rcv))
	for _, d := range s.deliveries(created) {
		require.Equal(t, "appointment.created", d["eventType"], "an endpoint gets reminders only by name")
	}

	mfs := s.scrape() // since the restart
	for _, c := range []struct {
		channel, outcome string
		want             float64
	}{{"email", "sent", 2}, {"email", "skipped", 1}, {"webhook", "sent", 3}, {"webhook", "skipped", 1}, {"email", "late", 0}} {
		got, _ := value(mfs, "slotd_reminders_total", "channel", c.channel, "outcome", c.outcome)
		require.Equal(t, c.want, got, "%s %s", c.channel, c.outcome)
	}
}

// TestClusterReminderTakeOver: the owner of a business is killed before
// an appointment's reminder comes due; the node that takes the business
// over sends it from the journal, once.
func TestClusterReminderTakeOver(t *testing.T) {
	clusterFaultTest(t)
	bin := buildBinary(t)
	world := salonWorld(t, func(biz map[string]any) {
		biz["reminders"] = []any{map[string]any{"offsetMinutes": 10, "channel": "webhook"}}
	})
	procs := startNodes(t, bin, 3, false, "--world", world, "--webhooks-allow-insecure")
	rcv := newReceiver(t)
	victim := ownerOf(t, procs, keyFull)
	status, body, _, err := clusterCall("POST", victim.pub, "/api/v1/webhooks",
		`{"url":"`+rcv.URL+`/r","eventTypes":["appointment.reminder"]}`)
	require.NoError(t, err)
	require.Equal(t, 201, status, "%v", body)

	// Due 20 s from now, on the real clock: the owner is gone by then.
	start := time.Now().UTC().Add(10*time.Minute + 20*time.Second).Truncate(time.Second)
	status, body, _, err = clusterCall("POST", victim.pub, "/api/v1/appointments",
		`{"serviceId":"`+haircutID+`","staffMemberId":"`+annaID+`","startTime":"`+start.Format(time.RFC3339)+
			`","enforceBookingRules":false,"customer":{"firstName":"R","email":"r@example.com"}}`, "Idempotency-Key", "remind-me")
	require.NoError(t, err)
	require.Equal(t, 201, status, "%v", body)
	id := body["appointment"].(map[string]any)["id"].(string)
	require.NoError(t, victim.cmd.Process.Kill())

	require.Eventually(t, func() bool { return len(reminderEvents(t, rcv)) > 0 }, 90*time.Second, 100*time.Millisecond,
		"no node sent the reminder")
	require.Equal(t, []string{id + " 10"}, reminderEvents(t, rcv))
}

// TestRemindersThroughAdmin: the admin API's put of a business takes its
// reminders, refuses bad ones with their paths, and a reminder gained is
// sent only where its time is still to come.
func TestRemindersThroughAdmin(t *testing.T) {
	s := startWorld(t, "--webhooks-allow-insecure")
	rcv := newReceiver(t)
	ep, _ := s.register(rcv, "/r", "appointment.reminder")
	for i, at := range []string{"10:00:00Z", "16:00:00Z"} {
		r := s.post("/api/v1/appointments", keyFull, "adm-"+itoa(i), booking(haircutID, tue+at, annaID, "adm@example.com"))
		require.Equal(t, 201, r.Status, "%s", r.Raw)
	}
	salon := func(edit func(map[string]any)) []byte {
		var w map[string]any
		require.NoError(t, json.Unmarshal(mustRead(t, salonWorld(t, edit)), &w))
		body, err := json.Marshal(w["businesses"].([]any)[0])
		require.NoError(t, err)
		return body
	}
	remind := func(list ...any) func(map[string]any) {
		return func(biz map[string]any) { biz["reminders"] = list }
	}
	webhook := func(offset any) map[string]any { return map[string]any{"offsetMinutes": offset, "channel": "webhook"} }
	for _, bad := range []struct {
		edit func(map[string]any)
		path string
	}{
		{remind(webhook(5)), "reminders.0.offsetMinutes"},
		{remind(webhook(60), map[string]any{"offsetMinutes": 60, "channel": "sms"}), "reminders.1.channel"},
		{remind(webhook(60), webhook(61), webhook(62), webhook(63)), "reminders"},
		{remind(webhook(60), webhook(60)), "reminders.1"},
		{remind(webhook("an hour")), "reminders.0.offsetMinutes"},
	} {
		r := s.adminDo("PUT", "/admin/v1/businesses/"+salonID, salon(bad.edit))
		requireError(t, r, 400, "VALIDATION_ERROR")
		require.Contains(t, string(r.Raw), `"path":"`+bad.path+`"`)
	}

	// At 08:30 on the day, the 10:00Z booking's two-hour reminder is past.
	s.clock.Set(time.Date(2026, 12, 8, 8, 30, 0, 0, time.UTC))
	r := s.adminDo("PUT", "/admin/v1/businesses/"+salonID, salon(remind(webhook(120))))
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	s.clock.Set(time.Date(2026, 12, 8, 14, 0, 0, 0, time.UTC))
	ds := s.waitDeliveries(ep, func(ds []map[string]any) bool { return len(ds) >= 1 && settled(ds) })
	require.Len(t, ds, 1)
	ids, _ := rcv.events()
	require.Len(t, ids, 1)
}
