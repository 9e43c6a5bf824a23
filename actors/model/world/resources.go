package world

import (
	"strconv"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

// readResources reads the business's resources (decisions §10): rooms,
// chairs and machines its bookings share, each with a quantity of units
// (1 to 100, default 1) and isActive (default true). They are read before
// the services, which will name them.
func (b *business) readResources(o input.Object) {
	arr, _ := o.Array("resources", input.Optional)
	b.spec.Resources = []model.Resource{}
	b.names = map[uuid.UUID]string{}
	eachObject(arr, func(ro input.Object) {
		r := model.Resource{Quantity: 1, IsActive: true}
		r.ID, _ = b.claim(ro, b.resources, "resource")
		r.Name, _ = ro.String("name", input.Required, maxName)
		intOr(ro, "quantity", 1, model.MaxResourceQuantity, &r.Quantity)
		boolOr(ro, "isActive", &r.IsActive)
		if r.IsActive {
			b.units[r.ID] = r.Quantity
		}
		b.names[r.ID] = r.Name
		b.spec.Resources = append(b.spec.Resources, r)
	})
}

// needs reads the resources a service needs, [{resourceId, quantity}]
// (decisions §10): at most 5, each an active resource of the business
// named once, quantity 1 (the default) to what the resource has.
func (b *business) needs(o input.Object) []model.ResourceNeed {
	arr, _ := o.Array("resources", input.Optional)
	if arr.Len() > model.MaxServiceResources {
		b.errs.Add(arr.Path(), problem.Invalid, "Must name at most "+strconv.Itoa(model.MaxServiceResources)+" resources.")
	}
	out := []model.ResourceNeed{}
	seen := map[uuid.UUID]bool{}
	for i := 0; i < arr.Len(); i++ {
		no, ok := arr.Object(i)
		if !ok {
			continue
		}
		n := model.ResourceNeed{Quantity: 1}
		id, idOK := no.UUID("resourceId", input.Required)
		intOr(no, "quantity", 1, model.MaxResourceQuantity, &n.Quantity)
		no.Done()
		if !idOK {
			continue
		}
		n.ResourceID = id
		have, active := b.units[id]
		switch {
		case !b.resources[id]:
			b.errs.Add(no.PathOf("resourceId"), problem.Invalid, "Must be the id of a resource of this business.")
		case !active:
			b.errs.Add(no.PathOf("resourceId"), problem.Invalid, "Must be an active resource: an inactive one cannot be booked.")
		case seen[id]:
			b.errs.Add(no.PathOf("resourceId"), problem.Invalid, msgDuplicate)
		case n.Quantity > have:
			b.errs.Add(no.PathOf("quantity"), problem.Invalid, "Must not be more than the resource's quantity.")
		default:
			seen[id] = true
			n.Name = b.names[id]
			out = append(out, n)
		}
	}
	return out
}
