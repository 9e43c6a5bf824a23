package api

import (
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/transport/cursor"
	"github.com/slotd/slotd/transport/edge"
)

// The read-only catalogue endpoints (api-v1 §4.3, §4.4, §4.6). Lists are in
// creation order, then id, ascending (decisions §4).

func (s *Server) me(c *call) {
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	c.writeWith(func(b []byte) []byte { return wire.AppendMe(b, c.st.Business(), c.key) })
}

// writeWith renders a 200 body into a pooled buffer.
func (c *call) writeWith(render func([]byte) []byte) {
	b := getBuf()
	defer putBuf(b)
	*b = render((*b)[:0])
	edge.WriteJSON(c.ctx, 200, *b)
}

func creationPos(createdAt interface{ UnixMilli() int64 }, id uuid.UUID) cursor.Position {
	return cursor.Position{Sort: createdAt.UnixMilli(), ID: id}
}

func (s *Server) listServices(c *call) {
	q := parseQuery(c.ctx, "limit", "cursor", "categoryId", "isActive")
	cat, byCat := q.uuidParam("categoryId")
	active, byActive := q.boolParam("isActive")
	filters := ""
	if byCat {
		filters += "categoryId=" + cat.String() + "&"
	}
	if byActive {
		filters += "isActive=" + boolString(active)
	}
	pageAsc(c, &q, listSpec{name: "services", filters: filters}, c.st.Services(),
		func(x *model.Service) cursor.Position { return creationPos(x.CreatedAt, x.ID) },
		func(x *model.Service) bool {
			return !x.Deleted && (!byCat || x.CategoryID == cat) && (!byActive || x.IsActive == active)
		},
		func(b []byte, x *model.Service) []byte { return wire.AppendService(b, x, false) })
}

func boolString(v bool) string {
	if v {
		return "true"
	}
	return "false"
}

func (s *Server) getService(c *call) {
	getOne(c, func(id uuid.UUID) *model.Service {
		if svc := c.st.Service(id); svc != nil && !svc.Deleted {
			return svc
		}
		return nil
	}, func(b []byte, x *model.Service) []byte { return wire.AppendService(b, x, true) })
}

// getOne answers a detail GET: the {id} path parameter looked up with find,
// 404 NOT_FOUND when it is not a UUID or names nothing this business can
// see, the record rendered otherwise.
func getOne[T any](c *call, find func(uuid.UUID) *T, render func([]byte, *T) []byte) {
	id, ok := c.pathID("id")
	if perr := noQuery(c.ctx); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	var x *T
	if ok {
		x = find(id)
	}
	if x == nil {
		edge.WriteError(c.ctx, errNotFound)
		return
	}
	c.writeWith(func(b []byte) []byte { return render(b, x) })
}

func (s *Server) listCategories(c *call) {
	q := parseQuery(c.ctx, "limit", "cursor")
	pageAsc(c, &q, listSpec{name: "service-categories"}, c.st.Categories(),
		func(x *model.Category) cursor.Position { return creationPos(x.CreatedAt, x.ID) },
		func(*model.Category) bool { return true },
		wire.AppendCategory)
}

// listResources lists the business's resources (decisions §10), active
// or not: isActive filters, as on services.
func (s *Server) listResources(c *call) {
	q := parseQuery(c.ctx, "limit", "cursor", "isActive")
	active, byActive := q.boolParam("isActive")
	filters := ""
	if byActive {
		filters = "isActive=" + boolString(active)
	}
	pageAsc(c, &q, listSpec{name: "resources", filters: filters}, c.st.Resources(),
		func(x *model.Resource) cursor.Position { return creationPos(x.CreatedAt, x.ID) },
		func(x *model.Resource) bool { return !byActive || x.IsActive == active },
		wire.AppendResource)
}

func (s *Server) getResource(c *call) { getOne(c, c.st.Resource, wire.AppendResource) }

func (s *Server) listStaff(c *call) {
	q := parseQuery(c.ctx, "limit", "cursor")
	pageAsc(c, &q, listSpec{name: "staff"}, c.st.Staff(),
		func(x *model.Staff) cursor.Position { return creationPos(x.CreatedAt, x.ID) },
		func(*model.Staff) bool { return true },
		wire.AppendStaff)
}

func (s *Server) getStaff(c *call) { getOne(c, c.st.StaffMember, wire.AppendStaff) }

func (s *Server) getCustomer(c *call) { getOne(c, c.st.Customer, wire.AppendCustomer) }
