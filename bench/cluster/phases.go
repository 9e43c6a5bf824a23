package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"
)

// The measurements both deployments share (settle, the booking storm and
// the read loads) and the cluster's forwarding overhead.

// nodeHeader names the node that served a business's request.
const nodeHeader = "X-Slotd-Node"

// deployment is slotd as the load sees it, one node or three, and the
// walk of free slots its bookings take (it goes on across phases, so no
// slot is asked for twice).
type deployment struct {
	name  string // "single" or "cluster", also the Idempotency-Key prefix
	nodes []*node
	next  atomic.Int64
}

// Deployment is what was measured of one deployment.
type Deployment struct {
	Nodes        int            `json:"nodes"`
	ReadySeconds float64        `json:"readySeconds"`
	IdleCPU      float64        `json:"idleCpuPercent"` // slotd's CPU at rest, all nodes, % of one core
	Me           Latency        `json:"meSequential"`   // to the business's own node
	Book         *Phase         `json:"booking"`
	ReadMe       *Phase         `json:"readMe"`
	ReadServices *Phase         `json:"readServices"`
	Owners       map[string]int `json:"businessesPerNode,omitempty"`
}

// settle waits until every business answers GET /api/v1/me with 200
// through every node (which also activates every business), and returns
// the node serving each business as node 1 names it (X-Slotd-Node; empty
// on a single node). Nodes that name different owners are an error.
func (b *bench) settle(ctx context.Context, d *deployment) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	owners := make([]string, b.w.n)
	for biz := range owners {
		for i, n := range d.nodes {
			owner, err := b.answerOnce(ctx, n, biz)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				owners[biz] = owner
			} else if owner != owners[biz] {
				return nil, fmt.Errorf("business %d: %s says it lives on %q, %s on %q",
					biz, d.nodes[0].name, owners[biz], n.name, owner)
			}
		}
	}
	return owners, nil
}

// answerOnce polls GET /api/v1/me for business biz through n until 200
// and returns the X-Slotd-Node of the answer.
func (b *bench) answerOnce(ctx context.Context, n *node, biz int) (string, error) {
	last := ""
	for {
		status, header, body, err := control.get(ctx, n.pub+"/api/v1/me", b.w.bearer(biz))
		if err == nil && status == 200 {
			return header.Get(nodeHeader), nil
		}
		last = describe(status, body, err)
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("business %d never answered 200 through %s; last answer: %s", biz, n.name, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// idleCPU is the CPU the deployment's nodes spend with no request, as a
// percentage of one core, over a couple of seconds.
func (b *bench) idleCPU(ctx context.Context, d *deployment) float64 {
	mark := markCPU(d.nodes)
	sleep(ctx, 2*time.Second)
	c := mark.since(d.nodes, 0)
	if c.Wall == 0 {
		return 0
	}
	return 100 * c.Slotd / c.Wall
}

// countOwners is how many businesses each node serves.
func countOwners(owners []string) map[string]int {
	out := map[string]int{}
	for _, o := range owners {
		out[o]++
	}
	return out
}

// throughput runs the booking storm and the two read loads with
// -c clients for -d each, every request to a random node of d.
func (b *bench) throughput(ctx context.Context, d *deployment, res *Deployment) {
	res.Book = b.measured(ctx, d, loop{clients: b.opt.clients, expect: 201, stop: after(b.opt.duration),
		req: b.booking(d, d.nodes, nil)})
	b.progress("%s: booking storm: %s", d.name, phaseLine(res.Book))
	res.ReadMe = b.reads(ctx, d, "/api/v1/me")
	b.progress("%s: GET /api/v1/me: %s", d.name, phaseLine(res.ReadMe))
	res.ReadServices = b.reads(ctx, d, "/api/v1/services")
	b.progress("%s: GET /api/v1/services: %s", d.name, phaseLine(res.ReadServices))
}

// measured runs l and keeps the CPU it cost.
func (b *bench) measured(ctx context.Context, d *deployment, l loop) *Phase {
	mark := markCPU(d.nodes)
	p := runLoop(ctx, l)
	p.CPU = mark.since(d.nodes, p.OK)
	return p
}

// booking books the walk's next free slot through a random node of
// targets; with acks set it keeps what each 201 acknowledged.
func (b *bench) booking(d *deployment, targets []*node, acks *ackLog) request {
	return func(ctx context.Context, c int, rng *rand.Rand) (int, []byte, error) {
		k := int(d.next.Add(1) - 1)
		if k >= b.w.capacity() {
			return 0, nil, errWalkDone
		}
		biz, body := b.w.bookingBody(k, c)
		n := targets[rng.IntN(len(targets))]
		a, err := b.load.do(ctx, "POST", n.pub+"/api/v1/appointments", b.w.bearer(biz), body,
			d.name+"-"+strconv.Itoa(k))
		if err == nil && a.status == 201 && acks != nil {
			acks.add(biz, a.body)
		}
		return a.status, a.body, err
	}
}

// reads GETs path for a random business through a random node, -c
// clients for -d.
func (b *bench) reads(ctx context.Context, d *deployment, path string) *Phase {
	return b.measured(ctx, d, loop{clients: b.opt.clients, expect: 200, stop: after(b.opt.duration),
		req: func(ctx context.Context, c int, rng *rand.Rand) (int, []byte, error) {
			n := d.nodes[rng.IntN(len(d.nodes))]
			status, _, body, err := b.load.get(ctx, n.pub+path, b.w.bearer(rng.IntN(b.w.n)))
			return status, body, err
		}})
}

func phaseLine(p *Phase) string {
	s := fmt.Sprintf("%.0f/s (%d ok in %.1fs), p50 %.2f ms, p99 %.2f ms, max %.0f ms",
		p.PerSecond, p.OK, p.Seconds, p.P50ms, p.P99ms, p.MaxMs)
	if c := p.CPU; c != nil {
		s += fmt.Sprintf("; CPU: slotd %.1fs (%.0f µs per ok), load generator %.1fs, other processes %.1fs",
			c.Slotd, c.PerOKus, c.LoadGen, c.Others)
	}
	if p.Errors > 0 || len(p.Other) > 0 {
		s += fmt.Sprintf("; other answers %v (p50 %.0f ms, max %.0f ms), errors %d, e.g. %q",
			p.Other, p.OtherP50, p.OtherMax, p.Errors, p.Samples)
	}
	return s
}

// Forwarding compares one business's GET /api/v1/me sent to the node it
// lives on with the same request sent to another node, which hands it
// over: the difference is the cost of forwarding.
type Forwarding struct {
	Business      int     `json:"business"`
	Owner         string  `json:"owner"`
	NonOwner      string  `json:"nonOwner"`
	ToOwner       Latency `json:"toOwner"`
	ToNonOwner    Latency `json:"toNonOwner"`
	OverheadP50us float64 `json:"overheadP50us"`
	OverheadP99us float64 `json:"overheadP99us"`
}

// forwarding measures the forwarding overhead for business biz, whose
// node is owner.
func (b *bench) forwarding(ctx context.Context, nodes []*node, biz int, owner *node) *Forwarding {
	other := nodes[0]
	for _, n := range nodes {
		if n != owner {
			other = n
			break
		}
	}
	f := &Forwarding{Business: biz, Owner: owner.name, NonOwner: other.name}
	f.ToOwner = sequential(ctx, b.load, owner.pub+"/api/v1/me", b.w.bearer(biz), b.opt.seq, owner.name)
	f.ToNonOwner = sequential(ctx, b.load, other.pub+"/api/v1/me", b.w.bearer(biz), b.opt.seq, owner.name)
	f.OverheadP50us = f.ToNonOwner.P50us - f.ToOwner.P50us
	f.OverheadP99us = f.ToNonOwner.P99us - f.ToOwner.P99us
	b.progress("cluster: GET /api/v1/me of business %d: to its node %s p50 %.0f µs; through %s p50 %.0f µs (+%.0f µs)",
		biz, owner.name, f.ToOwner.P50us, other.name, f.ToNonOwner.P50us, f.OverheadP50us)
	return f
}

// nodeNamed is the node called name, or nil.
func nodeNamed(nodes []*node, name string) *node {
	for _, n := range nodes {
		if n.name == name {
			return n
		}
	}
	return nil
}
