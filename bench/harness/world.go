package main

import (
	"bufio"
	"encoding/hex"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// The world file (decisions §2) is streamed out record by record through a
// buffer: the million-appointment world is half a gigabyte, and building
// it in memory first would make the harness, which shares the machine with
// slotd, the bigger process of the two.

// maxLimit is the largest per-key quota a world file accepts: high enough
// that no quota ever refuses a benchmark request.
const maxLimit = 1<<31 - 1

var scopes = []string{
	"appointments:read", "appointments:write", "services:read", "staff:read",
	"webhooks:manage", "customers:read", "customers:write",
}

var weekdays = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// writeWorldFile writes l's world to path and returns its size.
func writeWorldFile(path string, l *layout) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	cw := &countingWriter{w: f}
	err = writeWorld(cw, l)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// worldWriter appends JSON to a scratch buffer and hands it to a
// bufio.Writer; the first error sticks and ends the output.
type worldWriter struct {
	out *bufio.Writer
	buf []byte
	l   *layout
	err error
}

func writeWorld(w io.Writer, l *layout) error {
	ww := &worldWriter{out: bufio.NewWriterSize(w, 1<<20), l: l}
	ww.raw(`{"businesses":[`)
	for b := range l.Businesses {
		if b > 0 {
			ww.raw(",\n")
		}
		ww.business(b)
		if ww.err != nil {
			return ww.err
		}
	}
	ww.raw("]}\n")
	if ww.err == nil {
		_, ww.err = ww.out.Write(ww.buf)
	}
	if ww.err != nil {
		return ww.err
	}
	return ww.out.Flush()
}

func (ww *worldWriter) raw(s string) { ww.buf = append(ww.buf, s...); ww.flush() }

// flush hands the scratch buffer over once it holds a few kilobytes.
func (ww *worldWriter) flush() {
	if len(ww.buf) < 16<<10 || ww.err != nil {
		return
	}
	_, ww.err = ww.out.Write(ww.buf)
	ww.buf = ww.buf[:0]
}

func (ww *worldWriter) key(k string) {
	ww.buf = append(ww.buf, '"')
	ww.buf = append(ww.buf, k...)
	ww.buf = append(ww.buf, `":`...)
}

// str appends a JSON string. The harness writes only ASCII letters,
// digits and punctuation that need no escaping.
func (ww *worldWriter) str(s string) {
	ww.buf = append(ww.buf, '"')
	ww.buf = append(ww.buf, s...)
	ww.buf = append(ww.buf, '"')
}

func (ww *worldWriter) uuid(id uuid.UUID) {
	ww.buf = append(ww.buf, '"')
	ww.buf = appendUUID(ww.buf, id)
	ww.buf = append(ww.buf, '"')
}

func (ww *worldWriter) int(n int) { ww.buf = strconv.AppendInt(ww.buf, int64(n), 10) }

func (ww *worldWriter) time(t time.Time) {
	ww.buf = append(ww.buf, '"')
	ww.buf = t.UTC().AppendFormat(ww.buf, time.RFC3339)
	ww.buf = append(ww.buf, '"')
}

func (ww *worldWriter) business(b int) {
	l := ww.l
	n := strconv.Itoa(b)
	ww.raw(`{"id":`)
	ww.uuid(l.businesses[b])
	ww.raw(`,"name":"Bench business ` + n + `","timezone":"UTC","currency":"EUR","plan":"zakelijk",` +
		`"modules":["appointments","customers","webhooks","payments"],"ownerEmail":"owner` + n + `@bench.example",` +
		`"assignment":"least_busy","closedDates":[],"bookingRules":{"minNoticeMinutes":0,"maxAdvanceDays":` +
		strconv.Itoa(maxDays) + `,"slotIntervalMinutes":15,"requireExistingCustomer":false,"restrictedPeriods":[],` +
		`"preventGaps":false,"minGapMinutes":30},"apiKeys":[{"key":`)
	ww.str(l.keys[b])
	ww.raw(`,"scopes":[`)
	for i, s := range scopes {
		if i > 0 {
			ww.raw(",")
		}
		ww.str(s)
	}
	lim := strconv.Itoa(maxLimit)
	ww.raw(`],"revoked":false,"expiresAt":null,"limits":{"perMinute":` + lim + `,"perHour":` + lim +
		`,"mutationsPerMinute":` + lim + `}}],"categories":[{"id":`)
	category := l.id(kindCategory, b, 0)
	ww.uuid(category)
	ww.raw(`,"name":"Everything","parentId":null,"position":0}],"services":[`)
	for v, svc := range services {
		if v > 0 {
			ww.raw(",")
		}
		ww.raw(`{"id":`)
		ww.uuid(l.serviceID(b, v))
		ww.raw(`,"name":"` + svc.name + `","description":null,"durationMinutes":`)
		ww.int(svc.minutes)
		ww.raw(`,"priceCents":`)
		ww.int(svc.cents)
		ww.raw(`,"isActive":true,"categoryId":`)
		ww.uuid(category)
		ww.raw(`,"paymentRequired":false,"depositCents":null,"imageUrl":null,"deleted":false,"segments":[],"pricingRules":[]}`)
	}
	ww.raw(`],"staff":[`)
	ww.staff(b)
	ww.raw(`],"customers":[`)
	ww.customers(b)
	ww.raw(`],"appointments":[`)
	ww.appointments(b)
	ww.raw(`],"recurringSeries":[]}`)
}

func (ww *worldWriter) staff(b int) {
	l := ww.l
	for s := range l.Staff {
		if s > 0 {
			ww.raw(",")
		}
		ww.raw(`{"id":`)
		ww.uuid(l.staffID(b, s))
		ww.raw(`,"name":"Staff ` + strconv.Itoa(s) + `","isActive":true,"isBookable":true,"assignedServiceIds":[`)
		for v := range services {
			if v > 0 {
				ww.raw(",")
			}
			ww.uuid(l.serviceID(b, v))
		}
		ww.raw(`],"hours":{`)
		for d, day := range weekdays {
			if d > 0 {
				ww.raw(",")
			}
			if d < workWeekDays {
				ww.raw(`"` + day + `":[["09:00","18:00"]]`)
			} else {
				ww.raw(`"` + day + `":[]`)
			}
		}
		ww.raw(`},"exceptions":[]}`)
	}
}

func (ww *worldWriter) customers(b int) {
	l := ww.l
	for c := range l.Customers {
		if c > 0 {
			ww.raw(",")
		}
		ww.raw(`{"id":`)
		ww.uuid(l.customerID(b, c))
		ww.raw(`,"firstName":"Customer","lastName":"` + strconv.Itoa(c) + `","email":`)
		ww.str(l.customerEmail(b, c))
		ww.raw(`,"phone":"+31600` + strconv.Itoa(100000+c%900000) + `"}`)
	}
}

func (ww *worldWriter) appointments(b int) {
	l := ww.l
	colour := l.serviceID(b, 1)
	for k := range l.Appointments {
		if k > 0 {
			ww.raw(",")
		}
		s, start := l.booked(k)
		ww.raw(`{"id":`)
		ww.uuid(l.id(kindAppointment, b, k))
		ww.raw(`,"customerId":`)
		ww.uuid(l.customerID(b, k%l.Customers))
		ww.raw(`,"serviceId":`)
		ww.uuid(colour)
		ww.raw(`,"staffMemberId":`)
		ww.uuid(l.staffID(b, s))
		ww.raw(`,"startTime":`)
		ww.time(start)
		ww.raw(`,"status":"confirmed","notes":null,"recurringSeriesId":null,"isRecurringOccurrence":false}`)
		if ww.err != nil {
			return
		}
	}
}

// appendUUID appends id in its canonical text form without allocating.
func appendUUID(dst []byte, id uuid.UUID) []byte {
	var text [36]byte
	hex.Encode(text[0:8], id[0:4])
	text[8] = '-'
	hex.Encode(text[9:13], id[4:6])
	text[13] = '-'
	hex.Encode(text[14:18], id[6:8])
	text[18] = '-'
	hex.Encode(text[19:23], id[8:10])
	text[23] = '-'
	hex.Encode(text[24:36], id[10:16])
	return append(dst, text[:]...)
}
