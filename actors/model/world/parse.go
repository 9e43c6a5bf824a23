package world

import (
	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

// Parse reads a whole world file, {"businesses": [...]}. It returns the
// businesses in file order, or nil and an *Error listing every problem.
func Parse(data []byte) ([]model.Spec, error) {
	var errs input.Errors
	root, ok := input.ParseObject(data, &errs)
	if !ok {
		return nil, newError(&errs)
	}
	seenKeys := map[model.KeyHash]bool{}
	seenIDs := map[uuid.UUID]bool{}
	list, _ := root.Array("businesses", input.Required)
	specs := make([]model.Spec, 0, list.Len())
	eachObject(list, func(o input.Object) {
		spec, idOK := readBusiness(o, &errs, seenKeys)
		if idOK && seenIDs[spec.Business.ID] {
			errs.Add(o.PathOf("id"), problem.Invalid, "Another business in the file has this id.")
		}
		if idOK {
			seenIDs[spec.Business.ID] = true
		}
		specs = append(specs, spec)
	})
	root.Done()
	if !errs.Empty() {
		return nil, newError(&errs)
	}
	return specs, nil
}

// ParseBusiness reads one business object, as found in the businesses
// array, with the same rules as Parse; paths are relative to the object.
func ParseBusiness(data []byte) (model.Spec, error) {
	var errs input.Errors
	o, ok := input.ParseObject(data, &errs)
	if !ok {
		return model.Spec{}, newError(&errs)
	}
	spec, _ := readBusiness(o, &errs, map[model.KeyHash]bool{})
	o.Done()
	if !errs.Empty() {
		return model.Spec{}, newError(&errs)
	}
	return spec, nil
}

// eachObject calls fn with every element of a that is an object and then
// reports the element's unread members, so no section can forget Done.
func eachObject(a input.Array, fn func(o input.Object)) {
	for i := 0; i < a.Len(); i++ {
		if o, ok := a.Object(i); ok {
			fn(o)
			o.Done()
		}
	}
}
