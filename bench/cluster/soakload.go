package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// The soak's load: booking clients that retry each booking with its own
// Idempotency-Key until it is answered for sure, contested slots that
// several clients ask for at once, and the stale-read readers that read
// freshly acknowledged bookings back through a random node.

// ackRec is one acknowledged booking.
type ackRec struct {
	Biz        int
	ID, Staff  string
	Start, End time.Time
	FirstSent  time.Time // the request's first attempt left
	LastSent   time.Time // the attempt answered 201 left
	At         time.Time // the 201 arrived
	Node       string    // the 201's X-Slotd-Node
}

// recentAcks is how many of the newest acknowledgements the readers pick
// from.
const recentAcks = 200

// ledger is what the booking clients were answered.
type ledger struct {
	mu          sync.Mutex
	acks        []ackRec // in the order the 201s arrived
	owner       []string // per business, the node its latest definitive answer named
	requests    int64
	attempts    int64
	retried     int64            // requests answered only after a retry
	retries     map[string]int64 // why an attempt was repeated
	refused     map[string]int64 // definitive refusals, by status and code
	refusedFree map[string]int64 // of them, those of a slot no other request asked for
	givenUp     int64
	upSamples   []string
	unreadable  int64 // 201s whose body named no appointment
	interrupted int64 // requests cut short by Ctrl-C
	retrying    atomic.Int64
}

func newLedger(owners []string) *ledger {
	return &ledger{owner: owners, retries: map[string]int64{}, refused: map[string]int64{}, refusedFree: map[string]int64{}}
}

func (l *ledger) begin() {
	l.mu.Lock()
	l.requests++
	l.mu.Unlock()
}

func (l *ledger) attempt(retryWhy string) {
	l.mu.Lock()
	l.attempts++
	if retryWhy != "" {
		l.retries[retryWhy]++
	}
	l.mu.Unlock()
}

func (l *ledger) seen(biz int, node string) {
	if node == "" {
		return
	}
	l.mu.Lock()
	l.owner[biz] = node
	l.mu.Unlock()
}

func (l *ledger) ack(a ackRec, retried bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a.ID == "" {
		l.unreadable++
		return
	}
	l.acks = append(l.acks, a)
	if retried {
		l.retried++
	}
}

func (l *ledger) refuse(why string, contested, retried bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused[why]++
	if !contested {
		l.refusedFree[why]++
	}
	if retried {
		l.retried++
	}
}

func (l *ledger) giveUp(what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.givenUp++
	if len(l.upSamples) < 10 {
		l.upSamples = append(l.upSamples, what)
	}
}

// ownedBy are the businesses whose latest answer named node.
func (l *ledger) ownedBy(node string) []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int
	for biz, n := range l.owner {
		if n == node {
			out = append(out, biz)
		}
	}
	return out
}

// pick is one of the newest acknowledgements, u choosing which
// (pickRecent).
func (l *ledger) pick(u float64) (ackRec, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := min(len(l.acks), recentAcks)
	if n == 0 {
		return ackRec{}, false
	}
	return l.acks[len(l.acks)-n+pickRecent(n, u)], true
}

func (l *ledger) snapshot() []ackRec {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]ackRec(nil), l.acks...)
}

func (l *ledger) counts() (acked, refused, givenUp int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.refused {
		refused += n
	}
	return int64(len(l.acks)) + l.unreadable, refused, l.givenUp
}

// contest is one contested slot: the walk's slot k, asked for by up to
// contestSize clients at once, each with its own Idempotency-Key.
type contest struct {
	k       int
	slot    contestSlot // outcomes under the hub's lock
	release chan struct{}
	once    sync.Once
}

// contestHub gathers clients into contests: the first to join opens one,
// which is released when full or after contestWait, whichever is first.
type contestHub struct {
	mu   sync.Mutex
	size int
	open *contest
	all  []*contest
	next func() int // the walk's next free slot
	w    *world
}

// contestWait is how long an open contest waits for more clients.
const contestWait = 250 * time.Millisecond

func (h *contestHub) join() (*contest, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.open
	if c == nil {
		k := h.next()
		biz, staff, start := h.w.slot(k)
		c = &contest{k: k, release: make(chan struct{}),
			slot: contestSlot{Biz: biz, Staff: h.w.staffID(biz, staff).String(), Start: start}}
		h.open = c
		h.all = append(h.all, c)
		time.AfterFunc(contestWait, func() { h.close(c) })
	}
	c.slot.Members++
	member := c.slot.Members
	if member >= h.size {
		h.open = nil
		c.once.Do(func() { close(c.release) })
	}
	return c, member
}

func (h *contestHub) close(c *contest) {
	h.mu.Lock()
	if h.open == c {
		h.open = nil
	}
	h.mu.Unlock()
	c.once.Do(func() { close(c.release) })
}

// note keeps one member's outcome.
func (h *contestHub) note(c *contest, out outcome, why string, givenUp bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case givenUp:
		c.slot.GivenUp++
	case out == outAck:
		c.slot.Acks++
	case why == "409 SLOT_TAKEN":
		c.slot.Taken++
	default:
		c.slot.Other++
	}
}

func (h *contestHub) slots() []contestSlot {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]contestSlot, len(h.all))
	for i, c := range h.all {
		out[i] = c.slot
	}
	return out
}

// Streams of the seed's PCG for the clients and readers (the fault
// schedule has faultStream).
const (
	clientStream = 0xc1000
	readerStream = 0x4ead0
	retryStream  = 0x7e7000000
)

// client books until stop closes: each booking the walk's next free slot,
// or with the share -contest a contested slot, paced so that all clients
// together ask for about -rate bookings/s.
func (s *soak) client(ctx context.Context, c int, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(s.seed, clientStream+uint64(c)))
	pace := time.Duration(float64(time.Second) * float64(s.opt.clients) / s.opt.rate)
	for !ended(ctx, stop) {
		if rng.Float64() < s.opt.contest {
			ct, member := s.hub.join()
			select {
			case <-ct.release:
			case <-ctx.Done():
				return
			}
			s.book(ctx, rng, ct.k, c, fmt.Sprintf("soak-%d-%d-m%d", s.seed, ct.k, member), ct)
		} else {
			k := s.nextSlot()
			s.book(ctx, rng, k, c, fmt.Sprintf("soak-%d-%d", s.seed, k), nil)
		}
		// 0.5 to 1.5 times the pace, so the clients do not march in step.
		select {
		case <-stop:
		case <-ctx.Done():
		case <-time.After(time.Duration(float64(pace) * (0.5 + rng.Float64()))):
		}
	}
}

func (s *soak) nextSlot() int { return int(s.walk.Add(1) - 1) }

// ended reports whether stop is closed or ctx is over.
func ended(ctx context.Context, stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// pending is one booking on its way: the same request, with the same
// Idempotency-Key, until it is answered for sure.
type pending struct {
	k, biz int
	staff  string
	start  time.Time
	body   []byte
	idem   string
	ct     *contest
	first  time.Time
}

// retriersPerClient bounds the bookings being retried in the background,
// per client.
const retriersPerClient = 64

// book sends one booking of slot k through a random node. Answered 201
// or refused, it is done; otherwise it is retried through random nodes
// until it is, or -give-up has passed: by a goroutine of its own while
// there are fewer than retriersPerClient × -c of them, so that the
// client goes on booking. (A client that waited on a business whose node
// is stopped would stop asking for every other business too; within
// seconds every client would wait so, and the worst stretch without an
// acknowledgement would measure the load generator, not the cluster.)
func (s *soak) book(ctx context.Context, rng *rand.Rand, k, client int, idem string, ct *contest) {
	biz, body := s.w.bookingBody(k, client)
	_, staff, start := s.w.slot(k)
	s.led.begin()
	p := &pending{k: k, biz: biz, staff: s.w.staffID(biz, staff).String(), start: start, body: body, idem: idem, ct: ct,
		first: time.Now()}
	if s.try(ctx, rng, p, 0) {
		return
	}
	select {
	case s.retriers <- struct{}{}:
		s.retryWG.Add(1)
		go func() {
			defer s.retryWG.Done()
			defer func() { <-s.retriers }()
			s.retry(ctx, rand.New(rand.NewPCG(s.seed, retryStream^uint64(k)<<8^uint64(client))), p)
		}()
	default:
		s.retry(ctx, rng, p)
	}
}

// retry tries p again after a growing pause until it is done.
func (s *soak) retry(ctx context.Context, rng *rand.Rand, p *pending) {
	for attempt := 1; ; attempt++ {
		sleep(ctx, retryPause(attempt-1))
		if s.try(ctx, rng, p, attempt) {
			return
		}
	}
}

// try sends attempt number attempt of p to a random node and keeps its
// outcome; done is false when p must be tried again.
func (s *soak) try(ctx context.Context, rng *rand.Rand, p *pending, attempt int) (done bool) {
	n := s.nodes[rng.IntN(len(s.nodes))]
	sent := time.Now()
	a, err := s.load.do(ctx, "POST", n.pub+"/api/v1/appointments", s.w.bearer(p.biz), p.body, p.idem)
	arrived := time.Now()
	if ctx.Err() != nil {
		s.led.mu.Lock()
		s.led.interrupted++
		s.led.mu.Unlock()
		if attempt > 0 {
			s.led.retrying.Add(-1)
		}
		return true
	}
	out, why := bookingOutcome(a.status, a.body, err, isTimeout(err))
	if out == outRetry {
		s.led.attempt(why)
	} else {
		s.led.attempt("")
		s.led.seen(p.biz, a.header.Get(nodeHeader))
		if attempt > 0 {
			s.led.retrying.Add(-1)
		}
	}
	switch out {
	case outAck:
		rec := ackRec{Biz: p.biz, Staff: p.staff, Start: p.start, End: p.start.Add(serviceMinutes * time.Minute),
			FirstSent: p.first, LastSent: sent, At: arrived, Node: a.header.Get(nodeHeader)}
		readAck(a.body, &rec)
		s.led.ack(rec, attempt > 0)
		if p.ct != nil {
			s.hub.note(p.ct, out, why, false)
		}
		return true
	case outRefuse:
		s.led.refuse(why, p.ct != nil, attempt > 0)
		if p.ct != nil {
			s.hub.note(p.ct, out, why, false)
		}
		return true
	}
	if attempt == 0 {
		s.led.retrying.Add(1)
	}
	if arrived.Sub(p.first) >= s.opt.giveUp {
		s.led.retrying.Add(-1)
		s.led.giveUp(fmt.Sprintf("%s (business %d, %s): %d attempts in %.0f s, the last: %s",
			p.idem, p.biz, p.start.Format(time.RFC3339), attempt+1, arrived.Sub(p.first).Seconds(), describe(a.status, a.body, err)))
		if p.ct != nil {
			s.hub.note(p.ct, out, why, true)
		}
		return true
	}
	return false
}

// readAck takes the id, staff member and times from a 201's body.
func readAck(body []byte, rec *ackRec) {
	var v struct {
		Appointment appointmentJSON `json:"appointment"`
	}
	if json.Unmarshal(body, &v) != nil {
		return
	}
	a := v.Appointment
	rec.ID = a.ID
	if !a.StartTime.IsZero() {
		rec.Start, rec.End = a.StartTime, a.EndTime
	}
	if a.StaffMember != nil && a.StaffMember.ID != "" {
		rec.Staff = a.StaffMember.ID
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout())
}

// StaleRead is one read that showed a state older than an acknowledged
// booking.
type StaleRead struct {
	Kind       string  `json:"kind"` // "by id" or "updatedSince list"
	ID         string  `json:"id"`
	Business   int     `json:"business"`
	Via        string  `json:"via"`      // the node the read was sent to
	Answered   string  `json:"answered"` // X-Slotd-Node of the answer
	SinceAckMs float64 `json:"sinceAckMs"`
	AtSeconds  float64 `json:"atSeconds"` // since the load began
	SinceFault string  `json:"sinceFault"`
	StillStale bool    `json:"stillStale"` // an immediate re-read through the same node was stale too
	ReRead     string  `json:"reRead"`
}

// ReadStats are the stale-read readers' figures.
type ReadStats struct {
	Reads       int64            `json:"reads"`      // GET /api/v1/appointments/{id}
	Fresh       int64            `json:"freshReads"` // of a booking acknowledged less than 1 s before
	OK          int64            `json:"ok"`
	Unavailable int64            `json:"unavailable"` // no answer, 5xx
	Other       map[string]int64 `json:"other,omitempty"`
	StaleCount  int64            `json:"staleCount"`
	Stale       []StaleRead      `json:"stale"`

	ListReads       int64       `json:"listReads"` // GET /api/v1/appointments?updatedSince=
	ListOK          int64       `json:"listOk"`
	ListUnavailable int64       `json:"listUnavailable"`
	ListStaleCount  int64       `json:"listStaleCount"`
	ListStale       []StaleRead `json:"listStale"`
}

// maxStale bounds the stale reads kept with their details (all are
// counted).
const maxStale = 200

type readLog struct {
	mu sync.Mutex
	ReadStats
}

// reader reads freshly acknowledged bookings until stop closes: mostly by
// id, every tenth read the business's list of what changed since just
// before the booking was first sent.
func (s *soak) reader(ctx context.Context, r int, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(s.seed, readerStream+uint64(r)))
	for !ended(ctx, stop) {
		a, ok := s.led.pick(rng.Float64())
		switch {
		case !ok:
			sleep(ctx, 20*time.Millisecond)
			continue
		case rng.IntN(10) == 0:
			s.readList(ctx, s.nodes[rng.IntN(len(s.nodes))], a)
		default:
			s.readOne(ctx, s.nodes[rng.IntN(len(s.nodes))], a)
		}
		sleep(ctx, 10*time.Millisecond)
	}
}

func (s *soak) readOne(ctx context.Context, n *node, a ackRec) {
	path := n.pub + "/api/v1/appointments/" + a.ID
	sent := time.Now()
	status, h, body, err := s.readClient.get(ctx, path, s.w.bearer(a.Biz))
	if ctx.Err() != nil {
		return
	}
	class := classifyRead(status, err, a.At, sent)
	var sr StaleRead
	if class == readStale {
		st2, _, body2, err2 := s.readClient.get(ctx, path, s.w.bearer(a.Biz))
		sr = StaleRead{Kind: "by id", ID: a.ID, Business: a.Biz, Via: n.name, Answered: h.Get(nodeHeader),
			SinceAckMs: ms(sent.Sub(a.At)), AtSeconds: sent.Sub(s.loadStart).Seconds(), SinceFault: s.sinceEvent(sent),
			StillStale: err2 == nil && st2 == 404, ReRead: describe(st2, body2, err2)}
		s.progress("STALE READ: GET %s through %s answered 404 (X-Slotd-Node %q) %.0f ms after its 201, %s; re-read: %s",
			a.ID, n.name, sr.Answered, sr.SinceAckMs, sr.SinceFault, sr.ReRead)
	}
	s.reads.mu.Lock()
	defer s.reads.mu.Unlock()
	r := &s.reads.ReadStats
	r.Reads++
	if sent.Sub(a.At) < time.Second {
		r.Fresh++
	}
	switch class {
	case readOK:
		r.OK++
	case readUnavailable:
		r.Unavailable++
	case readStale:
		r.StaleCount++
		if len(r.Stale) < maxStale {
			r.Stale = append(r.Stale, sr)
		}
	default:
		if r.Other == nil {
			r.Other = map[string]int64{}
		}
		r.Other[fmt.Sprintf("%d %s", status, errorCode(body))]++
	}
}

// readList walks the business's list of appointments changed since
// just before a was first sent, through n, looking for a.
func (s *soak) readList(ctx context.Context, n *node, a ackRec) {
	since := a.FirstSent.Add(-time.Second)
	sent := time.Now()
	found, complete, answered, _ := s.listHas(ctx, n, a, since)
	if ctx.Err() != nil {
		return
	}
	var sr StaleRead
	stale := complete && !found && a.At.Before(sent)
	if stale {
		found2, complete2, _, last2 := s.listHas(ctx, n, a, since)
		sr = StaleRead{Kind: "updatedSince list", ID: a.ID, Business: a.Biz, Via: n.name, Answered: answered,
			SinceAckMs: ms(sent.Sub(a.At)), AtSeconds: sent.Sub(s.loadStart).Seconds(), SinceFault: s.sinceEvent(sent),
			StillStale: complete2 && !found2, ReRead: last2}
		s.progress("STALE LIST: updatedSince=%s through %s (X-Slotd-Node %q) lacks %s, %.0f ms after its 201, %s; re-read: still lacking %v (%s)",
			since.Format(time.RFC3339Nano), n.name, answered, a.ID, sr.SinceAckMs, sr.SinceFault, sr.StillStale, last2)
	}
	s.reads.mu.Lock()
	defer s.reads.mu.Unlock()
	r := &s.reads.ReadStats
	r.ListReads++
	switch {
	case stale:
		r.ListStaleCount++
		if len(r.ListStale) < maxStale {
			r.ListStale = append(r.ListStale, sr)
		}
	case found:
		r.ListOK++
	default:
		r.ListUnavailable++
	}
}

// listHas pages GET /api/v1/appointments?updatedSince=since through n
// until a is found or the list ends (complete), at most 50 pages; answered
// is the first page's X-Slotd-Node, last says what the last page was
// answered.
func (s *soak) listHas(ctx context.Context, n *node, a ackRec, since time.Time) (found, complete bool, answered, last string) {
	q := url.Values{"updatedSince": {since.UTC().Format(time.RFC3339Nano)}, "limit": {"100"}}
	for page := range 50 {
		status, h, body, err := s.readClient.get(ctx, n.pub+"/api/v1/appointments?"+q.Encode(), s.w.bearer(a.Biz))
		last = describe(status, nil, err)
		if err != nil || status != 200 {
			last = describe(status, body, err)
			return false, false, answered, last
		}
		if page == 0 {
			answered = h.Get(nodeHeader)
		}
		var p listPage
		if json.Unmarshal(body, &p) != nil {
			return false, false, answered, "unreadable page"
		}
		for _, d := range p.Data {
			if d.ID == a.ID {
				return true, true, answered, last
			}
		}
		if !p.HasMore || p.NextCursor == nil {
			return false, true, answered, last
		}
		q.Set("cursor", *p.NextCursor)
	}
	return false, false, answered, "more than 50 pages"
}

// appointmentJSON is what the soak reads of an Appointment.
type appointmentJSON struct {
	ID          string    `json:"id"`
	Status      string    `json:"status"`
	StartTime   time.Time `json:"startTime"`
	EndTime     time.Time `json:"endTime"`
	StaffMember *struct {
		ID string `json:"id"`
	} `json:"staffMember"`
}

// listPage is one page of GET /api/v1/appointments.
type listPage struct {
	Data       []appointmentJSON `json:"data"`
	HasMore    bool              `json:"hasMore"`
	NextCursor *string           `json:"nextCursor"`
}
