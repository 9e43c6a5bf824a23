package ledger

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
	"github.com/slotd/slotd/storage/record"
)

// DecidePut returns the record that makes s match spec, or nil when spec
// declares exactly what s already holds (loading the same world file twice
// changes nothing). Entities keep their createdAt; updatedAt moves only for
// an entity whose content really changed. Customers are added when their id
// is new and never changed or removed. Keys follow putKeys: the file's are
// replaced, the operator's kept.
func DecidePut(s *State, spec *model.Spec, now time.Time) (*record.Record, error) {
	c := &record.Catalog{At: now}
	var old record.Catalog
	if s != nil {
		old = s.catalogOf()
	}
	changed := s == nil
	biz := spec.Business
	biz.CreatedAt, biz.UpdatedAt = now, now
	if s != nil {
		// A reminder the business keeps keeps its Since, so an unchanged
		// put is no change.
		biz.Reminders = armReminders(s.Business.Reminders, biz.Reminders, now)
		biz.CreatedAt, biz.UpdatedAt = s.Business.CreatedAt, s.Business.UpdatedAt
		if !sameContent(s.Business, biz, businessTimes) {
			biz.UpdatedAt, changed = now, true
		}
	}
	c.Business = biz
	var ch bool
	c.Keys, ch = stamp(old.Keys, putKeys(old.Keys, spec.Keys), now, keyTimes, func(k *model.Key) uuid.UUID { return k.ID })
	changed = changed || ch
	c.Categories, ch = stamp(old.Categories, spec.Categories, now, categoryTimes, func(x *model.Category) uuid.UUID { return x.ID })
	changed = changed || ch
	c.Services, ch = stamp(old.Services, spec.Services, now, serviceTimes, func(x *model.Service) uuid.UUID { return x.ID })
	changed = changed || ch
	c.Resources, ch = stamp(old.Resources, spec.Resources, now, resourceTimes, func(x *model.Resource) uuid.UUID { return x.ID })
	changed = changed || ch
	if len(c.Resources) == 0 {
		c.Resources = nil // as a record or snapshot without them decodes
	}
	c.Staff, ch = stamp(old.Staff, spec.Staff, now, staffTimes, func(x *model.Staff) uuid.UUID { return x.ID })
	changed = changed || ch
	added, err := newCustomers(s, spec.Customers, now)
	if err != nil {
		return nil, err
	}
	c.Customers = added
	if c.Appointments, err = worldAppointments(s, spec, c, now); err != nil {
		return nil, err
	}
	if !changed && len(added) == 0 && len(c.Appointments) == 0 {
		return nil, nil
	}
	return &record.Record{Kind: record.KindCatalog, Catalog: c}, nil
}

// putKeys returns the keys a business holds after a put that declares
// declared: each declared key, which is the file's (decisions §4, "World
// reload"), then each key of prev that was issued through the admin API,
// in issue order: those belong to the operator, and a file that never
// declared them cannot take them away. A declared key with the value of an
// issued one takes it over (one secret is one key). prev has its origins
// filled in (a State's keys always have).
func putKeys(prev, declared []model.Key) []model.Key {
	out := make([]model.Key, 0, len(declared)+len(prev))
	inFile := make(map[model.KeyHash]bool, len(declared))
	for _, k := range declared {
		k.Origin = model.FromWorld
		inFile[k.Hash] = true
		out = append(out, k)
	}
	for _, k := range prev {
		if k.Origin == model.FromAdmin && !inFile[k.Hash] {
			out = append(out, k)
		}
	}
	return out
}

// newCustomers returns the spec's customers whose ids are new, stamped. A new
// customer whose e-mail is already on file under another id is refused: the
// e-mail identifies a customer within a business.
func newCustomers(s *State, in []model.Customer, now time.Time) ([]model.Customer, error) {
	var out []model.Customer
	for i, c := range in {
		if s != nil && s.Customer(c.ID) != nil {
			continue
		}
		if s != nil && s.CustomerByEmail(c.Email) != nil {
			return nil, problem.FieldError(fieldPath("customers", i, "email"), problem.Invalid,
				"Another customer of this business already has this e-mail address.")
		}
		c.CreatedAt, c.UpdatedAt = now, now
		out = append(out, c)
	}
	return out, nil
}

func fieldPath(list string, i int, member string) string {
	b, _ := json.Marshal(i)
	return list + "." + string(b) + "." + member
}

// stamp gives each entity of next the timestamps it should carry: those of
// the entity with the same id in prev when the content is unchanged, a fresh
// updatedAt when it changed, both fresh when it is new. It reports whether
// anything differs from prev, removals included.
func stamp[T any](prev, next []T, now time.Time, times func(*T) (*time.Time, *time.Time), id func(*T) uuid.UUID) ([]T, bool) {
	byID := make(map[uuid.UUID]*T, len(prev))
	for i := range prev {
		byID[id(&prev[i])] = &prev[i]
	}
	out := make([]T, len(next))
	changed := len(prev) != len(next)
	for i := range next {
		out[i] = next[i]
		created, updated := times(&out[i])
		old, ok := byID[id(&out[i])]
		switch {
		case !ok:
			*created, *updated, changed = now, now, true
		case sameContent(*old, out[i], times):
			oc, ou := times(old)
			*created, *updated = *oc, *ou
		default:
			oc, _ := times(old)
			*created, *updated, changed = *oc, now, true
		}
	}
	return out, changed
}

// sameContent compares two entities ignoring their timestamps, by their
// JSON encodings; puts are rare, so clarity beats speed here. A nil and an
// empty list encode differently: package world never yields nil lists, and
// the journal keeps [] as [], so both sides always agree on that.
func sameContent[T any](a, b T, times func(*T) (*time.Time, *time.Time)) bool {
	ac, au := times(&a)
	*ac, *au = time.Time{}, time.Time{}
	bc, bu := times(&b)
	*bc, *bu = time.Time{}, time.Time{}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

func businessTimes(x *model.Business) (*time.Time, *time.Time) { return &x.CreatedAt, &x.UpdatedAt }
func keyTimes(x *model.Key) (*time.Time, *time.Time)           { return &x.CreatedAt, &x.UpdatedAt }
func categoryTimes(x *model.Category) (*time.Time, *time.Time) { return &x.CreatedAt, &x.UpdatedAt }
func serviceTimes(x *model.Service) (*time.Time, *time.Time)   { return &x.CreatedAt, &x.UpdatedAt }
func resourceTimes(x *model.Resource) (*time.Time, *time.Time) { return &x.CreatedAt, &x.UpdatedAt }
func staffTimes(x *model.Staff) (*time.Time, *time.Time)       { return &x.CreatedAt, &x.UpdatedAt }

// DecideIssue returns the record that adds key k, stamped now. An issued
// key is the operator's: world reloads keep it (putKeys).
func DecideIssue(k model.Key, now time.Time) *record.Record {
	k.CreatedAt, k.UpdatedAt = now, now
	k.Origin = model.FromAdmin
	return &record.Record{Kind: record.KindKey, Key: &record.KeyState{At: now, Key: k}}
}

// DecideRevoke returns the record that revokes key id, or nil when it is
// revoked already. An unknown id is NOT_FOUND.
func DecideRevoke(s *State, id uuid.UUID, now time.Time) (*record.Record, error) {
	for _, k := range s.Keys {
		if k.ID != id {
			continue
		}
		if k.Revoked {
			return nil, nil
		}
		k.Revoked, k.UpdatedAt = true, now
		return &record.Record{Kind: record.KindKey, Key: &record.KeyState{At: now, Key: k}}, nil
	}
	return nil, problem.New(problem.NotFound, "No such key.")
}
