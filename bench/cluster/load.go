package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// The load generator: closed-loop clients (each sends its next request
// when the previous one is answered) over net/http keep-alive
// connections, and sequential latency samples. A bad answer is never
// fatal: it is counted, by status, and a few are kept for the report.

// httpClient sends requests and reads whole answers (so connections are
// reused).
type httpClient struct{ c *http.Client }

// newClient keeps up to conns idle connections to each node.
func newClient(conns int, timeout time.Duration) *httpClient {
	return &httpClient{c: &http.Client{Timeout: timeout, Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns * 4,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}}}
}

// control is for the tool's own calls (readiness, owners, metrics,
// checks), never the measured load's.
var control = newClient(8, 5*time.Second)

// answer is one HTTP answer, read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request; bearer, body and idem are optional.
func (h *httpClient) do(ctx context.Context, method, url, bearer string, body []byte, idem string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	if bearer != "" {
		req.Header.Set("Authorization", bearer)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	resp, err := h.c.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: raw}, err
}

func (h *httpClient) get(ctx context.Context, url, bearer string) (int, http.Header, []byte, error) {
	a, err := h.do(ctx, "GET", url, bearer, nil, "")
	return a.status, a.header, a.body, err
}

// request sends client c's next request and returns the answer's status
// and body, or an error. errWalkDone ends the client.
type request func(ctx context.Context, c int, rng *rand.Rand) (int, []byte, error)

var errWalkDone = errors.New("no free slot left in the booking window")

// loop is one closed-loop phase.
type loop struct {
	clients int
	expect  int             // the status of a successful answer
	stop    <-chan struct{} // closed: each client finishes its request and stops
	pace    time.Duration   // pause of each client between requests (0: none)
	req     request
}

// Phase is what one closed-loop phase measured.
type Phase struct {
	Clients   int              `json:"clients"`
	Seconds   float64          `json:"seconds"`
	Requests  int64            `json:"requests"`
	OK        int64            `json:"ok"`        // answers with the expected status
	PerSecond float64          `json:"perSecond"` // ok answers per second
	P50ms     float64          `json:"p50ms"`     // latency of the ok answers
	P99ms     float64          `json:"p99ms"`
	MaxMs     float64          `json:"maxMs"`
	Other     map[string]int64 `json:"other,omitempty"`      // other answers by status
	OtherP50  float64          `json:"otherP50ms,omitempty"` // their latency
	OtherMax  float64          `json:"otherMaxMs,omitempty"`
	Errors    int64            `json:"errors"` // transport errors and timeouts
	Samples   []string         `json:"samples,omitempty"`
	CPU       *CPU             `json:"cpu,omitempty"`
}

// clientTally is one client's share of a phase, merged at its end.
type clientTally struct {
	lat    []time.Duration
	oLat   []time.Duration // of the other answers
	other  map[int]int64
	errors int64
	odd    []string
}

// after returns a channel closed after d.
func after(d time.Duration) <-chan struct{} {
	ch := make(chan struct{})
	time.AfterFunc(d, func() { close(ch) })
	return ch
}

// runLoop runs l until its stop channel closes (or ctx ends) and sums up.
func runLoop(ctx context.Context, l loop) *Phase {
	tallies := make([]clientTally, l.clients)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range tallies {
		wg.Go(func() { tallies[c].run(ctx, c, l) })
	}
	wg.Wait()
	return summarize(tallies, l.clients, l.expect, time.Since(start))
}

func (t *clientTally) run(ctx context.Context, c int, l loop) {
	rng := rand.New(rand.NewPCG(uint64(c), 0x5107d))
	t.other = map[int]int64{}
	for {
		select {
		case <-l.stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		begin := time.Now()
		status, body, err := l.req(ctx, c, rng)
		took := time.Since(begin)
		switch {
		case errors.Is(err, errWalkDone):
			return
		case err != nil:
			t.errors++
			t.keep(err.Error())
		case status == l.expect:
			t.lat = append(t.lat, took)
		default:
			t.other[status]++
			t.oLat = append(t.oLat, took)
			t.keep(fmt.Sprintf("%d %.200s", status, bytes.TrimSpace(body)))
		}
		if l.pace > 0 {
			time.Sleep(l.pace)
		}
	}
}

func (t *clientTally) keep(s string) {
	if len(t.odd) < 3 {
		t.odd = append(t.odd, s)
	}
}

func summarize(tallies []clientTally, clients, expect int, took time.Duration) *Phase {
	p := &Phase{Clients: clients, Seconds: took.Seconds(), Other: map[string]int64{}}
	var lat, oLat []time.Duration
	for _, t := range tallies {
		lat = append(lat, t.lat...)
		oLat = append(oLat, t.oLat...)
		p.Errors += t.errors
		for status, n := range t.other {
			p.Other[strconv.Itoa(status)] += n
			p.Requests += n
		}
		for _, s := range t.odd {
			if len(p.Samples) < 5 {
				p.Samples = append(p.Samples, s)
			}
		}
	}
	p.OK = int64(len(lat))
	p.Requests += p.OK + p.Errors
	if p.Seconds > 0 {
		p.PerSecond = float64(p.OK) / p.Seconds
	}
	slices.Sort(lat)
	p.P50ms = ms(percentile(lat, 50))
	p.P99ms = ms(percentile(lat, 99))
	p.MaxMs = ms(percentile(lat, 100))
	slices.Sort(oLat)
	p.OtherP50, p.OtherMax = ms(percentile(oLat, 50)), ms(percentile(oLat, 100))
	if len(p.Other) == 0 {
		p.Other = nil
	}
	return p
}

// percentile is the nearest-rank q-th percentile of sorted d.
func percentile(d []time.Duration, q int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := (len(d)*q + 99) / 100 // ceil(n·q/100)
	return d[max(i, 1)-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// Latency is a sequential sample: one request at a time, one connection.
type Latency struct {
	URL       string   `json:"url"`
	N         int      `json:"n"`      // 200 answers measured
	P50us     float64  `json:"p50us"`  // of the 200 answers
	P99us     float64  `json:"p99us"`  //
	Failed    int64    `json:"failed"` // non-200 answers and errors
	Node      string   `json:"node,omitempty"`
	WrongNode int64    `json:"wrongNode,omitempty"` // answered by another node than Node
	Samples   []string `json:"samples,omitempty"`
}

// sequential sends n GETs of url one after the other (after a warm-up of
// a tenth of n, at most 200) and measures each. With wantNode set it also
// counts the answers whose X-Slotd-Node names another node.
func sequential(ctx context.Context, h *httpClient, url, bearer string, n int, wantNode string) Latency {
	res := Latency{URL: url, Node: wantNode}
	warm := min(n/10, 200)
	lat := make([]time.Duration, 0, n)
	for i := range warm + n {
		if ctx.Err() != nil {
			break
		}
		begin := time.Now()
		status, header, body, err := h.get(ctx, url, bearer)
		took := time.Since(begin)
		if err != nil || status != 200 {
			res.Failed++
			if len(res.Samples) < 3 {
				res.Samples = append(res.Samples, describe(status, body, err))
			}
			continue
		}
		if wantNode != "" && header.Get(nodeHeader) != wantNode {
			res.WrongNode++
		}
		if i >= warm {
			lat = append(lat, took)
		}
	}
	slices.Sort(lat)
	res.N, res.P50us, res.P99us = len(lat), us(percentile(lat, 50)), us(percentile(lat, 99))
	return res
}

func describe(status int, body []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%d %.200s", status, bytes.TrimSpace(body))
}
