package api

import (
	"strings"
	"time"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model/wire"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/edge"
)

// The appointment read endpoints (api-v1 §4.2). The list is ordered by
// startTime descending, then id descending, and walked with sealed cursors;
// every filter intersects.

// apptFilter is a parsed appointment list query.
type apptFilter struct {
	status                   model.Status
	from, to, updatedSince   *time.Time
	customer, staff, service *uuid.UUID
	canonical                string
}

func (f *apptFilter) keep(a *model.Appointment) bool {
	switch {
	case f.status != "" && a.Status != f.status:
		return false
	case f.from != nil && a.StartTime.Before(*f.from):
		return false
	case f.updatedSince != nil && a.UpdatedAt.Before(*f.updatedSince):
		return false
	case f.customer != nil && a.CustomerID != *f.customer:
		return false
	case f.service != nil && a.Service.ID != *f.service:
		return false
	case f.staff != nil && (a.Staff == nil || a.Staff.ID != *f.staff):
		return false
	}
	return true
}

func parseApptFilter(q *query) *apptFilter {
	f := &apptFilter{}
	var canon strings.Builder
	if v, ok := q.ok("status"); ok {
		if model.Statuses.Has(model.Status(v)) {
			f.status = model.Status(v)
			canon.WriteString("status=" + v + "&")
		} else {
			q.add("status", problem.InvalidOption, statusChoices)
		}
	}
	for _, p := range []struct {
		name string
		dst  **time.Time
	}{{"from", &f.from}, {"to", &f.to}, {"updatedSince", &f.updatedSince}} {
		if t, ok := q.timeParam(p.name); ok {
			*p.dst = &t
			canon.WriteString(p.name + "=" + t.Format(time.RFC3339Nano) + "&")
		}
	}
	if f.from != nil && f.to != nil && f.from.After(*f.to) {
		q.add("to", problem.Invalid, "Must not be before from.")
	}
	for _, p := range []struct {
		name string
		dst  **uuid.UUID
	}{{"customerId", &f.customer}, {"staffMemberId", &f.staff}, {"serviceId", &f.service}} {
		if id, ok := q.uuidParam(p.name); ok {
			*p.dst = &id
			canon.WriteString(p.name + "=" + id.String() + "&")
		}
	}
	f.canonical = canon.String()
	return f
}

func (s *Server) listAppointments(c *call) {
	q := parseQuery(c.ctx, "limit", "cursor", "status", "from", "to", "customerId", "staffMemberId", "serviceId", "updatedSince")
	f := parseApptFilter(&q)
	ls := listSpec{name: "appointments", filters: f.canonical}
	limit := q.limit()
	var below *directory.StartKey
	if raw, ok := q.ok("cursor"); ok {
		p, err := c.s.Cursors.Decode(c.cursorScope(ls), raw)
		if err != nil {
			q.errs = append(q.errs, errCursor)
		}
		below = &directory.StartKey{Start: p.Sort, ID: p.ID}
	}
	if perr := q.err(); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	if f.to != nil {
		// Everything starting at or before to sorts below (to + 1 ms, nil id).
		bound := directory.StartKey{Start: f.to.UnixMilli() + 1}
		if below == nil || compareStartKey(bound, *below) < 0 {
			below = &bound
		}
	}
	b := getBuf()
	defer putBuf(b)
	*b = append((*b)[:0], `{"data":[`...)
	n, more := 0, false
	var last directory.StartKey // a is rebuilt in place for each call: keep its key, not a
	c.st.Appointments(below, func(a *model.Appointment) bool {
		if f.from != nil && a.StartTime.Before(*f.from) {
			return false
		}
		if !f.keep(a) {
			return true
		}
		if n == limit {
			more = true
			return false
		}
		if n > 0 {
			*b = append(*b, ',')
		}
		*b = c.appendAppointment(*b, a, c.st.Customer(a.CustomerID))
		n++
		last = directory.KeyOf(a)
		return true
	})
	*b = append(*b, `],"hasMore":`...)
	*b = wire.AppendBool(*b, more)
	*b = append(*b, `,"nextCursor":`...)
	if more {
		*b = wire.AppendString(*b, c.s.Cursors.Encode(c.cursorScope(ls), cursor.Position{Sort: last.Start, ID: last.ID}))
	} else {
		*b = append(*b, "null"...)
	}
	*b = append(*b, '}')
	edge.WriteJSON(c.ctx, 200, *b)
}

func compareStartKey(a, b directory.StartKey) int {
	return comparePos(cursor.Position{Sort: a.Start, ID: a.ID}, cursor.Position{Sort: b.Start, ID: b.ID})
}

func (s *Server) getAppointment(c *call) {
	getOne(c, c.st.Appointment, func(b []byte, a *model.Appointment) []byte {
		setETag(c.ctx, a)
		return c.appendAppointment(b, a, c.st.Customer(a.CustomerID))
	})
}

// timeParam returns the ISO 8601 parameter name, if given and valid.
func (q *query) timeParam(name string) (time.Time, bool) {
	v, ok := q.ok(name)
	if !ok {
		return time.Time{}, false
	}
	t, err := input.ParseTime(v)
	if err != nil {
		q.add(name, problem.InvalidDate, "Must be an ISO 8601 timestamp, e.g. 2026-03-30T09:00:00Z.")
		return time.Time{}, false
	}
	return t, true
}

// statusChoices is the refusal of an unknown status filter.
var statusChoices = "Must be one of " + strings.Join(model.Statuses.Strings(), ", ") + "."
