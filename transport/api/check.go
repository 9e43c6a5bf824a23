package api

import (
	"time"

	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
)

// POST /api/v1/availability/check (decisions §6): per start and per staff
// member, the code a booking would get now. Like availability it is a
// read of the published state: it never waits behind a write and changes
// nothing, so it takes no Idempotency-Key.

const maxCheckStarts = 100

func (s *Server) check(c *call) {
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	in, err := decodeCheck(c.ctx.PostBody())
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	vs, err := c.st.Check(in, s.Clock.Now().UTC().Truncate(time.Millisecond))
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	s.metrics.checked.Add(float64(len(vs)))
	b := getBuf()
	defer putBuf(b)
	*b = appendVerdicts((*b)[:0], vs)
	edge.WriteJSON(c.ctx, 200, *b)
}

// decodeCheck validates a POST /availability/check body.
func decodeCheck(body []byte) (*directory.CheckInput, error) {
	var errs input.Errors
	in := &directory.CheckInput{}
	if obj, ok := input.ParseObject(body, &errs); ok {
		in.ServiceID, _ = obj.UUID("serviceId", input.Required)
		if id, ok := obj.NullableUUID("staffMemberId"); ok {
			in.StaffID = id
		}
		if arr, ok := obj.Array("startTimes", input.Required); ok {
			switch {
			case arr.Len() == 0:
				errs.AddBound(arr.Path(), problem.TooSmall, 1, "Must list at least one start time.")
			case arr.Len() > maxCheckStarts:
				errs.AddBound(arr.Path(), problem.TooLarge, maxCheckStarts, "Must list at most 100 start times.")
			default:
				in.Starts = make([]time.Time, arr.Len())
				for i := range in.Starts {
					in.Starts[i], _ = arr.Time(i)
				}
			}
		}
		obj.Done()
	}
	return in, errs.Err()
}

func appendVerdicts(b []byte, vs []directory.Verdict) []byte {
	b = append(b, `{"data":[`...)
	for i := range vs {
		v := &vs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"startTime":`...)
		b = wire.AppendTime(b, v.Start)
		b = append(b, `,"bookable":`...)
		b = wire.AppendBool(b, v.Code == "")
		b = append(b, `,"code":`...)
		b = appendCode(b, v.Code)
		b = append(b, `,"staff":[`...)
		for j, sv := range v.Staff {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = wire.AppendUUID(b, sv.ID)
			b = append(b, `,"free":`...)
			b = wire.AppendBool(b, sv.Code == "")
			b = append(b, `,"code":`...)
			b = appendCode(b, sv.Code)
			if sv.BusySource != "" {
				b = append(b, `,"busySource":`...)
				b = wire.AppendString(b, sv.BusySource)
				b = append(b, `,"externalId":`...)
				b = appendNullable(b, sv.ExternalID)
			}
			if sv.Code == problem.ResourceUnavailable {
				b = append(b, `,"resourceId":`...)
				b = wire.AppendUUID(b, sv.ResourceID)
			}
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}"...)
}

func appendCode(b []byte, c problem.Code) []byte {
	if c == "" {
		return append(b, "null"...)
	}
	return wire.AppendString(b, string(c))
}

// sixRoutes adds the endpoints of decisions §6: holds, the waitlist and
// explained availability, all of module appointments.
func (s *Server) sixRoutes(add func(method, path string, h fasthttp.RequestHandler)) {
	read := func(fn func(*call)) fasthttp.RequestHandler {
		return s.api(route{scope: "appointments:read", module: model.ModAppointments, fn: fn})
	}
	write := func(fn func(*call)) fasthttp.RequestHandler {
		return s.api(route{scope: "appointments:write", module: model.ModAppointments, fn: fn})
	}
	// The booking flow's: a publishable key may call these (decisions §7).
	flow := func(scope string, fn func(*call)) fasthttp.RequestHandler {
		return s.api(route{scope: scope, module: model.ModAppointments, publishable: true, fn: fn})
	}
	add(fasthttp.MethodPost, "/api/v1/availability/check", flow("appointments:read", s.check))
	add(fasthttp.MethodPost, "/api/v1/holds", flow("appointments:write", s.createHold))
	add(fasthttp.MethodGet, "/api/v1/holds/{id}", flow("appointments:read", s.getHold))
	add(fasthttp.MethodPatch, "/api/v1/holds/{id}", write(s.extendHold))
	add(fasthttp.MethodDelete, "/api/v1/holds/{id}", flow("appointments:write", s.releaseHold))
	add(fasthttp.MethodPost, "/api/v1/waitlist-entries", write(s.createEntry))
	add(fasthttp.MethodGet, "/api/v1/waitlist-entries", read(s.listEntries))
	add(fasthttp.MethodGet, "/api/v1/waitlist-entries/{id}", read(s.getEntry))
	add(fasthttp.MethodDelete, "/api/v1/waitlist-entries/{id}", write(s.deleteEntry))
}
