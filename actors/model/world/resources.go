package world

import (
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
)

// readResources reads the business's resources (decisions §10): rooms,
// chairs and machines its bookings share, each with a quantity of units
// (1 to 100, default 1) and isActive (default true). They are read before
// the services, which will name them.
func (b *business) readResources(o input.Object) {
	arr, _ := o.Array("resources", input.Optional)
	b.spec.Resources = []model.Resource{}
	eachObject(arr, func(ro input.Object) {
		r := model.Resource{Quantity: 1, IsActive: true}
		r.ID, _ = b.claim(ro, b.resources, "resource")
		r.Name, _ = ro.String("name", input.Required, maxName)
		intOr(ro, "quantity", 1, model.MaxResourceQuantity, &r.Quantity)
		boolOr(ro, "isActive", &r.IsActive)
		b.spec.Resources = append(b.spec.Resources, r)
	})
}
