package main

import (
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/courier"
	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/storage"
	"github.com/slotd/slotd/storage/catalog"
	"github.com/slotd/slotd/transport"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/world"
	"github.com/slotd/slotd/webhook/deliver"
	"github.com/slotd/slotd/webhook/mail"
)

// addrs are the addresses the server listens on, reported once it serves.
type addrs struct{ Public, Admin string }

// serve runs the server until ctx ends, then drains in-flight requests,
// stops the business actors and closes the journal. ready, if not nil, is
// called with the bound addresses once requests are served.
func serve(ctx context.Context, c *config, stdout, stderr io.Writer, ready func(addrs)) error {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if c.WebhooksAllowInsecure {
		log.Warn("!!! --webhooks-allow-insecure is set: webhook deliveries may go to http://, any port and private or loopback addresses. Never use this in production. !!!")
	}
	store, err := storage.Open(c.Data, storage.Options{Logger: log})
	if err != nil {
		return fmt.Errorf("open data directory %s: %w", c.Data, err)
	}
	defer store.Close()
	secret, err := cursorSecret(store)
	if err != nil {
		return err
	}
	mailer := &mail.Drainer{Outbox: mail.StoreOutbox{S: store}, Sender: mail.NewSender(c.SMTP, c.SMTPUser, c.SMTPPassword, c.Data),
		From: c.SMTPFrom, Log: log}
	hooks := deliver.New(deliver.Config{AllowInsecure: c.WebhooksAllowInsecure})
	defer hooks.CloseIdleConnections()
	couriers := &courier.Env{Store: store, Clock: c.clock, Sender: hooks, Scale: c.WebhookRetryScale, Log: log}
	dir, err := directory.Open(directory.Config{Store: store, Clock: c.clock, Log: log, MailQueued: mailer.Kick, Couriers: couriers})
	if err != nil {
		return err
	}
	defer dir.Close()
	mailCtx, stopMail := context.WithCancel(context.Background())
	mailDone := make(chan error, 1)
	go func() { mailDone <- mailer.Run(mailCtx) }()
	defer func() { stopMail(); <-mailDone }()
	if err := populate(ctx, c, store, dir, stdout, log); err != nil {
		return err
	}
	if err := wakeCouriers(ctx, store, dir); err != nil {
		return err
	}
	srv := transport.New(transport.Config{
		Dir: dir, Store: store, Clock: c.clock, Cursors: cursor.New(secret), Log: log,
		AdminToken: c.AdminToken, Disabled: disabled(c.DisableModules),
		Webhooks:              hooks,
		WebhooksAllowInsecure: c.WebhooksAllowInsecure,
	})
	return listen(ctx, c, srv, log, stdout, ready)
}

// populate loads --world, or seeds the demo business into an empty store.
func populate(ctx context.Context, c *config, store *storage.Store, dir *directory.Directory, stdout io.Writer, log *slog.Logger) error {
	if c.World != "" {
		return loadWorld(ctx, c, dir, log)
	}
	empty, err := store.IsEmpty()
	if err != nil || !empty {
		return err
	}
	return seedDemo(ctx, dir, stdout)
}

// loadWorld loads --world as the admin API loads a world (transport.PutWorld).
func loadWorld(ctx context.Context, c *config, dir *directory.Directory, log *slog.Logger) error {
	path := c.World
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("world file %s: %w", path, err)
	}
	specs, err := world.Parse(data)
	if err == nil {
		_, err = transport.PutWorld(ctx, dir, specs, c.clock.Now(), log)
	}
	if err != nil {
		return fmt.Errorf("world file %s:\n%s", path, indent(err.Error()))
	}
	return nil
}

func indent(s string) string { return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ") }

//go:embed demo.json
var demoWorld string

// seedDemo puts the built-in demo business with two fresh keys and prints
// them: they are stored hashed, so this is the only time they are shown.
func seedDemo(ctx context.Context, dir *directory.Directory, stdout io.Writer) error {
	full, read := transport.NewKey(), transport.NewKey()
	doc := strings.NewReplacer("{{KEY_FULL}}", full, "{{KEY_READ}}", read).Replace(demoWorld)
	specs, err := world.Parse([]byte(doc))
	if err != nil {
		return fmt.Errorf("demo world: %w", err)
	}
	if _, err := dir.Put(ctx, specs); err != nil {
		return fmt.Errorf("seed demo business: %w", err)
	}
	b := specs[0].Business
	fmt.Fprintf(stdout, "slotd: empty data directory: seeded the demo business %q (id %s, timezone %s)\n", b.Name, b.ID, b.Timezone)
	fmt.Fprintf(stdout, "slotd: demo API key, all scopes: %s\n", full)
	fmt.Fprintf(stdout, "slotd: demo API key, read-only:  %s\n", read)
	fmt.Fprintln(stdout, "slotd: keys are stored hashed and will not be shown again.")
	return nil
}

// cursorSecret returns the server's cursor-sealing secret, made once and
// kept in the store so cursors survive restarts.
func cursorSecret(store *storage.Store) ([]byte, error) {
	v, ok, err := store.Meta("cursor-secret")
	if err != nil || ok {
		return v, err
	}
	v = make([]byte, 32)
	if _, err := rand.Read(v); err != nil {
		return nil, err
	}
	b := store.NewBatch()
	b.PutMeta("cursor-secret", v)
	return v, b.Commit()
}

func disabled(ms []catalog.Module) map[catalog.Module]bool {
	out := map[catalog.Module]bool{}
	for _, m := range ms {
		out[m] = true
	}
	return out
}

// listen serves both listeners until ctx ends, then shuts them down: they
// stop accepting, finish in-flight requests, and close idle connections.
func listen(ctx context.Context, c *config, srv *transport.Server, log *slog.Logger, stdout io.Writer, ready func(addrs)) error {
	pubLn, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return err
	}
	admLn, err := net.Listen("tcp", c.AdminListen)
	if err != nil {
		pubLn.Close()
		return err
	}
	pub, adm := srv.PublicServer(c.Conn), srv.AdminServer(c.Conn)
	errc := make(chan error, 2)
	go func() { errc <- pub.Serve(pubLn) }()
	go func() { errc <- adm.Serve(admLn) }()
	a := addrs{Public: pubLn.Addr().String(), Admin: admLn.Addr().String()}
	fmt.Fprintf(stdout, "slotd: serving the API on http://%s and the admin API on http://%s\n", a.Public, a.Admin)
	srv.SetReady(true)
	if ready != nil {
		ready(a)
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	srv.SetReady(false)
	log.Info("shutting down: draining in-flight requests")
	shut, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	err = errors.Join(serveErr, shutdown(shut, pub), shutdown(shut, adm))
	return err
}

func shutdown(ctx context.Context, s *fasthttp.Server) error {
	if err := s.ShutdownWithContext(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
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
