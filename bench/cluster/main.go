// Command cluster measures slotd's cluster mode against its single-node
// mode, in the same run on the same machine, on loopback.
//
// # Usage
//
//	go run ./bench/cluster [-businesses 12] [-c 32] [-d 10s] [-seq 2000] [-json FILE]
//
// It builds ./cmd/slotd, writes a world of -businesses bookable
// businesses (deterministic ids, one API key each), and then:
//
//  1. starts one slotd and measures the sequential latency of GET
//     /api/v1/me, the durable booking storm (-c closed-loop clients for
//     -d, every request a distinct free slot with its own
//     Idempotency-Key, spread over every business) and the read
//     throughput of GET /api/v1/me and GET /api/v1/services; then stops it;
//  2. starts three slotd nodes in cluster mode (each with its embedded
//     journal replica) and runs the same loads, each request to a random
//     node, so about two thirds are handed over to the business's node;
//     for one business it compares GET /api/v1/me sent to its own node
//     with the same request sent to another node: the difference is the
//     cost of forwarding;
//  3. kills the node of that business with SIGKILL during a light booking
//     load and reports how long until the business answers again through
//     a surviving node, and whether every acknowledged booking is still
//     there (none may be missing).
//
// Why: cluster mode buys surviving the loss of a machine with a
// replicated journal and a hop between nodes. The figures that say what
// that costs are the per-node throughput next to the single node's, the
// forwarding overhead of one request, and the time a business is
// unavailable after a crash. On one machine the three nodes share its
// cores, so the absolute 3-node throughput is a lower bound of what three
// machines would do, never a gain.
//
// # Soak mode
//
//	go run ./bench/cluster -soak 20m [-seed 42] [-businesses 6] [-c 16] [-rate 80]
//	    [-contest 0.2] [-contest-size 3] [-readers 2] [-fault-min 20s] [-fault-max 60s]
//	    [-stop-min 5s] [-stop-max 20s] [-give-up 2m] [-timeout 3s] [-ready-timeout 90s] [-json FILE]
//
// With -soak the tool checks correctness under faults instead of
// comparing deployments. It builds ./cmd/slotd, writes the world
// (-businesses defaults to 6 here), starts three cluster nodes only and
// waits until each answers /readyz 200. Then, for the -soak duration:
//
//   - -c booking clients (16 here) ask together for about -rate
//     bookings/s, each booking through a random node with its own
//     Idempotency-Key. No answer within -timeout (3 s here), a transport
//     error, 5xx, 429 or 409 IDEMPOTENCY_IN_PROGRESS is retried: the same
//     request with the same key, to a random node, after a pause growing
//     from 50 ms to 1 s, until it is answered 201 (acknowledged: id,
//     business, staff member, start, end and when the 201 arrived are
//     kept) or refused (409, 422, any other 4xx), or -give-up has passed
//     (counted as given up). A booking being retried is carried on by a
//     goroutine of its own (up to 64 per client) while its client goes on
//     booking: a client stuck on a business whose node is stopped would
//     otherwise starve every other business of load.
//   - A share -contest of the bookings are contested: -contest-size
//     clients ask for the same business, staff member and start at once,
//     each with its own key; in the end each such slot must be held by
//     exactly one appointment.
//   - -readers stale-read readers pick one of the 200 newest
//     acknowledged bookings (biased to the newest) and GET it by id
//     through a random node; a 404 for a booking whose 201 arrived before
//     the read was sent is a stale read, kept with the node that answered
//     (X-Slotd-Node), the ms since the 201, the time since the last fault
//     event and whether an immediate re-read through the same node is
//     still 404. Every tenth read walks the business's
//     GET /api/v1/appointments?updatedSince= (1 s before the booking was
//     first sent) instead, which must list it.
//   - Faults drawn from -seed (math/rand/v2's PCG: the same seed and
//     bounds give the same schedule; 0 or none draws a seed, printed with
//     the command that repeats the run): -fault-min to -fault-max after
//     every node was last ready again, a random node gets SIGKILL and is
//     started again with the same flags and data directory; or SIGSTOP
//     for -stop-min to -stop-max, then SIGCONT; or SIGTERM, its exit
//     awaited, and a restart. The next fault waits until every node
//     answers /readyz 200 again (at most -ready-timeout; a node that does
//     not come back is reported and ends the faults). Each fault is
//     logged to stderr with its wall-clock time.
//
// When the load has stopped (and the bookings still being retried are
// answered), every business's appointments are listed through every node
// (cursor paging) and checked: every acknowledged booking present, no
// two active appointments of one staff member overlapping, every
// contested slot held exactly once, the three nodes listing the same
// appointments. Then the whole cluster is restarted (SIGTERM to every
// node, then every node started again) and the same checks run again.
// The report has the faults with their times, the bookings acknowledged,
// refused and given up, the stale reads, the checks before and after the
// restart, per business the worst stretch without an acknowledged
// booking (and the faults it overlapped), and per fault the time from the
// signal (SIGSTOP: and from the SIGCONT) to the first 201 of each
// business that lived on the node. The exit status is 1 when a check
// fails: a stale read, a missing acknowledged booking, a double booking,
// a contested slot not held exactly once, nodes that disagree, a node
// that did not come back; so the soak can gate a change.
//
// For a quick try, shorten the faults' interval, e.g. -soak 90s
// -fault-min 10s -fault-max 20s -stop-min 5s -stop-max 10s.
//
// Progress goes to stderr, the Markdown report to stdout (and the figures
// to -json FILE). Every process the tool starts is stopped by its PID when
// it is done with it and on failure or Ctrl-C (a node the soak holds
// SIGSTOPped is sent SIGCONT first, so that it can drain); the run's
// directory (the slotd binary, world, data directories and node logs) is
// removed unless the run fails or -keep is given.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/slotd/slotd/bench/proc"
)

// adminToken is the admin bearer token every node is started with.
const adminToken = "bench-cluster-admin-token"

// clusterSize is the number of nodes of the cluster.
const clusterSize = 3

type options struct {
	businesses      int
	clients         int
	duration        time.Duration
	seq             int
	failoverClients int
	failoverRate    float64
	readyTimeout    time.Duration
	timeout         time.Duration
	slotd           string
	jsonPath        string
	keep            bool

	// The soak mode (soak.go); soak > 0 turns it on.
	soak               time.Duration
	seed               uint64
	rate               float64
	contest            float64
	contestSize        int
	readers            int
	faultMin, faultMax time.Duration
	holdMin, holdMax   time.Duration
	giveUp             time.Duration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.businesses, "businesses", 12, "businesses in the world (`N`)")
	fs.IntVar(&o.clients, "c", 32, "closed-loop clients of the throughput phases")
	fs.DurationVar(&o.duration, "d", 10*time.Second, "length of each throughput phase")
	fs.IntVar(&o.seq, "seq", 2000, "requests of each sequential latency sample")
	fs.IntVar(&o.failoverClients, "failover-c", 4, "clients of the light booking load during the failover")
	fs.Float64Var(&o.failoverRate, "failover-rate", 200, "about how many bookings/s the failover load asks for")
	fs.DurationVar(&o.readyTimeout, "ready-timeout", 90*time.Second, "longest wait for a node's /readyz")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "timeout of one measured request")
	fs.StringVar(&o.slotd, "slotd", "", "use this slotd `binary` instead of building ./cmd/slotd")
	fs.StringVar(&o.jsonPath, "json", "", "also write the figures to `FILE` as JSON")
	fs.BoolVar(&o.keep, "keep", false, "keep the run's directory (data, logs) after a successful run")
	fs.DurationVar(&o.soak, "soak", 0, "run the soak mode for `DURATION` instead of the comparison (e.g. 20m)")
	fs.Uint64Var(&o.seed, "seed", 0, "soak: seed of the fault schedule and the clients (0: draw one and print it)")
	fs.Float64Var(&o.rate, "rate", 80, "soak: about how many bookings/s the clients ask for together")
	fs.Float64Var(&o.contest, "contest", 0.2, "soak: share of the bookings that ask for a contested slot")
	fs.IntVar(&o.contestSize, "contest-size", 3, "soak: requests that ask for one contested slot at once")
	fs.IntVar(&o.readers, "readers", 2, "soak: stale-read readers")
	fs.DurationVar(&o.faultMin, "fault-min", 20*time.Second, "soak: shortest wait from every node ready to the next fault")
	fs.DurationVar(&o.faultMax, "fault-max", 60*time.Second, "soak: longest wait from every node ready to the next fault")
	fs.DurationVar(&o.holdMin, "stop-min", 5*time.Second, "soak: shortest SIGSTOP")
	fs.DurationVar(&o.holdMax, "stop-max", 20*time.Second, "soak: longest SIGSTOP")
	fs.DurationVar(&o.giveUp, "give-up", 2*time.Minute, "soak: how long one booking is retried before it is given up")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.soak > 0 {
		// The soak's own defaults where the comparison's differ.
		if !set["businesses"] {
			o.businesses = 6
		}
		if !set["c"] {
			o.clients = 16
		}
		if !set["timeout"] {
			// A client that waited 10 s on a stopped node would hold its
			// share of the load for the whole stop, and with every client
			// stuck there the worst stretch without an acknowledgement
			// would measure the load generator, not the cluster.
			o.timeout = 3 * time.Second
		}
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.businesses < 1 || o.clients < 1 || o.failoverClients < 1:
		return o, errors.New("-businesses, -c and -failover-c must be at least 1")
	case o.duration <= 0 || o.readyTimeout <= 0 || o.timeout <= 0:
		return o, errors.New("-d, -ready-timeout and -timeout must be positive")
	case o.seq < 10:
		return o, errors.New("-seq must be at least 10")
	case !(o.failoverRate > 0):
		return o, errors.New("-failover-rate must be positive")
	case o.soak < 0:
		return o, errors.New("-soak must not be negative")
	case o.soak > 0 && !(o.rate > 0):
		return o, errors.New("-rate must be positive")
	case o.soak > 0 && !(o.contest >= 0 && o.contest <= 1):
		return o, errors.New("-contest must be between 0 and 1")
	case o.soak > 0 && (o.contestSize < 2 || o.readers < 0):
		return o, errors.New("-contest-size must be at least 2 and -readers not negative")
	case o.soak > 0 && (o.faultMin <= 0 || o.faultMax < o.faultMin || o.holdMin <= 0 || o.holdMax < o.holdMin):
		return o, errors.New("-fault-min/-fault-max and -stop-min/-stop-max must be positive, each max at least its min")
	case o.soak > 0 && o.giveUp <= 0:
		return o, errors.New("-give-up must be positive")
	}
	return o, nil
}

// bench is one run.
type bench struct {
	opt       options
	tmp       string // the run's directory
	bin       string // the slotd binary
	worldFile string
	w         *world
	load      *httpClient // the measured load's connections
	procs     proc.Group
	log       io.Writer
	began     time.Time
}

func (b *bench) progress(format string, args ...any) {
	fmt.Fprintf(b.log, "[%6.1fs] %s\n", time.Since(b.began).Seconds(), fmt.Sprintf(format, args...))
}

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}

// run is main without the process globals: 0 when the run completed, 1
// when it could not, 2 on bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opt, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "cluster:", err)
		return 2
	}
	if opt.soak > 0 {
		return runSoak(ctx, opt, args, stdout, stderr)
	}
	tmp, err := os.MkdirTemp("", "slotd-bench-cluster-")
	if err != nil {
		fmt.Fprintln(stderr, "cluster:", err)
		return 1
	}
	b := &bench{opt: opt, tmp: tmp, w: newWorld(opt.businesses, time.Now()), load: newClient(opt.clients, opt.timeout),
		log: stderr, began: time.Now(), worldFile: filepath.Join(tmp, "world.json")}
	rep, err := b.run(ctx)
	b.procs.StopAll(15 * time.Second)
	if err == nil && opt.jsonPath != "" {
		err = rep.writeJSON(opt.jsonPath)
	}
	if err != nil {
		fmt.Fprintln(stderr, "cluster:", err)
		fmt.Fprintln(stderr, "cluster: the run's directory (node logs, data) is kept:", tmp)
		return 1
	}
	rep.markdown(stdout)
	if opt.keep {
		fmt.Fprintln(stderr, "cluster: the run's directory is kept:", tmp)
	} else if err := os.RemoveAll(tmp); err != nil {
		fmt.Fprintln(stderr, "cluster:", err)
	}
	return 0
}

// run builds, writes the world and measures both deployments.
func (b *bench) run(ctx context.Context) (*Report, error) {
	b.bin = b.opt.slotd
	if b.bin == "" {
		b.progress("building ./cmd/slotd")
		if err := b.buildSlotd(ctx); err != nil {
			return nil, err
		}
	}
	if err := b.w.write(b.worldFile); err != nil {
		return nil, err
	}
	rep := &Report{Date: time.Now(), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), Businesses: b.opt.businesses,
		Clients: b.opt.clients, Seconds: b.opt.duration.Seconds(), Sequential: b.opt.seq}
	if err := b.single(ctx, rep); err != nil {
		return nil, err
	}
	if err := b.cluster(ctx, rep); err != nil {
		return nil, err
	}
	return rep, ctx.Err()
}

// single measures one slotd node, then stops it.
func (b *bench) single(ctx context.Context, rep *Report) error {
	ports, err := pickPorts(false)
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := b.startNode("single", ports)
	if err != nil {
		return err
	}
	defer n.p.Terminate(15 * time.Second)
	if err := n.waitReady(ctx, b.opt.readyTimeout); err != nil {
		return err
	}
	rep.Single.Nodes, rep.Single.ReadySeconds = 1, time.Since(start).Seconds()
	d := &deployment{name: "single", nodes: []*node{n}}
	if _, err := b.settle(ctx, d); err != nil {
		return err
	}
	rep.Single.IdleCPU = b.idleCPU(ctx, d)
	rep.Single.Me = sequential(ctx, b.load, n.pub+"/api/v1/me", b.w.bearer(0), b.opt.seq, "")
	b.progress("single: GET /api/v1/me sequential p50 %.0f µs, p99 %.0f µs", rep.Single.Me.P50us, rep.Single.Me.P99us)
	b.throughput(ctx, d, &rep.Single)
	return ctx.Err()
}

// cluster measures three nodes: throughput, forwarding, failover.
func (b *bench) cluster(ctx context.Context, rep *Report) error {
	start := time.Now()
	b.progress("cluster: starting %d nodes", clusterSize)
	nodes, err := b.startCluster(ctx, clusterSize)
	if err != nil {
		return err
	}
	rep.Cluster.Nodes, rep.Cluster.ReadySeconds = clusterSize, time.Since(start).Seconds()
	b.progress("cluster: every node ready after %.1fs", rep.Cluster.ReadySeconds)
	d := &deployment{name: "cluster", nodes: nodes}
	owners, err := b.settle(ctx, d)
	if err != nil {
		return err
	}
	rep.Cluster.Owners = countOwners(owners)
	b.progress("cluster: businesses per node %v", rep.Cluster.Owners)
	rep.Cluster.IdleCPU = b.idleCPU(ctx, d)
	b.progress("cluster: CPU at rest %.0f%% of a core (all nodes)", rep.Cluster.IdleCPU)
	owner := nodeNamed(nodes, owners[0])
	if owner == nil {
		return fmt.Errorf("business 0's answers name node %q (%s), none of the cluster's", owners[0], nodeHeader)
	}
	rep.Forwarding = b.forwarding(ctx, nodes, 0, owner)
	rep.Cluster.Me = rep.Forwarding.ToOwner
	before := scrapeAll(ctx, nodes)
	b.throughput(ctx, d, &rep.Cluster)
	b.loadMetrics(ctx, rep, nodes, before)
	if owner, err = b.ownerNow(ctx, nodes, 0); err != nil {
		return err
	}
	rep.Failover = b.failover(ctx, d, 0, owner)
	rep.MetricsAfterAll = scrapeAll(ctx, nodes)
	return ctx.Err()
}

// loadMetrics keeps each node's counters over the throughput phases and
// the share of the load's requests that were forwarded.
func (b *bench) loadMetrics(ctx context.Context, rep *Report, nodes []*node, before []NodeMetrics) {
	after := scrapeAll(ctx, nodes)
	var forwarded float64
	for i, m := range after {
		if i < len(before) && m.Error == "" && before[i].Error == "" {
			m = m.minus(before[i])
		}
		rep.LoadMetrics = append(rep.LoadMetrics, m)
		forwarded += m.Forwarded
		b.progress("cluster: %s owns %.0f businesses; forwarded %.0f, served %.0f, journal appends %.0f, fencing refusals %.0f %s",
			m.Node, m.Owned, m.Forwarded, m.Served, m.Appends, m.Fenced, m.Error)
	}
	var sent int64
	for _, p := range []*Phase{rep.Cluster.Book, rep.Cluster.ReadMe, rep.Cluster.ReadServices} {
		sent += p.Requests
	}
	if sent > 0 {
		rep.ForwardedShare = forwarded / float64(sent)
	}
}

// ownerNow asks node 1 which node serves business biz now.
func (b *bench) ownerNow(ctx context.Context, nodes []*node, biz int) (*node, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	name, err := b.answerOnce(ctx, nodes[0], biz)
	if err != nil {
		return nil, err
	}
	if n := nodeNamed(nodes, name); n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("business %d's answer names node %q (%s), none of the cluster's", biz, name, nodeHeader)
}
