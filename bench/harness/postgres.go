package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/slotd/slotd/bench/proc"
)

// The PostgreSQL baseline (PERF-NOTES): bookings in a table whose
// exclusion constraint (btree_gist: same staff member, overlapping range)
// makes double bookings impossible, pre-filled with as many bookings as
// the world holds, and pgbench inserting bookings that never conflict,
// each its own synchronously committed transaction, from each count of
// -pg-clients clients in turn. It runs in a private cluster in a
// temporary directory on a free loopback port, started before the storm
// and after it for the runs of each side and stopped after them, so it
// costs nothing while slotd is measured; the directory is removed at the
// end.
// PostgreSQL refuses to run as root: as root, the harness runs every
// PostgreSQL program as the "postgres" user (or "nobody") instead.

type pgCluster struct {
	dir  string // owned by the cluster's user
	data string
	port string
	bin  map[string]string // program name -> path
	cred *syscall.Credential
	user string
}

// pgPrograms are the programs the baseline runs.
var pgPrograms = []string{"initdb", "postgres", "psql", "pgbench"}

// postgres runs the baseline "before" or "after" the storm.
func (h *harness) postgres(ctx context.Context, l *layout, when string) error {
	pg := &h.rep.Postgres
	if pg.Skipped != "" {
		return nil
	}
	if h.pg == nil {
		c, why, err := h.pgSetup(ctx, l)
		if err != nil {
			return err
		}
		if why != "" {
			pg.Skipped = why
			h.progress("PostgreSQL baseline skipped: %s", why)
			return nil
		}
		h.pg = c
	}
	c := h.pg
	p, err := h.pgStart(ctx, c)
	if err != nil {
		return err
	}
	err = h.pgbenchRuns(ctx, c, when)
	if _, clean := p.Terminate(60 * time.Second); !clean && err == nil {
		err = fmt.Errorf("postgres (pid %d) did not stop cleanly: %v", p.PID(), p.Err())
	}
	if err != nil {
		return err
	}
	if when == "after" {
		return h.pgRemove()
	}
	return nil
}

// pgbenchRuns runs pgbench with each of -pg-clients, phases
// pg-WHEN-CLIENTS, and keeps the best run.
func (h *harness) pgbenchRuns(ctx context.Context, c *pgCluster, when string) error {
	pg := &h.rep.Postgres
	for _, clients := range h.opt.PostgresClients {
		name := fmt.Sprintf("pg-%s-%d", when, clients)
		phase, err := h.pgbench(ctx, c, name, clients)
		if err != nil {
			return err
		}
		if phase.RPS > pg.Best {
			pg.Best, pg.BestRun = phase.RPS, name
		}
	}
	return nil
}

// pgRemove removes the cluster's directory, once its postmaster has
// stopped.
func (h *harness) pgRemove() error {
	if h.pg == nil || h.pg.dir == "" {
		return nil
	}
	dir := h.pg.dir
	h.pg.dir = ""
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	h.progress("PostgreSQL: removed %s", dir)
	return nil
}

// pgSetup finds the programs, makes the cluster and its table. It returns
// a reason instead of a cluster when the baseline is to be skipped.
func (h *harness) pgSetup(ctx context.Context, l *layout) (*pgCluster, string, error) {
	if h.opt.Postgres == "off" {
		return nil, "-pg off", nil
	}
	unavailable := func(why string) (*pgCluster, string, error) {
		if h.opt.Postgres == "on" {
			return nil, "", fmt.Errorf("PostgreSQL baseline (-pg on): %s", why)
		}
		return nil, why, nil
	}
	c := &pgCluster{bin: map[string]string{}}
	initdb, err1 := exec.LookPath("initdb")
	_, err2 := exec.LookPath("pgbench")
	if err := errors.Join(err1, err2); err != nil {
		return unavailable("initdb or pgbench is not on PATH (Debian: apt-get install postgresql postgresql-contrib)")
	}
	// Debian's PATH holds wrappers; the programs of one version sit
	// together next to the real initdb.
	dir := filepath.Dir(initdb)
	if real, err := filepath.EvalSymlinks(initdb); err == nil {
		dir = filepath.Dir(real)
	}
	for _, name := range pgPrograms {
		if p := filepath.Join(dir, name); isExecutable(p) {
			c.bin[name] = p
		} else if p, err := exec.LookPath(name); err == nil {
			c.bin[name] = p
		} else {
			return unavailable(name + " not found next to initdb or on PATH")
		}
	}
	if os.Geteuid() == 0 {
		if err := c.runAsUnprivileged(); err != nil {
			return unavailable(err.Error())
		}
	}
	// The cluster's user must reach its directory, so it is made in the
	// system's temporary directory rather than in the run's (private, and
	// perhaps below other private directories); cleanup removes it.
	dir, err := os.MkdirTemp("", "slotd-harness-pg-")
	if err != nil {
		return nil, "", err
	}
	c.dir, c.data = dir, filepath.Join(dir, "data")
	h.pg = c
	if c.cred != nil {
		if err := os.Chown(c.dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			return nil, "", err
		}
	}
	if out, err := c.command(ctx, "postgres", "--version").Output(); err == nil {
		h.rep.Postgres.Version = strings.TrimSpace(string(out))
	}
	h.progress("PostgreSQL: %s, cluster in %s%s", h.rep.Postgres.Version, c.dir, c.userNote())
	if out, err := c.command(ctx, "initdb", "-D", c.data, "-U", "bench", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		if c.cred == nil && bytes.Contains(out, []byte("root")) {
			return unavailable("initdb refuses to run as root and no unprivileged user was found")
		}
		return nil, "", fmt.Errorf("initdb: %w\n%s", err, out)
	}
	p, err := h.pgStart(ctx, c)
	if err != nil {
		return nil, "", err
	}
	err = h.pgSchema(ctx, c, l)
	if _, clean := p.Terminate(60 * time.Second); !clean && err == nil {
		err = fmt.Errorf("postgres did not stop cleanly: %v", p.Err())
	}
	return c, "", err
}

func (c *pgCluster) userNote() string {
	if c.cred == nil {
		return ""
	}
	return ", run as " + c.user + " (PostgreSQL refuses root)"
}

// runAsUnprivileged picks the user PostgreSQL's programs run as when the
// harness runs as root.
func (c *pgCluster) runAsUnprivileged() error {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
		c.user = name
		return nil
	}
	return errors.New("running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as")
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

// command makes a PostgreSQL program's command, run as the cluster's
// user, with no PG* variables of the caller's.
func (c *pgCluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.bin[name], args...)
	cmd.Dir = c.dir
	if cmd.Dir == "" {
		cmd.Dir = os.TempDir()
	}
	cmd.Env = append(proc.Environ("PG", "HOME="), "HOME="+cmd.Dir, "LC_ALL=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	return cmd
}

// pgStart starts the postmaster on a free loopback port and waits until
// it accepts a query.
func (h *harness) pgStart(ctx context.Context, c *pgCluster) (*proc.Proc, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	_, c.port, _ = strings.Cut(addr, ":")
	logFile, err := os.OpenFile(filepath.Join(h.tmp, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	// Not CommandContext: the harness stops it by PID with SIGINT, its
	// fast shutdown, whatever happens to ctx.
	cmd := c.command(context.Background(), "postgres", "-D", c.data, "-p", c.port, "-k", c.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=on", "-c", "synchronous_commit=on", "-c", "max_connections=100")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	p, err := h.procs.Start("postgres", cmd, syscall.SIGINT)
	if err != nil {
		return nil, err
	}
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := c.psql(ctx, "postgres", "SELECT 1"); err == nil {
			return p, nil
		}
		select {
		case <-p.Done():
			return nil, fmt.Errorf("postgres exited: %v: %s", p.Err(), proc.LogTail(logFile.Name(), 1000))
		case <-deadline.C:
			p.Terminate(10 * time.Second)
			return nil, fmt.Errorf("postgres did not accept a query within 60 s: %s", proc.LogTail(logFile.Name(), 1000))
		case <-ctx.Done():
			p.Terminate(10 * time.Second)
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// psql runs sql in database db and returns its output.
func (c *pgCluster) psql(ctx context.Context, db, sql string) (string, error) {
	out, err := c.command(ctx, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", c.port,
		"-U", "bench", "-d", db, "-At", "-c", sql).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("psql: %w: %s", err, out)
	}
	return string(out), nil
}

// pgStaff is how many staff members the baseline's bookings spread over:
// the world's.
func pgStaff(l *layout) int { return l.Businesses * l.Staff }

// pgSchema makes the bookings table, pre-filled with the world's number of
// one-hour bookings in a period the benchmark's inserts never reach, and
// builds the exclusion constraint over them in one go.
func (h *harness) pgSchema(ctx context.Context, c *pgCluster, l *layout) error {
	if _, err := c.psql(ctx, "postgres", "CREATE DATABASE bench"); err != nil {
		return err
	}
	staff, n := pgStaff(l), l.occupied()
	h.rep.Postgres.Prebooked = n
	h.progress("PostgreSQL: bookings table with %d bookings over %d staff members", n, staff)
	for _, sql := range []string{
		`CREATE EXTENSION btree_gist`,
		`CREATE TABLE bookings (
			id bigserial PRIMARY KEY,
			staff integer NOT NULL,
			during tstzrange NOT NULL,
			customer text NOT NULL,
			created_at timestamptz NOT NULL DEFAULT now())`,
		fmt.Sprintf(`INSERT INTO bookings (staff, during, customer)
			SELECT g %% %[1]d, tstzrange(timestamptz '2030-01-07 09:00Z' + (g / %[1]d) * interval '1 hour',
			                            timestamptz '2030-01-07 10:00Z' + (g / %[1]d) * interval '1 hour'),
			       'c' || (g %% 100) || '@bench.example'
			FROM generate_series(0, %[2]d - 1) g`, staff, n),
		`ALTER TABLE bookings ADD CONSTRAINT no_double_booking EXCLUDE USING gist (staff WITH =, during WITH &&)`,
		`CREATE SEQUENCE slot_seq`,
		`VACUUM ANALYZE bookings`,
		`CHECKPOINT`,
	} {
		if _, err := c.psql(ctx, "bench", sql); err != nil {
			return err
		}
	}
	script := fmt.Sprintf(`INSERT INTO bookings (staff, during, customer)
SELECT n %% %[1]d, tstzrange(timestamptz '2031-01-06 09:00Z' + (n / %[1]d) * interval '30 minutes', timestamptz '2031-01-06 09:30Z' + (n / %[1]d) * interval '30 minutes'), 'storm@bench.example' FROM (SELECT nextval('slot_seq') AS n) s;
`, staff)
	path := filepath.Join(c.dir, "insert.sql")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		return err
	}
	if c.cred != nil {
		return os.Chown(path, int(c.cred.Uid), int(c.cred.Gid))
	}
	return nil
}
