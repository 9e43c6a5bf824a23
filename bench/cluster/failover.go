package main

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"
)

// The failover: a light booking load runs through the two nodes that will
// survive (as a load balancer that has dropped the dead node would send
// it), the node of a chosen business is killed with SIGKILL, and GET
// /api/v1/me for that business is polled through a survivor every 20 ms
// until it answers 200 again. Afterwards every booking that was
// acknowledged (201) is looked up by id through the survivors: each one
// must be there.

// ack is one acknowledged booking.
type ack struct {
	biz int
	id  string
}

// ackLog collects the failover load's acknowledgements.
type ackLog struct {
	mu         sync.Mutex
	list       []ack
	unreadable int // 201 answers without an appointment id
}

func (a *ackLog) add(biz int, body []byte) {
	var v struct {
		Appointment struct {
			ID string `json:"id"`
		} `json:"appointment"`
	}
	err := json.Unmarshal(body, &v)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil || v.Appointment.ID == "" {
		a.unreadable++
		return
	}
	a.list = append(a.list, ack{biz: biz, id: v.Appointment.ID})
}

// Failover is what the failover measured.
type Failover struct {
	Business     int              `json:"business"`
	Rate         float64          `json:"askedRate"` // bookings/s the paced load would send
	Killed       string           `json:"killed"`
	PolledVia    string           `json:"polledVia"`
	Recovered    bool             `json:"recovered"`
	RecoveryMs   float64          `json:"recoveryMs"` // from the kill to the first 200
	NewOwner     string           `json:"newOwner"`
	PollAnswers  map[string]int64 `json:"pollAnswers"` // the polls' answers before the 200
	Load         *Phase           `json:"load"`
	Acknowledged int              `json:"acknowledged"`
	Unreadable   int              `json:"unreadable"` // 201s without an id
	Found        int              `json:"found"`
	Missing      int              `json:"missing"`    // 404 through the survivors
	Unverified   int              `json:"unverified"` // no clear answer
	MissingIDs   []string         `json:"missingIds,omitempty"`
}

// recoveryLimit is how long the tool waits for the business to answer.
const recoveryLimit = time.Minute

// failover kills victim, the node of business biz, during a light load.
func (b *bench) failover(ctx context.Context, d *deployment, biz int, victim *node) *Failover {
	var survivors []*node
	for _, n := range d.nodes {
		if n != victim {
			survivors = append(survivors, n)
		}
	}
	f := &Failover{Business: biz, Killed: victim.name, PolledVia: survivors[0].name, PollAnswers: map[string]int64{},
		Rate: b.opt.failoverRate}
	acks := &ackLog{}
	stop := make(chan struct{})
	loadDone := make(chan *Phase, 1)
	pace := time.Duration(float64(time.Second) * float64(b.opt.failoverClients) / b.opt.failoverRate)
	go func() {
		loadDone <- runLoop(ctx, loop{clients: b.opt.failoverClients, expect: 201, stop: stop, pace: pace,
			req: b.booking(d, survivors, acks)})
	}()
	sleep(ctx, time.Second)
	b.progress("failover: kill -9 %s (pid %d), the node of business %d", victim.name, victim.p.PID(), biz)
	killedAt := time.Now()
	victim.p.Kill()
	b.pollBack(ctx, f, survivors[0], biz, killedAt)
	sleep(ctx, time.Second) // the load goes on a little after the recovery
	close(stop)
	f.Load = <-loadDone
	b.progress("failover: load through %s and %s: %s", survivors[0].name, survivors[1%len(survivors)].name, phaseLine(f.Load))
	b.verify(ctx, f, survivors, acks)
	return f
}

// pollBack sends GET /api/v1/me for business biz through n every 20 ms
// until one answers 200, and keeps the time from the kill to that answer.
// A request for a business whose node is gone can be held for seconds, so
// the polls do not wait for each other: a new one leaves every tick (at
// most maxPolls at a time), and the first 200 to arrive counts.
func (b *bench) pollBack(ctx context.Context, f *Failover, n *node, biz int, killedAt time.Time) {
	ctx, cancel := context.WithTimeout(ctx, recoveryLimit)
	defer cancel() // ends the polls still out
	answers := make(chan pollAnswer, maxPolls)
	inFlight := 0
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if inFlight < maxPolls {
			inFlight++
			go func() { answers <- b.poll(ctx, n, biz) }()
		}
		select {
		case a := <-answers:
			inFlight--
			if a.kind == "200" {
				f.Recovered, f.RecoveryMs, f.NewOwner = true, ms(a.at.Sub(killedAt)), a.node
				b.progress("failover: business %d answered 200 through %s %.0f ms after the kill (now on %s)",
					biz, n.name, f.RecoveryMs, f.NewOwner)
				return
			}
			if ctx.Err() == nil {
				f.PollAnswers[a.kind]++
			}
		case <-ctx.Done():
			b.progress("failover: business %d did not answer 200 through %s within %s", biz, n.name, recoveryLimit)
			return
		case <-tick.C:
		}
	}
}

// maxPolls bounds the polls out at once.
const maxPolls = 100

// pollClient has no timeout of its own: a held poll that ends in a 200
// marks the recovery as well as a fresh one.
var pollClient = newClient(maxPolls, 0)

// pollAnswer is one poll's outcome: its status, "timeout" or "error".
type pollAnswer struct {
	kind string
	node string // X-Slotd-Node of a 200
	at   time.Time
}

func (b *bench) poll(ctx context.Context, n *node, biz int) pollAnswer {
	status, header, _, err := pollClient.get(ctx, n.pub+"/api/v1/me", b.w.bearer(biz))
	a := pollAnswer{kind: strconv.Itoa(status), node: header.Get(nodeHeader), at: time.Now()}
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		a.kind = "timeout"
	case err != nil:
		a.kind = "error"
	}
	return a
}

// verify looks every acknowledged booking up through the survivors, in
// turn.
func (b *bench) verify(ctx context.Context, f *Failover, survivors []*node, acks *ackLog) {
	acks.mu.Lock()
	list := append([]ack(nil), acks.list...)
	f.Unreadable = acks.unreadable
	acks.mu.Unlock()
	f.Acknowledged = len(list) + f.Unreadable
	for i, a := range list {
		switch b.lookup(ctx, survivors, i, a) {
		case 200:
			f.Found++
		case 404:
			f.Missing++
			if len(f.MissingIDs) < 5 {
				f.MissingIDs = append(f.MissingIDs, a.id)
			}
		default:
			f.Unverified++
		}
	}
	b.progress("failover: %d bookings acknowledged; %d found, %d missing, %d unverified, %d without an id",
		f.Acknowledged, f.Found, f.Missing, f.Unverified, f.Unreadable)
}

// lookup GETs one acknowledged booking, starting with survivor i mod n and
// trying the others: it returns 200 (found), 404 (missing everywhere,
// asked a few times) or 0 (no clear answer).
func (b *bench) lookup(ctx context.Context, survivors []*node, i int, a ack) int {
	notFound := 0
	for try := range 12 {
		n := survivors[(i+try)%len(survivors)]
		status, _, _, err := control.get(ctx, n.pub+"/api/v1/appointments/"+a.id, b.w.bearer(a.biz))
		switch {
		case err == nil && status == 200:
			return 200
		case err == nil && status == 404:
			if notFound++; notFound == 3 {
				return 404
			}
		}
		if ctx.Err() != nil {
			return 0
		}
		sleep(ctx, 200*time.Millisecond)
	}
	return 0
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
