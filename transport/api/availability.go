package api

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
)

// GET /api/v1/availability/slots (decisions §3, §4): the start times on
// offer for a service in [from, to], with every eligible free staff member
// per slot. It is answered from the business's published state, so it never
// waits behind a write. An answer asked for twice is kept (slotcache.go)
// under the state's sequence number and the minute: a write or the next
// minute is a new key, so a kept answer is never stale. HTTP caches are
// told not to keep it (Cache-Control: no-store).

// maxSlotRange is the widest window a client may ask for.
const maxSlotRange = 31 * 24 * time.Hour

// slotWork is the reusable working memory of one availability answer: the
// engine's (its scratch and the slots) and the encoded body. Pooled, an
// uncached answer allocates nothing once these have grown to the usual
// answer.
type slotWork struct {
	engine directory.SlotWork
	body   []byte
}

var slotPool = sync.Pool{New: func() any { return new(slotWork) }}

// Close returns w to the pool. The answer's bytes are w.body, sent without
// a copy (edge.WriteRawJSON): fasthttp closes the request's user values,
// w among them, once the response is written.
func (w *slotWork) Close() error {
	slotPool.Put(w)
	return nil
}

// slotWorkKey is the user value holding a request's slotWork.
type slotWorkKey struct{}

func (s *Server) availability(c *call) {
	q := parseQuery(c.ctx, "serviceId", "serviceIds", "from", "to", "staffMemberId")
	var chain []*model.Service
	var svc *model.Service
	if q.has("serviceIds") {
		if q.has("serviceId") {
			q.add("serviceId", problem.Invalid, "Give serviceId (one service) or serviceIds (a basket's), not both.")
		}
		chain = q.services(c.st, "serviceIds")
	} else {
		q.require("serviceId")
		svcID, okSvc := q.uuidParam("serviceId")
		svc = c.st.Service(svcID)
		if okSvc && (svc == nil || svc.Deleted) {
			q.add("serviceId", problem.Invalid, "No such service.")
		}
	}
	q.require("from", "to")
	from, okFrom := q.timeParam("from")
	to, okTo := q.timeParam("to")
	staffID, byStaff := q.uuidParam("staffMemberId")
	if byStaff && c.st.StaffMember(staffID) == nil {
		q.add("staffMemberId", problem.Invalid, "No such staff member.")
	}
	if okFrom && okTo {
		q.checkWindow(from, to)
	}
	if perr := q.err(); perr != nil {
		edge.WriteError(c.ctx, perr)
		return
	}
	now := s.Clock.Now()
	c.ctx.Response.Header.Set("Cache-Control", "no-store")
	// The raw query string: re-encoding the parsed arguments costs more than
	// the lookup, and two spellings of one question only miss each other.
	key := slotKey{biz: c.st.Business().ID, seq: c.st.Seq(), minute: minuteBucket(now), query: c.ctx.URI().QueryString()}
	h, body, hit, again := s.slots.look(&key)
	if hit {
		edge.WriteJSON(c.ctx, 200, body)
		return
	}
	w := slotPool.Get().(*slotWork)
	c.ctx.SetUserValue(slotWorkKey{}, w) // back to the pool once the answer is written
	var only *uuid.UUID
	if byStaff {
		only = &staffID
	}
	if chain != nil {
		w.body = appendChains(w.body[:0], c.st.Chains(chain, only, from, to, now, &w.engine), chain, c.st)
	} else {
		slots := c.st.Slots(directory.SlotQuery{Service: svc, From: from, To: to, Now: now, Only: only}, &w.engine)
		w.body = appendSlots(w.body[:0], slots, c.st)
	}
	if again {
		s.slots.put(h, &key, bytes.Clone(w.body))
	}
	edge.WriteRawJSON(c.ctx, 200, w.body)
}

// services reads parameter name as a basket's services (decisions §11):
// two to five ids, comma-separated, each of a service of the business and
// none twice. Nil when it is refused.
func (q *query) services(st directory.View, name string) []*model.Service {
	text, ok := q.get(name)
	if !ok || text == "" {
		return nil
	}
	parts := strings.Split(text, ",")
	if len(parts) < directory.MinBasketItems || len(parts) > directory.MaxBasketItems {
		q.add(name, problem.Invalid, "Must list 2 to 5 service ids, separated by commas (one service: serviceId).")
		return nil
	}
	out := make([]*model.Service, 0, len(parts))
	for i, p := range parts {
		id, err := uuid.Parse(p)
		switch {
		case err != nil || len(p) != 36:
			q.add(name, problem.InvalidFormat, "Item "+strconv.Itoa(i)+" is not a UUID.")
			return nil
		case slices.ContainsFunc(out, func(s *model.Service) bool { return s.ID == id }):
			q.add(name, problem.Invalid, "Service "+p+" is listed twice.")
			return nil
		}
		svc := st.Service(id)
		if svc == nil || svc.Deleted {
			q.add(name, problem.Invalid, "No such service: "+p+".")
			return nil
		}
		out = append(out, svc)
	}
	return out
}

// require refuses every one of names the query lacks.
func (q *query) require(names ...string) {
	for _, name := range names {
		if !q.has(name) {
			q.add(name, problem.Required, "This query parameter is required.")
		}
	}
}

// checkWindow refuses a slot window whose to is before from or more than
// maxSlotRange after it.
func (q *query) checkWindow(from, to time.Time) {
	switch {
	case from.After(to):
		q.add("to", problem.Invalid, "Must not be before from.")
	case to.Sub(from) > maxSlotRange:
		q.errs = append(q.errs, problem.Bound("to", problem.TooLarge, 31, "Must be at most 31 days after from."))
	}
}

// Per-slot fixed text: {"startTime":"…","endTime":"…","staffMemberIds":[…]}
// with two 24-byte timestamps, and per staff member an id and a comma.
const (
	slotFixedLen = len(`{"startTime":,"endTime":,"staffMemberIds":[]},`) + 2*len(`"2006-01-02T15:04:05.000Z"`)
	slotStaffLen = directory.StaffIDTextLen + 1
)

// appendSlots appends the answer to b, growing b once to the exact size.
// Staff ids come from the state's preformatted text.
func appendSlots(b []byte, slots []directory.Slot, st directory.View) []byte {
	n := len(`{"data":[]}`)
	for i := range slots {
		n += slotFixedLen + slotStaffLen*len(slots[i].Staff)
		if slots[i].SeatsLeft > 0 {
			n += len(`,"seatsLeft":500`)
		}
	}
	b = slices.Grow(b, n)
	b = append(b, `{"data":[`...)
	var times wire.Times
	var last struct{ from, to int } // the staff list of the slot before, in b
	for i := range slots {
		sl := &slots[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"startTime":`...)
		b = times.AppendMs(b, sl.At)
		b = append(b, `,"endTime":`...)
		b = times.AppendMs(b, sl.Until)
		b = append(b, `,"staffMemberIds":[`...)
		if i > 0 && slices.Equal(sl.Staff, slots[i-1].Staff) {
			// Neighbouring starts mostly list the same staff: one copy
			// of the list written last instead of a copy per id (the
			// ids were half of a 20-staff answer's encoding).
			from := len(b)
			b = append(b, b[last.from:last.to]...)
			last.from = from
		} else {
			last.from = len(b)
			for j, x := range sl.Staff {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, st.StaffIDText(int(x))...)
			}
		}
		last.to = len(b)
		b = append(b, ']')
		if sl.SeatsLeft > 0 { // a class (decisions §10)
			b = append(b, `,"seatsLeft":`...)
			b = strconv.AppendInt(b, int64(sl.SeatsLeft), 10)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendChains appends the answer for a basket's services: each start on
// offer as a slot whose startTime and staffMemberIds are its first
// item's and whose endTime is its last item's end, with items: [{
// serviceId, startTime, endTime, staffMemberIds[, seatsLeft]}].
func appendChains(b []byte, chains []directory.ChainSlot, svcs []*model.Service, st directory.View) []byte {
	b = append(b, `{"data":[`...)
	var times wire.Times
	for i := range chains {
		items := chains[i].Items
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"startTime":`...)
		b = times.AppendMs(b, items[0].At)
		b = append(b, `,"endTime":`...)
		b = times.AppendMs(b, items[len(items)-1].Until)
		b = append(b, `,"staffMemberIds":`...)
		b = appendStaffIDs(b, items[0].Staff, st)
		b = append(b, `,"items":[`...)
		for k := range items {
			sl := &items[k]
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"serviceId":`...)
			b = wire.AppendUUID(b, svcs[k].ID)
			b = append(b, `,"startTime":`...)
			b = times.AppendMs(b, sl.At)
			b = append(b, `,"endTime":`...)
			b = times.AppendMs(b, sl.Until)
			b = append(b, `,"staffMemberIds":`...)
			b = appendStaffIDs(b, sl.Staff, st)
			if sl.SeatsLeft > 0 {
				b = append(b, `,"seatsLeft":`...)
				b = strconv.AppendInt(b, int64(sl.SeatsLeft), 10)
			}
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}"...)
}

// appendStaffIDs appends a JSON array of the ids of staff (indexes into
// the state's staff list).
func appendStaffIDs(b []byte, staff []int32, st directory.View) []byte {
	b = append(b, '[')
	for j, x := range staff {
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, st.StaffIDText(int(x))...)
	}
	return append(b, ']')
}
