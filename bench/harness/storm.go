package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/bench/loadgen"
	"github.com/slotd/slotd/bench/proc"
)

// The durable booking storm: -storm-c connections, every request a POST
// /api/v1/appointments of a free slot (layout.stormSlot) with its own
// Idempotency-Key, the staff member pinned and enforceBookingRules false,
// so every request can be booked and each 201 is one durable booking.
// What each 201 acknowledged is kept for the walk.
//
// The storm names one of the world's customers by e-mail; right after it
// (-storm-new), the new-customer storm runs the same for as long with the
// same connections, but every booking brings a customer nobody has seen
// (an e-mail address of its own: layout.appendNewCustomerEmail), as a
// booking page does. Its slots are the storm slots after the storm's
// (slotRange), so the two never ask for the same half hour.

// ack is one acknowledged booking.
type ack struct {
	b, s int
	id   string
}

// acks collects the storm's and the race's acknowledgements.
type acks struct {
	mu   sync.Mutex
	list []ack
	odd  []string // a few unexpected answers, for the report
}

func (a *acks) add(k ack) {
	a.mu.Lock()
	a.list = append(a.list, k)
	a.mu.Unlock()
}

func (a *acks) unexpected(status int, body []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.odd) < 5 {
		a.odd = append(a.odd, fmt.Sprintf("%d %.300s", status, body))
	}
}

// appointmentID finds the appointment id in a 201 answer,
// {"appointment":{"id":"…", …}, …}, without decoding the whole answer on
// the load generator's share of the CPU.
func appointmentID(body []byte) (string, bool) {
	const prefix = `{"appointment":{"id":"`
	i := bytes.Index(body, []byte(prefix))
	if i < 0 || len(body) < i+len(prefix)+36 {
		return "", false
	}
	return string(body[i+len(prefix) : i+len(prefix)+36]), true
}

// bookingBody is the POST /api/v1/appointments body of a booking of the
// Cut service at start, pinned to staff member s, for customer c of
// business b (reused by e-mail: the customer is the world's).
func bookingBody(dst []byte, l *layout, b, s, c int, start time.Time) []byte {
	dst = bookingHead(dst, l, b, s, start)
	dst = append(dst, `"customer":{"firstName":"Customer","lastName":"`...)
	dst = strconv.AppendInt(dst, int64(c), 10)
	dst = append(dst, `","email":"`...)
	dst = append(dst, l.customerEmail(b, c)...)
	dst = append(dst, `"}}`...)
	return dst
}

// newCustomerBookingBody is bookingBody for storm slot i's booking by a
// customer of its own, whom slotd has not seen: the address names the
// seed and the slot, which no other booking of the run asks for.
func newCustomerBookingBody(dst []byte, l *layout, b, s, i int, start time.Time) []byte {
	dst = bookingHead(dst, l, b, s, start)
	dst = append(dst, `"customer":{"firstName":"New","lastName":"`...)
	dst = strconv.AppendInt(dst, int64(i), 10)
	dst = append(dst, `","email":"`...)
	dst = l.appendNewCustomerEmail(dst, i)
	dst = append(dst, `"}}`...)
	return dst
}

// bookingHead is a booking body up to its customer: the Cut service at
// start, staff member s of business b pinned, rules off.
func bookingHead(dst []byte, l *layout, b, s int, start time.Time) []byte {
	dst = append(dst, `{"serviceId":"`...)
	dst = appendUUID(dst, l.serviceID(b, 0))
	dst = append(dst, `","staffMemberId":"`...)
	dst = appendUUID(dst, l.staffID(b, s))
	dst = append(dst, `","startTime":"`...)
	dst = start.UTC().AppendFormat(dst, time.RFC3339)
	return append(dst, `","enforceBookingRules":false,`...)
}

// bodyBufs are the scratch buffers booking bodies are built in.
var bodyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// slotRange hands out the storm slots (layout.stormSlot) of one
// workload on one slotd, from where the slotd's last workload stopped, so
// that the mixed phase's and the storm's bookings never ask for the same
// half hour. It remembers the highest slot it handed out: a closed loop
// does not know in advance how many requests it will make.
type slotRange struct {
	base int
	end  atomic.Int64 // one past the highest slot handed out
}

func newSlotRange(s *slotd) *slotRange { return &slotRange{base: s.nextSlot} }

// take is the slot of the workload's n-th booking, now handed out.
func (r *slotRange) take(n uint64) int {
	i := r.base + int(n)
	for {
		cur := r.end.Load()
		if int64(i) < cur || r.end.CompareAndSwap(cur, int64(i)+1) {
			return i
		}
	}
}

// slot is the slot of the n-th booking, already handed out.
func (r *slotRange) slot(n uint64) int { return r.base + int(n) }

// done gives the slotd's next workload the slots after this one's.
func (r *slotRange) done(s *slotd) { s.nextSlot = max(s.nextSlot, int(r.end.Load())) }

// prepareBooking makes req the booking of storm slot i with its own
// Idempotency-Key, by one of the world's customers; the caller has set
// the method, the URI and the Content-Type.
func prepareBooking(req *fasthttp.Request, l *layout, i int, key string) {
	prepareBookingBy(req, l, i, key, false)
}

// prepareBookingBy is prepareBooking by one of the world's customers, or
// by a new customer (newCustomerBookingBody).
func prepareBookingBy(req *fasthttp.Request, l *layout, i int, key string, newCustomer bool) {
	b, sm, start := l.stormSlot(i)
	buf := bodyBufs.Get().(*[]byte)
	if newCustomer {
		*buf = newCustomerBookingBody((*buf)[:0], l, b, sm, i, start)
	} else {
		*buf = bookingBody((*buf)[:0], l, b, sm, l.stormCustomer(i), start)
	}
	req.SetBody(*buf)
	bodyBufs.Put(buf)
	req.Header.Set("Authorization", l.bearer[b])
	req.Header.Set("Idempotency-Key", key)
}

// observeBooking keeps what the answer to the booking of storm slot i
// acknowledged.
func observeBooking(got *acks, l *layout, i int, resp *fasthttp.Response) {
	if resp.StatusCode() != 201 {
		got.unexpected(resp.StatusCode(), resp.Body())
		return
	}
	b, sm, _ := l.stormSlot(i)
	if id, ok := appointmentID(resp.Body()); ok {
		got.add(ack{b: b, s: sm, id: id})
	} else {
		got.unexpected(201, resp.Body())
	}
}

// stormSpec is one booking storm: against which slotd, for how long, and
// where its acknowledgements go.
type stormSpec struct {
	name, title string
	s           *slotd
	l           *layout
	duration    time.Duration
	keys        string // the Idempotency-Keys' prefix, one per storm
	acks        *acks
	profile     bool
	newCustomer bool // every booking by a customer of its own
}

// runStorm runs a storm of -storm-c connections and records its phase.
func (h *harness) runStorm(ctx context.Context, sp stormSpec) (*Phase, error) {
	slots := newSlotRange(sp.s)
	defer slots.done(sp.s)
	cfg := loadgen.Config{
		URL: sp.s.base + "/api/v1/appointments", Method: "POST", Connections: h.opt.StormConnections,
		Duration: sp.duration, Expect: 201, Timeout: h.opt.Timeout,
		Headers: []loadgen.Header{{Name: "Content-Type", Value: "application/json"}},
		Prepare: func(seq uint64, req *fasthttp.Request) {
			prepareBookingBy(req, sp.l, slots.take(seq), sp.keys+strconv.FormatUint(seq, 10), sp.newCustomer)
		},
		Observe: func(seq uint64, resp *fasthttp.Response) {
			observeBooking(sp.acks, sp.l, slots.slot(seq), resp)
		},
	}
	h.progress("%s: %s, %s", sp.name, sp.title, sp.duration)
	return h.measure(ctx, phaseSpec{name: sp.name, title: sp.title, cfg: cfg, slotd: sp.s, profile: sp.profile})
}

func (h *harness) storm(ctx context.Context, s *slotd, l *layout) error {
	st := &Storm{DrainSeconds: -1}
	h.rep.Storm = st
	return h.durableStorm(ctx, st, stormSpec{name: "storm", title: fmt.Sprintf("durable booking storm, %d connections", h.opt.StormConnections),
		s: s, l: l, duration: h.opt.StormDuration, keys: "storm-" + strconv.FormatUint(h.opt.Seed, 10) + "-", acks: h.stormAcks, profile: true})
}

// stormNew is the new-customer storm: the storm again, right after it on
// the same slotd, every booking by a customer of its own.
func (h *harness) stormNew(ctx context.Context, s *slotd, l *layout) error {
	if !h.opt.StormNew {
		h.progress("new-customer storm skipped (-storm-new=false)")
		return nil
	}
	st := &Storm{DrainSeconds: -1}
	h.rep.StormNew = st
	return h.durableStorm(ctx, st, stormSpec{name: "storm-new", title: fmt.Sprintf("durable booking storm, a new customer per booking, %d connections", h.opt.StormConnections),
		s: s, l: l, duration: h.opt.StormDuration, keys: "storm-new-" + strconv.FormatUint(h.opt.Seed, 10) + "-", acks: h.stormNewAcks,
		profile: true, newCustomer: true})
}

// durableStorm runs a storm against the main slotd and records in st
// what it acknowledged, wrote and cost, then waits for DATA/outbox to
// hold every e-mail it caused.
func (h *harness) durableStorm(ctx context.Context, st *Storm, sp stormSpec) error {
	s, name := sp.s, sp.name
	outbox := newMailCounter(filepath.Join(s.data, "outbox"))
	mailsBefore, err := outbox.count()
	if err != nil {
		return err
	}
	sizeBefore, err := dataSize(s.data)
	if err != nil {
		return err
	}
	writesBefore, werr := proc.WriteBytes(s.p.PID())

	got := sp.acks
	syncsBefore, serr := s.fsyncHistogram(ctx)
	p, err := h.runStorm(ctx, sp)
	if err != nil {
		return err
	}
	if syncsAfter, err := s.fsyncHistogram(ctx); err == nil && serr == nil {
		st.WAL = walSyncs(syncsBefore, syncsAfter)
	}
	stormEnd, cpuEnd := p.ended, p.serverCPUEnd // not after the profile's reading
	st.Acknowledged = int64(len(got.list))
	st.UnexpectedAnswers = got.odd
	if ps, err := proc.Read(s.p.PID()); err == nil {
		st.RSSAfter, st.HWMAfter = ps.RSS, ps.HWM
	}
	if sizeAfter, err := dataSize(s.data); err == nil {
		st.DataDirGrowthBytes = sizeAfter - sizeBefore
	}
	if writesAfter, err := proc.WriteBytes(s.p.PID()); err == nil && werr == nil {
		st.WriteBytes = writesAfter - writesBefore
	}
	if st.Acknowledged > 0 {
		st.GrowthPerBooking = float64(st.DataDirGrowthBytes) / float64(st.Acknowledged)
		st.WriteBytesPerBooking = float64(st.WriteBytes) / float64(st.Acknowledged)
	}
	h.progress("%s: %d bookings acknowledged (%.0f/s); data directory +%s (%.0f B/booking), %s written (%.0f B/booking); RSS %s (peak %s)",
		name, st.Acknowledged, p.RPS, bytesText(st.DataDirGrowthBytes), st.GrowthPerBooking, bytesText(st.WriteBytes),
		st.WriteBytesPerBooking, bytesText(st.RSSAfter), bytesText(st.HWMAfter))
	if len(got.odd) > 0 {
		h.progress("%s: unexpected answers, e.g. %s", name, got.odd[0])
	}
	st.MailsExpected = mailsBefore + len(got.list)
	h.progress("outbox: waiting for %d e-mails in %s", st.MailsExpected, outbox.dir)
	st.MailsFound, st.DrainSeconds, err = h.drain(ctx, outbox, st.MailsExpected, stormEnd)
	if err == nil && st.DrainSeconds >= 0 {
		h.progress("outbox: drained %.1fs after the %s", st.DrainSeconds, name)
		// slotd's CPU per booking with the e-mails still to write at the
		// storm's end: what each booking cost in all.
		if cpu, cerr := proc.CPU(s.p.PID()); cerr == nil && cpuEnd > 0 && p.ServerCPUSeconds >= 0 && st.Acknowledged > 0 {
			st.DrainCPUSeconds = (cpu - cpuEnd).Seconds()
			st.CPUPerBookingWithDrainUS = (p.ServerCPUSeconds + st.DrainCPUSeconds) * 1e6 / float64(st.Acknowledged)
		}
	} else if err == nil {
		h.progress("outbox: not drained %s after the %s: %d of %d e-mails", h.opt.DrainTimeout, name, st.MailsFound, st.MailsExpected)
	}
	return err
}

// drain waits until the outbox directory holds want e-mails, polling it,
// and returns how many it found and the time from since until it held
// them all, or -1 when it did not within -drain-timeout. Listing tens of
// thousands of names costs CPU that slotd's mailer needs, so the
// directory is looked at five times a second: the figure is good to
// 0.2 s.
func (h *harness) drain(ctx context.Context, outbox *mailCounter, want int, since time.Time) (int, float64, error) {
	deadline := time.NewTimer(h.opt.DrainTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		n, err := outbox.count()
		if err != nil {
			return n, -1, err
		}
		if n >= want {
			return n, time.Since(since).Seconds(), nil
		}
		select {
		case <-ctx.Done():
			return n, -1, ctx.Err()
		case <-deadline.C:
			return n, -1, nil
		case <-tick.C:
		}
	}
}

// mailCounter counts the e-mails slotd's file sender has written to
// DATA/outbox: the entries of the YYYY-MM-DD.mbox day files (decisions
// §1), and *.eml files, which slotd wrote one per message before, so that
// an older binary (-slotd) is measured the same way. A mailbox is read
// from where the last count stopped: a storm's mailbox grows to hundreds of
// megabytes, and the counter shares the cores with slotd.
type mailCounter struct {
	dir   string
	files map[string]*mboxPos
}

// mboxPos is how far a mailbox has been read: up to off, holding n
// entries; blank says whether the last whole line was empty, mid that off
// is inside a line longer than the read buffer.
type mboxPos struct {
	off        int64
	n          int
	blank, mid bool
}

func newMailCounter(dir string) *mailCounter {
	return &mailCounter{dir: dir, files: map[string]*mboxPos{}}
}

// count returns the e-mails in the outbox; an outbox not yet made holds
// none.
func (c *mailCounter) count() (int, error) {
	f, err := os.Open(c.dir)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for {
		names, err := f.Readdirnames(4096)
		for _, name := range names {
			switch {
			case strings.HasSuffix(name, ".eml"):
				n++
			case strings.HasSuffix(name, ".mbox"):
				m, err := c.mbox(name)
				if err != nil {
					return 0, err
				}
				n += m
			}
		}
		if err != nil || len(names) == 0 {
			return n, nil
		}
	}
}

// mbox counts the entries of one mailbox: the "From " lines at its top or
// after a blank line (mboxrd quotes every other line that starts so).
func (c *mailCounter) mbox(name string) (int, error) {
	pos := c.files[name]
	if pos == nil {
		pos = &mboxPos{blank: true}
		c.files[name] = pos
	}
	f, err := os.Open(filepath.Join(c.dir, name))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.NewSectionReader(f, pos.off, 1<<62), 1<<20)
	for {
		line, err := r.ReadSlice('\n')
		switch err {
		case nil:
			if !pos.mid && pos.blank && bytes.HasPrefix(line, []byte("From ")) {
				pos.n++
			}
			pos.blank = !pos.mid && len(line) == 1
			pos.mid = false
		case bufio.ErrBufferFull: // a part of a line longer than the buffer
			pos.blank, pos.mid = false, true
		default: // io.EOF: an unfinished last line is read again next time
			return pos.n, nil
		}
		pos.off += int64(len(line))
	}
}

// dataSize sums the sizes of the files under the data directory, the
// outbox's e-mails excluded: what the journal, snapshots and tables hold.
func dataSize(data string) (int64, error) {
	var total int64
	err := filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) { // Pebble removes files as it compacts
				return nil
			}
			return err
		}
		if d.IsDir() {
			if path == filepath.Join(data, "outbox") {
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err == nil {
			total += info.Size()
		}
		return nil
	})
	return total, err
}
