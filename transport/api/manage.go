package api

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/handover"
)

// Customer self-service (decisions §7). Every appointment has a manage
// link, {public-url}/manage/{token}, whose token (transport/linktoken)
// names it and proves slotd made it; the JSON behind the link needs no
// API key. An unknown, malformed or forged token is the same 404 for all,
// and counts against the client IP's failed-authentication limit, like a
// bad key: the tokens cannot be guessed, and cannot be tried quickly.

var errNoLink = problem.New(problem.NotFound, "No such booking link.")

// manageURL is the manage link of appointment appt of the call's business.
func (c *call) manageURL(appt uuid.UUID) string {
	return c.s.manageURL(c.st.Business().ID, appt)
}

func (s *Server) manageURL(biz, appt uuid.UUID) string {
	if s.Links == nil {
		return ""
	}
	return s.Links.URL(s.PublicURL, biz, appt)
}

// appendAppointment appends a as the API shows it: with its manage link.
func (c *call) appendAppointment(b []byte, a *model.Appointment, cu *model.Customer) []byte {
	return wire.AppendAppointmentLinked(b, a, cu, c.manageURL(a.ID))
}

// link is a request on a manage link: the business's view and the
// appointment the token names.
type link struct {
	st directory.View
	a  *model.Appointment
}

// openLink resolves the {token} of ctx, or writes the 404 (false); with
// plain, a query string is refused (400 after the token). In cluster mode
// a token of a business on another node is handed there.
func (s *Server) openLink(ctx *fasthttp.RequestCtx, plain bool) (*link, bool) {
	return s.resolveLink(ctx, plain, s.linkMiss)
}

// linkMiss answers a token that names nothing: one 404 for every kind
// of miss, counted against the client IP's failed-authentication limit.
func (s *Server) linkMiss(ctx *fasthttp.RequestCtx) { s.failedAuth(ctx, errNoLink) }

// resolveLink is openLink with miss writing the answer to a token that
// names no booking.
func (s *Server) resolveLink(ctx *fasthttp.RequestCtx, plain bool, miss func(*fasthttp.RequestCtx)) (*link, bool) {
	if !s.admitIP(ctx) {
		return nil, false
	}
	tok, _ := ctx.UserValue("token").(string)
	var biz, appt uuid.UUID
	ok := s.Links != nil
	if ok {
		biz, appt, ok = s.Links.Open(tok)
	}
	if !ok {
		miss(ctx)
		return nil, false
	}
	if s.Cluster != nil && s.Elsewhere(ctx, biz, handover.Public) {
		return nil, false
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	st, found, err := s.Dir.ExistingView(rctx, biz)
	if err != nil {
		s.Fail(ctx, err)
		return nil, false
	}
	var a *model.Appointment
	if found {
		a = st.Appointment(appt)
	}
	if a == nil { // the business or the appointment is gone
		miss(ctx)
		return nil, false
	}
	rateHeaders(ctx, s.quota.Peek(string(ctx.RemoteIP()), s.authLimit))
	if perr := noQuery(ctx); plain && perr != nil {
		edge.WriteError(ctx, perr)
		return nil, false
	}
	return &link{st: st, a: a}, true
}

// manage serves GET /api/v1/manage/{token}: the booking and what its
// customer may change of it now.
func (s *Server) manage(ctx *fasthttp.RequestCtx) {
	l, ok := s.openLink(ctx, true)
	if !ok {
		return
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	edge.WriteJSON(ctx, 200, s.appendManaged(nil, l.st.Business(), l.a, l.st.Customer(l.a.CustomerID), s.Clock.Now()))
}

// manageCancel serves POST /api/v1/manage/{token}/cancel: the transition
// to cancelled with every effect of the API's, judged by the business's
// customerChanges setting inside its actor (422 INVALID_STATUS_TRANSITION,
// then OUTSIDE_CHANGE_WINDOW), and answered like the GET, after the
// change.
func (s *Server) manageCancel(ctx *fasthttp.RequestCtx) {
	l, ok := s.openLink(ctx, true)
	if !ok {
		return
	}
	s.changed(ctx, l, func(rctx context.Context) (directory.AppointmentView, error) {
		return directory.Do(rctx, s.Dir, l.st.Business().ID, directory.SetStatus{ID: l.a.ID, Status: model.Cancelled, ByCustomer: true})
	})
}

// manageReschedule serves POST /api/v1/manage/{token}/reschedule
// {startTime}: a move judged by the business's customerChanges setting
// inside its actor (422 INVALID_STATUS_TRANSITION, then
// OUTSIDE_CHANGE_WINDOW), then exactly as the API's PATCH of startTime with
// the booking rules enforced; answered like the GET, after the change.
func (s *Server) manageReschedule(ctx *fasthttp.RequestCtx) {
	l, ok := s.openLink(ctx, true)
	if !ok {
		return
	}
	var errs input.Errors
	var start time.Time
	if obj, ok := input.ParseObject(ctx.PostBody(), &errs); ok {
		start, _ = obj.Time("startTime", input.Required)
		obj.Done()
	}
	if err := errs.Err(); err != nil {
		s.Fail(ctx, err)
		return
	}
	s.changed(ctx, l, func(rctx context.Context) (directory.AppointmentView, error) {
		return directory.Do(rctx, s.Dir, l.st.Business().ID,
			directory.PatchAppointment{ID: l.a.ID, In: directory.PatchInput{Start: &start, Enforce: true}, ByCustomer: true})
	})
}

// manageSlots serves GET /api/v1/manage/{token}/slots?from&to: the
// starts the booking may be moved to, as availability answers them (the
// same shape, windows and query rules) for its own service, its own staff
// member when locked to them, with its own time not counted against it;
// refused as the move would be when the customer may not move it now.
func (s *Server) manageSlots(ctx *fasthttp.RequestCtx) {
	l, ok := s.openLink(ctx, false)
	if !ok {
		return
	}
	q := parseQuery(ctx, "from", "to")
	q.require("from", "to")
	from, okFrom := q.timeParam("from")
	to, okTo := q.timeParam("to")
	if okFrom && okTo {
		q.checkWindow(from, to)
	}
	if perr := q.err(); perr != nil {
		edge.WriteError(ctx, perr)
		return
	}
	now := s.Clock.Now()
	if err := directory.RescheduleRefusal(l.a, l.st.Business().CustomerChanges(), now); err != nil {
		s.Fail(ctx, err)
		return
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	w := slotPool.Get().(*slotWork)
	ctx.SetUserValue(slotWorkKey{}, w) // back to the pool once the answer is written
	w.body = append(w.body[:0], `{"data":[]}`...)
	if svc := l.st.Service(l.a.Service.ID); svc != nil && !svc.Deleted {
		query := directory.SlotQuery{Service: svc, From: from, To: to, Now: now, Without: l.a}
		if l.a.StaffLocked && l.a.Staff != nil {
			query.Only = &l.a.Staff.ID
		}
		w.body = appendSlots(w.body[:0], l.st.Slots(query, &w.engine), l.st)
	}
	edge.WriteRawJSON(ctx, 200, w.body)
}

// changed makes a change through a manage link and answers like the GET,
// with the appointment as the change left it (the business's setting is
// not something such a change touches).
func (s *Server) changed(ctx *fasthttp.RequestCtx, l *link, change func(context.Context) (directory.AppointmentView, error)) {
	rctx, cancel := edge.RequestContext()
	defer cancel()
	v, err := change(rctx)
	if err != nil {
		s.Fail(ctx, err)
		return
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	edge.WriteJSON(ctx, 200, s.appendManaged(nil, l.st.Business(), v.Appointment, v.Customer, s.Clock.Now()))
}

// appendManaged appends {appointment, canCancel, canReschedule,
// cancelBefore, rescheduleBefore} for appointment a (customer cu) of
// business biz at now.
func (s *Server) appendManaged(b []byte, biz *model.Business, a *model.Appointment, cu *model.Customer, now time.Time) []byte {
	p := directory.CustomerChanges(a, biz.CustomerChanges(), now)
	b = append(b, `{"appointment":`...)
	b = wire.AppendAppointmentLinked(b, a, cu, s.manageURL(biz.ID, a.ID))
	b = wire.AppendKey(b, "canCancel")
	b = wire.AppendBool(b, p.CanCancel)
	b = wire.AppendKey(b, "canReschedule")
	b = wire.AppendBool(b, p.CanReschedule)
	b = wire.AppendKey(b, "cancelBefore")
	b = wire.AppendNullTime(b, p.CancelBefore)
	b = wire.AppendKey(b, "rescheduleBefore")
	b = wire.AppendNullTime(b, p.RescheduleBefore)
	return append(b, '}')
}
