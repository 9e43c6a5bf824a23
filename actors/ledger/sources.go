package ledger

import (
	"encoding/binary"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// Calendar sources (decisions §8): ICS calendars of staff members that the
// business actor's worker fetches on a schedule. A source is state like a
// feed (created, deleted, in snapshots), and so is every fetch's outcome:
// when it was tried, whether it failed and why, the file's ETag, and the
// busy time it gave, journalled in one record as a PUT of source
// ics:<id> would be. What the state says is therefore what a restarted
// actor, or the node that takes the business over, resumes from: the next
// fetch is due a refresh after the last one began.

var (
	errTooManySources = problem.New(problem.Conflict, "The business already has the maximum of 50 calendar sources.")
	errSameSource     = problem.New(problem.Conflict, "The staff member already has a calendar source with this URL.")
	errNoSource       = problem.New(problem.NotFound, "No such resource for this business.")
)

// SourceInput is a validated POST /staff/{id}/calendar-sources.
type SourceInput struct {
	Staff          uuid.UUID
	URL            string
	RefreshMinutes int
}

// DecideSourceCreate adds a calendar source to a staff member of the
// business: at most model.MaxSources in the business, and one per URL per
// staff member (a repeated POST, which Idempotency-Key does not guard
// here, would only fetch the same file twice).
func DecideSourceCreate(s *State, in *SourceInput, now time.Time, ids IDs) (*record.Change, *model.CalendarSource, error) {
	if s.StaffMember(in.Staff) == nil {
		return nil, nil, errNoStaffHere
	}
	if len(s.sources) >= model.MaxSources {
		return nil, nil, errTooManySources
	}
	for i := range s.sources {
		if s.sources[i].StaffID == in.Staff && s.sources[i].URL == in.URL {
			return nil, nil, errSameSource
		}
	}
	src := model.CalendarSource{ID: ids.UUID(), StaffID: in.Staff, URL: in.URL, RefreshMinutes: in.RefreshMinutes, CreatedAt: now}
	ch := &record.Change{At: now, Sources: []model.CalendarSource{src}}
	return ch, &ch.Sources[0], nil
}

// DecideSourceDelete deletes staff member staff's calendar source id and
// the busy time it gave.
func DecideSourceDelete(s *State, staff, id uuid.UUID, now time.Time) (*record.Change, error) {
	if s.StaffMember(staff) == nil {
		return nil, errNoStaffHere
	}
	src := s.Source(id)
	if src == nil || src.StaffID != staff {
		return nil, errNoSource
	}
	ch := &record.Change{At: now, Dropped: []uuid.UUID{id}}
	if len(s.busy[staff][src.BusySource()]) > 0 {
		ch.Busy = []record.BusyChange{{Staff: staff, Source: src.BusySource(), Clear: true}}
	}
	return ch, nil
}

// SourceFetch is the outcome of one fetch of a calendar source, as the
// worker reports it: failed (Err), unchanged since the ETag it sent
// (NotModified), or taken, its busy time over [From, To).
type SourceFetch struct {
	ID          uuid.UUID
	Started     time.Time
	Err         string
	NotModified bool
	ETag        string
	From, To    time.Time
	Busy        []model.BusyTime
}

// DecideSourceFetched records a fetch's outcome: a failure keeps the busy
// time the source gave before and says why; a success replaces it within
// the window (when the file changed) and clears the error. Nil when the
// source was deleted meanwhile.
func DecideSourceFetched(s *State, f *SourceFetch, now time.Time) *record.Change {
	old := s.Source(f.ID)
	if old == nil {
		return nil
	}
	src := *old
	src.TriedAt = f.Started
	ch := &record.Change{At: now}
	switch {
	case f.Err != "":
		src.LastError = f.Err
	case f.NotModified:
		src.LastSyncAt, src.LastError = now, ""
	default:
		src.LastSyncAt, src.LastError, src.ETag, src.Horizon = now, "", f.ETag, f.To
		if s.StaffMember(src.StaffID) != nil {
			ch.Busy = append(s.pruneSource(&src, f.From), record.BusyChange{Staff: src.StaffID, Source: src.BusySource(),
				From: f.From, To: f.To, Intervals: sourced(f.Busy, src.BusySource())})
		}
	}
	ch.Sources = []model.CalendarSource{src}
	return ch
}

// pruneSource is the change that drops what source src gave that starts
// more than 30 days (FeedBack) before from, or nothing. A fetch replaces
// only its window, as a PUT would, and its window moves on every day: left
// alone, a calendar's past would pile up in memory and in snapshots for
// as long as the source lives, though no booking decision reads it.
func (s *State) pruneSource(src *model.CalendarSource, from time.Time) []record.BusyChange {
	cut := from.Add(-FeedBack)
	list := s.busy[src.StaffID][src.BusySource()]
	if len(list) == 0 || !list[0].Start.Before(cut) {
		return nil
	}
	return []record.BusyChange{{Staff: src.StaffID, Source: src.BusySource(), From: time.UnixMilli(0).UTC(), To: cut}}
}

// SourceWindow is the window a fetch at now expands a calendar over: from
// the start of the business's local day to maxAdvanceDays ahead and a day
// more (the last bookable day whole), at most 400 days, as a PUT.
func SourceWindow(s *State, now time.Time) (from, to time.Time) {
	local := now.In(s.Loc)
	from = time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, s.Loc).UTC()
	to = now.AddDate(0, 0, s.Business.Rules.MaxAdvanceDays+1)
	if limit := from.AddDate(0, 0, model.MaxBusyWindowDays); to.After(limit) {
		to = limit
	}
	return from, to
}

// Conditional reports whether a fetch expanding over a window ending at
// to may send the source's ETag: an unchanged file answers 304 and is not
// expanded again, so only while the window it was last expanded over
// still reaches to within a day (recurrences go on past it).
func Conditional(src *model.CalendarSource, to time.Time) bool {
	return src.ETag != "" && !src.Horizon.Before(to.Add(-24*time.Hour))
}

// SourceDue is when source src's next fetch is due, at now: a refresh
// after the last one began, less a tenth of it picked by the source's id,
// so sources made together drift apart instead of being fetched together
// for ever. One never tried is due within 5 seconds, and one overdue (a
// restart, a take-over) within a minute: each at a moment picked by its
// id, so a node that resumes many does not fetch them all at once.
func SourceDue(src *model.CalendarSource, now time.Time) time.Time {
	if src.TriedAt.IsZero() {
		return now.Add(spread(src.ID, 5*time.Second))
	}
	due := src.TriedAt.Add(src.Refresh() - spread(src.ID, src.Refresh()/10))
	if due.Before(now) {
		return now.Add(spread(src.ID, min(src.Refresh(), time.Minute)))
	}
	return due
}

// NextPull is when the first of the business's calendar sources is next
// due to be fetched, as SourceDue plans it (a source never tried is due
// now: the zero time); false when it has none. A business let go is woken
// for it (decisions §1).
func (s *State) NextPull() (time.Time, bool) {
	var next time.Time
	ok := false
	for i := range s.sources {
		src := &s.sources[i]
		if s.StaffMember(src.StaffID) == nil {
			continue
		}
		due := time.Time{}
		if !src.TriedAt.IsZero() {
			due = src.TriedAt.Add(src.Refresh() - spread(src.ID, src.Refresh()/10))
		}
		if !ok || due.Before(next) {
			next, ok = due, true
		}
	}
	return next, ok
}

// spread is a duration in [0, span) picked by id.
func spread(id uuid.UUID, span time.Duration) time.Duration {
	if span <= 0 {
		return 0
	}
	return time.Duration(binary.BigEndian.Uint64(id[8:]) % uint64(span))
}

// Sources returns the business's calendar sources in creation order; not
// to be modified.
func (s *State) Sources() []model.CalendarSource { return s.sources }

// StaffSources returns staff member staff's calendar sources in creation
// order.
func (s *State) StaffSources(staff uuid.UUID) []model.CalendarSource {
	var out []model.CalendarSource
	for _, src := range s.sources {
		if src.StaffID == staff {
			out = append(out, src)
		}
	}
	return out
}

// Source returns calendar source id, or nil.
func (s *State) Source(id uuid.UUID) *model.CalendarSource {
	for i := range s.sources {
		if s.sources[i].ID == id {
			return &s.sources[i]
		}
	}
	return nil
}

// CreateSource adds a calendar source to a staff member
// (POST /staff/{id}/calendar-sources); its first fetch follows within
// 5 seconds.
type CreateSource struct{ In SourceInput }

func (o CreateSource) Decide(s *State, now time.Time, ids IDs) (*record.Change, model.CalendarSource, error) {
	ch, src, err := DecideSourceCreate(s, &o.In, now, ids)
	return ch, deref(src), err
}

// DeleteSource deletes staff member Staff's calendar source ID and the
// busy time it gave (DELETE /staff/{id}/calendar-sources/{sourceId}).
type DeleteSource struct{ Staff, ID uuid.UUID }

func (o DeleteSource) Decide(s *State, now time.Time, _ IDs) (*record.Change, Done, error) {
	ch, err := DecideSourceDelete(s, o.Staff, o.ID, now)
	return ch, Done{}, err
}
