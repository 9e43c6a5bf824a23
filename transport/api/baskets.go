package api

import (
	"github.com/valyala/fasthttp"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/edge"
)

// Baskets (decisions §11): several services booked back to back, all or
// nothing.

// basketRoutes adds the basket endpoints, of module appointments. A
// booking page books a basket with its publishable key ("add another
// service"), as it books one appointment.
func (s *Server) basketRoutes(add func(method, path string, h fasthttp.RequestHandler)) {
	add(fasthttp.MethodPost, "/api/v1/baskets",
		s.api(route{scope: "appointments:write", module: model.ModAppointments, publishable: true, fn: s.bookBasket}))
	add(fasthttp.MethodGet, "/api/v1/baskets/{id}",
		s.api(route{scope: "appointments:read", module: model.ModAppointments, fn: s.getBasket}))
	add(fasthttp.MethodPost, "/api/v1/baskets/{id}/cancel",
		s.api(route{scope: "appointments:write", module: model.ModAppointments, fn: s.cancelBasket}))
}

// bookBasket answers POST /baskets: 201 {id, appointments}, or the first
// item's refusal naming it (items.N).
func (s *Server) bookBasket(c *call) {
	create(c, func(body []byte) (*directory.BasketInput, error) {
		in, err := decodeBasket(body)
		if err == nil {
			err = c.fromPage(in.Enforce, &in.ByCustomer)
		}
		return in, err
	}, func(in directory.BasketInput) directory.IdempotentOp { return directory.BookBasket{In: in} })
}

// appendBasketBooked renders a basket booked: {id, appointments}, each
// appointment as GET shows it, with its manage link.
func (c *call) appendBasketBooked(b []byte, ans *directory.Answer) []byte {
	b = append(b, `{"id":`...)
	b = wire.AppendUUID(b, ans.Basket.ID)
	b = append(b, `,"appointments":[`...)
	for i := range ans.Occurrences {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.appendAppointment(b, &ans.Occurrences[i], ans.Customer)
	}
	return append(b, "]}"...)
}

// getBasket answers GET /baskets/{id}: {id, customerId, appointmentIds,
// createdAt}; each appointment is read at /appointments/{id}.
func (s *Server) getBasket(c *call) {
	x := pathRecord(c, c.st.Basket)
	if x == nil {
		return
	}
	b := append(make([]byte, 0, 160+40*len(x.Appointments)), `{"id":`...)
	b = wire.AppendUUID(b, x.ID)
	b = append(b, `,"customerId":`...)
	b = wire.AppendUUID(b, x.CustomerID)
	b = append(b, `,"appointmentIds":[`...)
	for i, id := range x.Appointments {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendUUID(b, id)
	}
	b = append(b, `],"createdAt":`...)
	b = wire.AppendTime(b, x.CreatedAt)
	edge.WriteJSON(c.ctx, 200, append(b, '}'))
}

// cancelBasket answers POST /baskets/{id}/cancel: every appointment of
// the basket that may be cancelled, in one write: 200 {cancelled: [ids],
// skipped: [{id, code}]}. It takes no body.
func (s *Server) cancelBasket(c *call) {
	x := pathRecord(c, c.st.Basket)
	if x == nil {
		return
	}
	if perr := noBody(c.ctx.PostBody()); perr != nil {
		s.Fail(c.ctx, perr)
		return
	}
	rctx, cancel := edge.RequestContext()
	defer cancel()
	out, err := directory.Do(rctx, s.Dir, c.st.Business().ID, directory.CancelBasket{ID: x.ID})
	if err != nil {
		s.Fail(c.ctx, err)
		return
	}
	edge.WriteJSON(c.ctx, 200, appendCancelled(nil, &out))
}

// decodeBasket validates a basket body: { startTime, items: [ {
// serviceId, staffMemberId? } ] (2 to 5), customer | customerId, notes?,
// metadata?, enforceBookingRules? }.
func decodeBasket(body []byte) (*directory.BasketInput, error) {
	var errs input.Errors
	in := &directory.BasketInput{Enforce: true}
	if obj, ok := input.ParseObject(body, &errs); ok {
		in.Start, _ = obj.Time("startTime", input.Required)
		if arr, ok := obj.Array("items", input.Required); ok {
			switch n := arr.Len(); {
			case n < directory.MinBasketItems:
				errs.AddBound(arr.Path(), problem.TooSmall, directory.MinBasketItems, "A basket has at least 2 items: book one service with POST /appointments.")
			case n > directory.MaxBasketItems:
				errs.AddBound(arr.Path(), problem.TooLarge, directory.MaxBasketItems, "A basket has at most 5 items.")
			default:
				in.Items = decodeItems(arr)
			}
		}
		in.Customer, in.CustomerID = decodeWho(obj, &errs)
		if v, ok := obj.Bool("enforceBookingRules", input.Optional); ok {
			in.Enforce = v
		}
		in.Notes, _ = obj.NullableString("notes", maxNotes)
		in.Metadata, _ = decodeMetadata(obj, &errs)
		obj.Done()
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return in, nil
}

// decodeItems reads a basket's items, each { serviceId, staffMemberId? }.
func decodeItems(arr input.Array) []directory.BasketItem {
	items := make([]directory.BasketItem, arr.Len())
	for i := range items {
		it, ok := arr.Object(i)
		if !ok {
			continue
		}
		items[i].ServiceID, _ = it.UUID("serviceId", input.Required)
		if id, ok := it.NullableUUID("staffMemberId"); ok {
			items[i].StaffID = id
		}
		it.Done()
	}
	return items
}
