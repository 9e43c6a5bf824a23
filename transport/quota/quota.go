// Package quota owns the request limits of api-v1 §8 and decisions §4:
// per key, requests per minute and per hour by plan and a further ceiling
// on mutations; per client IP, failed authentication attempts.
//
// Each limit is a GCRA limiter (generic cell-rate algorithm): N requests
// per window, at most N at once, capacity coming back evenly (one request
// every window/N). There are no window boundaries, so no client can spend a
// window's allowance at the end of one window and again at the start of
// the next. GCRA can report a limit's state without spending from it, which
// is what lets a request that consults several limiters be refused by the
// tightest one without being charged to the others, and be reported by the
// most constrained one when it passes. State lives in memory, read against
// an injected clock; idle state is dropped (see stripe.sweep).
//
// The arithmetic is github.com/throttled/throttled/v2's GCRA, answer for
// answer (gcra.go). slotd used that library until its store interface
// showed up in profiles: three locked map operations per limit and a key
// string built per request made the limiter 8 % of slotd's CPU on a cheap
// read (2026-11-27). Here one stripe lock covers a request's limits and
// each limit is one map lookup.
package quota

import (
	"hash/maphash"
	"strings"
	"sync"
	"time"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/model"
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

// ForPublishable returns the windows of a publishable key (decisions §7),
// counted per key and client IP: 60 a minute, 600 an hour and 10
// mutations a minute, with the key's own overrides where set. The plan's
// per-key quota does not apply: one visitor must not use up a business's
// booking page for everyone else.
func ForPublishable(o *model.Limits) KeyLimits {
	perMin, perHour, mut := 60, 600, 10
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
	seed    maphash.Seed
	stripes [64]stripe // by subject, so a check and its spend are one step
}

// stripe holds the state of the subjects that hash to it.
//
// A TAT at or before now carries no information: the limit is back to its
// full allowance, exactly as if it had never been seen. So idle state can
// be dropped without changing any answer, and is: a stripe that has doubled
// since its last sweep deletes every subject whose TATs have all passed.
// Memory is bounded by the subjects active within the longest window (an
// hour), not by every subject ever seen.
type stripe struct {
	mu        sync.Mutex
	subjects  map[string]*limits
	lastSwept int // size after the last sweep
}

// limits is one subject's state: for each kind of limit it has met, the
// theoretical arrival time (TAT) of its next request, in Unix
// nanoseconds. The state is keyed by kind, not by window, so a key whose
// quota changes (a world reload) keeps what it has spent, read at the new
// rate. One map lookup finds every limit of a request.
type limits struct {
	n    int
	kind [maxChecks]byte
	tat  [maxChecks]int64
}

// maxChecks bounds the limits of one subject and of one request.
const maxChecks = 4

// get returns the TAT of kind, if the subject has one.
func (s *limits) get(kind byte) (int64, bool) {
	if s != nil {
		for i := range s.n {
			if s.kind[i] == kind {
				return s.tat[i], true
			}
		}
	}
	return 0, false
}

// set records the TAT of kind.
func (s *limits) set(kind byte, tat int64) {
	for i := range s.n {
		if s.kind[i] == kind {
			s.tat[i] = tat
			return
		}
	}
	if s.n == maxChecks {
		panic("quota: more than 4 kinds of limit for one subject")
	}
	s.kind[s.n], s.tat[s.n] = kind, tat
	s.n++
}

// New returns a Limiter reading time from c.
func New(c clock.Clock) *Limiter {
	l := &Limiter{clock: c, seed: maphash.MakeSeed()}
	for i := range l.stripes {
		l.stripes[i].subjects = map[string]*limits{}
	}
	return l
}

// lock takes subject's stripe and reads the clock for the call.
func (l *Limiter) lock(subject string) (*stripe, time.Time) {
	st := &l.stripes[maphash.String(l.seed, subject)%uint64(len(l.stripes))]
	now := l.clock.Now() // outside the lock: one key's requests all meet here
	st.mu.Lock()
	return st, now
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
// reported. Every limit is judged before any is spent, under the subject's
// stripe lock, so a refusal leaves every limit exactly as it was.
func (l *Limiter) Take(subject string, checks ...Check) Verdict {
	var next [maxChecks]int64
	if len(checks) > maxChecks {
		panic("quota: at most 4 checks")
	}
	st, now := l.lock(subject)
	defer st.mu.Unlock()
	at := now.UnixNano()
	state := st.subjects[subject]
	var worst Verdict
	for i, c := range checks {
		tat, ok := state.get(c.Kind)
		v, n := gcraOf(c.Window).spend(tat, ok, now, at)
		if !v.Allowed {
			v.Refused = c.Kind
			return v
		}
		next[i] = n
		if i == 0 || v.Remaining < worst.Remaining {
			worst = v
		}
	}
	if state == nil {
		// A copy: callers pass a conversion of their own bytes, which
		// then need not leave their stack on every request.
		state = new(limits)
		st.subjects[strings.Clone(subject)] = state
		if len(st.subjects) > 2*max(st.lastSwept, 64) {
			st.sweep(at)
		}
	}
	for i, c := range checks {
		state.set(c.Kind, next[i])
	}
	return worst
}

// Peek reports check c for subject without spending; Allowed says whether a
// request would pass it. A subject with no state, or whose state has
// lapsed, has its full allowance, which is what every request's
// failed-authentication check meets for a well-behaved client.
func (l *Limiter) Peek(subject string, c Check) Verdict {
	st, now := l.lock(subject)
	defer st.mu.Unlock()
	tat, ok := st.subjects[subject].get(c.Kind)
	if !ok || tat <= now.UnixNano() {
		return Verdict{Allowed: true, Limit: c.Window.N, Remaining: c.Window.N, Reset: now}
	}
	v := gcraOf(c.Window).peek(tat, now, now.UnixNano())
	if !v.Allowed {
		v.Refused = c.Kind
	}
	return v
}

// sweep drops the subjects whose TATs have all passed. The caller holds
// st.mu.
func (st *stripe) sweep(now int64) {
	for k, s := range st.subjects {
		if !s.live(now) {
			delete(st.subjects, k)
		}
	}
	st.lastSwept = len(st.subjects)
}

// live reports whether any of s's TATs is after now.
func (s *limits) live(now int64) bool {
	for i := range s.n {
		if s.tat[i] > now {
			return true
		}
	}
	return false
}

// Keys is the number of subjects×limits holding state, for tests and
// metrics.
func (l *Limiter) Keys() int {
	n := 0
	for i := range l.stripes {
		st := &l.stripes[i]
		st.mu.Lock()
		for _, s := range st.subjects {
			n += s.n
		}
		st.mu.Unlock()
	}
	return n
}
