package mail

import (
	"bytes"
	"encoding/json"
	"errors"
	"html"
	"io"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

var (
	testBiz   = uuid.MustParse("0b6f2c1e-8d4a-4c53-9a51-3f1e7b2d9c10")
	testAt    = time.Date(2026, 1, 2, 9, 15, 0, 0, time.UTC)
	testStart = time.Date(2026, 1, 5, 13, 30, 0, 0, time.UTC) // Monday, 14:30 in Amsterdam
)

type bizInfo struct{ name, tz string }

var salon = bizInfo{"Salon Anna & Co", "Europe/Amsterdam"}

func ptr[T any](v T) *T { return &v }

func testAppointment(status model.Status) *model.Appointment {
	return &model.Appointment{
		ID:               uuid.MustParse("6a1d2e3f-4b5c-4d6e-8f70-8192a3b4c5d6"),
		Status:           status,
		StartTime:        testStart,
		EndTime:          testStart.Add(45 * time.Minute),
		BookingReference: ptr("BK-1042"),
		CustomerID:       uuid.MustParse("11111111-2222-4333-8444-555555555555"),
		Service:          model.ServiceRef{ID: uuid.New(), Name: "Haircut & Styling", DurationMinutes: 45, PriceCents: 4500},
		Staff:            &model.StaffRef{ID: uuid.New(), Name: "Femke de Vries"},
		BasePriceCents:   ptr(4500),
		TotalPriceCents:  ptr(5000),
		DepositCents:     ptr(1000),
		Currency:         "EUR",
		CreatedAt:        testAt,
		UpdatedAt:        testAt,
	}
}

var testCustomer = &model.Customer{
	ID:        uuid.MustParse("11111111-2222-4333-8444-555555555555"),
	FirstName: "Ana", LastName: "Jansen", Email: "ana@example.com", Phone: "+31600000000",
}

// testRow is the outbox row of an e-mail about a, as the business actor
// writes it (an encoded record.MailRow).
func testRow(id, kind string, b bizInfo, a *model.Appointment) []byte {
	b2, err := record.EncodeMailRow(testMailRow(id, kind, b, a))
	if err != nil {
		panic(err)
	}
	return b2
}

func testMailRow(id, kind string, b bizInfo, a *model.Appointment) *record.MailRow {
	r := &record.MailRow{ID: id, Kind: kind, To: "ana@example.com", At: testAt,
		Business: record.MailBusiness{ID: testBiz.String(), Name: b.name, Timezone: b.tz}}
	if a != nil {
		r.Appointment = &record.MailAppointment{ID: a.ID.String(), Status: string(a.Status),
			StartTime: a.StartTime, EndTime: a.EndTime,
			Customer:       record.MailPerson{FirstName: testCustomer.FirstName, LastName: testCustomer.LastName},
			Service:        record.MailService{Name: a.Service.Name, DurationMinutes: a.Service.DurationMinutes, PriceCents: a.Service.PriceCents},
			BasePriceCents: a.BasePriceCents, TotalPriceCents: a.TotalPriceCents, DepositCents: a.DepositCents, Currency: a.Currency}
		if a.BookingReference != nil {
			r.Appointment.BookingReference = json.RawMessage(strconv.Quote(*a.BookingReference))
		}
		if a.Staff != nil {
			r.Appointment.StaffMember = &record.MailStaff{Name: a.Staff.Name}
		}
	}
	return r
}

// legacyRow is a row as written before record.MailRow existed: the
// appointment as GET /appointments/{id} shows it. Rows like it may still
// wait in an outbox when slotd is upgraded.
const legacyRow = `{"id":"01JGXK4Z3V8N2Q5R7T9W1Y3A5C","kind":"booking_confirmation","to":"ana@example.com","at":"2026-01-02T09:15:00.000Z","business":{"id":"0b6f2c1e-8d4a-4c53-9a51-3f1e7b2d9c10","name":"Salon Anna & Co","timezone":"Europe/Amsterdam"},"appointment":{"id":"6a1d2e3f-4b5c-4d6e-8f70-8192a3b4c5d6","status":"confirmed","startTime":"2026-01-05T13:30:00.000Z","endTime":"2026-01-05T14:15:00.000Z","notes":null,"bookingReference":"BK-1042","createdAt":"2026-01-02T09:15:00.000Z","updatedAt":"2026-01-02T09:15:00.000Z","customer":{"id":"11111111-2222-4333-8444-555555555555","firstName":"Ana","lastName":"Jansen","email":"ana@example.com","phone":"+31600000000"},"service":{"id":"16742c17-1702-4f72-a2ee-9f93725ccb82","name":"Haircut & Styling","durationMinutes":45,"priceCents":4500},"staffMember":{"id":"37ede799-341b-46a9-9ba2-6f7cef5d3b24","name":"Femke de Vries"},"basePriceCents":4500,"totalPriceCents":5000,"depositCents":1000,"currency":"EUR","recurringSeriesId":null,"isRecurringOccurrence":false,"segments":[]}}`

func TestRendersRowsWrittenBeforeTheTypedRecord(t *testing.T) {
	old, err := Render([]byte(legacyRow), "")
	require.NoError(t, err)
	now, err := Render(testRow(testID, model.MailConfirmation, salon, testAppointment(model.Confirmed)), "")
	require.NoError(t, err)
	require.Equal(t, now, old)
}

const testID = "01JGXK4Z3V8N2Q5R7T9W1Y3A5C"

// placeholder matches anything left of a {placeholder} or a template.
var placeholder = regexp.MustCompile(`\{[a-z.]*\}|\{\{|\}\}|%!|<no value>`)

func requireNoPlaceholders(t *testing.T, m Message) {
	t.Helper()
	for what, s := range map[string]string{"subject": m.Subject, "text": m.Text(), "html": m.HTML()} {
		require.False(t, placeholder.MatchString(s), "%s has a placeholder left: %q", what, placeholder.FindString(s))
		for _, key := range []string{"label.", "intro.", "subject.", "status.", "weekday.", "month.", "money"} {
			require.NotContains(t, s, key, "%s shows a locale key", what)
		}
	}
}

func TestRenderKinds(t *testing.T) {
	cases := []struct {
		name, kind string
		status     model.Status
		subject    string
		intro      string
		statusWord string
	}{
		{"confirmation", model.MailConfirmation, model.Confirmed,
			"Your appointment at Salon Anna & Co is confirmed", "Thank you for booking with Salon Anna & Co. Your appointment is confirmed.", "confirmed"},
		{"payment request", model.MailConfirmation, model.PendingPayment,
			"Please complete your payment for your appointment at Salon Anna & Co", "will be confirmed as soon as your payment has been received", "awaiting payment"},
		{"status confirmed", model.MailStatus, model.Confirmed,
			"Your appointment at Salon Anna & Co is confirmed", "Your appointment at Salon Anna & Co is confirmed.", "confirmed"},
		{"status cancelled", model.MailStatus, model.Cancelled,
			"Your appointment at Salon Anna & Co has been cancelled", "has been cancelled", "cancelled"},
		{"status completed", model.MailStatus, model.Completed,
			"Your appointment at Salon Anna & Co has been completed", "Thank you for your visit.", "completed"},
		{"status no-show", model.MailStatus, model.NoShow,
			"Your appointment at Salon Anna & Co was marked as a no-show", "was marked as a no-show", "a no-show"},
		{"status other", model.MailStatus, model.PaymentExpired,
			"Your appointment at Salon Anna & Co is now payment expired", "is now: payment expired.", "payment expired"},
		{"reminder", model.MailReminder, model.Confirmed,
			"Reminder: your appointment at Salon Anna & Co on Monday 5 January 2026, 14:30–15:15 (Europe/Amsterdam)",
			"This is a reminder of your appointment at Salon Anna & Co on Monday 5 January 2026, 14:30–15:15 (Europe/Amsterdam).", "confirmed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Render(testRow(testID, tc.kind, salon, testAppointment(tc.status)), "Bookings <bookings@slotd.example>")
			require.NoError(t, err)
			assert.Equal(t, testID, m.ID)
			assert.Equal(t, "ana@example.com", m.To)
			assert.Equal(t, `"Bookings" <bookings@slotd.example>`, m.From)
			assert.Equal(t, tc.subject, m.Subject)
			assert.True(t, m.Date.Equal(testAt))
			assert.Equal(t, "Europe/Amsterdam", m.Date.Location().String())

			when := "Monday 5 January 2026, 14:30–15:15 (Europe/Amsterdam)"
			for _, want := range []string{"Hello Ana,", tc.intro, when, "Haircut & Styling (45 min)", "Femke de Vries",
				"€50.00", "€10.00", "BK-1042", tc.statusWord} {
				assert.Contains(t, m.Text(), want)
				assert.Contains(t, m.HTML(), htmlEscape(want))
			}
			assert.NotContains(t, m.Text(), "13:30", "times are local, not UTC")
			assert.Contains(t, m.HTML(), "Salon Anna &amp; Co")
			assert.NotContains(t, m.HTML(), "Anna & Co")
			requireNoPlaceholders(t, m)
		})
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func TestRenderGenericKinds(t *testing.T) {
	m, err := Render(testRow(testID, "endpoint_disabled", salon, nil), "")
	require.NoError(t, err)
	assert.Equal(t, "Notification from Salon Anna & Co: a webhook endpoint has been disabled", m.Subject)
	assert.Contains(t, m.Text(), "Hello,\n")
	assert.Contains(t, m.Text(), "a webhook endpoint has been disabled")
	assert.NotContains(t, m.Text(), "Appointment details")
	assert.Equal(t, `"Salon Anna & Co" <slotd@localhost>`, m.From, "no display name configured: the business's")
	requireNoPlaceholders(t, m)

	m, err = Render(testRow(testID, "loyalty_reward_granted", salon, testAppointment(model.Completed)), "")
	require.NoError(t, err)
	assert.Equal(t, "Notification from Salon Anna & Co: loyalty reward granted", m.Subject)
	assert.Contains(t, m.Text(), "Haircut & Styling", "an appointment present is shown")
	requireNoPlaceholders(t, m)
}

func TestRenderTimeZones(t *testing.T) {
	m, err := Render(testRow(testID, model.MailConfirmation, bizInfo{"Shop", "Mars/Olympus_Mons"}, testAppointment(model.Confirmed)), "")
	require.NoError(t, err)
	assert.Contains(t, m.Text(), "Monday 5 January 2026, 13:30–14:15 (UTC)")

	m, err = Render(testRow(testID, model.MailConfirmation, bizInfo{"Shop", ""}, testAppointment(model.Confirmed)), "")
	require.NoError(t, err)
	assert.Contains(t, m.Text(), "13:30–14:15 (UTC)")

	// Summer time, and an appointment that crosses local midnight.
	a := testAppointment(model.Confirmed)
	a.StartTime = time.Date(2026, 7, 3, 21, 30, 0, 0, time.UTC)
	a.EndTime = a.StartTime.Add(90 * time.Minute)
	m, err = Render(testRow(testID, model.MailConfirmation, bizInfo{"Shop", "Europe/Amsterdam"}, a), "")
	require.NoError(t, err)
	assert.Contains(t, m.Text(), "Friday 3 July 2026, 23:30 – Saturday 4 July 2026, 01:00 (Europe/Amsterdam)")
}

func TestRenderOptionalParts(t *testing.T) {
	a := testAppointment(model.Confirmed)
	a.Staff = nil
	a.TotalPriceCents, a.BasePriceCents, a.DepositCents = nil, nil, nil
	a.BookingReference = nil
	a.Service.PriceCents = 0
	m, err := Render(testRow(testID, model.MailConfirmation, salon, a), "")
	require.NoError(t, err)
	assert.NotContains(t, m.Text(), "With:")
	assert.NotContains(t, m.Text(), "Deposit")
	assert.NotContains(t, m.Text(), "Reference")
	assert.Regexp(t, `Price: +free`, m.Text())
	requireNoPlaceholders(t, m)
}

// The manage link (decisions §7) is in a confirmation, pending payment
// or not, and in the message that a payment confirmed the booking; not in
// any message about a booking with nothing left to change.
func TestRenderManageLink(t *testing.T) {
	const link = "https://book.example/manage/0123456789abcdefghijABCDEFGHIJ_-0123456789abcdefghijABCDEFGHIJ"
	for _, c := range []struct {
		kind   string
		status model.Status
		shown  bool
	}{
		{model.MailConfirmation, model.Confirmed, true},
		{model.MailConfirmation, model.PendingPayment, true},
		{model.MailStatus, model.Confirmed, true},
		{model.MailStatus, model.Cancelled, false},
		{model.MailStatus, model.Completed, false},
		{model.MailStatus, model.NoShow, false},
		{model.MailReminder, model.Confirmed, true},
		{model.MailReminder, model.Cancelled, false},
	} {
		r := testMailRow(testID, c.kind, salon, testAppointment(c.status))
		r.ManageURL = link
		m, err := RenderRow(r, "")
		require.NoError(t, err)
		if !c.shown {
			assert.NotContains(t, m.Text(), "/manage/", "%s %s", c.kind, c.status)
			continue
		}
		assert.Contains(t, m.Text(), "To cancel or change your appointment, use this link: "+link, "%s %s", c.kind, c.status)
		assert.Contains(t, m.HTML(), `use this link: <a href="`+link+`" style="color:#1a56a0;">`+link+`</a></p>`,
			"%s %s: a link in the HTML part", c.kind, c.status)
		requireNoPlaceholders(t, m)
	}
}

func TestRenderBadRows(t *testing.T) {
	// Rows in the JSON form (still read, for rows written before the
	// binary form) are easy to damage in every way.
	js, err := json.Marshal(testMailRow(testID, model.MailConfirmation, salon, testAppointment(model.Confirmed)))
	require.NoError(t, err)
	good := string(js)
	cases := map[string]string{
		"not json":         "not json",
		"empty":            "",
		"wrong type":       `{"id":5}`,
		"no id":            strings.Replace(good, testID, "", 1),
		"path in id":       strings.Replace(good, testID, "../../etc/passwd", 1),
		"no recipient":     strings.Replace(good, `"ana@example.com"`, `""`, 1),
		"two recipients":   strings.Replace(good, `"to":"ana@example.com"`, `"to":"a@example.com, b@example.com"`, 1),
		"no appointment":   string(testRow(testID, model.MailStatus, salon, nil)),
		"bad time":         strings.Replace(good, `"at":"`+testAt.Format(time.RFC3339Nano)+`"`, `"at":"yesterday"`, 1),
		"appointment list": strings.Replace(good[:len(good)-1], `"appointment":{`, `"appointment":[{`, 1) + "]}",
	}
	for name, row := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Render([]byte(row), "")
			require.Error(t, err)
			require.ErrorIs(t, err, ErrBadRow)
		})
	}
	_, err = Render([]byte(good), "not an address")
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrBadRow), "a bad sender is configuration, not the row")
}

func TestRenderHeaderInjection(t *testing.T) {
	evil := bizInfo{"Evil\r\nBcc: victim@example.com\r\n\r\nbody", "UTC"}
	a := testAppointment(model.Confirmed)
	a.Service.Name = "Cut\nX-Injected: 1"
	m, err := Render(testRow(testID, model.MailConfirmation, evil, a), "")
	require.NoError(t, err)
	assert.NotContains(t, m.Subject, "\n")
	msg, err := mail.ReadMessage(bytes.NewReader(m.Bytes()))
	require.NoError(t, err)
	assert.Empty(t, msg.Header.Get("Bcc"))
	assert.Empty(t, msg.Header.Get("X-Injected"))
	assert.Equal(t, "Your appointment at Evil Bcc: victim@example.com body is confirmed", decodeHeader(t, msg.Header.Get("Subject")))
}

func TestLocales(t *testing.T) {
	en := locales[DefaultLocale]
	for name, strs := range locales {
		for key := range strs {
			_, ok := en[key]
			assert.True(t, ok, "locale %s has key %s that %s lacks", name, key, DefaultLocale)
		}
	}
	assert.Equal(t, DefaultLocale, localeFor("xx").name)
	// A row naming a locale the table lacks renders in the default one.
	row := strings.Replace(string(testRow(testID, model.MailConfirmation, salon, testAppointment(model.Confirmed))), `{"id":`, `{"locale":"xx","id":`, 1)
	m, err := Render([]byte(row), "")
	require.NoError(t, err)
	assert.Equal(t, "Your appointment at Salon Anna & Co is confirmed", m.Subject)

	// A partial locale falls back to English key by key.
	locales["test"] = map[string]string{"greeting": "Hallo {name},"}
	defer delete(locales, "test")
	l := localeFor("test")
	assert.Equal(t, "Hallo Ana,", l.get("greeting", "name", "Ana"))
	assert.Equal(t, "Kind regards,", l.get("closing"))
	assert.Equal(t, "Hello {name} x,", localeFor("en").get("greeting", "name", "{name} x"), "values are not expanded again")
}

func TestMoney(t *testing.T) {
	l := localeFor("en")
	for _, tc := range []struct {
		cents    int
		currency string
		want     string
	}{
		{0, "EUR", "free"},
		{5, "EUR", "€0.05"},
		{4500, "EUR", "€45.00"},
		{123456789, "eur", "€1,234,567.89"},
		{-1050, "GBP", "-£10.50"},
		{5000, "JPY", "¥5,000"},
		{1234, "KWD", "KWD 1.234"},
		{1250, "CHF", "CHF 12.50"},
		{1250, "", "12.50"},
	} {
		assert.Equal(t, tc.want, money(l, tc.cents, tc.currency), "%d %s", tc.cents, tc.currency)
	}
}

func decodeHeader(t *testing.T, s string) string {
	t.Helper()
	out, err := new(mime.WordDecoder).DecodeHeader(s)
	require.NoError(t, err)
	return out
}

// parsed is a message read back with net/mail and mime/multipart.
type parsed struct {
	header     mail.Header
	text, html string
	partHeader []map[string]string
}

func parseMessage(t *testing.T, raw []byte) parsed {
	t.Helper()
	// Every line ends in CRLF and none is over RFC 5322's hard limit.
	for i, line := range bytes.SplitAfter(raw, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		require.True(t, bytes.HasSuffix(line, []byte("\r\n")), "line %d does not end in CRLF: %q", i, line)
		require.LessOrEqual(t, len(line), 1000, "line %d too long", i)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	require.NoError(t, err)
	p := parsed{header: msg.Header}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/alternative", mt)
	require.Equal(t, "1.0", msg.Header.Get("MIME-Version"))
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		require.Equal(t, "quoted-printable", part.Header.Get("Content-Transfer-Encoding"))
		body, err := io.ReadAll(quotedprintable.NewReader(part))
		require.NoError(t, err)
		ct, cparams, err := mime.ParseMediaType(part.Header.Get("Content-Type"))
		require.NoError(t, err)
		require.Equal(t, "utf-8", cparams["charset"])
		p.partHeader = append(p.partHeader, map[string]string{"type": ct})
		s := strings.ReplaceAll(string(body), "\r\n", "\n")
		switch ct {
		case "text/plain":
			p.text = s
		case "text/html":
			p.html = s
		default:
			t.Fatalf("unexpected part %s", ct)
		}
	}
	require.Len(t, p.partHeader, 2)
	require.Equal(t, "text/plain", p.partHeader[0]["type"], "the plain part comes first, the preferred last")
	return p
}

func TestBytes(t *testing.T) {
	m, err := Render(testRow(testID, model.MailConfirmation, salon, testAppointment(model.Confirmed)), "Bookings <bookings@slotd.example>")
	require.NoError(t, err)
	raw := m.Bytes()
	assert.Equal(t, raw, m.Bytes(), "the encoding is deterministic")
	p := parseMessage(t, raw)

	assert.Equal(t, "<"+testID+"@slotd>", p.header.Get("Message-ID"))
	date, err := p.header.Date()
	require.NoError(t, err)
	assert.True(t, date.Equal(testAt))
	from, err := p.header.AddressList("From")
	require.NoError(t, err)
	assert.Equal(t, []*mail.Address{{Name: "Bookings", Address: "bookings@slotd.example"}}, from)
	to, err := p.header.AddressList("To")
	require.NoError(t, err)
	assert.Equal(t, "ana@example.com", to[0].Address)
	assert.Equal(t, m.Subject, decodeHeader(t, p.header.Get("Subject")))
	assert.Equal(t, m.Text(), p.text)
	assert.Equal(t, m.HTML(), p.html)
}

func TestBytesNonASCIIAndLongHeaders(t *testing.T) {
	biz := bizInfo{"Café Zoë — kapsalon en schoonheidssalon voor het hele gezin, ook op zondag geopend", "Europe/Amsterdam"}
	m, err := Render(testRow(testID, model.MailStatus, biz, testAppointment(model.Cancelled)), "")
	require.NoError(t, err)
	raw := m.Bytes()
	head := raw[:bytes.Index(raw, []byte("\r\n\r\n"))]
	assert.Contains(t, string(head), "=?utf-8?q?")
	for _, line := range strings.Split(string(head), "\r\n") {
		assert.LessOrEqual(t, len(line), 78, "header line %q", line)
		assert.True(t, isASCII(line), "header line %q", line)
	}
	p := parseMessage(t, raw)
	assert.Equal(t, "Your appointment at "+biz.name+" has been cancelled", decodeHeader(t, p.header.Get("Subject")))
	from, err := p.header.AddressList("From")
	require.NoError(t, err)
	assert.Equal(t, biz.name, from[0].Name)
	assert.Equal(t, m.Text(), p.text)
	assert.Contains(t, p.text, "Café Zoë")
}

func TestBytesLongBodyLinesAndDots(t *testing.T) {
	m := newMessage(testID, "a@example.com", "b@example.com", "x",
		strings.Repeat("long line without breaks ", 100)+"\n.\n..leading dots\ntrailing space \n",
		"<p>"+strings.Repeat("é", 500)+"</p>", testAt)
	p := parseMessage(t, m.Bytes())
	assert.Equal(t, m.Text(), p.text)
	assert.Equal(t, m.HTML(), p.html)
}

func TestRenderEndpointDisabled(t *testing.T) {
	r := testMailRow(testID, model.MailEndpointDisabled, salon, nil)
	r.Endpoint = &record.MailEndpoint{ID: "5b0e8c9e-7c1a-4c55-9d1e-2f6f3f0e9a11", URL: "https://crm.example/hooks?a=<b>", ConsecutiveFailures: 10}
	row, err := record.EncodeMailRow(r)
	require.NoError(t, err)
	m, err := Render(row, "")
	require.NoError(t, err)
	assert.Equal(t, "A webhook endpoint of Salon Anna & Co has been disabled", m.Subject)
	assert.Contains(t, m.Text(), "https://crm.example/hooks?a=<b>")
	assert.Contains(t, m.Text(), "after 10 deliveries in a row")
	assert.Contains(t, m.Text(), "PATCH /api/v1/webhooks/5b0e8c9e-7c1a-4c55-9d1e-2f6f3f0e9a11")
	assert.Contains(t, m.HTML(), "hooks?a=&lt;b&gt;", "the URL is escaped in HTML")
	requireNoPlaceholders(t, m)
}

// testOfferID is the hold a waitlist offer is about; the offered slot
// carries it as its id.
const testOfferID = "9c2b7d4e-1f3a-4b5c-8d6e-7f8091a2b3c4"

// testOfferRow is a waitlist_offer row as the business actor writes it:
// the held slot as the appointment (no status, no reference, no total),
// and the hold, which lapses at 09:30:45 UTC.
func testOfferRow(locale string, b bizInfo) *record.MailRow {
	a := testAppointment("")
	a.ID = uuid.MustParse(testOfferID)
	a.BookingReference, a.TotalPriceCents, a.DepositCents = nil, nil, nil
	r := testMailRow(testID, model.MailWaitlistOffer, b, a)
	r.Locale = locale
	r.Offer = &record.MailOffer{HoldID: testOfferID, ExpiresAt: time.Date(2026, 1, 2, 9, 30, 45, 0, time.UTC),
		EntryID: "3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7"}
	return r
}

func renderEncoded(t *testing.T, r *record.MailRow) Message {
	t.Helper()
	row, err := record.EncodeMailRow(r)
	require.NoError(t, err)
	m, err := Render(row, "")
	require.NoError(t, err)
	return m
}

// TestRenderWaitlistOffer renders an offer in every locale of the table:
// a locale added later needs its expectations here.
func TestRenderWaitlistOffer(t *testing.T) {
	type want struct {
		subject, intro, howto, anyone string
		when, expires, kolkata        string // the slot and the deadline in the business's zone
		noStatus                      []string
	}
	wants := map[string]want{
		"en": {
			subject: "A time at Salon Anna & Co has become free for you",
			intro: "Good news: the Haircut & Styling on Monday 5 January 2026, 14:30–15:15 (Europe/Amsterdam) with Femke de Vries " +
				"has become free, and Salon Anna & Co is holding it for you until Friday 2 January 2026, 10:30 (Europe/Amsterdam).",
			howto: "To take it, reply to Salon Anna & Co or book through their booking page before Friday 2 January 2026, 10:30 (Europe/Amsterdam), " +
				"quoting the offer reference below. After that, the time is offered to the next person on the waiting list.",
			anyone:   "Good news: the Haircut & Styling on Monday 5 January 2026, 14:30–15:15 (Europe/Amsterdam) has become free,",
			when:     "Monday 5 January 2026, 14:30–15:15 (Europe/Amsterdam)",
			expires:  "Friday 2 January 2026, 10:30 (Europe/Amsterdam)",
			kolkata:  "Monday 5 January 2026, 19:00–19:45 (Asia/Kolkata)",
			noStatus: []string{"Status", "confirmed"},
		},
	}
	for name := range locales {
		t.Run(name, func(t *testing.T) {
			w, ok := wants[name]
			require.True(t, ok, "no expectations for locale %s", name)
			r := testOfferRow(name, salon)
			r.Appointment.Status = "confirmed" // whatever the actor passes, an offer shows no status
			m := renderEncoded(t, r)
			assert.Equal(t, w.subject, m.Subject)
			assert.True(t, m.Date.Equal(testAt))
			for _, s := range []string{w.intro, w.howto, w.when, w.expires, testOfferID, "Haircut & Styling (45 min)", "Femke de Vries", "€45.00"} {
				assert.Contains(t, m.Text(), s)
				assert.Contains(t, m.HTML(), htmlEscape(s))
			}
			for _, s := range w.noStatus {
				assert.NotContains(t, m.Text(), s, "an offer's slot has no status")
				assert.NotContains(t, m.HTML(), s)
			}
			assert.Regexp(t, localeLabel(name, "label.offer_reference")+`: +`+testOfferID+`\n`, m.Text(), "the hold id is a reference line")
			assert.NotContains(t, m.Text(), "13:30", "times are local, not UTC")
			assert.NotContains(t, m.Text(), "09:30")
			assert.NotContains(t, m.Text(), "3e4f5a6b", "the waitlist entry's id is not for the customer")
			assert.Contains(t, m.HTML(), "Salon Anna &amp; Co")
			assert.NotContains(t, m.HTML(), "Anna & Co")
			requireNoPlaceholders(t, m)

			p := parseMessage(t, m.Bytes())
			assert.Equal(t, m.Subject, decodeHeader(t, p.header.Get("Subject")))
			assert.Equal(t, m.Text(), p.text)
			assert.Equal(t, m.HTML(), p.html)

			// Another zone, 30 minutes off the hour: the slot and the
			// deadline both move.
			m = renderEncoded(t, testOfferRow(name, bizInfo{"Salon Anna & Co", "Asia/Kolkata"}))
			assert.Contains(t, m.Text(), w.kolkata)
			assert.Contains(t, m.Text(), "Friday 2 January 2026, 15:00 (Asia/Kolkata)")
			assert.NotContains(t, m.Text(), "Europe/Amsterdam")

			// Without a staff member the intro names none.
			r = testOfferRow(name, salon)
			r.Appointment.StaffMember = nil
			m = renderEncoded(t, r)
			assert.Contains(t, m.Text(), w.anyone)
			assert.NotContains(t, m.Text(), "Femke")
			requireNoPlaceholders(t, m)
		})
	}
}

// localeLabel is a label of locale name as a regular expression.
func localeLabel(name, key string) string { return regexp.QuoteMeta(localeFor(name).get(key)) }

func TestRenderWaitlistOfferEscapes(t *testing.T) {
	r := testOfferRow("en", salon)
	r.Offer.HoldID = "h<1>\r\nBcc: x@example.com"
	r.Appointment.Service.Name = "Cut & <b>Colour</b>"
	m := renderEncoded(t, r)
	assert.Contains(t, m.Text(), "h<1> Bcc: x@example.com\n")
	assert.Contains(t, m.HTML(), "h&lt;1&gt; Bcc: x@example.com")
	assert.Contains(t, m.HTML(), "Cut &amp; &lt;b&gt;Colour&lt;/b&gt;")
	assert.NotContains(t, m.HTML(), "<b>")
	msg, err := mail.ReadMessage(bytes.NewReader(m.Bytes()))
	require.NoError(t, err)
	assert.Empty(t, msg.Header.Get("Bcc"))
}

// TestRenderWaitlistOfferBadRows: an offer row lacking what it needs is
// refused like a status row without an appointment, in the binary and in
// the JSON form.
func TestRenderWaitlistOfferBadRows(t *testing.T) {
	cases := map[string]func(r *record.MailRow){
		"no offer":                      func(r *record.MailRow) { r.Offer = nil },
		"no appointment":                func(r *record.MailRow) { r.Appointment = nil },
		"neither":                       func(r *record.MailRow) { r.Offer, r.Appointment = nil, nil },
		"appointment without startTime": func(r *record.MailRow) { r.Appointment.StartTime = time.Time{} },
		"offer without holdId":          func(r *record.MailRow) { r.Offer.HoldID = " \n" },
		"offer without expiresAt":       func(r *record.MailRow) { r.Offer.ExpiresAt = time.Time{} },
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			r := testOfferRow("en", salon)
			damage(r)
			bin, err := record.EncodeMailRow(r)
			require.NoError(t, err)
			js, err := json.Marshal(r)
			require.NoError(t, err)
			for form, row := range map[string][]byte{"binary": bin, "json": js} {
				_, err := Render(row, "")
				require.ErrorIs(t, err, ErrBadRow, form)
			}
		})
	}
	// The same row, whole, renders.
	_, err := Render(testRow(testID, model.MailStatus, salon, testAppointment(model.Confirmed)), "")
	require.NoError(t, err)
	renderEncoded(t, testOfferRow("en", salon))
}

// TestFillIsTheReplacer: fill gives what a strings.Replacer of the
// {name}/value pairs gives, on placeholders known and unknown, nested
// braces, values that look like placeholders and keys given twice.
func TestFillIsTheReplacer(t *testing.T) {
	kv := []string{"name", "Ann {business}", "business", "Salon", "name", "second", "", "empty"}
	var pairs []string
	for i := 0; i+1 < len(kv); i += 2 {
		pairs = append(pairs, "{"+kv[i]+"}", kv[i+1])
	}
	r := strings.NewReplacer(pairs...)
	for _, s := range []string{"", "plain", "Hello {name}, welcome to {business}.", "{unknown} {name}", "{a{name}}",
		"{", "}", "{name", "name}", "{}", "{{business}}", "{business}{business}", "x{business", "é{name}ü"} {
		require.Equal(t, r.Replace(s), fill(s, kv), "%q", s)
	}
}

// BenchmarkLocaleGet: a greeting filled per message.
func BenchmarkLocaleGet(b *testing.B) {
	l := localeFor("en")
	b.ReportAllocs()
	for b.Loop() {
		_ = l.get("footer", "business", "Salon Aurora")
	}
}

// BenchmarkRender: one confirmation e-mail rendered from its outbox row
// (issue 22 asks for at most 10 µs).
func BenchmarkRender(b *testing.B) {
	row := testRow(testID, model.MailConfirmation, salon, testAppointment(model.Confirmed))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(row, "Bookings <bookings@slotd.example>"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderRow: the same from the row as the business actor hands
// it to the mailer, decoded.
func BenchmarkRenderRow(b *testing.B) {
	row := testMailRow(testID, model.MailConfirmation, salon, testAppointment(model.Confirmed))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RenderRow(row, "Bookings <bookings@slotd.example>"); err != nil {
			b.Fatal(err)
		}
	}
}

// escapeTo and oneLine's fast path give what their long forms give.
func TestEscapeToAndOneLineShortcuts(t *testing.T) {
	for _, s := range []string{"", "plain", `<a href="x">Tom & 'Jerry'</a>`, "&&", "é<", "  two  spaces ", "tab\there",
		"line\nbreak", "a b", " lead", "trail ", "Zoë  Saldaña", "\x7f", "x\u00a0y"} {
		var b strings.Builder
		escapeTo(&b, s)
		assert.Equal(t, html.EscapeString(s), b.String(), "%q", s)
		slow := strings.Join(strings.Fields(strings.Map(func(r rune) rune {
			if unicode.IsControl(r) || r == utf8.RuneError {
				return ' '
			}
			return r
		}, s)), " ")
		assert.Equal(t, slow, oneLine(s), "%q", s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("<>&'\"ab é\x00\xff")
	for range 2000 {
		raw := make([]byte, rng.IntN(24))
		for i := range raw {
			raw[i] = alphabet[rng.IntN(len(alphabet))]
		}
		var b strings.Builder
		escapeTo(&b, string(raw))
		require.Equal(t, html.EscapeString(string(raw)), b.String(), "%q", raw)
	}
}

func TestReference(t *testing.T) {
	for raw, want := range map[string]string{
		``: "", `"BK-1042"`: "BK-1042", `"a \"quoted\" one"`: `a "quoted" one`, `"two  spaces"`: "two spaces",
		`"caf\u00e9"`: "café", `"café"`: "café", `42`: "42", `1.5e3`: "1.5e3", `null`: "", `{}`: "",
	} {
		assert.Equal(t, want, reference(json.RawMessage(raw)), "%s", raw)
	}
}

// BenchmarkMboxEntry: what the drainer spends on one confirmation without
// --smtp, short of the write and sync: rendering its row and encoding the
// message as a mailbox entry.
func BenchmarkMboxEntry(b *testing.B) {
	row := testMailRow(testID, model.MailConfirmation, salon, testAppointment(model.Confirmed))
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		m, err := RenderRow(row, "Bookings <bookings@slotd.example>")
		if err != nil {
			b.Fatal(err)
		}
		buf = appendMboxrd(buf[:0], m)
	}
}

// TestRenderRowIsRenderOfItsBytes: the message of a row as its writer
// built it is the message of the row as stored, for every kind and a
// business with a name to clean, whether a first try renders the one or a
// retry the other.
func TestRenderRowIsRenderOfItsBytes(t *testing.T) {
	messy := bizInfo{name: "  Salon\tAnna  & Co ", tz: "America/New_York"}
	for _, kind := range []string{model.MailConfirmation, model.MailStatus, "some_new_kind"} {
		for _, status := range []model.Status{model.Confirmed, model.PendingPayment, model.Cancelled} {
			for _, b := range []bizInfo{salon, messy} {
				r := testMailRow(testID, kind, b, testAppointment(status))
				r.At = r.At.Add(123456789 * time.Nanosecond) // finer than the stored form
				row, err := record.EncodeMailRow(r)
				require.NoError(t, err)
				before := *r
				fromRow, err := RenderRow(r, "Bookings <bookings@slotd.example>")
				require.NoError(t, err)
				require.Equal(t, before, *r, "RenderRow leaves its row alone")
				fromBytes, err := Render(row, "Bookings <bookings@slotd.example>")
				require.NoError(t, err)
				require.Equal(t, string(fromBytes.Bytes()), string(fromRow.Bytes()), "%s %s %q", kind, status, b.name)
			}
		}
	}
	_, err := RenderRow(&record.MailRow{ID: "bad id", Kind: model.MailConfirmation}, "")
	require.ErrorIs(t, err, ErrBadRow)
}

// The HTML part links the payment's checkout, escaped as an attribute.
func TestRenderPayLinkIsALink(t *testing.T) {
	r := testMailRow(testID, model.MailConfirmation, salon, testAppointment(model.PendingPayment))
	r.Payment = &record.MailPayment{AmountCents: 5000, Currency: "EUR", CheckoutURL: "https://pay.example/c?x=1&y=2"}
	m, err := RenderRow(r, "")
	require.NoError(t, err)
	assert.Contains(t, m.Text(), "Pay securely here: https://pay.example/c?x=1&y=2")
	assert.Contains(t, m.HTML(), `Pay securely here: <a href="https://pay.example/c?x=1&amp;y=2" style="color:#1a56a0;">https://pay.example/c?x=1&amp;y=2</a></p>`)
}
