package world

import (
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

// Bounds the world file enforces beyond decisions.md's explicit ones. They
// keep every number far from overflow in sums and products downstream.
const (
	maxName     = 200
	maxText     = 2000 // descriptions and notes
	maxURL      = 2000
	maxSecret   = 500 // a payment provider's API key
	maxPhone    = 50
	maxCents    = 1<<31 - 1
	maxPosition = 1_000_000
	maxDay      = 1440
	// maxShort bounds short coded strings (dates, times of day, provider):
	// longer than any valid one, so a wrong value reads as a format problem.
	maxShort = 40
)

// business reads one business object. Sections are read in dependency
// order (categories before the services that name them, and so on) so
// every reference can be checked against the ids read before it; the
// member order inside the document does not matter.
type business struct {
	errs *input.Errors
	keys map[model.KeyHash]bool // plaintext keys seen anywhere in the file
	spec model.Spec

	// Ids per kind. liveServices holds only services that are not deleted:
	// appointments and series may name only those, staff any service.
	categories   map[uuid.UUID]bool
	services     map[uuid.UUID]bool
	liveServices map[uuid.UUID]bool
	resources    map[uuid.UUID]bool
	units        map[uuid.UUID]int // each active resource's quantity
	names        map[uuid.UUID]string
	staff        map[uuid.UUID]bool
	customers    map[uuid.UUID]bool
	series       map[uuid.UUID]bool
	appointments map[uuid.UUID]bool
}

// readBusiness returns the spec and whether its id was valid. The spec is
// only meaningful when errs stays empty.
func readBusiness(o input.Object, errs *input.Errors, keys map[model.KeyHash]bool) (model.Spec, bool) {
	b := &business{
		errs: errs, keys: keys,
		categories: map[uuid.UUID]bool{}, services: map[uuid.UUID]bool{},
		liveServices: map[uuid.UUID]bool{}, resources: map[uuid.UUID]bool{}, units: map[uuid.UUID]int{}, staff: map[uuid.UUID]bool{},
		customers: map[uuid.UUID]bool{}, series: map[uuid.UUID]bool{},
		appointments: map[uuid.UUID]bool{},
	}
	idOK := b.profile(o)
	b.readKeys(o)
	b.readCategories(o)
	b.readResources(o)
	b.readServices(o)
	b.readStaff(o)
	b.readCustomers(o)
	b.readSeries(o)
	b.readAppointments(o)
	return b.spec, idOK
}

// claim reads a record's id and records it in set; a second record of the
// same kind with that id is an error at the second one.
func (b *business) claim(o input.Object, set map[uuid.UUID]bool, kind string) (uuid.UUID, bool) {
	id, ok := o.UUID("id", input.Required)
	if !ok {
		return id, false
	}
	if set[id] {
		b.errs.Add(o.PathOf("id"), problem.Invalid, "Another "+kind+" of this business has this id.")
		return id, false
	}
	set[id] = true
	return id, true
}

// ref reads a required reference that must be in set.
func (b *business) ref(o input.Object, key string, set map[uuid.UUID]bool, msg string) uuid.UUID {
	id, ok := o.UUID(key, input.Required)
	if ok && !set[id] {
		b.errs.Add(o.PathOf(key), problem.Invalid, msg)
	}
	return id
}

// optRef reads a reference that may be null or absent (nil).
func (b *business) optRef(o input.Object, key string, set map[uuid.UUID]bool, msg string) *uuid.UUID {
	id, _ := o.NullableUUID(key)
	if id != nil && !set[*id] {
		b.errs.Add(o.PathOf(key), problem.Invalid, msg)
	}
	return id
}

// Reference messages.
const (
	msgCategoryRef = "Must be the id of a category of this business."
	msgServiceRef  = "Must be the id of a service of this business."
	msgLiveService = "Must be the id of a service of this business that is not deleted."
	msgStaffRef    = "Must be the id of a staff member of this business."
	msgCustomerRef = "Must be the id of a customer of this business."
	msgSeriesRef   = "Must be the id of a recurring series of this business."
	msgDuplicate   = "Appears more than once."
)
