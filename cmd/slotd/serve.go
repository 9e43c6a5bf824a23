package main

import (
	"bufio"
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/business"
	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/world"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/transport"
	"github.com/slotd/slotd/transport/admin"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/handover"
	"github.com/slotd/slotd/transport/linktoken"
	"github.com/slotd/slotd/webhook/channel"
	"github.com/slotd/slotd/webhook/deliver"
	"github.com/slotd/slotd/webhook/icsfetch"
	"github.com/slotd/slotd/webhook/mail"
	"github.com/slotd/slotd/webhook/payment"
)

// addrs are the addresses the server listens on, reported once it serves.
type addrs struct{ Public, Admin string }

// serve runs the server until ctx ends, then drains in-flight requests,
// stops the business actors and closes the journal. ready, if not nil, is
// called with the bound addresses once requests are served.
func serve(ctx context.Context, c *config, stdout, stderr io.Writer, ready func(addrs)) error {
	started := c.clock.Now()
	defer tuneGC()()
	log := newLogger(c, stderr)
	if c.WebhooksAllowInsecure {
		log.Warn("!!! --webhooks-allow-insecure is set: webhook deliveries may go to http://, any port and private or loopback addresses. Never use this in production. !!!")
	}
	storeDir := c.Data
	if c.Cluster.on() {
		storeDir = filepath.Join(c.Data, "node") // the journal replica is DATA/journal
	}
	store, err := openStore(storeDir, c, log)
	if err != nil {
		return err
	}
	defer store.Close()
	// Bind before anything is seeded or printed: a start that fails on a
	// taken port must not have spent the demo keys.
	pubLn, admLn, err := bind(c)
	if err != nil {
		return err
	}
	defer pubLn.Close() // once served, the server closes them; again is harmless
	var access *slog.Logger
	if c.AccessLog != edge.AccessLogOff {
		// Lines are batched off the request path; what is queued is
		// written when serve returns, after the listeners have drained.
		out := edge.NewAsyncWriter(stderr)
		defer out.Close()
		format := string(c.AccessLog)
		if c.jsonLog() {
			format = edge.AccessLogJSON
		}
		if access, err = edge.NewAccessLog(out, format); err != nil {
			return err
		}
	}
	// The admin listener answers /healthz (and /readyz: 503, and why) from
	// now on, while the node waits for its journal or loads its world.
	boot := serveStartup(admLn, "starting", access, c.clock)
	defer boot.stop() // a no-op once listen has taken the listener over
	if c.World != "" {
		if _, err := os.Stat(c.World); err != nil { // before any wait: say so now
			return fmt.Errorf("world file: %w", err)
		}
	}
	var cn *clusterNode
	if c.Cluster.on() {
		if cn, err = startCluster(ctx, c, store, boot.set, log); err != nil {
			return err
		}
		defer cn.close()
	}
	secret, err := serverSecret(store, cn, "cursor")
	if err != nil {
		return err
	}
	linkSecret, err := serverSecret(store, cn, "manage-link")
	if err != nil {
		return err
	}
	links, public := linktoken.New(linkSecret), publicURL(c, pubLn)
	if beyond := servesBeyondLoopback(c, pubLn); beyond != "" {
		log.Warn("--public-url is not set: every link slotd gives out (manage links in e-mails, the booking page, calendar feeds, payment webhooks) points at "+
			public+", which only this machine reaches, while the API listens on "+beyond+"; set --public-url to the address your customers reach",
			"public_url", public)
	}
	mailMetrics, courierMetrics, outboxMetrics := mail.NewMetrics(), courier.NewMetrics(), channel.NewMetrics(c.clock)
	mailer := &mail.Drainer{Outbox: mail.StoreOutbox{S: store}, Sender: mail.NewSender(c.SMTP, c.SMTPUser, c.SMTPPassword, c.Data, c.clock),
		From: c.SMTPFrom, Log: log, Clock: c.clock, Metrics: mailMetrics, Channel: outboxMetrics.Channel(channel.Mail),
		Manage: manageLink(public, links)}
	hooks := deliver.New(deliver.Config{AllowInsecure: c.WebhooksAllowInsecure, Clock: c.clock})
	defer hooks.CloseIdleConnections()
	couriers := &courier.Env{Store: store, Clock: c.clock, Sender: hooks, Scale: c.WebhookRetryScale, Log: log, Metrics: courierMetrics,
		Outbox: outboxMetrics.Channel(channel.Webhook)}
	metrics := business.NewMetrics()
	dcfg := directory.Config{Store: store, Clock: c.clock, Log: log, MailQueued: queueMail(mailer), Couriers: couriers,
		Payments: payment.NewClient(c.WebhooksAllowInsecure), PublicURL: public, ManageURL: manageURL(public, links),
		Metrics: metrics, PaymentOutbox: outboxMetrics.Channel(channel.Payment),
		Calendars: &business.Calendars{Fetcher: icsfetch.New(c.WebhooksAllowInsecure), Slots: make(chan struct{}, calendarFetches)}}
	if cn != nil {
		dcfg.Keys, dcfg.Admit = cn.registry, cn.Local
	} else {
		// In cluster mode every business stays where its grain placed it:
		// the placement sweep activates them all (README, Cluster mode).
		dcfg.Residency = directory.Residency{IdleAfter: c.IdleAfter, MaxResident: c.MaxResident}
	}
	dir, err := directory.Open(dcfg)
	if err != nil {
		return err
	}
	defer func() {
		// After a journal failure an actor may be parked inside Pebble
		// for good (storage/logger.go): the process exits instead, and
		// the next start recovers from the WAL.
		if store.Err() == nil {
			dir.Close()
		}
	}()
	mailCtx, stopMail := context.WithCancel(context.Background())
	mailDone := make(chan error, 1)
	go func() { mailDone <- mailer.Run(mailCtx) }()
	defer func() {
		stopMail()
		if store.Err() == nil { // else the mailer may be parked in Pebble
			<-mailDone
		}
	}()
	if cn == nil { // in cluster mode, after joining (below)
		boot.set("loading the world file or seeding the demo business")
		if err := populate(ctx, c, store, dir, public, newBanner(c, stdout), log); err != nil {
			return err
		}
		if err := wakeCouriers(ctx, store, dir); err != nil {
			return err
		}
		if err := wakeTimed(ctx, store, dir); err != nil {
			return err
		}
	}
	// One registry, served on the admin listener's /metrics: every package
	// owns its metrics and hands them over as a collector.
	reg := prometheus.NewRegistry()
	front := transport.Config{
		Dir: dir, Clock: c.clock, Cursors: cursor.New(secret), Log: log,
		AdminToken: c.AdminToken, Disabled: disabled(c.DisableModules),
		Webhooks:              hooks,
		WebhooksAllowInsecure: c.WebhooksAllowInsecure,
		Metrics:               reg,
		AccessLog:             access,
		Links:                 links,
		Feeds:                 linktoken.NewFeeds(linkSecret),
		PublicURL:             dcfg.PublicURL,
	}
	if cn != nil {
		front.Cluster, front.NodeName, front.HandOver = cn, c.Cluster.Node, handover.New(cn)
	}
	srv := transport.New(front)
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		store.Collector(),
		outboxMetrics,
	)
	for _, cs := range [][]prometheus.Collector{dir.Collectors(), courierMetrics.Collectors(), mailMetrics.Collectors(), metrics.Collectors(), srv.Collectors()} {
		reg.MustRegister(cs...)
	}
	if cn != nil {
		defer front.HandOver.CloseIdleConnections()
		reg.MustRegister(cn.collector(front.HandOver, srv.Withheld))
		boot.set("joining the cluster")
		if err := cn.join(dir, srv.HandOverHandler()); err != nil {
			return err
		}
		defer cn.leave() // before the directory closes: the businesses move on
		boot.set("loading the world file")
		if err := loadWorldClustered(ctx, c, srv, log); err != nil {
			return err
		}
	}
	var watch *readyWatch
	defer func() {
		if watch != nil {
			watch.stop()
		}
	}()
	return listen(ctx, c, pubLn, boot.handOver(), srv, store.Failed(), log, stdout, func(a addrs) {
		// The watch ends when the stop begins: the drain's 503s are
		// said by its own lines.
		watch = watchReady(srv.Readiness, c.clock, log, started)
		context.AfterFunc(ctx, watch.stop)
		if ready != nil {
			ready(a)
		}
	})
}

// newLogger is the server's log on stderr, text or JSON (--log-format).
func newLogger(c *config, stderr io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if c.jsonLog() {
		return slog.New(slog.NewJSONHandler(stderr, opts))
	}
	return slog.New(slog.NewTextHandler(stderr, opts))
}

// bind opens the public and the admin listener, or neither.
func bind(c *config) (pub, adm net.Listener, err error) {
	if pub, err = listenOn("--listen", c.Listen); err != nil {
		return nil, nil, err
	}
	if adm, err = listenOn("--admin-listen", c.AdminListen); err != nil {
		pub.Close()
		return nil, nil, err
	}
	return pub, adm, nil
}

// listenOn listens on addr; its error names the flag that gave addr.
func listenOn(flag, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			err = op.Err // "bind: address already in use", without repeating addr
		}
		return nil, fmt.Errorf("%s %s: cannot listen: %w", flag, addr, err)
	}
	return ln, nil
}

// populate loads --world, or seeds the demo business into an empty store.
func populate(ctx context.Context, c *config, store *storage.Store, dir *directory.Directory, public string, out *banner, log *slog.Logger) error {
	if c.World != "" {
		return loadWorld(ctx, c, dir, log)
	}
	empty, err := store.IsEmpty()
	if err != nil || !empty {
		return err
	}
	return seedDemo(ctx, dir, public, out)
}

// loadWorld loads --world as the admin API loads a world (admin.PutWorld).
// loadWorld reads the world file twice, business by business, never
// whole: first to check all of it (so a bad file loads nothing), then to
// put each business as it is read. Each reading spreads the businesses
// over every core. Memory holds a few businesses' documents at a time
// however large the file.
//
// A business's actor stops once its put is durable: the load leaves no
// business in memory, and each is loaded by the first request that needs
// it, as after a restart. Keeping them made the live heap grow with the
// file: loading 1 M appointments spent 28 % of its CPU in GC and peaked
// at 1 GiB, and a world of 100,000 small businesses took 3.9 GB and
// 7.5 minutes (issue 23).
func loadWorld(ctx context.Context, c *config, dir *directory.Directory, log *slog.Logger) error {
	// A load makes garbage fast: collecting at the default 100 % growth
	// was 9 % of loading 1 M appointments (2026-11-27). Four times the
	// growth halves the collections' share; a soft limit keeps the heap,
	// which holds the checked businesses until they are put (keepWorld),
	// well inside the 1 GiB a load may take. An operator's GOGC or
	// GOMEMLIMIT wins.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(loadHeapLimit))
	}
	path, began := c.World, time.Now()
	fail := func(err error) error {
		return fmt.Errorf("world file %s:\n%s", path, indent(fileProblems(path, err).Error()))
	}
	outline, specs, err := checkWorld(path)
	if err == nil {
		err = dir.CheckKeys(outline)
	}
	if err != nil {
		return fail(err)
	}
	ids := make([]uuid.UUID, len(outline))
	for i := range outline {
		ids[i] = outline[i].Business.ID
	}
	now := c.clock.Now()
	l := &loader{}
	putOne := func(i int, spec model.Spec) error {
		return l.run(i, func() error {
			_, err := admin.PutWorld(ctx, dir, []model.Spec{spec}, now, log, ids...)
			dir.Drop(spec.Business.ID)
			return err
		})
	}
	// Businesses are put several at once: each put is a journal write
	// synced before it returns, and concurrent puts share their syncs
	// (group commit).
	putters := runtime.GOMAXPROCS(0) * 4
	if specs != nil {
		err = putAll(specs, putters, putOne)
	} else {
		err = readFile(path, func(r io.Reader) error {
			return world.EachParallel(r, putters, putOne)
		})
	}
	if lerr := l.wait(); lerr != nil {
		return fail(lerr)
	}
	if err != nil {
		return fail(err)
	}
	if specs != nil {
		// The businesses held were let go as they were put; give their
		// memory back now rather than when the scavenger gets to it, so
		// that a server that loaded a large file starts small.
		debug.FreeOSMemory()
	}
	log.Info("world file loaded", "file", path, "businesses", len(outline), "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// checkWorld checks the world file at path and returns its outline and,
// when the file is at most keepWorld bytes of businesses, every business
// whole, so that loading it needs no second reading. The businesses are
// read on every core (world.CheckParallel); a file with a problem is read
// once more, one business after the other, for Check's report of every
// problem in the file's order.
func checkWorld(path string) (outline, specs []model.Spec, err error) {
	valid := false
	err = readFile(path, func(r io.Reader) (err error) {
		outline, specs, valid, err = world.CheckParallel(r, runtime.GOMAXPROCS(0), keepWorld)
		return err
	})
	if err != nil || valid {
		return outline, specs, err
	}
	err = readFile(path, func(r io.Reader) (err error) {
		outline, err = world.Check(r)
		return err
	})
	return outline, nil, err
}

// keepWorld bounds the businesses a load holds between checking the file
// and putting it, in bytes of the file's JSON. Reading the file a second
// time was a quarter of loading 1 M appointments; held, the 400 MB file of
// the harness's load phase peaks near 730 MiB of RSS (a load may take
// 1 GiB), under the soft heap limit below.
// A larger file is read twice and held a few businesses at a time.
const keepWorld = 448 << 20

// calendarFetches bounds the calendar sources fetched and expanded at
// once on this node (business.Calendars.Slots): the rest wait their turn,
// so resuming thousands after a restart neither opens thousands of
// connections nor parses thousands of files at once on two cores.
const calendarFetches = 4

// loadHeapLimit is the soft limit of the Go heap during a world load.
const loadHeapLimit = 768 << 20

// putAll puts specs on n goroutines, each business's memory let go once
// it is put, and returns the first error (the loader has the first in
// file order).
func putAll(specs []model.Spec, n int, put func(i int, spec model.Spec) error) error {
	var next atomic.Int64
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(specs) {
					return
				}
				spec := specs[i]
				specs[i] = model.Spec{}
				if err := put(i, spec); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// loader keeps the outcome of the puts of a world file, which run on
// several goroutines. A failed put stops the reading; the error reported
// is that of the first failed business in file order, as when they were
// put one by one (businesses after it that were already in flight may
// have been put: a world load was never atomic across businesses).
type loader struct {
	mu    sync.Mutex
	first int // the failed business's index in the file
	err   error
}

var errLoadStopped = errors.New("world load stopped")

// run runs the put of business i, unless a put has failed already.
func (l *loader) run(i int, fn func() error) error {
	if l.failed() {
		return errLoadStopped
	}
	err := fn()
	if err != nil {
		l.mu.Lock()
		if l.err == nil || i < l.first {
			l.first, l.err = i, admin.InFile(err, i)
		}
		l.mu.Unlock()
	}
	return err
}

func (l *loader) failed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err != nil
}

// wait returns the first failure.
func (l *loader) wait() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// readFile hands fn the open file at path, buffered.
func readFile(path string, fn func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return fn(bufio.NewReaderSize(f, 1<<20))
}

func indent(s string) string { return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ") }

// serverSecret returns the server's secret named name ("cursor" seals
// list cursors, "manage-link" signs customers' manage links), made once
// and kept in the store so what it made survives restarts.
func serverSecret(store *storage.Store, cn *clusterNode, name string) ([]byte, error) {
	if cn != nil { // one secret for the cluster: what one node made opens on any
		ctx, cancel := context.WithTimeout(context.Background(), startWait)
		defer cancel()
		return cn.registry.Secret(ctx, name, func() []byte {
			v := make([]byte, 32)
			_, _ = rand.Read(v)
			return v
		})
	}
	v, ok, err := store.Meta(name + "-secret")
	if err != nil || ok {
		return v, err
	}
	v = make([]byte, 32)
	if _, err := rand.Read(v); err != nil {
		return nil, err
	}
	b := store.NewBatch()
	b.PutMeta(name+"-secret", v)
	return v, b.Commit()
}

func disabled(ms []model.Module) map[model.Module]bool {
	out := map[model.Module]bool{}
	for _, m := range ms {
		out[m] = true
	}
	return out
}

// drainTimeout bounds a graceful stop: requests in flight when it begins
// have this long to finish (a write waits for its fsync, a webhook
// registration for its ping, at most 10 s) before their connections are
// closed. It stays under Kubernetes' default grace period of 30 s between
// SIGTERM and SIGKILL, leaving time to stop the actors and close the
// journal cleanly.
const drainTimeout = 25 * time.Second

// failedDrainTimeout bounds the drain after the journal failed: a little
// over the directory's 10 s timeout, so that every request in flight gets
// an answer before slotd exits.
const failedDrainTimeout = 12 * time.Second

// errJournalFailed ends serve when the journal failed: slotd exits 1, and
// the next start recovers every acknowledged write from the WAL.
var errJournalFailed = errors.New("the journal failed; restart slotd to recover (see docs/faults.md)")

// listen serves both listeners until ctx ends or the journal fails
// (failed), then drains them: the public one first, so that the admin
// listener answers /readyz with 503 while it drains, then the admin one.
func listen(ctx context.Context, c *config, pubLn, admLn net.Listener, srv *transport.Server, failed <-chan struct{}, log *slog.Logger, stdout io.Writer, ready func(addrs)) error {
	pubConns, admConns := trackConns(pubLn), trackConns(admLn)
	pub, adm := srv.PublicServer(c.Conn), srv.AdminServer(c.Conn)
	pub.ConnState, adm.ConnState = pubConns.connState, admConns.connState
	errc := make(chan error, 2)
	go func() { errc <- pub.Serve(pubConns) }()
	go func() { errc <- adm.Serve(admConns) }()
	a := addrs{Public: pubLn.Addr().String(), Admin: admLn.Addr().String()}
	newBanner(c, stdout).say(fmt.Sprintf("serving the API on http://%s and the admin API on http://%s", a.Public, a.Admin),
		"api", "http://"+a.Public, "admin", "http://"+a.Admin)
	srv.SetReady(true)
	ready(a)
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	case <-failed:
		serveErr = errJournalFailed
	}
	srv.SetReady(false)
	bound := drainTimeout
	if serveErr == errJournalFailed {
		// Requests in flight are answered 503 at once, or by the
		// directory's timeout if their actor is parked in Pebble.
		bound = failedDrainTimeout
	}
	log.Info("shutting down: draining in-flight requests", "bound", bound)
	shut, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	return errors.Join(serveErr, drain(shut, pub, pubConns, log), drain(shut, adm, admConns, log))
}

// drain stops one server: it stops accepting, closes at once every
// connection that holds no request (idle keep-alive ones, and ones that
// never sent a byte), lets requests in flight finish until ctx ends, and
// then closes whatever is still open.
func drain(ctx context.Context, s *fasthttp.Server, conns *connTracker, log *slog.Logger) error {
	conns.closeQuiet()
	err := s.ShutdownWithContext(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		n := conns.closeAll()
		log.Warn("drain time is up: closed connections with requests still in flight", "server", s.Name, "connections", n)
		return nil
	}
	return err
}

// wakeCouriers loads every business with a webhook delivery still open, so
// that its couriers re-arm their retries now rather than when a request
// first touches the business (business actors are otherwise spawned on
// first use).
func wakeCouriers(ctx context.Context, store *storage.Store, dir *directory.Directory) error {
	owners, err := store.PendingDeliveryOwners()
	if err != nil {
		return err
	}
	for _, id := range owners {
		if _, err := dir.Business(ctx, id); err != nil {
			return fmt.Errorf("business %s: %w", uuid.UUID(id), err)
		}
	}
	return nil
}

// wakeTimed starts the actors of the businesses with timed work
// (storage.OutboxTimed: payments, holds, waitlist entries), so their
// deadlines fire and what they owe providers is done without waiting for
// a request to wake them.
func wakeTimed(ctx context.Context, store *storage.Store, dir *directory.Directory) error {
	var owners []uuid.UUID
	err := store.Outbox(storage.OutboxTimed, func(biz [16]byte, _ string, _ []byte) error {
		owners = append(owners, biz)
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range owners {
		if _, err := dir.Business(ctx, id); err != nil {
			return fmt.Errorf("business %s: %w", id, err)
		}
	}
	return nil
}

// publicURL is the base of every link slotd gives out (decisions §1):
// --public-url, or the public listener on loopback.
func publicURL(c *config, pub net.Listener) string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	port := "8080"
	if a, ok := pub.Addr().(*net.TCPAddr); ok {
		port = strconv.Itoa(a.Port)
	}
	return "http://127.0.0.1:" + port
}

// servesBeyondLoopback returns the public listener's address when
// --public-url was left at its loopback default while the listener serves
// beyond this machine (":8080" listens on every interface): the links
// slotd gives out would then reach nobody else. "" otherwise.
func servesBeyondLoopback(c *config, pub net.Listener) string {
	a, ok := pub.Addr().(*net.TCPAddr)
	if c.PublicURL != "" || !ok || a.IP.IsLoopback() {
		return ""
	}
	return a.String()
}

// manageURL makes the manage links webhook payloads carry: the same links
// the API shows (transport/api manageURL).
func manageURL(public string, links *linktoken.Codec) func(biz, appt uuid.UUID) string {
	return func(biz, appt uuid.UUID) string { return links.URL(public, biz, appt) }
}

// manageLink makes the manage links the mailer puts in confirmations,
// from the appointment's id as the mail row holds it: manageURL's.
func manageLink(public string, links *linktoken.Codec) func(biz [16]byte, appt string) string {
	link := manageURL(public, links)
	return func(biz [16]byte, appt string) string {
		id, err := uuid.Parse(appt)
		if err != nil {
			return "" // not an appointment of ours: no link rather than a wrong one
		}
		return link(biz, id)
	}
}

// queueMail hands a business's durable mail rows to the mailer.
func queueMail(m *mail.Drainer) func(biz uuid.UUID, rows []business.MailRow) {
	return func(biz uuid.UUID, rows []business.MailRow) {
		q := make([]mail.Queued, len(rows))
		for i, r := range rows {
			q[i] = mail.Queued{Key: mail.OutboxKey{Biz: biz, ID: r.ID}, Row: r.Row, Decoded: r.Decoded}
		}
		m.Queue(q...)
	}
}
