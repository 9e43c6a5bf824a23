// Package ledger is one business's books: its state in memory and the
// pure decisions that change it: given the current state, a command and the time,
// it says which journal record to append; given a record, it builds the next
// state. It does no I/O and reads no clock.
//
// A State is immutable once built. The business actor publishes each new
// State through an atomic pointer, so readers on any goroutine use a
// consistent snapshot without queueing in the actor's mailbox; Apply copies
// what a record changes and shares the rest.
package ledger

import (
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/storage/record"
)

// State is one business as of journal position Seq.
type State struct {
	Seq        uint64
	Business   model.Business
	Loc        *time.Location
	Keys       []model.Key      // in creation order
	Categories []model.Category // createdAt, then id, ascending
	Services   []model.Service  // createdAt, then id, ascending; deleted ones included
	Resources  []model.Resource // createdAt, then id, ascending (a handful: found by scanning)
	Staff      []model.Staff    // createdAt, then id, ascending

	keyByHash  map[model.KeyHash]int
	serviceIdx map[uuid.UUID]int
	staffIdx   map[uuid.UUID]int
	staffText  []byte // each staff member's id as a JSON string, 38 bytes apiece, in Staff order
	book
}

// Size is the number of records the state holds (keys, catalog, customers,
// appointments, idempotent answers, endpoints): what a snapshot's cost
// grows with.
func (s *State) Size() int {
	return len(s.Keys) + len(s.Categories) + len(s.Services) + len(s.Resources) + len(s.Staff) +
		s.customers.Len() + s.appts.Len() + s.idem.Len() + len(s.endpoints) + len(s.feeds) + len(s.sources) + s.payments.Len() + s.checkouts.Len() +
		s.holds.Len() + s.entries.Len() + s.series.Len() + s.baskets.Len()
}

// Key returns the key with hash h, or nil.
func (s *State) Key(h model.KeyHash) *model.Key {
	if i, ok := s.keyByHash[h]; ok {
		return &s.Keys[i]
	}
	return nil
}

// Resource returns the resource with id, or nil.
func (s *State) Resource(id uuid.UUID) *model.Resource {
	for i := range s.Resources {
		if s.Resources[i].ID == id {
			return &s.Resources[i]
		}
	}
	return nil
}

// Service returns the service with id, deleted ones included, or nil.
func (s *State) Service(id uuid.UUID) *model.Service {
	if i, ok := s.serviceIdx[id]; ok {
		return &s.Services[i]
	}
	return nil
}

// StaffMember returns the staff member with id, or nil.
func (s *State) StaffMember(id uuid.UUID) *model.Staff {
	if i, ok := s.staffIdx[id]; ok {
		return &s.Staff[i]
	}
	return nil
}

// Customer returns the customer with id, or nil.
func (s *State) Customer(id uuid.UUID) *model.Customer {
	c, _ := s.customers.Get(id)
	return c
}

// CustomerByEmail returns the customer whose e-mail matches email after
// trimming and lower-casing, or nil.
func (s *State) CustomerByEmail(email string) *model.Customer {
	if id, ok := s.emails.Get(EmailKey(email)); ok {
		return s.Customer(id)
	}
	return nil
}

// CustomerCount is the number of customers on file.
func (s *State) CustomerCount() int { return s.customers.Len() }

// EmailKey is the form e-mail addresses are compared in.
func EmailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// fromCatalog builds a state holding c's catalogue and the given customers.
func fromCatalog(seq uint64, c *record.Catalog, bk book) (*State, error) {
	loc, err := model.Zone(c.Business.Timezone)
	if err != nil {
		return nil, err
	}
	s := &State{
		Seq:        seq,
		Business:   c.Business,
		Loc:        loc,
		Keys:       withOrigins(c.Business.ID, c.Keys),
		Categories: sortedByCreation(c.Categories, func(x *model.Category) (time.Time, uuid.UUID) { return x.CreatedAt, x.ID }),
		Services:   sortedByCreation(c.Services, func(x *model.Service) (time.Time, uuid.UUID) { return x.CreatedAt, x.ID }),
		Resources:  sortedByCreation(c.Resources, func(x *model.Resource) (time.Time, uuid.UUID) { return x.CreatedAt, x.ID }),
		Staff:      sortedByCreation(c.Staff, func(x *model.Staff) (time.Time, uuid.UUID) { return x.CreatedAt, x.ID }),
		keyByHash:  make(map[model.KeyHash]int, len(c.Keys)),
		book:       bk,
	}
	for i := range s.Keys {
		s.keyByHash[s.Keys[i].Hash] = i
	}
	s.serviceIdx = index(s.Services, func(x *model.Service) uuid.UUID { return x.ID })
	s.staffIdx = index(s.Staff, func(x *model.Staff) uuid.UUID { return x.ID })
	s.staffText = make([]byte, 0, len(s.Staff)*StaffIDTextLen)
	for i := range s.Staff {
		s.staffText = append(append(append(s.staffText, '"'), s.Staff[i].ID.String()...), '"')
	}
	return s, nil
}

// StaffIDTextLen is the length of a staff id as a JSON string.
const StaffIDTextLen = 38

// StaffIDText returns the id of staff member i (an index into Staff) as a
// JSON string, formatted once when the staff list was last put: an
// availability answer lists thousands of them, and formatting each one
// every time was a tenth of the answer's cost.
func (s *State) StaffIDText(i int) []byte {
	return s.staffText[i*StaffIDTextLen : (i+1)*StaffIDTextLen : (i+1)*StaffIDTextLen]
}

// withOrigins returns keys with every origin filled in (Key.OriginIn), so a
// State never holds a key of unknown origin, whatever journal it was built
// from. keys itself is left alone; it is copied only when one lacks it.
func withOrigins(biz uuid.UUID, keys []model.Key) []model.Key {
	if !slices.ContainsFunc(keys, func(k model.Key) bool { return k.Origin == "" }) {
		return keys
	}
	out := slices.Clone(keys)
	for i := range out {
		out[i].Origin = out[i].OriginIn(biz)
	}
	return out
}

func sortedByCreation[T any](in []T, key func(*T) (time.Time, uuid.UUID)) []T {
	out := slices.Clone(in)
	slices.SortStableFunc(out, func(a, b T) int {
		ta, ia := key(&a)
		tb, ib := key(&b)
		if c := ta.Compare(tb); c != 0 {
			return c
		}
		return slices.Compare(ia[:], ib[:])
	})
	return out
}

func index[T any](xs []T, id func(*T) uuid.UUID) map[uuid.UUID]int {
	m := make(map[uuid.UUID]int, len(xs))
	for i := range xs {
		m[id(&xs[i])] = i
	}
	return m
}

// catalogOf returns the catalogue part of s as a record payload.
func (s *State) catalogOf() record.Catalog {
	return record.Catalog{Business: s.Business, Keys: s.Keys, Categories: s.Categories, Services: s.Services,
		Resources: s.Resources, Staff: s.Staff}
}
