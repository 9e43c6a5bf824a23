package transport

import (
	"sync"
	"time"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/storage/problem"
	"github.com/slotd/slotd/transport/wire"
)

// GET /api/v1/availability/slots (decisions §3, §4): the start times on
// offer for a service in [from, to], with every eligible free staff member
// per slot. It is answered from the business's published state, so it never
// waits behind a write, and it is never cached.

// maxSlotRange is the widest window a client may ask for.
const maxSlotRange = 31 * 24 * time.Hour

var slotPool = sync.Pool{New: func() any { s := make([]calendar.Slot, 0, 1024); return &s }}

func (s *Server) availability(c *call) {
	q := parseQuery(c.ctx, "serviceId", "from", "to", "staffMemberId")
	for _, name := range []string{"serviceId", "from", "to"} {
		if !q.has(name) {
			q.add(name, problem.Required, "This query parameter is required.")
		}
	}
	svcID, okSvc := q.uuidParam("serviceId")
	from, okFrom := q.timeParam("from")
	to, okTo := q.timeParam("to")
	staffID, byStaff := q.uuidParam("staffMemberId")
	svc := c.st.Service(svcID)
	if okSvc && (svc == nil || svc.Deleted) {
		q.add("serviceId", problem.Invalid, "No such service.")
	}
	if byStaff && c.st.StaffMember(staffID) == nil {
		q.add("staffMemberId", problem.Invalid, "No such staff member.")
	}
	if okFrom && okTo {
		switch {
		case from.After(to):
			q.add("to", problem.Invalid, "Must not be before from.")
		case to.Sub(from) > maxSlotRange:
			q.errs = append(q.errs, problem.Bound("to", problem.TooLarge, 31, "Must be at most 31 days after from."))
		}
	}
	if perr := q.err(); perr != nil {
		writeError(c.ctx, perr)
		return
	}
	now := s.Clock.Now()
	c.ctx.Response.Header.Set("Cache-Control", "no-store")
	// The raw query string: re-encoding the parsed arguments costs more than
	// the lookup, and two spellings of one question only miss each other.
	key := slotKey{biz: c.st.Business.ID, seq: c.st.Seq, minute: minuteBucket(now), query: string(c.ctx.URI().QueryString())}
	if body, ok := s.slots.get(key); ok {
		writeJSON(c.ctx, 200, body)
		return
	}
	query := calendar.Query{Business: &c.st.Business, Loc: c.st.Loc, Now: now, Service: svc,
		Staff: c.st.Staff, Index: c.st.Index(), From: from, To: to}
	if byStaff {
		query.Only = &staffID
	}
	slots := slotPool.Get().(*[]calendar.Slot)
	defer slotPool.Put(slots)
	*slots = calendar.Slots(&query, (*slots)[:0])
	body := appendSlots(make([]byte, 0, 64+len(*slots)*120), *slots)
	writeJSON(c.ctx, 200, body)
	s.slots.put(key, body)
}

func appendSlots(b []byte, slots []calendar.Slot) []byte {
	b = append(b, `{"data":[`...)
	for i := range slots {
		sl := &slots[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"startTime":`...)
		b = wire.AppendTime(b, sl.Start)
		b = append(b, `,"endTime":`...)
		b = wire.AppendTime(b, sl.End)
		b = append(b, `,"staffMemberIds":[`...)
		for j, id := range sl.Staff {
			if j > 0 {
				b = append(b, ',')
			}
			b = wire.AppendUUID(b, id)
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}"...)
}
