package mail

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// The mail kinds are model.MailKinds; any other kind is accepted and
// gets a generic message. A waitlist offer's row carries the held slot as
// the appointment (whose status is not shown) and the hold as the offer;
// a row lacking either is refused.

// DefaultFrom is the sender address used when none is configured
// (--smtp-from empty). It is fine for DATA/outbox files; a real SMTP relay
// will usually want --smtp-from.
const DefaultFrom = "slotd@localhost"

// ErrBadRow wraps every Render error caused by the row itself: it is not
// JSON of the expected shape, or lacks what its kind needs. Such a row will
// never render, so the Drainer drops it instead of retrying.
var ErrBadRow = errors.New("mail: bad outbox row")

// Message is one e-mail, ready to be encoded by Bytes.
type Message struct {
	ID      string // the outbox row's id; also the Message-ID, <ID@slotd>
	To      string // bare address, e.g. ana@example.com
	From    string // header form, e.g. "Salon" <bookings@example.com>
	Subject string
	Date    time.Time

	// The body (Text and HTML) is a skeleton filled with vals: shared by
	// the messages of one kind (skeleton.go), or of this message alone.
	body *skeleton
	vals values
}

// newMessage is a message with the given bodies, written as they are.
func newMessage(id, to, from, subject, text, html string, date time.Time) Message {
	return Message{ID: id, To: to, From: from, Subject: subject, Date: date, body: plainBody(subject, text, html)}
}

// maxIDLen bounds a row id: it names a file and goes into Message-ID.
const maxIDLen = 100

// validID reports whether id is safe as a file name and inside a
// Message-ID: letters, digits, '-' and '_' (a ULID is 26 of them).
func validID(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Render builds the message of an outbox row. from is the configured
// sender (--smtp-from; "" means DefaultFrom); when it has no display name,
// the business's name is used, so customers see who is writing. Times are
// shown in the business's time zone (UTC when it does not load).
//
// Errors caused by the row wrap ErrBadRow; an unparseable from does not.
func Render(rowJSON []byte, from string) (Message, error) {
	if _, err := parseFrom(from); err != nil {
		return Message{}, err
	}
	r, err := record.DecodeMailRow(rowJSON)
	if err != nil {
		return Message{}, fmt.Errorf("%w: %v", ErrBadRow, err)
	}
	return RenderRow(r, from)
}

// RenderRow is Render of a row as its writer built it, before it was
// encoded: the message is the same (TestRenderRowIsRenderOfItsBytes), and
// the mailer skips decoding what the business actor handed it. r is not
// modified.
func RenderRow(orig *record.MailRow, from string) (Message, error) {
	return renderRow(orig, from, true)
}

// renderRow is RenderRow; fast false composes the message from its
// strings up even when its kind has a skeleton, as a test compares.
func renderRow(orig *record.MailRow, from string, fast bool) (Message, error) {
	sender, err := parseFrom(from)
	if err != nil {
		return Message{}, err
	}
	row := *orig // the business name is cleaned below
	r := &row
	if !validID(r.ID) {
		return Message{}, fmt.Errorf("%w: id %q is not letters, digits, - and _", ErrBadRow, r.ID)
	}
	to := &mail.Address{Address: r.To}
	if !plainAddress(r.To) {
		if to, err = mail.ParseAddress(r.To); err != nil {
			return Message{}, fmt.Errorf("%w: the recipient is not an address", ErrBadRow)
		}
	}
	if needsAppointment(r.Kind) {
		if r.Appointment == nil {
			return Message{}, fmt.Errorf("%w: kind %s without an appointment", ErrBadRow, r.Kind)
		}
		if r.Appointment.StartTime.IsZero() {
			return Message{}, fmt.Errorf("%w: appointment without startTime", ErrBadRow)
		}
	}
	if r.Kind == model.MailWaitlistOffer {
		switch {
		case r.Offer == nil:
			return Message{}, fmt.Errorf("%w: kind %s without an offer", ErrBadRow, r.Kind)
		case oneLine(r.Offer.HoldID) == "":
			return Message{}, fmt.Errorf("%w: offer without holdId", ErrBadRow)
		case r.Offer.ExpiresAt.IsZero():
			return Message{}, fmt.Errorf("%w: offer without expiresAt", ErrBadRow)
		}
	}

	r.Business.Name = oneLine(r.Business.Name)
	if r.Business.Name == "" {
		r.Business.Name = "slotd"
	}
	if sender.Name == "" {
		sender.Name = r.Business.Name
	}
	loc := loadZone(r.Business.Timezone)
	l := localeFor(r.Locale)
	m := Message{
		ID:   r.ID,
		To:   to.Address,
		From: senderHeaders.get([2]string{sender.Name, sender.Address}),
		Date: r.At,
		vals: valuesOf(r, l, loc),
	}
	if !m.Date.IsZero() {
		m.Date = m.Date.In(loc)
	}
	if fast {
		m.body = skeletonOf(r, l, &m.vals)
	}
	if m.body == nil {
		d := compose(r, l, loc, &m.vals)
		m.body = plainBody(d.subject, d.text(), d.html())
	}
	m.Subject = m.body.subject.String(&m.vals)
	return m, nil
}

// CheckFrom reports whether from is usable as the sender (--smtp-from): an
// RFC 5322 address, optionally with a display name; empty means DefaultFrom.
func CheckFrom(from string) error {
	_, err := parseFrom(from)
	return err
}

// parseFrom parses the sender address; each call gets its own copy.
func parseFrom(from string) (*mail.Address, error) {
	if p := lastFrom.Load(); p != nil && p.raw == from {
		a := p.addr
		return &a, nil
	}
	raw := from
	if strings.TrimSpace(from) == "" {
		from = DefaultFrom
	}
	a, err := mail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("mail: sender address %q: %w", from, err)
	}
	lastFrom.Store(&parsedFrom{raw: raw, addr: *a})
	return a, nil
}

// senderHeaders is the header form of a sender, by its name and address:
// the name is the business's, so net/mail's String would otherwise run
// once per message for the same few answers.
var senderHeaders = newMemo(func(key [2]string) string {
	return (&mail.Address{Name: key[0], Address: key[1]}).String()
})

// lastFrom is parseFrom's last answer: a server has one sender address,
// and parsing it for every message cost 13 of a confirmation's 113
// allocations.
var lastFrom atomic.Pointer[parsedFrom]

type parsedFrom struct {
	raw  string
	addr mail.Address
}

// ManageLinked reports whether a message about r shows the customer's
// manage link: a confirmation, a status change to confirmed (a payment
// arrived), and a reminder of a confirmed appointment. A cancelled or completed booking has nothing left
// to change, and a waitlist offer is not a booking yet.
func ManageLinked(r *record.MailRow) bool {
	if r.Appointment == nil {
		return false
	}
	switch r.Kind {
	case model.MailConfirmation:
		return true
	case model.MailStatus, model.MailReminder:
		return r.Appointment.Status == string(model.Confirmed)
	}
	return false
}

func needsAppointment(kind string) bool {
	return kind == model.MailConfirmation || kind == model.MailStatus || kind == model.MailWaitlistOffer || kind == model.MailReminder ||
		kind == model.MailSeriesConfirmation || kind == model.MailSeriesCancelled ||
		kind == model.MailBasketConfirmation || kind == model.MailBasketCancelled
}

func loadZone(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	loc, err := model.Zone(name) // remembered: LoadLocation parses the zone's data each time
	if err != nil {
		return time.UTC
	}
	return loc
}

// oneLine makes s safe for a header and a single line of text: control
// characters (line breaks included) become spaces, and runs of spaces
// collapse.
func oneLine(s string) string {
	if isOneLine(s) {
		return s // nearly always: no copy
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// isOneLine reports whether oneLine would return s unchanged, judging
// printable ASCII only (anything else takes oneLine's long way).
func isOneLine(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == ' ' && s[i-1] == ' ' {
			return false
		}
	}
	return true
}

// document is a message before it is written as text or HTML.
type document struct {
	lang     string
	subject  string
	greeting string
	paras    []string
	// links are the paragraphs that carry a URL (a value or its hole),
	// by index in paras, which the HTML part makes a link. Those
	// paragraphs' sentences hold no other value.
	links   map[int]string
	title   string      // heading of details; "" when there are none
	details [][2]string // label, value
	closing []string    // lines
	footer  string
}

// The values of a message: what it says that changes from one message to
// the next of the same kind, status and language. compose takes them
// apart from the row so that a skeleton (skeleton.go) can be composed once
// with a hole in place of each.
const (
	valBusiness  = iota // the business's name, cleaned
	valName             // the customer's first name; "" greets no one by name
	valWhen             // the appointment's date and times
	valService          // its service, with the duration
	valStaff            // who it is with
	valPrice            // its price
	valDeposit          // its deposit; "" when there is none
	valReference        // its booking reference
	valAmount           // a payment request's amount
	valPayURL           // its checkout link; "" when it has none
	valManageURL        // the customer's manage link; "" when there is none
	numValues
)

type values [numValues]string

// valuesOf computes the values of r in language l and zone loc.
func valuesOf(r *record.MailRow, l locale, loc *time.Location) values {
	var v values
	v[valBusiness] = r.Business.Name
	if a := r.Appointment; a != nil {
		v[valName] = oneLine(a.Customer.FirstName)
		if !a.StartTime.IsZero() {
			appointmentValues(&v, l, a, loc)
		}
	}
	if p := r.Payment; p != nil {
		v[valAmount] = money(l, p.AmountCents, p.Currency)
		v[valPayURL] = oneLine(p.CheckoutURL)
	}
	if ManageLinked(r) {
		v[valManageURL] = oneLine(r.ManageURL)
	}
	return v
}

func appointmentValues(v *values, l locale, a *record.MailAppointment, loc *time.Location) {
	v[valWhen] = when(l, a.StartTime, a.EndTime, loc)
	service := oneLine(a.Service.Name)
	if service != "" && a.Service.DurationMinutes > 0 {
		service = l.get("duration", "service", service, "minutes", strconv.Itoa(a.Service.DurationMinutes))
	}
	v[valService] = service
	if a.StaffMember != nil {
		v[valStaff] = oneLine(a.StaffMember.Name)
	}
	price := a.Service.PriceCents
	if a.TotalPriceCents != nil {
		price = *a.TotalPriceCents
	} else if a.BasePriceCents != nil {
		price = *a.BasePriceCents
	}
	v[valPrice] = money(l, price, a.Currency)
	if a.DepositCents != nil && *a.DepositCents > 0 {
		v[valDeposit] = money(l, *a.DepositCents, a.Currency)
	}
	v[valReference] = reference(a.BookingReference)
}

// compose builds the document of r from its values v. Of r it reads only
// what a skeleton's key holds (kind, status, whether there is a payment
// request) and, for the kinds that have no skeleton, their own parts.
func compose(r *record.MailRow, l locale, loc *time.Location, v *values) *document {
	biz := v[valBusiness]
	d := &document{lang: l.name, closing: []string{l.get("closing"), biz}}
	d.footer = l.get("footer", "business", biz)
	if name := v[valName]; name != "" {
		d.greeting = l.get("greeting", "name", name)
	} else {
		d.greeting = l.get("greeting.anonymous")
	}

	a := r.Appointment
	status := statusOf(r)
	words := statusWords(l, status)
	switch {
	case r.Kind == model.MailConfirmation && status == string(model.PendingPayment):
		d.subject = l.get("subject.pending_payment", "business", biz)
		d.paras = append(d.paras, l.get("intro.pending_payment", "business", biz))
		if r.Payment != nil {
			d.paras = append(d.paras, paymentParas(l, v)...)
			if u := v[valPayURL]; u != "" {
				d.linkLast(u) // paymentParas ends with the checkout's
			}
		}
	case r.Kind == model.MailConfirmation:
		d.subject = l.get("subject.confirmed", "business", biz)
		d.paras = append(d.paras, l.get("intro.booking", "business", biz))
	case r.Kind == model.MailStatus && l.has("subject."+status) && l.has("intro."+status):
		d.subject = l.get("subject."+status, "business", biz)
		d.paras = append(d.paras, l.get("intro."+status, "business", biz))
	case r.Kind == model.MailStatus:
		d.subject = l.get("subject.status", "business", biz, "status", words)
		d.paras = append(d.paras, l.get("intro.status", "business", biz, "status", words))
	case (r.Kind == model.MailSeriesConfirmation || r.Kind == model.MailSeriesCancelled) && len(r.Dates) > 0:
		// A series (decisions §11): one message listing every date.
		key := "series"
		if r.Kind == model.MailSeriesCancelled {
			key = "series_cancelled"
		}
		d.subject = l.get("subject."+key, "business", biz, "count", strconv.Itoa(len(r.Dates)))
		d.paras = append(d.paras, l.get("intro."+key, "business", biz))
		for _, x := range r.Dates {
			if u := oneLine(x.ManageURL); u != "" {
				d.paras = append(d.paras, l.get("series.date.link", "when", moment(l, x.StartTime, loc), "url", u))
				continue
			}
			d.paras = append(d.paras, l.get("series.date", "when", moment(l, x.StartTime, loc)))
		}
	case (r.Kind == model.MailBasketConfirmation || r.Kind == model.MailBasketCancelled) && len(r.Dates) > 0:
		// A basket (decisions §11): one message listing every service.
		key := "basket"
		if r.Kind == model.MailBasketCancelled {
			key = "basket_cancelled"
		}
		d.subject = l.get("subject."+key, "business", biz, "count", strconv.Itoa(len(r.Dates)))
		d.paras = append(d.paras, l.get("intro."+key, "business", biz))
		for _, x := range r.Dates {
			item := l.get("basket.item", "service", oneLine(x.Service), "when", when(l, x.StartTime, x.EndTime, loc))
			if staff := oneLine(x.Staff); staff != "" {
				item = l.get("basket.item.staff", "service", oneLine(x.Service), "when", when(l, x.StartTime, x.EndTime, loc), "staff", staff)
			}
			if u := oneLine(x.ManageURL); u != "" {
				item = l.get("basket.item.link", "item", item, "url", u)
			}
			d.paras = append(d.paras, item)
		}
	case r.Kind == model.MailReminder:
		d.subject = l.get("subject.reminder", "business", biz, "when", v[valWhen])
		d.paras = append(d.paras, l.get("intro.reminder", "business", biz, "when", v[valWhen]))
	case r.Kind == model.MailEndpointDisabled && r.Endpoint != nil:
		d.subject = l.get("subject.endpoint_disabled", "business", biz)
		d.paras = append(d.paras,
			l.get("intro.endpoint_disabled", "business", biz, "url", oneLine(r.Endpoint.URL),
				"failures", strconv.Itoa(r.Endpoint.ConsecutiveFailures)),
			l.get("howto.endpoint_disabled", "id", oneLine(r.Endpoint.ID)))
	case r.Kind == model.MailWaitlistOffer && r.Offer != nil && a != nil:
		expires := moment(l, r.Offer.ExpiresAt, loc)
		d.subject = l.get("subject.waitlist_offer", "business", biz)
		d.paras = append(d.paras, offerIntro(l, biz, a, loc, expires),
			l.get("howto.waitlist_offer", "business", biz, "expires", expires))
	default:
		kind := oneLine(strings.ReplaceAll(r.Kind, "_", " "))
		if l.has("kind." + r.Kind) {
			kind = l.get("kind." + r.Kind)
		}
		if kind == "" {
			kind = "notification"
		}
		d.subject = l.get("subject.generic", "business", biz, "kind", kind)
		d.paras = append(d.paras, l.get("intro.generic", "business", biz, "kind", kind))
	}

	if u := v[valManageURL]; u != "" {
		d.paras = append(d.paras, l.get("manage.link", "url", u))
		d.linkLast(u)
	}
	if a != nil && !a.StartTime.IsZero() {
		d.title = l.get("details")
		d.details = appointmentDetails(l, v, words)
		if r.Kind == model.MailWaitlistOffer && r.Offer != nil {
			d.title = l.get("details.waitlist_offer")
			d.details = append(d.details,
				[2]string{l.get("label.held_until"), moment(l, r.Offer.ExpiresAt, loc)},
				[2]string{l.get("label.offer_reference"), oneLine(r.Offer.HoldID)})
		}
	}
	return d
}

// statusOf is the status a message about r reports: its appointment's,
// except for a waitlist offer, whose held slot has no status of its own.
func statusOf(r *record.MailRow) string {
	if r.Appointment == nil || r.Kind == model.MailWaitlistOffer {
		return ""
	}
	return r.Appointment.Status
}

// offerIntro tells the customer of a waitlist entry which time has become
// free and until when it is held for them.
func offerIntro(l locale, biz string, a *record.MailAppointment, loc *time.Location, expires string) string {
	service := oneLine(a.Service.Name)
	if service == "" {
		service = l.get("offer.service")
	}
	kv := []string{"business", biz, "service", service, "when", when(l, a.StartTime, a.EndTime, loc), "expires", expires}
	if a.StaffMember != nil {
		if staff := oneLine(a.StaffMember.Name); staff != "" {
			return l.get("intro.waitlist_offer", append(kv, "staff", staff)...)
		}
	}
	return l.get("intro.waitlist_offer.anyone", kv...)
}

// paymentParas are a payment request's amount and what to pay with: the
// checkout link of a redirect provider, or (a client-secret provider takes
// payment on the integrator's own page) a pointer back to that page.
func paymentParas(l locale, v *values) []string {
	out := []string{l.get("pay.amount", "amount", v[valAmount])}
	if u := v[valPayURL]; u != "" {
		return append(out, l.get("pay.link", "url", u))
	}
	return append(out, l.get("pay.instructions"))
}

func statusWords(l locale, status string) string {
	if status == "" {
		return ""
	}
	if l.has("status." + status) {
		return l.get("status." + status)
	}
	return oneLine(strings.ReplaceAll(status, "_", " "))
}

// appointmentDetails are the labelled lines of an appointment's details,
// those with a value.
func appointmentDetails(l locale, v *values, status string) [][2]string {
	rows := make([][2]string, 0, 7)
	add := func(labelKey, value string) {
		if value != "" {
			rows = append(rows, [2]string{l.get(labelKey), value})
		}
	}
	add("label.when", v[valWhen])
	add("label.service", v[valService])
	add("label.staff", v[valStaff])
	add("label.price", v[valPrice])
	add("label.deposit", v[valDeposit])
	add("label.status", status)
	add("label.reference", v[valReference])
	return rows
}

func reference(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	// The usual reference, a JSON string without escapes, needs no
	// decoder.
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexAny(raw[1:n-1], "\\\"") < 0 && utf8.Valid(raw) {
		return oneLine(string(raw[1 : n-1]))
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return oneLine(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// when formats start and end in loc: a date and a time range, or two
// dates and times when the appointment crosses midnight.
func when(l locale, start, end time.Time, loc *time.Location) string {
	start = start.In(loc)
	zone := loc.String()
	if end.IsZero() || end.Before(start) {
		end = start
	}
	end = end.In(loc)
	sy, sm, sd := start.Date()
	ey, em, ed := end.Date()
	if sy == ey && sm == em && sd == ed {
		return l.get("when", "date", date(l, start), "start", timeOfDay(l, start), "end", timeOfDay(l, end), "zone", zone)
	}
	return l.get("when.multiday", "date", date(l, start), "start", timeOfDay(l, start),
		"enddate", date(l, end), "end", timeOfDay(l, end), "zone", zone)
}

// moment formats one instant in loc, like when does a start: to the
// minute, the seconds dropped (so a deadline shown is never later than
// the real one).
func moment(l locale, t time.Time, loc *time.Location) string {
	t = t.In(loc)
	return l.get("moment", "date", date(l, t), "time", timeOfDay(l, t), "zone", loc.String())
}

// date writes t's date the locale's way: "Monday 5 January 2026".
func date(l locale, t time.Time) string {
	y, m, d := t.Date()
	if y < 1 || y > 9999 { // not a key that reads back
		return formatDate(l, t)
	}
	return calendarWords.get(calendarKey{l.name, 'd', int32(y*10000 + int(m)*100 + d)})
}

func formatDate(l locale, t time.Time) string {
	return l.get("date",
		"weekday", l.get(weekdayKeys[t.Weekday()]),
		"day", strconv.Itoa(t.Day()),
		"month", l.get(monthKeys[t.Month()]),
		"year", strconv.Itoa(t.Year()))
}

// The locale keys of weekdays and months, built once.
var weekdayKeys, monthKeys = keys("weekday.", 0, 6), keys("month.", 0, 12)

func keys(prefix string, from, to int) []string {
	out := make([]string, to+1)
	for i := from; i <= to; i++ {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// timeOfDay writes t's hour and minute the locale's way: "14:30".
func timeOfDay(l locale, t time.Time) string {
	h, m, _ := t.Clock()
	return calendarWords.get(calendarKey{l.name, 't', int32(h*60 + m)})
}

// calendarWords remembers the days (kind 'd', n = yyyymmdd) and times of
// day (kind 't', n = minutes since midnight) written in a locale: the
// messages of a day name the same few over and over, and writing one from
// the locale's strings took a third of a confirmation's values.
var calendarWords = newMemo(func(k calendarKey) string {
	l := localeFor(k.locale)
	if k.kind == 'd' {
		n := int(k.n)
		return formatDate(l, time.Date(n/10000, time.Month(n/100%100), n%100, 12, 0, 0, 0, time.UTC))
	}
	return l.get("time", "hour", twoDigits(int(k.n)/60), "minute", twoDigits(int(k.n)%60))
})

type calendarKey struct {
	locale string
	kind   byte
	n      int32
}

// twoDigits formats 0 ≤ n < 100 with a leading zero, without fmt.
func twoDigits(n int) string {
	const digits = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
	if n < 0 || n > 99 {
		return fmt.Sprintf("%02d", n)
	}
	return digits[2*n : 2*n+2]
}

// currencySymbols are the symbols shown instead of the ISO code; the others
// are written with their code.
var currencySymbols = map[string]string{"EUR": "€", "GBP": "£", "USD": "$", "JPY": "¥"}

// minorDigits is the ISO 4217 exponent of the currencies that do not have
// two decimals; amounts are always in minor units ("cents").
var minorDigits = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0,
	"PYG": 0, "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
}

// money formats an amount of minor units of currency.
func money(l locale, cents int, currency string) string {
	if cents == 0 {
		return l.get("money.free")
	}
	currency = strings.ToUpper(oneLine(currency))
	digits, ok := minorDigits[currency]
	if !ok {
		digits = 2
	}
	neg := cents < 0
	if neg {
		cents = -cents
	}
	pow := 1
	for range digits {
		pow *= 10
	}
	var digitsBuf, buf [24]byte
	whole := strconv.AppendInt(digitsBuf[:0], int64(cents/pow), 10)
	group := l.get("number.group")
	b := buf[:0]
	for i, c := range whole { // ASCII digits
		if i > 0 && (len(whole)-i)%3 == 0 {
			b = append(b, group...)
		}
		b = append(b, c)
	}
	if digits > 0 {
		b = append(b, l.get("number.decimal")...)
		minor := strconv.AppendInt(digitsBuf[:0], int64(cents%pow+pow), 10) // pow's leading 1 pads with zeros
		b = append(b, minor[1:]...)
	}
	amount := string(b)
	sign := ""
	if neg {
		sign = "-"
	}
	if sym, ok := currencySymbols[currency]; ok {
		return sign + l.get("money", "symbol", sym, "amount", amount)
	}
	if currency == "" {
		return sign + amount
	}
	return sign + l.get("money.code", "code", currency, "amount", amount)
}

// text writes the plain-text body.
func (d *document) text() string {
	var b strings.Builder
	b.Grow(1024)
	b.WriteString(d.greeting)
	b.WriteString("\n\n")
	for _, p := range d.paras {
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	if d.title != "" {
		b.WriteString(d.title)
		b.WriteString("\n")
		width := 0
		for _, kv := range d.details {
			width = max(width, utf8.RuneCountInString(kv[0]))
		}
		for _, kv := range d.details {
			b.WriteString("  ")
			b.WriteString(kv[0])
			b.WriteString(":")
			b.WriteString(strings.Repeat(" ", width-utf8.RuneCountInString(kv[0])+1))
			b.WriteString(kv[1])
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	for _, line := range d.closing {
		b.WriteString(line)
		b.WriteString("\n")
	}
	b.WriteString("\n-- \n")
	b.WriteString(d.footer)
	b.WriteString("\n")
	return b.String()
}

// html writes the HTML body: simple markup with inline styles, which is
// what mail clients render reliably.
func (d *document) html() string {
	var b strings.Builder
	b.Grow(2048)
	e := func(s string) { escapeTo(&b, s) }
	b.WriteString("<!DOCTYPE html>\n<html lang=\"")
	e(d.lang)
	b.WriteString("\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>")
	e(d.subject)
	b.WriteString("</title>\n</head>\n")
	b.WriteString("<body style=\"margin:0;padding:24px;font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#222;\">\n")
	b.WriteString("<p>")
	e(d.greeting)
	b.WriteString("</p>\n")
	for i, p := range d.paras {
		b.WriteString("<p>")
		linked(&b, p, d.links[i])
		b.WriteString("</p>\n")
	}
	if d.title != "" {
		b.WriteString("<h2 style=\"font-size:17px;margin:24px 0 8px;\">")
		e(d.title)
		b.WriteString("</h2>\n")
		b.WriteString("<table role=\"presentation\" style=\"border-collapse:collapse;\">\n")
		for _, kv := range d.details {
			b.WriteString("<tr><th style=\"text-align:left;vertical-align:top;padding:4px 16px 4px 0;font-weight:600;\">")
			e(kv[0])
			b.WriteString("</th><td style=\"padding:4px 0;\">")
			e(kv[1])
			b.WriteString("</td></tr>\n")
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("<p>")
	for i, line := range d.closing {
		if i > 0 {
			b.WriteString("<br>\n")
		}
		e(line)
	}
	b.WriteString("</p>\n")
	b.WriteString("<hr style=\"border:none;border-top:1px solid #ddd;margin:24px 0 12px;\">\n")
	b.WriteString("<p style=\"font-size:12px;color:#777;\">")
	e(d.footer)
	b.WriteString("</p>\n")
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// linkLast marks the last paragraph as carrying u.
func (d *document) linkLast(u string) {
	if d.links == nil {
		d.links = map[int]string{}
	}
	d.links[len(d.paras)-1] = u
}

// linked writes paragraph p escaped, with u in it ("" none) as a link to
// itself: a customer taps the manage or payment link rather than copy it.
func linked(b *strings.Builder, p, u string) {
	before, after, ok := strings.Cut(p, u)
	if u == "" || !ok {
		escapeTo(b, p)
		return
	}
	escapeTo(b, before)
	b.WriteString(`<a href="`)
	escapeTo(b, u)
	b.WriteString(`" style="color:#1a56a0;">`)
	escapeTo(b, u)
	b.WriteString("</a>")
	escapeTo(b, after)
}

// escapeTo writes s to b escaped as html.EscapeString does, without
// building the escaped string first. It looks each byte up in a table:
// strings.IndexAny built its set on every call and was a third of the
// HTML body's cost in a booking storm.
func escapeTo(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		rep := htmlEscapes[s[i]]
		if rep == "" {
			continue
		}
		b.WriteString(s[start:i])
		b.WriteString(rep)
		start = i + 1
	}
	b.WriteString(s[start:])
}

// htmlEscapes holds html.EscapeString's replacement of each byte it
// escapes; "" for every other byte.
var htmlEscapes = [256]string{'<': "&lt;", '>': "&gt;", '&': "&amp;", '\'': "&#39;", '"': "&#34;"}
