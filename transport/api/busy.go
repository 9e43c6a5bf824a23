package api

import (
	"time"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
)

// External busy time pushed by integrators (decisions §8): a staff
// member's other calendars, per source, occupying them exactly as a
// booking does. The business actor replaces a source's intervals within a
// window in one journalled write, so a PUT that lands while bookings race
// for the same time is ordered with them: either the booking came first
// (and is left alone) or the busy time did (and the booking is refused).

const (
	maxBusyWindow = model.MaxBusyWindowDays * 24 * time.Hour
	maxBusyText   = 500 // externalId and title, in characters
)

func (s *Server) busyRoutes(add func(method, path string, h fasthttp.RequestHandler)) {
	cal := s.calendar
	for _, o := range []busyOwner{staffBusy, resourceBusy} {
		add(fasthttp.MethodPut, o.path+"/{id}/busy-times/{source}", cal(func(c *call) { s.putBusy(c, o) }))
		add(fasthttp.MethodDelete, o.path+"/{id}/busy-times/{source}", cal(func(c *call) { s.clearBusy(c, o) }))
		add(fasthttp.MethodGet, o.path+"/{id}/busy-times", cal(func(c *call) { s.listBusy(c, o) }))
	}
}

// busyOwner is what busy time blocks: a staff member (decisions §8), or a
// resource (decisions §10: a room under repair), every unit of it. The
// routes, bodies and answers are the same but for the path and the
// member naming the owner.
type busyOwner struct {
	path   string // the collection the {id} is of
	member string // the PUT answer's member naming it
	exists func(v directory.View, id uuid.UUID) bool
}

var (
	staffBusy = busyOwner{path: "/api/v1/staff", member: "staffMemberId",
		exists: func(v directory.View, id uuid.UUID) bool { return v.StaffMember(id) != nil }}
	resourceBusy = busyOwner{path: "/api/v1/resources", member: "resourceId",
		exists: func(v directory.View, id uuid.UUID) bool { return v.Resource(id) != nil }}
)

// busyStaff is the {id} of a busy-time route, having answered 404 for an
// id that names no staff member (or resource) of the business.
func (c *call) busyStaff(o busyOwner) (uuid.UUID, bool) {
	id, ok := c.pathID("id")
	if !ok || !o.exists(c.st, id) {
		edge.WriteError(c.ctx, errNotFound)
		return uuid.Nil, false
	}
	return id, true
}

// busySource is the {source} of a busy-time route, having answered 400
// for one that is not a source name.
func (c *call) busySource() (string, bool) {
	src, _ := c.ctx.UserValue("source").(string)
	if !model.ValidBusySource(src) {
		edge.WriteError(c.ctx, problem.FieldError("source", problem.InvalidFormat,
			"A source is 1 to 64 of a-z, 0-9, '.', '_', ':' and '-'."))
		return "", false
	}
	return src, true
}

// busyTarget is the staff member and source of a write on one source,
// having answered 404, 400 on the source, or 400 for a query string.
func (c *call) busyTarget(o busyOwner) (uuid.UUID, string, bool) {
	staff, ok := c.busyStaff(o)
	if !ok {
		return uuid.Nil, "", false
	}
	src, ok := c.busySource()
	if !ok {
		return uuid.Nil, "", false
	}
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return uuid.Nil, "", false
	}
	return staff, src, true
}

// putBusy serves PUT /api/v1/staff/{id}/busy-times/{source} {from, to,
// busy}: the source's intervals that intersect [from, to) become busy.
func (s *Server) putBusy(c *call, o busyOwner) {
	staff, src, ok := c.busyTarget(o)
	if !ok {
		return
	}
	in, err := decodeBusy(c.ctx.PostBody())
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	in.Staff, in.Source = staff, src
	rctx, cancel := edge.RequestContext()
	defer cancel()
	at, err := directory.Do(rctx, s.Dir, c.st.Business().ID, directory.PutBusyTime{In: *in})
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	b := append([]byte(nil), '{')
	b = wire.AppendKey(b, o.member)
	b = wire.AppendUUID(b, staff)
	b = append(b, `,"source":`...)
	b = wire.AppendString(b, src)
	b = append(b, `,"from":`...)
	b = wire.AppendTime(b, in.From)
	b = append(b, `,"to":`...)
	b = wire.AppendTime(b, in.To)
	b = append(b, `,"count":`...)
	b = wire.AppendInt(b, len(in.Busy))
	b = append(b, `,"updatedAt":`...)
	b = wire.AppendTime(b, at)
	edge.WriteJSON(c.ctx, 200, append(b, '}'))
}

// decodeBusy validates a busy-time PUT body: a window of at most 400
// days, and at most 10,000 intervals inside it, each ending after it
// starts. Times are kept to the millisecond, the index's grain.
func decodeBusy(body []byte) (*directory.BusyPut, error) {
	var errs input.Errors
	in := &directory.BusyPut{}
	obj, ok := input.ParseObject(body, &errs)
	if !ok {
		return nil, errs.Err()
	}
	from, okFrom := obj.Time("from", input.Required)
	to, okTo := obj.Time("to", input.Required)
	window := okFrom && okTo
	switch {
	case !window:
	case !to.After(from):
		errs.Add(obj.PathOf("to"), problem.Invalid, "Must be after from.")
		window = false
	case to.Sub(from) > maxBusyWindow:
		errs.AddBound(obj.PathOf("to"), problem.TooLarge, model.MaxBusyWindowDays, "Must be at most 400 days after from.")
		window = false
	}
	in.From, in.To = from.Truncate(time.Millisecond), to.Truncate(time.Millisecond)
	if arr, ok := obj.Array("busy", input.Required); ok {
		if arr.Len() > model.MaxBusyPerPut {
			errs.AddBound(arr.Path(), problem.TooLarge, model.MaxBusyPerPut, "Must list at most 10000 intervals.")
		} else {
			in.Busy = make([]model.BusyTime, 0, arr.Len())
			for i := range arr.Len() {
				if b, ok := busyInterval(arr, i, in.From, in.To, window, &errs); ok {
					in.Busy = append(in.Busy, b)
				}
			}
		}
	}
	obj.Done()
	return in, errs.Err()
}

// busyInterval reads busy[i]; inside says whether the window is known, to
// judge it against.
func busyInterval(arr input.Array, i int, from, to time.Time, inside bool, errs *input.Errors) (model.BusyTime, bool) {
	o, ok := arr.Object(i)
	if !ok {
		return model.BusyTime{}, false
	}
	var b model.BusyTime
	start, okS := o.Time("start", input.Required)
	end, okE := o.Time("end", input.Required)
	b.Start, b.End = start.Truncate(time.Millisecond), end.Truncate(time.Millisecond)
	if id, ok := o.NullableString("externalId", maxBusyText); ok && id != nil {
		b.ExternalID = *id
	}
	if t, ok := o.NullableString("title", maxBusyText); ok && t != nil {
		b.Title = *t
	}
	o.Done()
	switch {
	case !okS || !okE:
		return b, false
	case !b.End.After(b.Start):
		errs.Add(o.PathOf("end"), problem.Invalid, "Must be after start.")
		return b, false
	case inside && (b.Start.Before(from) || b.End.After(to)):
		errs.Add(o.PathOf("start"), problem.Invalid, "Every interval must lie inside [from, to).")
		return b, false
	}
	return b, true
}

// clearBusy serves DELETE /api/v1/staff/{id}/busy-times/{source}: 204,
// whether or not the source had any.
func (s *Server) clearBusy(c *call, o busyOwner) {
	staff, src, ok := c.busyTarget(o)
	if !ok {
		return
	}
	deleted(c, directory.ClearBusyTime{Staff: staff, Source: src})
}

// listBusy serves GET /api/v1/staff/{id}/busy-times?from&to[&source]: the
// staff member's busy time that intersects the window (at most 400 days),
// by start.
func (s *Server) listBusy(c *call, o busyOwner) {
	staff, ok := c.busyStaff(o)
	if !ok {
		return
	}
	q := parseQuery(c.ctx, "from", "to", "source")
	q.require("from", "to")
	from, okFrom := q.timeParam("from")
	to, okTo := q.timeParam("to")
	src, bySource := q.get("source")
	if bySource && !model.ValidBusySource(src) {
		q.add("source", problem.InvalidFormat, "A source is 1 to 64 of a-z, 0-9, '.', '_', ':' and '-'.")
	}
	if okFrom && okTo {
		switch {
		case from.After(to):
			q.add("to", problem.Invalid, "Must not be before from.")
		case to.Sub(from) > maxBusyWindow:
			q.errs = append(q.errs, problem.Bound("to", problem.TooLarge, model.MaxBusyWindowDays, "Must be at most 400 days after from."))
		}
	}
	if perr := q.err(); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	list := c.st.BusyTimes(staff, from, to, src)
	b := make([]byte, 0, 64+len(list)*160)
	b = append(b, `{"data":[`...)
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendBusy(b, &list[i])
	}
	edge.WriteJSON(c.ctx, 200, append(b, `],"hasMore":false,"nextCursor":null}`...))
}

func appendBusy(b []byte, x *model.BusyTime) []byte {
	b = append(b, `{"source":`...)
	b = wire.AppendString(b, x.Source)
	b = append(b, `,"start":`...)
	b = wire.AppendTime(b, x.Start)
	b = append(b, `,"end":`...)
	b = wire.AppendTime(b, x.End)
	b = append(b, `,"externalId":`...)
	b = appendNullable(b, x.ExternalID)
	b = append(b, `,"title":`...)
	b = appendNullable(b, x.Title)
	return append(b, '}')
}

// appendNullable is s as a JSON string, null when empty.
func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return wire.AppendString(b, s)
}
