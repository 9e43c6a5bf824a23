package quota

import "time"

// gcra is the arithmetic of one limit, GCRA as
// github.com/throttled/throttled/v2 computes it (RateLimitCtx with
// MaxRate N per Per and MaxBurst N-1), answer for answer: TestGCRAAsThrottled
// holds the two side by side.
//
// A limit lets one request through every emission interval T = Per/N and
// tolerates N of them at once (τ = N·T). Its state is the theoretical
// arrival time (TAT) of the next request at exactly the rate: a request at
// now is allowed when max(TAT, now) + T - τ <= now, and moves the TAT to
// max(TAT, now) + T.
type gcra struct {
	n      int
	t, tau int64 // emission interval and tolerance, in nanoseconds
}

func gcraOf(w Window) gcra {
	t := int64(w.Per / time.Duration(w.N))
	return gcra{n: w.N, t: t, tau: t * int64(w.N)}
}

// spend judges one request at now (at is now in Unix nanoseconds) against
// the TAT tat (has: there is one) and returns the verdict and the TAT to
// store when it is allowed.
func (g gcra) spend(tat int64, has bool, now time.Time, at int64) (Verdict, int64) {
	if !has {
		tat = at
	}
	newTat := max(tat, at) + g.t
	v := Verdict{Allowed: true, Limit: g.n}
	var ttl int64
	if diff := at - (newTat - g.tau); diff < 0 {
		v.Allowed, v.RetryAfter = false, time.Duration(-diff)
		ttl = tat - at
	} else {
		ttl = newTat - at
	}
	g.fill(&v, now, ttl)
	return v, newTat
}

// peek reports the limit at now without spending: what a request would
// meet, with RetryAfter when it would be refused.
func (g gcra) peek(tat int64, now time.Time, at int64) Verdict {
	v := Verdict{Allowed: true, Limit: g.n}
	if diff := at - (max(tat, at) + g.t - g.tau); diff < 0 {
		v.RetryAfter = time.Duration(-diff)
	}
	g.fill(&v, now, max(tat, at)-at)
	v.Allowed = v.Remaining > 0
	return v
}

// fill sets what is left and when the limit is whole again, from ttl, the
// time until the TAT.
func (g gcra) fill(v *Verdict, now time.Time, ttl int64) {
	if next := g.tau - ttl; next > -g.t {
		v.Remaining = int(next / g.t)
	}
	v.Reset = now.Add(time.Duration(ttl))
}
