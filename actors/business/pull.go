package business

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/clock"
	"github.com/slotd/slotd/actors/ledger"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/ical"
	"github.com/slotd/slotd/webhook/icsfetch"
)

// The puller is a business's worker for its calendar sources (decisions
// §8), a child of the business actor as the payer is. It keeps one timer
// per source, on the injected clock, set to when the source's next fetch
// is due (ledger.SourceDue), and fetches and expands the calendar on a
// goroutine of its own. The outcome goes to the parent, which journals
// it with the busy time it gave (ledger.DecideSourceFetched) like any
// other write, so the busy time is ordered with the bookings racing it.
//
// The puller holds nothing the journal does not: the parent tells it the
// business's sources (pullPlan) when it starts, which is also how a
// restart or a cluster take-over resumes the fetches, and after every
// write that changes them.

// Calendars is what the business actors need to pull calendar sources;
// a nil *Calendars keeps sources but never fetches them (tests).
type Calendars struct {
	Fetcher Fetcher
	// Slots bounds the fetches in flight on the server, expansion
	// included: a node that resumes thousands of sources, or a business
	// with fifty, queues them here instead of opening that many
	// connections or parsing that many files at once. Nil: no bound.
	Slots chan struct{}
	// Budget bounds one calendar's expansion (0: 5 s). It is wall-clock
	// time, not the injected clock's: it guards the CPU against a
	// hostile file, and decides nothing a test observes.
	Budget time.Duration
}

// Fetcher fetches a calendar file (icsfetch.Fetcher).
type Fetcher interface {
	Fetch(ctx context.Context, url, etag string) (icsfetch.Result, error)
}

// pullPlan gives the puller the business's state: its sources, and the
// zone and booking window the fetches expand over. The state is
// immutable; the puller only reads it.
type pullPlan struct{ st *ledger.State }

// pullDue: a source's fetch is due.
type pullDue struct{ p *pull }

// pullEnded is a fetch's end, on the puller's mailbox.
type pullEnded struct {
	p       *pull
	fetch   ledger.SourceFetch
	outcome string
}

// sourceFetched reports a fetch's outcome to the business actor.
type sourceFetched struct{ fetch ledger.SourceFetch }

// pull is one source as the puller schedules it.
type pull struct {
	src   model.CalendarSource
	timer clock.Timer
	busy  bool // a fetch is in flight
}

type puller struct {
	env   *Env
	biz   uuid.UUID
	st    *ledger.State
	pulls map[uuid.UUID]*pull

	root   *actor.RootContext
	self   *actor.PID
	parent *actor.PID
	ctx    context.Context
	cancel context.CancelFunc
}

func pullerProps(env *Env, biz uuid.UUID) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &puller{env: env, biz: biz, pulls: map[uuid.UUID]*pull{}}
	}, env.dispatcher()...)
}

// Receive implements actor.Actor.
func (w *puller) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		w.root, w.self, w.parent = ctx.ActorSystem().Root, ctx.Self(), ctx.Parent()
		w.ctx, w.cancel = context.WithCancel(context.Background())
	case *actor.Stopping, *actor.Restarting:
		w.stop()
	case *pullPlan:
		w.plan(m.st)
	case *pullDue:
		if w.pulls[m.p.src.ID] == m.p && !m.p.busy {
			m.p.timer = nil
			w.fetch(m.p)
		}
	case *pullEnded:
		w.ended(m)
	}
}

func (w *puller) stop() {
	if w.cancel != nil {
		w.cancel()
	}
	for id, p := range w.pulls {
		if p.timer != nil {
			p.timer.Stop()
		}
		delete(w.pulls, id)
	}
}

// plan brings the schedule up to date with st: a new source is due at
// once (or, resumed, when its refresh says); a deleted one, or one whose
// staff member is gone, is forgotten.
func (w *puller) plan(st *ledger.State) {
	w.st = st
	now := w.env.Clock.Now()
	kept := map[uuid.UUID]bool{}
	for _, src := range st.Sources() {
		if st.StaffMember(src.StaffID) == nil {
			continue
		}
		kept[src.ID] = true
		if p := w.pulls[src.ID]; p != nil {
			p.src = src // a fetch's outcome: its ETag and horizon
			continue
		}
		p := &pull{src: src}
		w.pulls[src.ID] = p
		w.arm(p, ledger.SourceDue(&src, now).Sub(now))
	}
	for id, p := range w.pulls {
		if !kept[id] {
			if p.timer != nil {
				p.timer.Stop()
			}
			delete(w.pulls, id)
		}
	}
}

func (w *puller) arm(p *pull, wait time.Duration) {
	root, self := w.root, w.self
	p.timer = w.env.Clock.AfterFunc(max(wait, 0), func() { root.Send(self, &pullDue{p: p}) })
}

// fetch starts p's fetch over the window as of now.
func (w *puller) fetch(p *pull) {
	now := w.env.Clock.Now().UTC().Truncate(time.Millisecond)
	from, to := ledger.SourceWindow(w.st, now)
	etag := ""
	if ledger.Conditional(&p.src, to) {
		etag = p.src.ETag
	}
	p.busy = true
	cal, url, loc := w.env.Calendars, p.src.URL, w.st.Loc
	root, self, ctx := w.root, w.self, w.ctx
	f := ledger.SourceFetch{ID: p.src.ID, Started: now, From: from, To: to}
	w.env.bg.Add(1)
	go func() {
		defer w.env.bg.Done()
		outcome := cal.pullOnce(ctx, url, etag, loc, &f)
		if ctx.Err() == nil { // not stopped meanwhile
			root.Send(self, &pullEnded{p: p, fetch: f, outcome: outcome})
		}
	}()
}

// ended reports a fetch's outcome to the parent and arms the next.
func (w *puller) ended(m *pullEnded) {
	p := m.p
	p.busy = false
	if w.pulls[p.src.ID] != p {
		return // deleted meanwhile
	}
	w.env.Metrics.fetched(m.outcome)
	if m.fetch.Err != "" {
		w.env.Log.Info("calendar source not fetched", "business", w.biz, "source", p.src.ID, "err", m.fetch.Err)
	}
	w.root.Send(w.parent, &sourceFetched{fetch: m.fetch})
	p.src.TriedAt = m.fetch.Started
	now := w.env.Clock.Now()
	w.arm(p, ledger.SourceDue(&p.src, now).Sub(now))
}

// pullOnce fetches the calendar at url and expands it into f, waiting
// for a slot first; it returns the outcome the metric counts.
func (c *Calendars) pullOnce(ctx context.Context, url, etag string, loc *time.Location, f *ledger.SourceFetch) string {
	if c.Slots != nil {
		select {
		case c.Slots <- struct{}{}:
			defer func() { <-c.Slots }()
		case <-ctx.Done():
			return ""
		}
	}
	res, err := c.Fetcher.Fetch(ctx, url, etag)
	switch {
	case err != nil:
		f.Err = err.Error()
		return "unreachable"
	case res.NotModified:
		f.NotModified = true
		return "unchanged"
	}
	budget := c.Budget
	if budget <= 0 {
		budget = 5 * time.Second
	}
	bctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	ivs, err := ical.Busy(bctx, res.Data, loc, f.From, f.To)
	if err != nil {
		f.Err = importError(err, budget)
		return "invalid"
	}
	f.ETag = res.ETag
	f.Busy = make([]model.BusyTime, len(ivs))
	for i, iv := range ivs {
		f.Busy[i] = model.BusyTime{Start: iv.Start.Truncate(time.Millisecond), End: iv.End.Truncate(time.Millisecond),
			ExternalID: clip(iv.ExternalID), Title: clip(iv.Title)}
	}
	return "updated"
}

// importError words an expansion's failure for lastError.
func importError(err error, budget time.Duration) string {
	switch {
	case errors.Is(err, ical.ErrTooSlow):
		return fmt.Sprintf("the calendar could not be expanded within %v", budget)
	case errors.Is(err, ical.ErrTooMany):
		return fmt.Sprintf("the calendar has more than %d busy intervals in the booking window", ical.MaxIntervals)
	}
	return "the calendar could not be read: " + strings.TrimPrefix(err.Error(), "ical: ")
}

// maxImportedText bounds an imported id or title, as the API bounds a
// pushed one (500 characters).
const maxImportedText = 500

func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxImportedText {
		return s
	}
	n := 0
	for i := range s {
		if n == maxImportedText {
			return s[:i]
		}
		n++
	}
	return s
}

// planPulls tells the puller the business's sources as the actor's state
// has them, starting it at the first source.
func (a *businessActor) planPulls(ctx actor.Context) {
	if a.state == nil || a.env.Calendars == nil || a.kids.puller == nil && len(a.state.Sources()) == 0 {
		return
	}
	if a.kids.puller == nil {
		a.kids.puller = ctx.Spawn(pullerProps(a.env, a.h.ID))
	}
	ctx.Send(a.kids.puller, &pullPlan{st: a.state})
}

// fetched journals a fetch's outcome, and tells the puller the source as
// it now stands.
func (a *businessActor) fetched(ctx actor.Context, m *sourceFetched) {
	if a.state == nil {
		return
	}
	ch := ledger.DecideSourceFetched(a.state, &m.fetch, a.now())
	if ch == nil {
		return
	}
	log, biz := a.env.Log, a.h.ID
	a.commitThen(ctx, ch, func(err error) {
		if err != nil {
			log.Error("journalling a calendar source's fetch failed", "business", biz, "err", err)
		}
	})
	a.planPulls(ctx)
}

// handle journals the fetch's outcome.
func (m *sourceFetched) handle(a *businessActor, ctx actor.Context) { a.fetched(ctx, m) }
