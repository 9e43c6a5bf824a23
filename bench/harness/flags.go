package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Options are the harness's flags. The defaults are the sizes of issue 11,
// so that `go run ./bench/harness` reproduces its table; tests and quick
// looks shrink them.
type Options struct {
	// The world of the main run.
	Businesses   int    // businesses in the world
	Staff        int    // staff members per business
	Appointments int    // booked appointments per business
	Customers    int    // customers per business (bookings reuse them by e-mail)
	Queries      int    // distinct 7-day availability queries the rotating workload cycles through
	Seed         uint64 // ids, keys and e-mail addresses derive from it

	// The world of the load phase.
	LoadPhase        bool
	LoadBusinesses   int
	LoadStaff        int
	LoadAppointments int // in total, spread evenly over LoadBusinesses

	// The world of the tenancy phase: many small businesses, a few of
	// them touched after a restart.
	Tenancy             bool
	TenancyBusinesses   int
	TenancyTouch        int // businesses asked once each after the restart
	TenancyAppointments int // per business
	TenancyMaxResident  int // slotd's --max-resident for the touches; 0: not passed
	TenancyIdleTouch    int // businesses of the --idle-after burst; 0: no such step

	// Workloads.
	Duration         time.Duration // each read phase
	StormDuration    time.Duration
	Connections      int // read phases
	StormConnections int
	StormNew         bool // the new-customer storm, right after the storm
	RaceClients      int
	RaceSlots        int
	Timeout          time.Duration // per request
	DrainTimeout     time.Duration // how long the outbox (or the SMTP sink) may take to fill after a storm
	Mixed            bool          // the mixed phase: reads and bookings together
	MixedDuration    time.Duration
	MixedConnections int
	SMTPStorm        bool // the storm again, against a slotd that sends its e-mail over SMTP
	SMTPDuration     time.Duration
	Series           bool          // the series phase: one booking against a series of 12, one connection
	SeriesN          int           // bookings, and series, of the series phase
	ReadyTimeout     time.Duration // how long slotd may take to become ready

	// The PostgreSQL baseline: "auto" (when initdb and pgbench are on
	// PATH), "on" (fail without them) or "off".
	Postgres        string
	PostgresClients clientCounts // each run before and after the storm
	PostgresDur     time.Duration

	// Output and housekeeping.
	Profile bool   // CPU profiles of slotd during the storms and the 7-day availability phase
	JSON    string // write every figure here
	From    string // redraw the outputs of this -json report instead of running
	SVG     string // write the latency chart here
	Slotd   string // use this slotd binary instead of building ./cmd/slotd
	TempDir string // parent of the run's temporary directory (default: the system's)
	Keep    bool   // keep the temporary directory (worlds, data, logs)
}

// defaults are issue 11's sizes.
func defaults() Options {
	return Options{
		Businesses: 200, Staff: 20, Appointments: 2000, Customers: 100, Queries: 60_000, Seed: 11,
		LoadPhase: true, LoadBusinesses: 10_000, LoadStaff: 10, LoadAppointments: 1_000_000,
		Tenancy: true, TenancyBusinesses: 100_000, TenancyTouch: 10_000, TenancyAppointments: 10,
		TenancyMaxResident: 2000, TenancyIdleTouch: 5000,
		Duration: 10 * time.Second, StormDuration: 20 * time.Second, StormNew: true,
		Connections: 64, StormConnections: 64, RaceClients: 64, RaceSlots: 50,
		Timeout: 10 * time.Second, DrainTimeout: 5 * time.Minute, ReadyTimeout: 10 * time.Minute,
		Mixed: true, MixedDuration: 30 * time.Second, MixedConnections: 64,
		SMTPStorm: true, SMTPDuration: 10 * time.Second,
		Series: true, SeriesN: 300,
		Postgres: "auto", PostgresClients: clientCounts{16, 64}, PostgresDur: 15 * time.Second,
		Profile: true,
	}
}

// parseFlags reads args over the defaults. Usage and errors go to stderr;
// -h returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (Options, error) {
	o := defaults()
	fs := flag.NewFlagSet("harness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./bench/harness [flags]\n\nBuilds slotd, writes a world, starts slotd and measures it against its baselines (docs/PERFORMANCE.md).\n\nFlags:")
		fs.PrintDefaults()
	}
	fs.IntVar(&o.Businesses, "businesses", o.Businesses, "businesses in the world")
	fs.IntVar(&o.Staff, "staff", o.Staff, "staff members per business")
	fs.IntVar(&o.Appointments, "appointments", o.Appointments, "booked appointments per business")
	fs.IntVar(&o.Customers, "customers", o.Customers, "customers per business")
	fs.IntVar(&o.Queries, "queries", o.Queries, "distinct 7-day availability queries to rotate over")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "seed of every id, key and address in the worlds")
	fs.BoolVar(&o.LoadPhase, "load", o.LoadPhase, "run the load phase (a large world: time to ready, RSS, restart after kill -9)")
	fs.IntVar(&o.LoadBusinesses, "load-businesses", o.LoadBusinesses, "businesses in the load-phase world")
	fs.IntVar(&o.LoadStaff, "load-staff", o.LoadStaff, "staff members per business in the load-phase world")
	fs.IntVar(&o.LoadAppointments, "load-appointments", o.LoadAppointments, "appointments in the load-phase world, in total")
	fs.BoolVar(&o.Tenancy, "tenancy", o.Tenancy, "run the tenancy phase: many small businesses, RSS after a restart, first answers of random businesses, RSS per business touched (about a minute at full size, most of it slotd loading the world file)")
	fs.IntVar(&o.TenancyBusinesses, "tenancy-businesses", o.TenancyBusinesses, "businesses in the tenancy world")
	fs.IntVar(&o.TenancyTouch, "tenancy-touch", o.TenancyTouch, "random businesses of the tenancy world asked once each after the restart")
	fs.IntVar(&o.TenancyAppointments, "tenancy-appointments", o.TenancyAppointments, "appointments per business in the tenancy world")
	fs.IntVar(&o.TenancyMaxResident, "tenancy-max-resident", o.TenancyMaxResident, "slotd's --max-resident while the tenancy phase touches its random businesses (0: not passed)")
	fs.IntVar(&o.TenancyIdleTouch, "tenancy-idle-touch", o.TenancyIdleTouch, "businesses touched in a burst after a restart with --idle-after 30s, RSS then watched for up to 2m30s (0: no such step)")
	fs.DurationVar(&o.Duration, "d", o.Duration, "duration of each read phase")
	fs.DurationVar(&o.StormDuration, "storm-d", o.StormDuration, "duration of the booking storm")
	fs.IntVar(&o.Connections, "c", o.Connections, "connections of the read phases")
	fs.IntVar(&o.StormConnections, "storm-c", o.StormConnections, "connections of the booking storms")
	fs.BoolVar(&o.StormNew, "storm-new", o.StormNew, "run the new-customer storm right after the booking storm: as long (-storm-d), as many connections (-storm-c), every booking by a new customer")
	fs.BoolVar(&o.Mixed, "mixed", o.Mixed, "run the mixed phase: 90 % availability reads, 10 % bookings")
	fs.DurationVar(&o.MixedDuration, "mixed-d", o.MixedDuration, "duration of the mixed phase")
	fs.IntVar(&o.MixedConnections, "mixed-c", o.MixedConnections, "connections of the mixed phase")
	fs.BoolVar(&o.SMTPStorm, "smtp-storm", o.SMTPStorm, "run the booking storm again against a slotd sending e-mail over SMTP to bench/smtpsink")
	fs.DurationVar(&o.SMTPDuration, "smtp-storm-d", o.SMTPDuration, "duration of the SMTP storm")
	fs.BoolVar(&o.Series, "series", o.Series, "run the series phase: one booking, then a series of 12 weekly occurrences, alternating on one connection: slotd's CPU and latency of each")
	fs.IntVar(&o.SeriesN, "series-n", o.SeriesN, "bookings, and series, of the series phase")
	fs.IntVar(&o.RaceClients, "race-clients", o.RaceClients, "clients racing for each slot")
	fs.IntVar(&o.RaceSlots, "race-slots", o.RaceSlots, "slots raced for")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "per-request timeout")
	fs.DurationVar(&o.DrainTimeout, "drain-timeout", o.DrainTimeout, "how long to wait for the outbox, or the SMTP sink, to hold every e-mail of a storm")
	fs.DurationVar(&o.ReadyTimeout, "ready-timeout", o.ReadyTimeout, "how long slotd may take to answer /readyz")
	fs.StringVar(&o.Postgres, "pg", o.Postgres, "PostgreSQL baseline: auto (when initdb and pgbench are on PATH), on, off")
	fs.Var(&o.PostgresClients, "pg-clients", "pgbench clients: a comma-separated `list`, one run of each before and after the storm")
	fs.DurationVar(&o.PostgresDur, "pg-d", o.PostgresDur, "duration of each pgbench run")
	fs.BoolVar(&o.Profile, "profile", o.Profile, "profile slotd's CPU during the storms and the 7-day availability phase and report the shares")
	fs.StringVar(&o.JSON, "json", "", "write every figure to this `file`")
	fs.StringVar(&o.SVG, "svg", "", "write the latency chart to this `file`")
	fs.StringVar(&o.From, "from", "", "run nothing: print the table and write -svg from this -json `report`")
	fs.StringVar(&o.Slotd, "slotd", "", "use this slotd `binary` instead of building ./cmd/slotd")
	fs.StringVar(&o.TempDir, "tmp", "", "parent `dir` of the run's temporary directory")
	fs.BoolVar(&o.Keep, "keep", false, "keep the temporary directory (worlds, data directories, logs)")
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return o, o.validate()
}

// validate catches sizes the layout cannot honour and typos that would
// hurt a shared machine, before anything is built or written.
func (o Options) validate() error {
	var errs []error
	positive := func(name string, v int) {
		if v < 1 {
			errs = append(errs, fmt.Errorf("-%s must be at least 1, got %d", name, v))
		}
	}
	positive("businesses", o.Businesses)
	positive("staff", o.Staff)
	positive("customers", o.Customers)
	positive("queries", o.Queries)
	positive("c", o.Connections)
	positive("storm-c", o.StormConnections)
	positive("race-clients", o.RaceClients)
	positive("race-slots", o.RaceSlots)
	if err := o.PostgresClients.validate(); err != nil {
		errs = append(errs, err)
	}
	if o.Appointments < 0 {
		errs = append(errs, fmt.Errorf("-appointments must not be negative, got %d", o.Appointments))
	}
	if o.Mixed {
		positive("mixed-c", o.MixedConnections)
	}
	if o.Series {
		positive("series-n", o.SeriesN)
		if o.SeriesN > 1_000_000 {
			errs = append(errs, fmt.Errorf("-series-n must be at most 1000000, got %d", o.SeriesN))
		}
	}
	if o.Tenancy {
		positive("tenancy-businesses", o.TenancyBusinesses)
		positive("tenancy-touch", o.TenancyTouch)
		if o.TenancyTouch > o.TenancyBusinesses {
			errs = append(errs, fmt.Errorf("-tenancy-touch %d is more than the %d businesses", o.TenancyTouch, o.TenancyBusinesses))
		}
		if o.TenancyAppointments < 0 {
			errs = append(errs, fmt.Errorf("-tenancy-appointments must not be negative, got %d", o.TenancyAppointments))
		}
		if o.TenancyMaxResident < 0 {
			errs = append(errs, fmt.Errorf("-tenancy-max-resident must not be negative, got %d", o.TenancyMaxResident))
		}
		if o.TenancyIdleTouch < 0 || o.TenancyIdleTouch > o.TenancyBusinesses {
			errs = append(errs, fmt.Errorf("-tenancy-idle-touch must be in [0, %d] (the businesses), got %d", o.TenancyBusinesses, o.TenancyIdleTouch))
		}
	}
	if o.LoadPhase {
		positive("load-businesses", o.LoadBusinesses)
		positive("load-staff", o.LoadStaff)
		if o.LoadAppointments < 0 {
			errs = append(errs, fmt.Errorf("-load-appointments must not be negative, got %d", o.LoadAppointments))
		}
	}
	for name, d := range map[string]time.Duration{
		"d": o.Duration, "storm-d": o.StormDuration, "timeout": o.Timeout, "drain-timeout": o.DrainTimeout,
		"ready-timeout": o.ReadyTimeout, "pg-d": o.PostgresDur, "mixed-d": o.MixedDuration, "smtp-storm-d": o.SMTPDuration,
	} {
		if d <= 0 || d > 24*time.Hour {
			errs = append(errs, fmt.Errorf("-%s must be in (0, 24h], got %s", name, d))
		}
	}
	for name, v := range map[string]int{"c": o.Connections, "storm-c": o.StormConnections, "race-clients": o.RaceClients, "mixed-c": o.MixedConnections} {
		if v > 10_000 {
			errs = append(errs, fmt.Errorf("-%s must be at most 10000, got %d", name, v))
		}
	}
	switch o.Postgres {
	case "auto", "on", "off":
	default:
		errs = append(errs, fmt.Errorf("-pg must be auto, on or off, got %q", o.Postgres))
	}
	if len(errs) == 0 {
		if _, err := newLayout(o.mainWorld()); err != nil {
			errs = append(errs, err)
		}
		// A round's series runs 11 weeks past its day, and the base day is
		// up to 8 days from today: two weeks' margin under slotd's horizon.
		if last := seriesLastDay(o.SeriesN, o.Businesses, o.Staff); o.Series && last > maxDays-14 {
			errs = append(errs, fmt.Errorf("-series-n %d over %d businesses × %d staff members books %d days ahead, beyond slotd's %d-day horizon: fewer rounds, or more businesses or staff",
				o.SeriesN, o.Businesses, o.Staff, last, maxDays))
		}
		if o.LoadPhase {
			if _, err := newLayout(o.loadWorld()); err != nil {
				errs = append(errs, fmt.Errorf("load world: %w", err))
			}
		}
		if o.Tenancy {
			if _, err := newLayout(o.tenancyWorld()); err != nil {
				errs = append(errs, fmt.Errorf("tenancy world: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}

// clientCounts are the pgbench client counts, -pg-clients "16,64".
type clientCounts []int

// maxPgClients leaves room under the cluster's max_connections (100) for
// psql and the superuser's reserve.
const maxPgClients = 90

func (c *clientCounts) String() string {
	parts := make([]string, len(*c))
	for i, n := range *c {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

// Set parses a comma-separated list; each count is a run (of each side of
// the storm) and names its phase, so a count may appear once.
func (c *clientCounts) Set(s string) error {
	var out clientCounts
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("%q is not a client count", f)
		}
		if slices.Contains(out, n) {
			return fmt.Errorf("%d clients twice", n)
		}
		out = append(out, n)
	}
	*c = out
	return nil
}

func (c clientCounts) validate() error {
	if len(c) == 0 {
		return errors.New("-pg-clients: want at least one client count")
	}
	for _, n := range c {
		if n < 1 || n > maxPgClients {
			return fmt.Errorf("-pg-clients: each count must be in [1, %d], got %d", maxPgClients, n)
		}
	}
	return nil
}

// covers reports whether c has every count of want.
func (c clientCounts) covers(want clientCounts) bool {
	for _, n := range want {
		if !slices.Contains(c, n) {
			return false
		}
	}
	return true
}

// UnmarshalJSON also reads the single count of reports written before
// -pg-clients took a list, so that -from draws them.
func (c *clientCounts) UnmarshalJSON(b []byte) error {
	var n int
	if json.Unmarshal(b, &n) == nil {
		*c = clientCounts{n}
		return nil
	}
	return json.Unmarshal(b, (*[]int)(c))
}
