package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/ical"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
	"github.com/slotd/slotd/transport/handover"
)

// Calendar feeds (decisions §8): a staff member's or the whole business's
// bookings as an iCalendar object at a secret URL, {public-url}/feeds/
// {token}.ics, that calendar apps poll. The token signs the business's and
// the feed's ids (transport/linktoken, its own domain), so nothing secret
// is stored: the URL is shown once, in the create answer, and deleting
// the feed is what revokes it.

// scopeCalendars is the scope of every endpoint of decisions §8.
const scopeCalendars = "calendars:manage"

// calendar is the handler of an endpoint of decisions §8: its scope, plan
// and module, and bodies up to 1 MiB.
func (s *Server) calendar(fn func(*call)) fasthttp.RequestHandler {
	return s.api(route{scope: scopeCalendars, module: model.ModAppointments, large: true, fn: fn})
}

func (s *Server) feedRoutes(add func(method, path string, h fasthttp.RequestHandler)) {
	cal := s.calendar
	add(fasthttp.MethodPost, "/api/v1/calendar-feeds", cal(s.createFeed))
	add(fasthttp.MethodGet, "/api/v1/calendar-feeds", cal(s.listFeeds))
	add(fasthttp.MethodDelete, "/api/v1/calendar-feeds/{id}", cal(s.deleteFeed))
	add(fasthttp.MethodGet, "/feeds/{file}", s.serveFeed)
}

// largeBody reports whether path is one of decisions §8's, whose bodies
// may be up to 1 MiB.
func largeBody(path []byte) bool {
	return bytes.HasPrefix(path, []byte("/api/v1/calendar-feeds")) ||
		bytes.HasPrefix(path, []byte("/api/v1/staff/")) && (bytes.Contains(path, []byte("/busy-times")) || bytes.Contains(path, []byte("/calendar-sources")))
}

// createFeed serves POST /api/v1/calendar-feeds {staffMemberId,
// includeCustomerNames}: 201 with the feed's url and webcalUrl, shown
// here only. An Idempotency-Key is accepted and not used (decisions §8).
func (s *Server) createFeed(c *call) {
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	in, err := decodeFeed(c.ctx.PostBody())
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	f, err := directory.Do(rctx, s.Dir, c.st.Business().ID, directory.CreateFeed{In: in})
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	url := s.feedURL(c.st.Business().ID, f.ID)
	edge.WriteJSON(c.ctx, 201, wire.AppendFeed(nil, &f, url, webcal(url)))
}

// decodeFeed validates a POST /calendar-feeds body: staffMemberId (a
// uuid, or null or absent for the whole business) or, instead,
// resourceId (decisions §10; not both), and includeCustomerNames (false
// when absent).
func decodeFeed(body []byte) (directory.FeedInput, error) {
	var errs input.Errors
	var in directory.FeedInput
	if obj, ok := input.ParseObject(body, &errs); ok {
		if id, ok := obj.NullableUUID("staffMemberId"); ok {
			in.StaffID = id
		}
		if id, ok := obj.NullableUUID("resourceId"); ok {
			in.ResourceID = id
		}
		if in.StaffID != nil && in.ResourceID != nil {
			errs.Add(obj.PathOf("resourceId"), problem.Invalid, "A feed shows a staff member or a resource, not both.")
		}
		in.IncludeCustomerNames, _ = obj.Bool("includeCustomerNames", input.Optional)
		obj.Done()
	}
	return in, errs.Err()
}

// feedURL is the secret address of feed id of business biz.
func (s *Server) feedURL(biz, id uuid.UUID) string {
	return s.PublicURL + "/feeds/" + s.Feeds.Make(biz, id) + ".ics"
}

// webcal is url with the webcal scheme calendar apps subscribe to.
func webcal(url string) string {
	_, rest, _ := strings.Cut(url, "://")
	return "webcal://" + rest
}

// listFeeds serves GET /api/v1/calendar-feeds: every feed, without its
// address.
func (s *Server) listFeeds(c *call) {
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	c.writeWith(func(b []byte) []byte {
		b = append(b, `{"data":[`...)
		for i, f := range c.st.Feeds() {
			if i > 0 {
				b = append(b, ',')
			}
			b = wire.AppendFeed(b, &f, "", "")
		}
		return append(b, `],"hasMore":false,"nextCursor":null}`...)
	})
}

// deleteFeed serves DELETE /api/v1/calendar-feeds/{id}: 204, and the
// feed's address answers 404 from then on.
func (s *Server) deleteFeed(c *call) {
	deleteByID(c, func(id uuid.UUID) bool { return c.st.Feed(id) != nil }, func(id uuid.UUID) directory.DeleteFeed { return directory.DeleteFeed{ID: id} })
}

var errNoFeed = problem.New(problem.NotFound, "No such calendar feed.")

// serveFeed serves GET /feeds/{token}.ics: the feed as of now, with an
// ETag of its bytes so a poll that finds nothing new costs a 304. A token
// that names no feed (never made, forged, revoked) is one 404, counted
// against the client IP's failed-authentication limit like a manage
// link's.
func (s *Server) serveFeed(ctx *fasthttp.RequestCtx) {
	if !s.admitIP(ctx) {
		return
	}
	file, _ := ctx.UserValue("file").(string)
	tok, isICS := strings.CutSuffix(file, ".ics")
	var biz, id uuid.UUID
	ok := isICS && s.Feeds != nil
	if ok {
		biz, id, ok = s.Feeds.Open(tok)
	}
	if !ok {
		s.feedMiss(ctx)
		return
	}
	if s.Cluster != nil && s.Elsewhere(ctx, biz, handover.Public) {
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	st, found, err := s.Dir.ExistingView(rctx, biz)
	if err != nil {
		s.Fail(ctx, err)
		return
	}
	var f *model.Feed
	if found {
		f = st.Feed(id)
	}
	if f == nil {
		s.feedMiss(ctx)
		return
	}
	b := getBuf()
	defer putBuf(b)
	*b = ical.Append((*b)[:0], st.FeedCalendar(f, s.Clock.Now()))
	sum := sha256.Sum256(*b)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	h := &ctx.Response.Header
	h.Set(fasthttp.HeaderETag, etag)
	h.Set(fasthttp.HeaderCacheControl, "private, no-cache")
	if inm := ctx.Request.Header.Peek(fasthttp.HeaderIfNoneMatch); len(inm) > 0 && etagMatches(inm, etag) {
		s.metrics.feed(feedNotModified)
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	s.metrics.feed(feedServed)
	ctx.SetContentType("text/calendar; charset=utf-8")
	h.Set("Content-Disposition", `inline; filename="slotd.ics"`)
	ctx.SetBody(*b)
}

// feedMiss answers a token that names no feed.
func (s *Server) feedMiss(ctx *fasthttp.RequestCtx) {
	s.metrics.feed(feedUnknown)
	s.failedAuth(ctx, errNoFeed)
}

// etagMatches reports whether an If-None-Match list names etag (or is *).
func etagMatches(list []byte, etag string) bool {
	for _, t := range bytes.Split(list, []byte(",")) {
		t = bytes.TrimPrefix(bytes.TrimSpace(t), []byte("W/"))
		if string(t) == etag || string(t) == "*" {
			return true
		}
	}
	return false
}
