package api

import (
	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/webhook/icsfetch"
)

// Calendar sources (decisions §8): a staff member's ICS calendars, which
// the business actor's worker fetches every refreshMinutes and turns into
// the busy-time source ics:<id>. The URL is checked here as a webhook
// endpoint's is (https on port 443 unless --webhooks-allow-insecure; the
// address itself at every dial), so a source that can never be fetched is
// refused now rather than failing for ever in lastError.

func (s *Server) sourceRoutes(add func(method, path string, h fasthttp.RequestHandler)) {
	cal := s.calendar
	add(fasthttp.MethodPost, "/api/v1/staff/{id}/calendar-sources", cal(s.createSource))
	add(fasthttp.MethodGet, "/api/v1/staff/{id}/calendar-sources", cal(s.listSources))
	add(fasthttp.MethodGet, "/api/v1/staff/{id}/calendar-sources/{sourceId}", cal(s.getSource))
	add(fasthttp.MethodDelete, "/api/v1/staff/{id}/calendar-sources/{sourceId}", cal(s.deleteSource))
}

// createSource serves POST /api/v1/staff/{id}/calendar-sources {url,
// refreshMinutes}: 201 with the source, whose first fetch follows within
// 5 seconds. An Idempotency-Key is accepted and not used (decisions §8);
// the same URL twice for one staff member is 409 CONFLICT.
func (s *Server) createSource(c *call) {
	staff, ok := c.sourcesStaff()
	if !ok {
		return
	}
	in, err := s.decodeSource(c.ctx.PostBody())
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	in.Staff = staff
	rctx, cancel := edge.RequestContext()
	defer cancel()
	src, err := directory.Do(rctx, s.Dir, c.st.Business().ID, directory.CreateSource{In: in})
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	edge.WriteJSON(c.ctx, 201, wire.AppendSource(nil, &src))
}

// decodeSource validates a POST /calendar-sources body: url (https://
// or webcal://) and refreshMinutes (5 to 1440, 15 when absent).
func (s *Server) decodeSource(body []byte) (directory.SourceInput, error) {
	var errs input.Errors
	in := directory.SourceInput{RefreshMinutes: model.DefaultRefreshMinutes}
	if obj, ok := input.ParseObject(body, &errs); ok {
		if u, ok := obj.String("url", input.Required, model.MaxSourceURLLen); ok {
			if err := icsfetch.CheckURL(u, s.WebhooksAllowInsecure); err != nil {
				errs.Add("url", problem.InvalidURL, "Must be an https:// or webcal:// URL on port 443."+insecureHint)
			} else {
				in.URL = u
			}
		}
		if n, ok := obj.Int("refreshMinutes", input.Optional, model.MinRefreshMinutes, model.MaxRefreshMinutes); ok {
			in.RefreshMinutes = n
		}
		obj.Done()
	}
	return in, errs.Err()
}

// listSources serves GET /api/v1/staff/{id}/calendar-sources: the staff
// member's sources in creation order (at most 50: one page).
func (s *Server) listSources(c *call) {
	staff, ok := c.sourcesStaff()
	if !ok {
		return
	}
	c.writeWith(func(b []byte) []byte {
		b = append(b, `{"data":[`...)
		for i, src := range c.st.StaffSources(staff) {
			if i > 0 {
				b = append(b, ',')
			}
			b = wire.AppendSource(b, &src)
		}
		return append(b, `],"hasMore":false,"nextCursor":null}`...)
	})
}

// sourcesStaff is the staff member of a route on all their sources,
// having answered 404 for an unknown one or 400 for a query string.
func (c *call) sourcesStaff() (uuid.UUID, bool) {
	staff, ok := c.busyStaff(staffBusy)
	if !ok {
		return uuid.Nil, false
	}
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return uuid.Nil, false
	}
	return staff, true
}

// sourceTarget is the staff member and calendar source of a route on one
// source, having answered 404 for either, or 400 for a query string.
func (c *call) sourceTarget() (*model.CalendarSource, bool) {
	staff, ok := c.busyStaff(staffBusy)
	if !ok {
		return nil, false
	}
	var src *model.CalendarSource
	if id, ok := c.pathID("sourceId"); ok {
		for _, x := range c.st.StaffSources(staff) {
			if x.ID == id {
				src = &x
			}
		}
	}
	if src == nil {
		edge.WriteError(c.ctx, errNotFound)
		return nil, false
	}
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return nil, false
	}
	return src, true
}

// getSource serves GET /api/v1/staff/{id}/calendar-sources/{sourceId}.
func (s *Server) getSource(c *call) {
	if src, ok := c.sourceTarget(); ok {
		c.writeWith(func(b []byte) []byte { return wire.AppendSource(b, src) })
	}
}

// deleteSource serves DELETE /api/v1/staff/{id}/calendar-sources/
// {sourceId}: 204, the source's busy time gone with it.
func (s *Server) deleteSource(c *call) {
	src, ok := c.sourceTarget()
	if !ok {
		return
	}
	deleted(c, directory.DeleteSource{Staff: src.StaffID, ID: src.ID})
}
