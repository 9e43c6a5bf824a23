package calendar

import (
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/interval"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// Resources (decisions §10). A booking of a service that needs resources
// takes its units of each over the stretches its staff member is
// occupied, buffers included; the index counts them (Index.Room). The
// staff member is judged first: a start where one is free but a resource
// is not is RESOURCE_UNAVAILABLE, physical like SLOT_TAKEN, so the rules
// being skipped does not lift it.

// Room returns the first of needs that cannot be met over spans, the
// units of appointment except (when moving it) not counted, and false; a
// resource gone from the catalogue, or inactive, can never be met. Every
// need met: uuid.Nil and true.
func Room(idx interval.Index, resources []model.Resource, needs []model.ResourceNeed, spans []interval.Span, except uuid.UUID) (uuid.UUID, bool) {
	for _, n := range needs {
		r := resource(resources, n.ResourceID)
		if r == nil || !r.IsActive || !idx.Room(n.ResourceID, r.Quantity, n.Quantity, spans, except) {
			return n.ResourceID, false
		}
	}
	return uuid.Nil, true
}

func resource(rs []model.Resource, id uuid.UUID) *model.Resource {
	for i := range rs {
		if rs[i].ID == id {
			return &rs[i]
		}
	}
	return nil
}

// spans appends the stretches a booking at start occupies to dst.
func (sh *shape) spans(dst []interval.Span, start int64) []interval.Span {
	for i := range sh.acts {
		s, e := sh.occupied(i, start)
		dst = append(dst, interval.Span{Start: s, End: e})
	}
	return dst
}

// room judges a request's resources once its staff member is chosen.
func (r *Request) room(sh *shape) *problem.Error {
	needs := r.Service.Resources
	if r.Needs != nil {
		needs = *r.Needs
	}
	if len(needs) == 0 {
		return nil
	}
	var buf [8]interval.Span
	if _, ok := Room(r.Index, r.Resources, needs, sh.spans(buf[:0], r.Start.UnixMilli()), r.Except); !ok {
		return refuse(problem.ResourceUnavailable)
	}
	return nil
}
