package main

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/bench/loadgen"
)

// The contention race: -race-clients clients, each on its own connection
// with its own Idempotency-Key and customer, book the same staff member at
// the same time at once, for -race-slots slots one after another. Exactly
// one may get 201; the others must get 409.

func (h *harness) race(ctx context.Context, s *slotd, l *layout) error {
	n := h.opt.RaceClients
	r := &Race{Slots: h.opt.RaceSlots, Clients: n, Statuses: map[string]int64{}}
	h.rep.Race = r
	u, err := url.Parse(s.base)
	if err != nil {
		return err
	}
	client := &fasthttp.HostClient{Addr: u.Host, MaxConns: n, MaxIdemponentCallAttempts: 1, Name: "slotd-harness"}
	defer client.CloseIdleConnections()
	h.progress("race: %d clients on each of %d slots", n, r.Slots)
	var latencies []time.Duration
	start := time.Now()
	for k := range r.Slots {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, sm, at := l.raceSlot(k)
		res := raceOnce(client, s.base, l, k, b, sm, at, n, h.opt.Seed, h.opt.Timeout)
		wins := 0
		for _, o := range res {
			if o.err != nil {
				r.Failures++
				if r.FirstError == "" {
					r.FirstError = o.err.Error()
				}
				continue
			}
			latencies = append(latencies, o.took)
			r.Statuses[strconv.Itoa(o.status)]++
			if o.status == 201 {
				wins++
				h.raceAcks.add(ack{b: b, s: sm, id: o.id})
			}
		}
		if wins == 1 && countStatus(res, 409) == n-1 {
			r.OneWinner++
		} else if len(r.BadSlots) < 5 {
			r.BadSlots = append(r.BadSlots, fmt.Sprintf("slot %d (business %d, staff %d, %s): %d × 201, %d × 409, %d others",
				k, b, sm, at.Format(time.RFC3339), wins, countStatus(res, 409), n-wins-countStatus(res, 409)))
		}
	}
	elapsed := time.Since(start)
	sum := loadgen.Summary{Connections: n, Elapsed: elapsed, Expected: 201, Statuses: map[int]int64{},
		Latency: loadgen.LatencyOf(latencies), FirstErr: r.FirstError}
	for code, c := range r.Statuses {
		v, _ := strconv.Atoi(code)
		sum.Statuses[v] = c
		sum.Requests += c
	}
	sum.Requests += r.Failures
	sum.Errors = r.Failures + int64(r.Slots-r.OneWinner)
	p := phaseOf("race", fmt.Sprintf("contention race, %d clients × %d slots", n, r.Slots), "slotd", sum)
	h.rep.Phases = append(h.rep.Phases, p)
	h.progress("race: %d of %d slots had exactly one 201 and %d × 409; statuses %v, failures %d", r.OneWinner, r.Slots, n-1, r.Statuses, r.Failures)
	return nil
}

type raceOutcome struct {
	status int
	id     string
	took   time.Duration
	err    error
}

func countStatus(res []raceOutcome, status int) int {
	n := 0
	for _, o := range res {
		if o.err == nil && o.status == status {
			n++
		}
	}
	return n
}

// raceOnce prepares n bookings of one slot, releases them together and
// returns their outcomes.
func raceOnce(client *fasthttp.HostClient, base string, l *layout, k, b, sm int, at time.Time, n int, seed uint64, timeout time.Duration) []raceOutcome {
	res := make([]raceOutcome, n)
	reqs := make([]*fasthttp.Request, n)
	for c := range n {
		req := fasthttp.AcquireRequest()
		req.SetRequestURI(base + "/api/v1/appointments")
		req.Header.SetMethod("POST")
		req.Header.SetContentType("application/json")
		req.Header.Set("Authorization", l.bearer[b])
		req.Header.Set("Idempotency-Key", fmt.Sprintf("race-%d-%d-%d", seed, k, c))
		req.SetBody(bookingBody(nil, l, b, sm, c%l.Customers, at))
		reqs[c] = req
	}
	go0 := make(chan struct{})
	var wg sync.WaitGroup
	for c := range n {
		wg.Go(func() {
			resp := fasthttp.AcquireResponse()
			defer fasthttp.ReleaseResponse(resp)
			defer fasthttp.ReleaseRequest(reqs[c])
			<-go0
			t := time.Now()
			err := client.DoTimeout(reqs[c], resp, timeout)
			res[c] = raceOutcome{status: resp.StatusCode(), took: time.Since(t), err: err}
			if err == nil && resp.StatusCode() == 201 {
				res[c].id, _ = appointmentID(resp.Body())
			}
		})
	}
	close(go0)
	wg.Wait()
	return res
}
