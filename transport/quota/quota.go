// Package quota owns the request limits of api-v1 §8 and decisions §4:
// per key, requests per minute and per hour by plan and a further ceiling
// on mutations; per client IP, failed authentication attempts.
//
// Each limit is a GCRA limiter (generic cell-rate algorithm) from
// github.com/throttled/throttled/v2: N requests per window, at most N at
// once, capacity coming back evenly (one request every window/N). There are
// no window boundaries, so no client can spend a window's allowance at the
// end of one window and again at the start of the next. GCRA can report a
// limit's state without spending from it, which is what lets a request that
// consults several limiters be refused by the tightest one without being
// charged to the others, and be reported by the most constrained one when
// it passes. State lives in memory, read against an injected clock; idle
// state is dropped (see store).
package quota

import (
	"context"
	"hash/maphash"
	"strings"
	"sync"
	"time"

	"github.com/throttled/throttled/v2"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/clock"
)

// Window is one limit: at most N requests per Per.
type Window struct {
	N   int
	Per time.Duration
}

// KeyLimits are the windows of one API key (api-v1 §8).
type KeyLimits struct {
	Minute, Hour, Mutations Window
}

// MutationsPerMinute is the mutation ceiling of every plan.
const MutationsPerMinute = 30

// FailedAuth is the limit on failed authentication per client IP
// (decisions §3).
var FailedAuth = Window{N: 20, Per: time.Minute}

// ForKey returns the windows of a key of a business on plan p, with the
// key's own overrides (world file `limits`) where set. An unrecognised plan
// gets Groei's quotas.
func ForKey(p model.Plan, o *model.Limits) KeyLimits {
	perMin, perHour := 60, 600
	switch p {
	case model.Pro:
		perMin, perHour = 120, 2000
	case model.Zakelijk:
		perMin, perHour = 300, 10000
	}
	mut := MutationsPerMinute
	if o != nil {
		perMin, perHour, mut = or(o.PerMinute, perMin), or(o.PerHour, perHour), or(o.MutationsPerMinute, mut)
	}
	return KeyLimits{Minute: Window{perMin, time.Minute}, Hour: Window{perHour, time.Hour}, Mutations: Window{mut, time.Minute}}
}

func or(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Verdict is the state of the most constrained limiter a request consulted,
// as the X-RateLimit-* headers report it.
type Verdict struct {
	Allowed bool
	// Refused is the Kind of the check that refused the request (Take),
	// or that it would refuse (Peek); 0 when allowed. (It sits in
	// Allowed's padding: a Verdict is copied into every request's call.)
	Refused    byte
	Limit      int
	Remaining  int
	Reset      time.Time     // when the limiter is back to its full allowance
	RetryAfter time.Duration // when refused: until the next request is allowed
}

// Limiter holds the state of every limit. It is safe for concurrent use.
type Limiter struct {
	clock   clock.Clock
	store   *store
	seed    maphash.Seed
	stripes [64]stripe // by subject, so a check and its spend are one step
	gcra    sync.Map   // kind+Window -> *throttled.GCRARateLimiterCtx
}

// stripe serializes the calls for the subjects that hash to it.
type stripe struct {
	mu sync.Mutex
	at instant // the context of the call holding mu
}

// instant is the context of one limiter call. It carries the time, read
// once for the call: throttled asks the store for the time on every limit
// it runs, twice per limit on a Take, and a clock read costs 40–90 ns on
// these machines. Each stripe owns one, used only under its lock, so
// passing it through throttled's interfaces allocates nothing.
type instant struct {
	context.Context
	now  time.Time
	read tatState // the entry the store last read for this call, for Take's undo
}

// New returns a Limiter reading time from c.
func New(c clock.Clock) *Limiter {
	return &Limiter{clock: c, store: newStore(c), seed: maphash.MakeSeed()}
}

// lock takes subject's stripe and reads the clock for the call.
func (l *Limiter) lock(subject string) *stripe {
	st := &l.stripes[maphash.String(l.seed, subject)%uint64(len(l.stripes))]
	now := l.clock.Now() // outside the lock: one key's requests all meet here
	st.mu.Lock()
	st.at = instant{Context: context.Background(), now: now}
	return st
}

// limitID names one GCRA configuration: a kind and its window. The state
// in the store is keyed by kind and subject only, so a key whose quota
// changes (a world reload) keeps what it has spent, read at the new rate.
type limitID struct {
	kind byte
	w    Window
}

func (l *Limiter) limiter(id limitID) *throttled.GCRARateLimiterCtx {
	if g, ok := l.gcra.Load(id); ok {
		return g.(*throttled.GCRARateLimiterCtx)
	}
	g, err := throttled.NewGCRARateLimiterCtx(l.store, throttled.RateQuota{
		MaxRate: throttled.PerDuration(id.w.N, id.w.Per), MaxBurst: id.w.N - 1})
	if err != nil {
		panic(err) // N >= 1 and Per > 0 are the callers' invariants
	}
	g.SetMaxCASAttemptsLimit(1) // the per-key lock makes a CAS miss impossible
	actual, _ := l.gcra.LoadOrStore(id, g)
	return actual.(*throttled.GCRARateLimiterCtx)
}

// Check names one limit of one subject: kind separates subjects of
// different sorts (keys, IPs) and limits of one subject.
type Check struct {
	Kind   byte
	Window Window
}

// Take consults the checks for subject: if any has no allowance left the
// request is refused, spending nothing, and that limit is reported;
// otherwise one is spent from each and the one with the least left is
// reported.
//
// It spends from each limit in turn and, should one refuse, puts back
// what the earlier ones spent: under the subject's stripe lock nothing
// else touches these keys, so restoring their previous state is exact. The
// common case (nothing refuses) runs GCRA once per limit rather than once
// to check and once to spend.
func (l *Limiter) Take(subject string, checks ...Check) Verdict {
	var gs [4]*throttled.GCRARateLimiterCtx
	var keys [4]string
	if len(checks) > len(gs) {
		panic("quota: at most 4 checks")
	}
	// One allocation holds every check's store key: kind byte + subject.
	var sb strings.Builder
	sb.Grow(len(checks) * (1 + len(subject)))
	for _, c := range checks {
		sb.WriteByte(c.Kind)
		sb.WriteString(subject)
	}
	all := sb.String()
	for i, c := range checks {
		gs[i], keys[i] = l.limiter(limitID{c.Kind, c.Window}), all[i*(1+len(subject)):(i+1)*(1+len(subject))]
	}
	st := l.lock(subject)
	defer st.mu.Unlock()
	var before [4]tatState
	var worst Verdict
	for i, c := range checks {
		v := run(&st.at, gs[i], keys[i], c, 1)
		before[i] = st.at.read
		if !v.Allowed {
			for j := range i {
				l.store.restore(keys[j], before[j])
			}
			v.Refused = c.Kind
			return v
		}
		if i == 0 || v.Remaining < worst.Remaining {
			worst = v
		}
	}
	return worst
}

// Peek reports check c for subject without spending; Allowed says whether a
// request would pass it. A subject with no state, or whose state has
// lapsed, has its full allowance: that is answered without running the
// limiter (or writing to the store), which is what every request's
// failed-authentication check meets for a well-behaved client.
func (l *Limiter) Peek(subject string, c Check) Verdict {
	st := l.lock(subject)
	defer st.mu.Unlock()
	now := st.at.now
	if tat, ok := l.store.tat(c.Kind, subject); !ok || tat <= now.UnixNano() {
		return Verdict{Allowed: true, Limit: c.Window.N, Remaining: c.Window.N, Reset: now}
	}
	v := run(&st.at, l.limiter(limitID{c.Kind, c.Window}), string(c.Kind)+subject, c, 0)
	v.Allowed = v.Remaining > 0
	if !v.Allowed {
		v.Refused = c.Kind
	}
	return v
}

// run runs one GCRA limit; Allowed is false when spending quantity was
// refused (never for quantity 0).
func run(at *instant, g *throttled.GCRARateLimiterCtx, key string, c Check, quantity int) Verdict {
	limited, r, err := g.RateLimitCtx(at, key, quantity)
	if err != nil {
		// The in-memory store cannot fail; were it to, fail open rather
		// than lock every client out.
		return Verdict{Allowed: true, Limit: c.Window.N, Remaining: c.Window.N, Reset: at.now}
	}
	v := Verdict{Allowed: !limited, Limit: r.Limit, Remaining: r.Remaining, Reset: at.now.Add(r.ResetAfter)}
	if r.RetryAfter > 0 {
		v.RetryAfter = r.RetryAfter
	}
	return v
}

// Keys is the number of subjects×limits holding state, for tests and
// metrics.
func (l *Limiter) Keys() int { return l.store.size() }
