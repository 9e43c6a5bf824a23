package ledger

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/ical"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// Calendar feeds (decisions §8): a business's few feeds, in creation
// order, copied on write like its webhook endpoints. A feed holds no
// secret: its URL's token signs its id (transport/linktoken), so
// deleting the feed is what revokes the URL.

var (
	errTooManyFeeds = problem.New(problem.Conflict, "The business already has the maximum of 50 calendar feeds.")
	errNoFeed       = problem.New(problem.NotFound, "No such resource for this business.")
)

// FeedInput is a validated POST /calendar-feeds.
type FeedInput struct {
	StaffID              *uuid.UUID
	ResourceID           *uuid.UUID // decisions §10; never with StaffID
	IncludeCustomerNames bool
}

// DecideFeedCreate makes a feed: of a staff member of the business, or
// of the whole business; at most model.MaxFeeds of them.
func DecideFeedCreate(s *State, in *FeedInput, now time.Time, ids IDs) (*record.Change, *model.Feed, error) {
	if in.StaffID != nil && s.StaffMember(*in.StaffID) == nil {
		return nil, nil, errUnknownStaff
	}
	if in.ResourceID != nil && s.Resource(*in.ResourceID) == nil {
		return nil, nil, errUnknownResource
	}
	if len(s.feeds) >= model.MaxFeeds {
		return nil, nil, errTooManyFeeds
	}
	f := model.Feed{ID: ids.UUID(), StaffID: in.StaffID, ResourceID: in.ResourceID, IncludeCustomerNames: in.IncludeCustomerNames, CreatedAt: now}
	ch := &record.Change{At: now, Feeds: []model.Feed{f}}
	return ch, &ch.Feeds[0], nil
}

// DecideFeedDelete revokes a feed.
func DecideFeedDelete(s *State, id uuid.UUID, now time.Time) (*record.Change, error) {
	if s.Feed(id) == nil {
		return nil, errNoFeed
	}
	return &record.Change{At: now, Revoked: []uuid.UUID{id}}, nil
}

// Feeds returns the business's feeds in creation order; not to be
// modified.
func (s *State) Feeds() []model.Feed { return s.feeds }

// Feed returns the feed with id, or nil.
func (s *State) Feed(id uuid.UUID) *model.Feed {
	for i := range s.feeds {
		if s.feeds[i].ID == id {
			return &s.feeds[i]
		}
	}
	return nil
}

// FeedBack is how far into the past a feed reaches, and how long a
// cancelled booking stays in it (as CANCELLED, so apps remove it).
const FeedBack = 30 * 24 * time.Hour

// longest bounds how long before the feed's window an appointment that
// still reaches into it can start: nothing a salon sells lasts a week.
const longest = 7 * 24 * time.Hour

// FeedCalendar is feed f of s at now (decisions §8): a VEVENT per active
// segment of every appointment of the feed's staff member (or the whole
// business) that occupies time, or was cancelled in the last 30 days,
// from 30 days ago to maxAdvanceDays ahead, in start order; a class
// session's seats are one event (feedSession). A business
// feed's summaries name the staff member. Customer names appear only when
// the feed asks for them, as a first name and the last name's initial.
func FeedCalendar(s *State, f *model.Feed, now time.Time) *ical.Calendar {
	from, to := now.Add(-FeedBack), now.AddDate(0, 0, s.Business.Rules.MaxAdvanceDays)
	cal := &ical.Calendar{Name: s.Business.Name, Timezone: s.Business.Timezone}
	if f.StaffID != nil {
		if m := s.StaffMember(*f.StaffID); m != nil {
			cal.Name += " – " + m.Name
		}
	}
	if f.ResourceID != nil {
		if r := s.Resource(*f.ResourceID); r != nil {
			cal.Name += " – " + r.Name
		}
	}
	classes := map[SessionKey]*feedSession{}
	s.feedAppointments(from.Add(-longest), to, f.StaffID, func(a *model.Appointment) {
		status, ok := feedStatus(a, from)
		if !ok || a.Staff == nil || f.StaffID != nil && a.Staff.ID != *f.StaffID || a.StartTime.After(to) ||
			f.ResourceID != nil && !slices.ContainsFunc(a.Resources, func(n model.ResourceNeed) bool { return n.ResourceID == *f.ResourceID }) {
			return
		}
		summary := a.Service.Name
		if f.StaffID == nil {
			// The business's feed: two bookings at one time are told
			// apart by who gives them.
			summary += " (" + a.Staff.Name + ")"
		}
		if a.Session != nil { // a seat: its session is one event (below)
			k := SessionKey{Service: a.Service.ID, Staff: a.Staff.ID, Start: a.StartTime.UnixMilli()}
			classes[k] = classes[k].add(s, a, summary, status, f.IncludeCustomerNames)
			return
		}
		if f.IncludeCustomerNames {
			summary += customerName(s.Customer(a.CustomerID))
		}
		cal.Events = appendSegments(cal.Events, a, a.ID, summary, status, a.UpdatedAt, a.Version-1, from, to)
	})
	for k, c := range classes {
		cal.Events = appendSegments(cal.Events, &c.first, sessionID(k), c.summary(), c.status(), c.stamp, c.sequence-1, from, to)
	}
	cal.Events = inStartOrder(cal.Events)
	return cal
}

// appendSegments appends an event per active segment of a inside
// [from, to] to events, its UID made from owner.
func appendSegments(events []ical.Event, a *model.Appointment, owner uuid.UUID, summary, status string, stamp time.Time, seq int, from, to time.Time) []ical.Event {
	for _, sg := range a.Segments {
		if sg.Kind != model.Active || !sg.EndTime.After(from) || sg.StartTime.After(to) {
			continue
		}
		events = append(events, ical.Event{
			UID:   owner.String() + "-" + strconv.Itoa(sg.Position) + "@slotd",
			Stamp: stamp, Sequence: seq,
			Start: sg.StartTime, End: sg.EndTime, Summary: summary, Status: status,
		})
	}
	return events
}

// feedSession is a class session as a feed shows it (decisions §10): one
// event for all its seats, saying how many places are taken and, when
// the feed shows names, whose; held while any seat holds it, cancelled
// once every seat shown is.
type feedSession struct {
	first    model.Appointment // a seat, for the session's times
	name     string
	capacity int
	names    []string
	held     int // seats that hold the session
	pending  int // of those, waiting for their payment
	stamp    time.Time
	sequence int // grows as seats join or change
}

func (c *feedSession) add(s *State, a *model.Appointment, summary, status string, names bool) *feedSession {
	if c == nil {
		c = &feedSession{first: *a, name: summary, capacity: 1}
		c.first.Segments = slices.Clone(a.Segments) // a is built in a reused place
		if svc := s.Service(a.Service.ID); svc != nil {
			c.capacity = svc.Seats()
		}
	}
	if status != ical.Cancelled {
		c.held++
		if status == ical.Tentative {
			c.pending++
		}
		if n := customerName(s.Customer(a.CustomerID)); names && n != "" {
			c.names = append(c.names, strings.TrimPrefix(n, " – "))
		}
	}
	if a.UpdatedAt.After(c.stamp) {
		c.stamp = a.UpdatedAt
	}
	c.sequence += a.Version
	return c
}

func (c *feedSession) status() string {
	switch {
	case c.held == 0:
		return ical.Cancelled
	case c.held == c.pending:
		return ical.Tentative
	}
	return ical.Confirmed
}

// summary is "Yoga – 3 of 12 places", with the names when the feed
// shows them: "Yoga – 3 of 12 places: Ana J., Bo K.".
func (c *feedSession) summary() string {
	out := c.name
	if c.held > 0 {
		out += " – " + strconv.Itoa(c.held) + " of " + strconv.Itoa(c.capacity) + " places"
	}
	if len(c.names) > 0 {
		slices.Sort(c.names)
		out += ": " + strings.Join(c.names, ", ")
	}
	return out
}

// inStartOrder returns events sorted by start, then UID. It sorts their
// positions and moves each event once: an Event is too big to swap
// around in a sort.
func inStartOrder(events []ical.Event) []ical.Event {
	order := make([]int32, len(events))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		x, y := &events[i], &events[j]
		if c := x.Start.Compare(y.Start); c != 0 {
			return c
		}
		return strings.Compare(x.UID, y.UID)
	})
	out := make([]ical.Event, len(events))
	for k, i := range order {
		out[k] = events[i]
	}
	return out
}

// feedStatus is how a feed shows a: its time held (confirmed or
// completed, tentative while its payment is pending), or cancelled since
// from; false leaves it out.
func feedStatus(a *model.Appointment, from time.Time) (string, bool) {
	switch {
	case a.Status == model.PendingPayment:
		return ical.Tentative, true
	case a.Status.Occupies():
		return ical.Confirmed, true
	case a.Status == model.Cancelled && !a.UpdatedAt.Before(from):
		return ical.Cancelled, true
	}
	return "", false
}

// customerName is " – Ana J." for a feed's summary: no more of the
// customer than a staff member needs to recognise them.
func customerName(c *model.Customer) string {
	if c == nil || strings.TrimSpace(c.FirstName) == "" {
		return ""
	}
	out := " – " + strings.TrimSpace(c.FirstName)
	if last := strings.TrimSpace(c.LastName); last != "" {
		r, _ := utf8.DecodeRuneInString(last)
		out += " " + string(r) + "."
	}
	return out
}

// feedAppointments calls fn for the appointments starting in [floor, to)
// of staff member staff when it is not nil, in no particular order (the
// caller sorts what it keeps). It walks the appointments in id order,
// which visits each tree node once, and judges the start and the staff
// member on the compact form, before an appointment is built: looking each
// one up by its start key, or building every one, cost a staff member's
// feed in a business of ten 5 to 7 times as much.
func (s *State) feedAppointments(floor, to time.Time, staff *uuid.UUID, fn func(*model.Appointment)) {
	var v view
	low, high := floor.UnixMilli(), to.UnixMilli()
	s.appts.Ascend(nil, func(id uuid.UUID, c appt) bool {
		if c.extra == nil || c.extra.whole == nil {
			if c.start < low || c.start >= high || staff != nil && (c.staff == 0 || s.refs.staff[c.staff-1].ID != *staff) {
				return true
			}
		}
		fn(s.refs.materialize(id, &c, &v))
		return true
	})
}

// CreateFeed makes a calendar feed (POST /calendar-feeds).
type CreateFeed struct{ In FeedInput }

func (o CreateFeed) Decide(s *State, now time.Time, ids IDs) (*record.Change, model.Feed, error) {
	ch, f, err := DecideFeedCreate(s, &o.In, now, ids)
	return ch, deref(f), err
}

// DeleteFeed revokes calendar feed ID (DELETE /calendar-feeds/{id}).
type DeleteFeed struct{ ID uuid.UUID }

func (o DeleteFeed) Decide(s *State, now time.Time, _ IDs) (*record.Change, Done, error) {
	ch, err := DecideFeedDelete(s, o.ID, now)
	return ch, Done{}, err
}
