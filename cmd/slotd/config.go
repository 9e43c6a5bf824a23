package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/webhook/mail"
)

// config is the operator interface of `slotd serve` (decisions §1). Every
// flag can also be given as SLOTD_<FLAG_IN_CAPS> (dashes become
// underscores); a flag on the command line wins over its variable.
type config struct {
	Data                  string
	Listen                string
	AdminListen           string
	AdminToken            string
	World                 string
	SMTP                  string
	SMTPUser              string
	SMTPPassword          string
	SMTPFrom              string
	WebhooksAllowInsecure bool
	WebhookRetryScale     float64
	// PublicURL is the base of every link slotd gives out (decisions §1):
	// manage links, the booking page, calendar feeds, payment return and
	// webhook URLs; empty means http://127.0.0.1:<port of --listen>.
	PublicURL      string
	DisableModules moduleList
	Conn           edge.ConnLimits
	AccessLog      accessLogFormat
	// LogFormat is the server log's format: text or json; auto (the
	// default) is json when the access log is, else text.
	LogFormat logFormat
	// Cluster holds the flags of cluster mode (cluster.go).
	Cluster clusterFlags
	// DiskReserve is the free space below which writes are refused
	// (storage.Options.Reserve); 0: a tenth of the volume, at most 256 MiB.
	DiskReserve byteSize
	// IdleAfter and MaxResident bound the businesses in memory
	// (decisions §1, directory.Residency); single-node mode only.
	IdleAfter   time.Duration
	MaxResident int

	// clock is the server's clock: the real one, or a fake in tests.
	clock clock.Clock
	// fs is the filesystem of the data directory: nil for the real one;
	// tests inject faults (vfs/errorfs).
	fs vfs.FS
}

// byteSize is a flag of a number of bytes: 1048576, 512KiB, 64MiB, 1GiB
// (KB, MB and GB are the same powers of 1024; "auto" is 0).
type byteSize uint64

func (b *byteSize) String() string {
	if *b == 0 {
		return "auto"
	}
	return strconv.FormatUint(uint64(*b), 10)
}

func (b *byteSize) Set(v string) error {
	if v == "auto" {
		*b = 0
		return nil
	}
	num, mul := v, uint64(1)
	for _, u := range []struct {
		suffix string
		mul    uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"B", 1}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			num, mul = n, u.mul
			break
		}
	}
	n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
	if err != nil || n > (1<<63)/mul {
		return fmt.Errorf("want a size such as 64MiB, 1GiB or auto")
	}
	*b = byteSize(n * mul)
	return nil
}

// accessLogFormat is the --access-log flag: compact, json or off.
type accessLogFormat string

func (f *accessLogFormat) String() string { return string(*f) }

func (f *accessLogFormat) Set(v string) error {
	switch v {
	case edge.AccessLogCompact, edge.AccessLogJSON, edge.AccessLogOff:
		*f = accessLogFormat(v)
		return nil
	}
	return fmt.Errorf("want compact, json or off")
}

// logFormat is the --log-format flag: auto, text or json.
type logFormat string

func (f *logFormat) String() string { return string(*f) }

func (f *logFormat) Set(v string) error {
	switch v {
	case "auto", "text", "json":
		*f = logFormat(v)
		return nil
	}
	return fmt.Errorf("want text, json or auto")
}

// json reports whether the server's lines are JSON; with them, every line
// slotd writes on stderr is (a compact access log becomes JSON too).
func (c *config) jsonLog() bool {
	return c.LogFormat == "json" || c.LogFormat == "auto" && c.AccessLog == edge.AccessLogJSON
}

// moduleList is the repeatable --disable-module flag.
type moduleList []model.Module

func (m *moduleList) String() string {
	parts := make([]string, len(*m))
	for i, x := range *m {
		parts[i] = string(x)
	}
	return strings.Join(parts, ",")
}

// Set accepts one module or a comma-separated list (the env form).
func (m *moduleList) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if !model.KnownModule(name) {
			return fmt.Errorf("unknown module %q (want appointments, customers, webhooks or payments)", name)
		}
		*m = append(*m, model.Module(name))
	}
	return nil
}

func newFlagSet(c *config, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("slotd serve", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.Data, "data", "./data", "Pebble data `directory`")
	fs.StringVar(&c.Listen, "listen", ":8080", "public API address (/api/v1/...)")
	fs.StringVar(&c.AdminListen, "admin-listen", "127.0.0.1:8081", "admin API, /metrics, /healthz, /readyz and pprof address")
	fs.StringVar(&c.AdminToken, "admin-token", "", "bearer `token` of the admin API (none: admin API refuses writes)")
	fs.StringVar(&c.World, "world", "", "load a world `file` at start (idempotent)")
	fs.StringVar(&c.SMTP, "smtp", "", "send e-mail over SMTP at `host:port` (default: append to DATA/outbox/YYYY-MM-DD.mbox)")
	fs.StringVar(&c.SMTPUser, "smtp-user", "", "SMTP user name")
	fs.StringVar(&c.SMTPPassword, "smtp-password", "", "SMTP password")
	fs.StringVar(&c.SMTPFrom, "smtp-from", "", "sender `address` of e-mails")
	fs.BoolVar(&c.WebhooksAllowInsecure, "webhooks-allow-insecure", false, "development/tests only: permit http://, any port and private webhook destinations")
	fs.Float64Var(&c.WebhookRetryScale, "webhook-retry-scale", 1, "development/tests only: multiply every wait of the webhook retry ladder by `F`")
	fs.StringVar(&c.PublicURL, "public-url", "", "the base `URL` of every link slotd gives out: manage links in e-mails, the booking page, calendar feeds, payment return and webhook URLs (default http://127.0.0.1:<port of --listen>; a warning at start when --listen serves beyond loopback)")
	fs.DurationVar(&c.Conn.ReadTimeout, "read-timeout", edge.DefaultConnLimits.ReadTimeout, "longest time to receive one request, headers and body (408 REQUEST_TIMEOUT)")
	fs.DurationVar(&c.Conn.WriteTimeout, "write-timeout", edge.DefaultConnLimits.WriteTimeout, "longest time to send one response")
	fs.DurationVar(&c.Conn.IdleTimeout, "idle-timeout", edge.DefaultConnLimits.IdleTimeout, "longest wait for the next request on a kept-alive connection")
	fs.Var(&c.DisableModules, "disable-module", "switch a module off platform-wide: 503 MODULE_UNAVAILABLE (repeatable)")
	c.AccessLog = edge.AccessLogCompact
	fs.Var(&c.AccessLog, "access-log", "access log of every request on stderr, in `format` compact, json or off")
	c.LogFormat = "auto"
	fs.Var(&c.LogFormat, "log-format", "`format` of the server's log on stderr: text, or json (then every line on stderr is JSON, the access log's too); auto: json when --access-log is json")
	fs.Var(&c.DiskReserve, "disk-reserve", "free `size` kept on the data directory's volume: below it writes are refused with 503 until space is freed (auto: a tenth of the volume, at most 256MiB)")
	fs.DurationVar(&c.IdleAfter, "idle-after", 15*time.Minute, "a business with no request and no timed work due within this `duration` is let go: actor stopped, state dropped, loaded again by its next request or deadline (0: every business stays resident; single-node mode)")
	fs.IntVar(&c.MaxResident, "max-resident", 0, "keep at most `N` businesses in memory, letting the least recently used idle ones go first (0: no limit; single-node mode)")
	c.Cluster.register(fs)
	// parseConfig says what follows the flag package's complaint: a
	// two-line usage after a mistake, so the complaint stays on the
	// screen, and every flag for -h (helpText).
	fs.Usage = func() {}
	return fs
}

// shortUsage follows the complaint about a bad command line.
func shortUsage(out io.Writer) {
	fmt.Fprintln(out, "usage: slotd serve [flags]")
	fmt.Fprintln(out, "Run `slotd serve -h` for the flags.")
}

// helpText writes what `slotd serve -h` prints: every flag.
func helpText(fs *flag.FlagSet, out io.Writer) {
	fmt.Fprintln(out, "usage: slotd serve [flags]")
	fmt.Fprintln(out, "Every flag may also be set as SLOTD_<FLAG>, e.g. SLOTD_LISTEN=:9090.")
	fs.PrintDefaults()
}

// suggest says which flag a mistyped one probably meant, from the flag
// package's complaint ("flag provided but not defined: -listne"): the
// flag within two edits of it, if one is.
func suggest(fs *flag.FlagSet, err error, out io.Writer) {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return
	}
	name = strings.TrimPrefix(name, "-")
	best, bestD := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		if d := editDistance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	if best != "" {
		fmt.Fprintf(out, "slotd: did you mean --%s?\n", best)
	}
}

// editDistance is the Levenshtein distance between a and b (bytes: flag
// names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// errUsage means the command line was wrong; usage has been printed.
var errUsage = errors.New("usage")

// errHelp means -h or --help was given; usage has been printed.
var errHelp = errors.New("help")

// parseConfig reads the environment, then args.
func parseConfig(args []string, getenv func(string) string, out io.Writer) (*config, error) {
	c := &config{clock: clock.Real{}}
	fs := newFlagSet(c, out)
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := "SLOTD_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(name); v != "" && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = fmt.Errorf("%s: %v", name, err)
			}
		}
	})
	if envErr != nil {
		fmt.Fprintln(out, "slotd:", envErr)
		shortUsage(out)
		return nil, errUsage
	}
	// --disable-module accumulates; given on the command line, it replaces
	// the environment's list rather than adding to it.
	fromEnv := c.DisableModules
	c.DisableModules = nil
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			helpText(fs, out)
			return nil, errHelp
		}
		suggest(fs, err, out)
		shortUsage(out)
		return nil, errUsage
	}
	if len(c.DisableModules) == 0 {
		c.DisableModules = fromEnv
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(out, "slotd: unexpected argument %q\n", fs.Arg(0))
		shortUsage(out)
		return nil, errUsage
	}
	if err := c.check(); err != nil {
		fmt.Fprintln(out, "slotd:", err)
		shortUsage(out)
		return nil, errUsage
	}
	return c, nil
}

func (c *config) check() error {
	if c.Data == "" {
		return errors.New("--data must not be empty")
	}
	if err := c.Cluster.check(); err != nil {
		return err
	}
	for _, a := range []struct{ name, v string }{{"--listen", c.Listen}, {"--admin-listen", c.AdminListen}} {
		_, port, err := net.SplitHostPort(a.v)
		if err != nil {
			return fmt.Errorf("%s: want host:port", a.name)
		}
		if _, err := net.LookupPort("tcp", port); err != nil {
			return fmt.Errorf("%s: port %q: want a number from 0 to 65535", a.name, port)
		}
	}
	if c.SMTP != "" {
		if _, port, err := net.SplitHostPort(c.SMTP); err != nil || port == "" {
			return errors.New("--smtp: want host:port")
		}
	}
	if err := mail.CheckFrom(c.SMTPFrom); err != nil {
		return errors.New("--smtp-from: want an e-mail address, e.g. \"Salon\" <bookings@example.com>")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--read-timeout", c.Conn.ReadTimeout}, {"--write-timeout", c.Conn.WriteTimeout}, {"--idle-timeout", c.Conn.IdleTimeout}} {
		if d.v <= 0 || d.v > time.Hour {
			return fmt.Errorf("%s: want a duration above 0 and at most 1h, e.g. 30s", d.name)
		}
	}
	if c.IdleAfter < 0 {
		return errors.New("--idle-after: want a duration of 0 or more, e.g. 15m (0: every business stays resident)")
	}
	if c.MaxResident < 0 {
		return errors.New("--max-resident: want a number of 0 or more (0: no limit)")
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errors.New("--public-url: want an absolute http:// or https:// URL, e.g. https://slotd.example.com")
		}
	}
	if !(c.WebhookRetryScale > 0) || c.WebhookRetryScale > 1000 {
		return errors.New("--webhook-retry-scale: want a number above 0 (at most 1000)")
	}
	return nil
}
