package api

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/directory"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/model/wire"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/transport/cursor"
)

// The waitlist (decisions §6): customers waiting for a start of a service
// in a window of at most 31 days. Offers are made by the business actor
// when a write frees time; these endpoints create, read and delete entries.

const maxEntryWindow = 31 * 24 * time.Hour

var entryStatuses = []string{string(model.EntryWaiting), string(model.EntryOffered), string(model.EntryBooked),
	string(model.EntryExpired)}

func (s *Server) createEntry(c *call) {
	create(c, decodeEntry, func(in directory.EntryInput) directory.IdempotentOp { return directory.AddEntry{In: in} })
}

// decodeEntry validates a POST /waitlist-entries body. That to lies in
// the future is the business's to judge, on its clock.
func decodeEntry(body []byte) (*directory.EntryInput, error) {
	var errs input.Errors
	in := &directory.EntryInput{}
	if obj, ok := input.ParseObject(body, &errs); ok {
		in.ServiceID, _ = obj.UUID("serviceId", input.Required)
		if id, ok := obj.NullableUUID("staffMemberId"); ok {
			in.StaffID = id
		}
		from, okFrom := obj.Time("from", input.Required)
		to, okTo := obj.Time("to", input.Required)
		in.From, in.To = from, to
		if cu, ok := obj.Object("customer", input.Required); ok {
			c := decodeCustomer(cu)
			in.Customer = model.Person{FirstName: c.FirstName, LastName: c.LastName, Email: c.Email, Phone: c.Phone}
		}
		obj.Done()
		if okFrom && okTo {
			switch {
			case from.After(to):
				errs.Add("to", problem.Invalid, "Must not be before from.")
			case to.Sub(from) > maxEntryWindow:
				errs.AddBound("to", problem.TooLarge, 31, "Must be at most 31 days after from.")
			}
		}
	}
	return in, errs.Err()
}

func (s *Server) getEntry(c *call) {
	getOne(c, c.st.Entry, wire.AppendEntry)
}

func (s *Server) listEntries(c *call) {
	q := parseQuery(c.ctx, "limit", "cursor", "status")
	status, filtered := q.get("status")
	if filtered && status != "" && !slices.Contains(entryStatuses, status) {
		q.add("status", problem.InvalidOption, "Must be one of waiting, offered, booked, expired.")
	}
	var all []model.WaitlistEntry
	c.st.Entries(nil, func(e *model.WaitlistEntry) bool {
		all = append(all, *e)
		return true
	})
	pageAsc(c, &q, listSpec{name: "waitlist-entries", filters: "status=" + status}, all,
		func(e *model.WaitlistEntry) cursor.Position { return creationPos(e.CreatedAt, e.ID) },
		func(e *model.WaitlistEntry) bool { return !filtered || string(e.Status) == status },
		wire.AppendEntry)
}

func (s *Server) deleteEntry(c *call) {
	deleteByID(c, func(id uuid.UUID) bool { return c.st.Entry(id) != nil }, func(id uuid.UUID) directory.DeleteEntry { return directory.DeleteEntry{ID: id} })
}
