package api

import (
	"slices"
	"strings"
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

// Appointment series (decisions §11).

// seriesRoutes adds the series endpoints, of module appointments. A
// booking page previews and books a series with its publishable key
// ("repeat weekly"), the rules enforced.
func (s *Server) seriesRoutes(add func(method, path string, h fasthttp.RequestHandler)) {
	add(fasthttp.MethodPost, "/api/v1/appointment-series/preview",
		s.api(route{scope: "appointments:write", module: model.ModAppointments, publishable: true, fn: s.previewSeries}))
	add(fasthttp.MethodPost, "/api/v1/appointment-series",
		s.api(route{scope: "appointments:write", module: model.ModAppointments, publishable: true, fn: s.bookSeries}))
	add(fasthttp.MethodGet, "/api/v1/appointment-series/{id}",
		s.api(route{scope: "appointments:read", module: model.ModAppointments, fn: s.getSeries}))
	add(fasthttp.MethodPost, "/api/v1/appointment-series/{id}/cancel",
		s.api(route{scope: "appointments:write", module: model.ModAppointments, fn: s.cancelSeries}))
	// "preview" is not a series' {id}: a GET of it is the 405 of a path
	// served for POST only, as the router answers any other.
	add(fasthttp.MethodGet, "/api/v1/appointment-series/preview", func(ctx *fasthttp.RequestCtx) {
		ctx.Response.Header.Set("Allow", fasthttp.MethodPost)
		edge.WriteError(ctx, errPreviewMethod)
	})
}

var errPreviewMethod = problem.New(problem.MethodNotAllowed, "The method is not allowed on this resource.")

// bookSeries answers POST /appointment-series: every occurrence booked
// in one write of the business, or none (decisions §11).
func (s *Server) bookSeries(c *call) {
	create(c, func(body []byte) (*directory.SeriesInput, error) {
		in, err := decodeSeries(body)
		if err == nil {
			err = c.fromPage(in.Enforce, &in.ByCustomer)
		}
		return in, err
	}, func(in directory.SeriesInput) directory.IdempotentOp { return directory.BookSeries{In: in} })
}

// appendSeriesBooked renders a series booked: {id, rule, occurrences,
// skipped}, each occurrence as GET shows it, with its manage link.
func (c *call) appendSeriesBooked(b []byte, ans *directory.Answer) []byte {
	x := ans.Series
	b = append(b, `{"id":`...)
	b = wire.AppendUUID(b, x.ID)
	b = append(b, `,"rule":`...)
	b = wire.AppendString(b, x.Rule)
	b = append(b, `,"occurrences":[`...)
	for i := range ans.Occurrences {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.appendAppointment(b, &ans.Occurrences[i], ans.Customer)
	}
	b = append(b, `],"skipped":[`...)
	for i, k := range x.Skipped {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"startTime":`...)
		b = wire.AppendTime(b, k.StartTime)
		b = append(b, `,"code":`...)
		b = wire.AppendString(b, k.Code)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// getSeries answers GET /appointment-series/{id}: {id, rule, serviceId,
// customerId, occurrenceIds, createdAt}.
func (s *Server) getSeries(c *call) {
	x := pathRecord(c, c.st.Series)
	if x == nil {
		return
	}
	b := append(make([]byte, 0, 256+40*len(x.Occurrences)), `{"id":`...)
	b = wire.AppendUUID(b, x.ID)
	b = append(b, `,"rule":`...)
	b = wire.AppendString(b, x.Rule)
	b = append(b, `,"serviceId":`...)
	b = wire.AppendUUID(b, x.ServiceID)
	b = append(b, `,"customerId":`...)
	b = wire.AppendUUID(b, x.CustomerID)
	b = append(b, `,"occurrenceIds":[`...)
	for i, o := range x.Occurrences {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendUUID(b, o)
	}
	b = append(b, `],"createdAt":`...)
	b = wire.AppendTime(b, x.CreatedAt)
	edge.WriteJSON(c.ctx, 200, append(b, '}'))
}

// previewSeries answers POST /appointment-series/preview: every
// occurrence of the series as booking it now would judge it, nothing
// booked.
func (s *Server) previewSeries(c *call) {
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	in, err := decodeSeries(c.ctx.PostBody())
	if err == nil {
		err = c.fromPage(in.Enforce, nil)
	}
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	occ, err := c.st.PreviewSeries(in, s.Clock.Now().UTC().Truncate(time.Millisecond))
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	b := getBuf()
	defer putBuf(b)
	*b = appendOccurrences((*b)[:0], occ)
	edge.WriteJSON(c.ctx, 200, *b)
}

// appendOccurrences writes {"occurrences":[{startTime, ok, code,
// staffMemberIds}]}: the staff member who would take each one that fits.
func appendOccurrences(b []byte, occ []directory.Occurrence) []byte {
	b = append(b, `{"occurrences":[`...)
	for i, o := range occ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"startTime":`...)
		b = wire.AppendTime(b, o.Start)
		b = append(b, `,"ok":`...)
		b = wire.AppendBool(b, o.Code == "")
		b = append(b, `,"code":`...)
		b = appendCode(b, o.Code)
		b = append(b, `,"staffMemberIds":[`...)
		if o.Staff != nil {
			b = wire.AppendUUID(b, o.Staff.ID)
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}"...)
}

// decodeSeries validates a series body: { serviceId, staffMemberId?,
// startTime, rule, customer | customerId, notes?, metadata?,
// enforceBookingRules?, onConflict? }.
func decodeSeries(body []byte) (*directory.SeriesInput, error) {
	var errs input.Errors
	in := &directory.SeriesInput{Enforce: true}
	if obj, ok := input.ParseObject(body, &errs); ok {
		in.ServiceID, _ = obj.UUID("serviceId", input.Required)
		if id, ok := obj.NullableUUID("staffMemberId"); ok {
			in.StaffID = id
		}
		in.Start, _ = obj.Time("startTime", input.Required)
		if text, ok := obj.String("rule", input.Required, directory.MaxRuleLen); ok {
			in.RuleText = text
			r, err := directory.ParseRule(text)
			switch {
			case err != nil:
				errs.Add(obj.PathOf("rule"), problem.InvalidFormat, "Must be a recurrence rule of FREQ (DAILY, WEEKLY or MONTHLY), INTERVAL, BYDAY, and COUNT or UNTIL; "+strings.TrimPrefix(err.Error(), "recurrence rule: ")+".")
			case r.Count == 0 && r.Until.IsZero():
				errs.Add(obj.PathOf("rule"), problem.Invalid, "Must end: give COUNT (at most 52) or UNTIL.")
			case r.Count > directory.MaxSeriesOccurrences:
				errs.AddBound(obj.PathOf("rule"), problem.TooLarge, directory.MaxSeriesOccurrences, "COUNT must be at most 52.")
			}
			in.Rule = r
		}
		in.Customer, in.CustomerID = decodeWho(obj, &errs)
		if v, ok := obj.Bool("enforceBookingRules", input.Optional); ok {
			in.Enforce = v
		}
		if mode, ok := obj.Option("onConflict", input.Optional, "fail", "skip"); ok {
			in.Skip = mode == "skip"
		}
		in.Notes, _ = obj.NullableString("notes", maxNotes)
		in.Metadata, _ = decodeMetadata(obj, &errs)
		obj.Done()
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if !in.Rule.Until.IsZero() && in.Rule.Until.Before(in.Start) {
		return nil, problem.FieldError("rule", problem.Invalid, "UNTIL is before startTime.")
	}
	return in, nil
}

// pathRecord is the record find returns for a route's {id}, having
// answered 400 for a query string or 404 for an unknown id; nil then.
func pathRecord[T any](c *call, find func(uuid.UUID) *T) *T {
	id, ok := c.pathID("id")
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return nil
	}
	var x *T
	if ok {
		x = find(id)
	}
	if x == nil {
		edge.WriteError(c.ctx, errNotFound)
	}
	return x
}

// decodeWho reads the customer of a series or basket: customer (their
// details) or customerId (one on file), exactly one of them.
func decodeWho(obj input.Object, errs *input.Errors) (*model.Customer, *uuid.UUID) {
	switch has, hasID := obj.Has("customer"), obj.Has("customerId"); {
	case has == hasID:
		errs.Add(obj.PathOf("customer"), problem.Invalid, "Give either customer (their details) or customerId (one on file), not both or neither.")
		if has {
			obj.Object("customer", input.Optional)
			obj.UUID("customerId", input.Optional)
		}
	case has:
		if cu, ok := obj.Object("customer", input.Required); ok {
			c := decodeCustomer(cu)
			return &c, nil
		}
	default:
		if id, ok := obj.UUID("customerId", input.Required); ok {
			return nil, &id
		}
	}
	return nil, nil
}

// cancelSeries answers POST /appointment-series/{id}/cancel {from?}:
// every occurrence from then on that may be cancelled, in one write:
// 200 {cancelled: [ids], skipped: [{id, code}]}.
func (s *Server) cancelSeries(c *call) {
	x := pathRecord(c, c.st.Series)
	if x == nil {
		return
	}
	var from *time.Time
	if body := c.ctx.PostBody(); len(strings.TrimSpace(string(body))) > 0 {
		var errs input.Errors
		if obj, ok := input.ParseObject(body, &errs); ok {
			if t, ok := obj.Time("from", input.Optional); ok {
				from = &t
			}
			obj.Done()
		}
		if err := errs.Err(); err != nil {
			s.Fail(c.ctx, err)
			return
		}
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	out, err := directory.Do(rctx, s.Dir, c.st.Business().ID, directory.CancelSeries{ID: x.ID, From: from})
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	edge.WriteJSON(c.ctx, 200, appendCancelled(nil, &out))
}

// appendCancelled writes what cancelling a series or a basket did:
// {cancelled: [ids], skipped: [{id, code}]}.
func appendCancelled(b []byte, out *directory.SeriesCancelled) []byte {
	b = append(slices.Grow(b, 128+40*len(out.Cancelled)), `{"cancelled":[`...)
	for i, x := range out.Cancelled {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendUUID(b, x)
	}
	b = append(b, `],"skipped":[`...)
	for i, x := range out.Skipped {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = wire.AppendUUID(b, x.ID)
		b = append(b, `,"code":`...)
		b = wire.AppendString(b, string(x.Code))
		b = append(b, '}')
	}
	return append(b, "]}"...)
}
