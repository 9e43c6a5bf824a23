package main

import (
	"strconv"
	"time"

	"github.com/slotd/slotd/bench/loadgen"
)

// Report holds every figure of a run; -json writes it as it is.
type Report struct {
	Started   time.Time    `json:"started"`
	Seconds   float64      `json:"seconds"`
	Machine   Machine      `json:"machine"`
	Options   Options      `json:"options"`
	World     WorldInfo    `json:"world"`
	Phases    []Phase      `json:"phases"`
	Mixed     *Mixed       `json:"mixed,omitempty"`
	Storm     *Storm       `json:"storm,omitempty"`
	StormNew  *Storm       `json:"storm_new_customers,omitempty"` // the new-customer storm, phase "storm-new"
	Race      *Race        `json:"race,omitempty"`
	Walk      *Walk        `json:"walk,omitempty"`
	Series    *SeriesPhase `json:"series,omitempty"`
	Postgres  Postgres     `json:"postgres"`
	SMTPStorm *SMTPStorm   `json:"smtp_storm,omitempty"`
	Load      *Load        `json:"load,omitempty"`
	Tenancy   *Tenancy     `json:"tenancy,omitempty"`
	Disk      *DiskProbe   `json:"disk,omitempty"`
	Rows      []Row        `json:"table"`
	Passed    int          `json:"passed"`
	Failed    int          `json:"failed"`
	Summary   string       `json:"summary"`
}

// Machine is where the run happened: figures are only comparable within
// one run on one machine.
type Machine struct {
	CPUs      int    `json:"cpus"`
	MemTotal  int64  `json:"mem_total_bytes"`
	Kernel    string `json:"kernel"`
	GoVersion string `json:"go_version"`
}

// WorldInfo is the main world and slotd's start on it.
type WorldInfo struct {
	Businesses      int     `json:"businesses"`
	Staff           int     `json:"staff_per_business"`
	Appointments    int     `json:"appointments"`
	Customers       int     `json:"customers_per_business"`
	WindowDays      int     `json:"window_days"`
	BaseDay         string  `json:"base_day"`
	FileBytes       int64   `json:"file_bytes"`
	WriteSeconds    float64 `json:"write_seconds"`
	ReadySeconds    float64 `json:"ready_seconds"`
	RSSAfterLoad    int64   `json:"rss_after_load_bytes"`
	HWMAfterLoad    int64   `json:"hwm_after_load_bytes"`
	WeekAnswerBytes int     `json:"week_answer_bytes"` // the typical 7-day answer the static baseline sends
	DayAnswerBytes  int     `json:"day_answer_bytes"`  // the typical 1-day, one-staff answer the second static baseline sends
}

// Phase is one measured workload: a closed loop of requests, or a
// pgbench run.
type Phase struct {
	// ended is when the phase's load stopped, before its profile was read:
	// the drains after a storm are timed from it; serverCPUEnd is the
	// server's CPU then.
	ended        time.Time
	serverCPUEnd time.Duration

	Name        string           `json:"name"`
	Title       string           `json:"title"`
	Server      string           `json:"server"` // slotd, static, postgres
	Connections int              `json:"connections"`
	Seconds     float64          `json:"seconds"`
	Requests    int64            `json:"requests"`
	Errors      int64            `json:"errors"`
	RPS         float64          `json:"rps"`
	Statuses    map[string]int64 `json:"statuses,omitempty"`
	Failures    map[string]int64 `json:"failures,omitempty"`
	FirstError  string           `json:"first_error,omitempty"`
	Latency     LatencyMS        `json:"latency_ms"`
	BodyBytes   int              `json:"body_bytes,omitempty"`
	// slotd's CPU during the phase, and the GC's part of it (percent);
	// -1 when not measured (another server, or /proc unreadable).
	ServerCPUSeconds  float64 `json:"server_cpu_seconds"`
	ServerCPUPerReqUS float64 `json:"server_cpu_per_request_us"`
	GCSharePercent    float64 `json:"gc_share_percent"`
	GCCycles          int64   `json:"gc_cycles"`
	HarnessCPUSeconds float64 `json:"harness_cpu_seconds"`
	// What the rest of the machine did meanwhile, in cores on average:
	// other processes' CPU, and time the hypervisor gave to other guests.
	OtherCPUCores      float64  `json:"other_processes_cpu_cores"`
	StealCores         float64  `json:"steal_cores"`
	UncachedGuaranteed bool     `json:"uncached_guaranteed,omitempty"` // every query distinct
	Profile            *Profile `json:"profile,omitempty"`             // slotd's CPU profile of the phase
}

// LatencyMS are nearest-rank percentiles in milliseconds.
type LatencyMS struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

func latencyMS(l loadgen.Latency) LatencyMS {
	return LatencyMS{P50: ms(l.P50), P90: ms(l.P90), P99: ms(l.P99), P999: ms(l.P999), Max: ms(l.Max)}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// phaseOf copies a load run's summary into a phase.
func phaseOf(name, title, server string, sum loadgen.Summary) Phase {
	p := Phase{Name: name, Title: title, Server: server, Connections: sum.Connections,
		Seconds: sum.Elapsed.Seconds(), Requests: sum.Requests, Errors: sum.Errors, RPS: sum.RPS(),
		Statuses: map[string]int64{}, Failures: sum.Failures, FirstError: sum.FirstErr,
		Latency: latencyMS(sum.Latency), ServerCPUSeconds: -1, ServerCPUPerReqUS: -1, GCSharePercent: -1,
		OtherCPUCores: -1, StealCores: -1}
	for code, n := range sum.Statuses {
		p.Statuses[strconv.Itoa(code)] = n
	}
	return p
}

// Storm is the durable booking storm and what followed it.
type Storm struct {
	Acknowledged         int64   `json:"acknowledged"`
	DataDirGrowthBytes   int64   `json:"data_dir_growth_bytes"` // file sizes under --data, outbox e-mails excluded
	GrowthPerBooking     float64 `json:"growth_per_booking_bytes"`
	WriteBytes           int64   `json:"write_bytes"` // /proc/PID/io write_bytes during the storm
	WriteBytesPerBooking float64 `json:"write_bytes_per_booking"`
	RSSAfter             int64   `json:"rss_after_bytes"`
	HWMAfter             int64   `json:"hwm_after_bytes"`
	MailsExpected        int     `json:"mails_expected"`
	MailsFound           int     `json:"mails_found"`
	DrainSeconds         float64 `json:"drain_seconds"` // from the storm's end until the outbox held them all; -1: not within -drain-timeout
	// slotd's CPU from the storm's end until the outbox held every e-mail,
	// and its CPU per booking over the storm and that drain together; 0
	// when not measured.
	DrainCPUSeconds          float64  `json:"drain_cpu_seconds,omitempty"`
	CPUPerBookingWithDrainUS float64  `json:"cpu_per_booking_with_drain_us,omitempty"`
	UnexpectedAnswers        []string `json:"unexpected_answers,omitempty"`
	// WAL is slotd's WAL fsyncs during the storm (disk.go); nil when
	// /metrics did not tell.
	WAL *WALSyncs `json:"wal_syncs,omitempty"`
}

// Race is the contention race: many clients, one slot, again and again.
type Race struct {
	Slots      int              `json:"slots"`
	Clients    int              `json:"clients"`
	OneWinner  int              `json:"slots_with_exactly_one_201"`
	Statuses   map[string]int64 `json:"statuses"`
	Failures   int64            `json:"failures"`
	BadSlots   []string         `json:"bad_slots,omitempty"`
	FirstError string           `json:"first_error,omitempty"`
}

// SeriesPhase is the series phase (issue 42): one connection, rounds of
// one booking and one series of 12 weekly occurrences, each by a new
// customer. Its phases are "series-single" and "series-12".
type SeriesPhase struct {
	Rounds      int    `json:"rounds"` // of each kind
	Rule        string `json:"rule"`
	Occurrences int    `json:"occurrences"`
	// How slotd's CPU was read, and what it used while nothing was asked
	// of it, before the phase (percent of a core).
	CPUClock         string     `json:"cpu_clock"`
	IdleCPUPercent   float64    `json:"idle_cpu_percent"`
	QuietWaitSeconds float64    `json:"quiet_wait_seconds"` // waiting for slotd to be idle before the phase
	Single           SeriesKind `json:"single"`
	Series           SeriesKind `json:"series"`
	// The series' figure over the single booking's: CPU per request (the
	// judged one), the median request's CPU, the CPU until the answer,
	// and the median latency; 0 when not measured.
	CPURatio         float64 `json:"cpu_ratio"`
	MedianCPURatio   float64 `json:"median_cpu_ratio"`
	ToAnswerCPURatio float64 `json:"to_answer_cpu_ratio"`
	LatencyRatio     float64 `json:"median_latency_ratio"`
	Seconds          float64 `json:"seconds"`
	// slotd's CPU over the whole phase from /proc/PID/stat, gaps between
	// the requests' readings included; -1 when not read.
	WholeCPUSeconds   float64  `json:"whole_cpu_seconds"`
	UnexpectedAnswers []string `json:"unexpected_answers,omitempty"`
}

// SeriesKind is one kind of request of the series phase.
type SeriesKind struct {
	Requests int64 `json:"requests"`
	// Answers other than 201 and requests without an answer; 201s whose
	// body did not hold the appointments asked for.
	Non201    int64     `json:"non_201"`
	Malformed int64     `json:"malformed_201"`
	Latency   LatencyMS `json:"latency_ms"`
	// slotd's CPU from just before each request until it was quiet after
	// the answer, summed, and per request.
	CPUSeconds      float64 `json:"cpu_seconds"`
	CPUPerRequestUS float64 `json:"cpu_per_request_us"`
	MedianCPUUS     float64 `json:"median_cpu_us"`                // the median request's
	CPUToAnswerUS   float64 `json:"cpu_to_answer_per_request_us"` // until the answer, the e-mail and the rest after it excluded
	GCCycles        int64   `json:"gc_cycles"`
	GCCPUSeconds    float64 `json:"gc_cpu_seconds"` // gctrace's estimate, in CPUSeconds
	Unsettled       int     `json:"unsettled"`      // requests after which slotd was not quiet within 200 ms
}

// ratios sets the series' figures over the single booking's.
func (sp *SeriesPhase) ratios() {
	ratio := func(series, single float64) float64 {
		if single <= 0 {
			return 0
		}
		return series / single
	}
	sp.CPURatio = ratio(sp.Series.CPUPerRequestUS, sp.Single.CPUPerRequestUS)
	sp.MedianCPURatio = ratio(sp.Series.MedianCPUUS, sp.Single.MedianCPUUS)
	sp.ToAnswerCPURatio = ratio(sp.Series.CPUToAnswerUS, sp.Single.CPUToAnswerUS)
	sp.LatencyRatio = ratio(sp.Series.Latency.P50, sp.Single.Latency.P50)
}

// Walk is the check after the writes: every touched staff member's
// appointments read back through the API.
type Walk struct {
	StaffMembers    int      `json:"staff_members"`
	Pages           int      `json:"pages"`
	Appointments    int      `json:"appointments"`
	Overlaps        int      `json:"overlapping_pairs"`
	OverlapExamples []string `json:"overlap_examples,omitempty"`
	Acknowledged    int      `json:"acknowledged"`
	Missing         int      `json:"acknowledged_missing"`
	MissingExamples []string `json:"missing_examples,omitempty"`
	Seconds         float64  `json:"seconds"`
}

// Postgres is the PostgreSQL baseline: pgbench with each of -pg-clients,
// before and after the storm; the best run is the storm's baseline.
type Postgres struct {
	Skipped   string  `json:"skipped,omitempty"` // why, when it did not run
	Version   string  `json:"version,omitempty"`
	Prebooked int     `json:"prebooked_rows"`
	Best      float64 `json:"best_tps"`
	BestRun   string  `json:"best_run,omitempty"` // the phase, e.g. pg-after-64
}

// Mixed is the mixed phase: availability reads and bookings at once, on
// the main slotd. Its phases are "mixed" (every request), "mixed-read"
// and "mixed-booking".
type Mixed struct {
	WeekReads          int64    `json:"week_reads"` // 7-day, all staff
	DayReads           int64    `json:"day_reads"`  // 1 day, one staff member
	Acknowledged       int64    `json:"acknowledged"`
	UncachedGuaranteed bool     `json:"uncached_guaranteed"` // no read asked twice
	MailsSeconds       float64  `json:"mails_seconds"`       // until the outbox held the phase's e-mails; -1: not within -drain-timeout
	UnexpectedAnswers  []string `json:"unexpected_answers,omitempty"`
}

// SMTPStorm is the booking storm again, shorter, against a second slotd
// on the main world that sends its e-mail over SMTP to bench/smtpsink in
// a process of its own. Its phase is "smtp-storm".
type SMTPStorm struct {
	ReadySeconds      float64  `json:"ready_seconds"`
	Acknowledged      int64    `json:"acknowledged"`
	MailsExpected     int64    `json:"mails_expected"`
	MailsReceived     int64    `json:"mails_received"` // distinct Message-IDs at the sink
	Messages          int64    `json:"messages"`       // every DATA the sink accepted, copies included
	SinkConnections   int64    `json:"sink_connections"`
	DrainSeconds      float64  `json:"drain_seconds"` // from the storm's end until the sink held them all; -1: not within -drain-timeout
	RSSAfter          int64    `json:"rss_after_bytes"`
	UnexpectedAnswers []string `json:"unexpected_answers,omitempty"`
}

// Tenancy is the tenancy phase: a world of many small businesses written
// into a data directory, slotd restarted on it without --world (and with
// --max-resident MaxResident), and one request that needs a business's
// state to each of many random businesses; then the idle step. Its
// phases are "tenancy" and "tenancy-idle".
type Tenancy struct {
	Businesses   int     `json:"businesses"`
	Staff        int     `json:"staff_per_business"`
	Customers    int     `json:"customers_per_business"`
	Appointments int     `json:"appointments_per_business"`
	FileBytes    int64   `json:"file_bytes"`
	WriteSeconds float64 `json:"write_seconds"`
	LoadSeconds  float64 `json:"load_seconds"`  // the first start, with --world, to ready
	ReadySeconds float64 `json:"ready_seconds"` // the restart, without --world, to ready
	RSSBefore    int64   `json:"rss_before_bytes"`
	Touch        int     `json:"touch"`   // businesses to ask
	Touched      int64   `json:"touched"` // first answers with 200
	RSSAfter     int64   `json:"rss_after_bytes"`
	HWMAfter     int64   `json:"hwm_after_bytes"`
	GrowthPerBiz float64 `json:"rss_growth_per_touched_business_bytes"`
	// The Go heap's live bytes after a forced GC (HeapAlloc), before and
	// after the touches: what RSS holds without garbage; 0 when slotd's
	// admin listener did not tell.
	HeapBefore int64   `json:"live_heap_before_bytes,omitempty"`
	HeapAfter  int64   `json:"live_heap_after_bytes,omitempty"`
	HeapPerBiz float64 `json:"live_heap_per_touched_business_bytes,omitempty"`
	// slotd's --max-resident for the touches (0: not passed), and the
	// businesses it kept, from /metrics; nil when /metrics did not tell.
	MaxResident int               `json:"max_resident"`
	Residency   *TenancyResidency `json:"residency,omitempty"`
	Idle        *TenancyIdle      `json:"idle,omitempty"`
}

// TenancyResidency is slotd_businesses_resident around the tenancy
// phase's touches (-1: not read).
type TenancyResidency struct {
	MaxSeen int64 `json:"resident_max_seen"` // sampled every 0.5 s during the touches
	AtEnd   int64 `json:"resident_at_end"`
	// Read again until at or below --max-resident: the last reading, and
	// the seconds after the touches it took (-1: not within the wait, or
	// no bound).
	Settled        int64   `json:"resident_settled"`
	SettledSeconds float64 `json:"settled_seconds"`
	LetGo          int64   `json:"let_go"`            // slotd_businesses_let_go_total then
	RSSSettled     int64   `json:"rss_settled_bytes"` // RSS then
}

// TenancyIdle is the tenancy phase's idle step: slotd with --idle-after,
// a burst of first answers, and RSS watched until it is back within
// SlackBytes of where it started. Its phase is "tenancy-idle".
type TenancyIdle struct {
	IdleAfterSeconds    float64 `json:"idle_after_seconds"`
	Touch               int     `json:"touch"`
	Touched             int64   `json:"touched"` // first answers with 200
	ReadySeconds        float64 `json:"ready_seconds"`
	BurstSeconds        float64 `json:"burst_seconds"` // from the baseline's reading to the burst's end
	SlackBytes          int64   `json:"slack_bytes"`
	WithinTargetSeconds float64 `json:"within_target_seconds"`
	WatchSeconds        float64 `json:"watch_seconds"`
	// From the burst's end until RSS was within SlackBytes of the
	// baseline; -1: not within WatchSeconds.
	WithinSeconds float64      `json:"within_seconds"`
	Baseline      IdleSample   `json:"baseline"` // once ready, before any request
	Peak          IdleSample   `json:"peak"`     // right after the burst
	Samples       []IdleSample `json:"samples"`  // every 5 s from the burst's end, the peak first
	HWM           int64        `json:"hwm_bytes"`
}

// IdleSample is slotd's memory and residency at one moment of the idle
// step; -1 where not read.
type IdleSample struct {
	Seconds      float64 `json:"seconds"` // after the burst's end (the baseline: after ready)
	RSS          int64   `json:"rss_bytes"`
	Resident     int64   `json:"resident"`
	LetGo        int64   `json:"let_go"`
	HeapInuse    int64   `json:"heap_inuse_bytes"`
	HeapReleased int64   `json:"heap_released_bytes"` // returned to the OS by the Go runtime
	GoSys        int64   `json:"go_sys_bytes"`        // what the Go runtime took from the OS, what it returned included
	GCCycles     int64   `json:"gc_cycles"`
}

// goHeld is what the Go runtime holds of the OS's memory: what it took
// less what it returned; RSS beyond it is memory outside the Go runtime
// (Pebble's cgo allocations among it) and the binary.
func (sm IdleSample) goHeld() int64 {
	if sm.GoSys < 0 || sm.HeapReleased < 0 {
		return -1
	}
	return sm.GoSys - sm.HeapReleased
}

// Load is the load phase: a large world from a fresh data directory, then
// a restart after kill -9.
type Load struct {
	Businesses          int     `json:"businesses"`
	Appointments        int     `json:"appointments"`
	FileBytes           int64   `json:"file_bytes"`
	WriteSeconds        float64 `json:"write_seconds"`
	ReadySeconds        float64 `json:"ready_seconds"`
	CPUSeconds          float64 `json:"cpu_seconds"`               // slotd's CPU until ready
	OtherCPUCores       float64 `json:"other_processes_cpu_cores"` // the rest of the machine meanwhile, on average
	RSS                 int64   `json:"rss_bytes"`
	HWM                 int64   `json:"hwm_bytes"`
	RestartReadySeconds float64 `json:"restart_ready_seconds"`
	RestartFirstAnswer  float64 `json:"restart_first_answer_seconds"`
	RestartRSS          int64   `json:"restart_rss_bytes"`
}

// Row is one line of the table.
type Row struct {
	Workload string `json:"workload"`
	Slotd    string `json:"slotd"`
	Baseline string `json:"baseline"`
	Ratio    string `json:"ratio"`
	Target   string `json:"target"`
	Result   string `json:"result"` // PASS, FAIL, info, skipped
}

func (r *Report) phase(name string) *Phase {
	for i := range r.Phases {
		if r.Phases[i].Name == name {
			return &r.Phases[i]
		}
	}
	return nil
}
