package world

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

func (b *business) readCategories(o input.Object) {
	arr, _ := o.Array("categories", input.Optional)
	b.spec.Categories = []model.Category{}
	var parentPaths []string // parallel to b.spec.Categories
	eachObject(arr, func(co input.Object) {
		c := model.Category{}
		c.ID, _ = b.claim(co, b.categories, "category")
		c.Name, _ = co.String("name", input.Required, maxName)
		c.ParentID, _ = co.NullableUUID("parentId")
		intOr(co, "position", 0, maxPosition, &c.Position)
		b.spec.Categories = append(b.spec.Categories, c)
		parentPaths = append(parentPaths, co.PathOf("parentId"))
	})
	b.checkParents(parentPaths)
}

// checkParents runs once every category is known, because a parent may
// come after its child in the list.
func (b *business) checkParents(paths []string) {
	parent := map[uuid.UUID]uuid.UUID{}
	for _, c := range b.spec.Categories {
		if _, seen := parent[c.ID]; c.ParentID != nil && !seen {
			parent[c.ID] = *c.ParentID
		}
	}
	for i, c := range b.spec.Categories {
		switch {
		case c.ParentID == nil:
		case !b.categories[*c.ParentID]:
			b.errs.Add(paths[i], problem.Invalid, "Must be the id of another category of this business.")
		case onCycle(c.ID, parent, len(b.spec.Categories)):
			b.errs.Add(paths[i], problem.Invalid, "Must not make the category its own ancestor.")
		}
	}
}

// onCycle reports whether following parents from id leads back to id.
// Any walk longer than n steps has repeated a category, so n bounds it.
func onCycle(id uuid.UUID, parent map[uuid.UUID]uuid.UUID, n int) bool {
	cur := id
	for step := 0; step <= n; step++ {
		p, ok := parent[cur]
		if !ok {
			return false
		}
		if p == id {
			return true
		}
		cur = p
	}
	return false
}

func (b *business) readServices(o input.Object) {
	arr, _ := o.Array("services", input.Optional)
	b.spec.Services = []model.Service{}
	eachObject(arr, func(so input.Object) {
		b.spec.Services = append(b.spec.Services, b.service(so))
	})
}

func (b *business) service(o input.Object) model.Service {
	s := model.Service{IsActive: true}
	id, idOK := b.claim(o, b.services, "service")
	s.ID = id
	s.Name, _ = o.String("name", input.Required, maxName)
	s.Description, _ = o.NullableString("description", maxText)
	duration, durationOK := o.Int("durationMinutes", input.Required, 1, maxDay)
	s.DurationMinutes = duration
	s.PriceCents, _ = o.Int("priceCents", input.Required, 0, maxCents)
	boolOr(o, "isActive", &s.IsActive)
	s.CategoryID = b.ref(o, "categoryId", b.categories, msgCategoryRef)
	s.PaymentRequired, _ = o.Bool("paymentRequired", input.Optional)
	s.DepositCents, _ = o.NullableInt("depositCents", 0, maxCents)
	s.ImageURL, _ = o.NullableString("imageUrl", maxURL)
	s.Deleted, _ = o.Bool("deleted", input.Optional)
	s.Segments = b.segments(o, duration, durationOK)
	s.PricingRules = b.pricingRules(o)
	s.BufferBeforeMinutes, _ = o.Int("bufferBeforeMinutes", input.Optional, 0, model.MaxBufferMinutes)
	s.BufferAfterMinutes, _ = o.Int("bufferAfterMinutes", input.Optional, 0, model.MaxBufferMinutes)
	if lo, ok := o.Object("bookingLimits", input.Optional); ok {
		s.Limits = &model.BookingLimits{PerDay: limit(lo, "perDay"), PerWeek: limit(lo, "perWeek")}
		lo.Done()
	}
	s.Timetable = b.timetable(o)
	// A class (decisions §10): 1, the default, is kept as 0, so that a
	// file that spells it out puts the same service as one that does not.
	if c, _ := o.Int("capacity", input.Optional, 1, model.MaxCapacity); c > 1 {
		s.Capacity = c
	}
	// "Repeat weekly" on the booking page (decisions §11): null or
	// absent, not offered; else the most weeks, 2 to 52.
	if n, ok := o.NullableInt("repeatWeeks", 2, model.MaxRepeatWeeks); ok && n != nil {
		s.RepeatWeeks = *n
	}
	if s.Resources = b.needs(o); len(s.Resources) == 0 {
		s.Resources = nil
	}
	if idOK && !s.Deleted {
		b.liveServices[id] = true
	}
	return s
}

// timetable reads a service's start times, {"mon": ["18:00", ...], ...}
// (decisions §10); absent or null: the service follows the slot grid.
func (b *business) timetable(o input.Object) *model.Timetable {
	to, ok := o.NullableObject("timetable")
	if !ok {
		return nil
	}
	var t model.Timetable
	n, before := 0, b.errs.Len()
	for _, name := range dayNames {
		arr, _ := to.Array(name, input.Optional)
		if arr.Len() > model.MaxTimetableTimes {
			b.errs.Add(arr.Path(), problem.Invalid, "Must list at most 48 start times.")
		}
		day := distinct(b.errs, arr, func(i int) (model.Clock, bool) { return b.startAt(arr, i) })
		slices.Sort(day)
		t[model.Weekdays[name]] = day
		n += len(day)
	}
	if n == 0 && b.errs.Len() == before {
		b.errs.Add(o.PathOf("timetable"), problem.Invalid, "Must list at least one start time; leave timetable out to offer the slot grid.")
	}
	to.Done()
	return &t
}

// startAt reads element i of arr as a start time of day, "HH:MM" from
// 00:00 to 23:59.
func (b *business) startAt(arr input.Array, i int) (model.Clock, bool) {
	c, ok := b.clockAt(arr, i)
	if ok && c >= 24*60 {
		b.errs.Add(arr.PathOf(i), problem.InvalidFormat, "Must be a start time of day from 00:00 to 23:59.")
		return 0, false
	}
	return c, ok
}

// segments reads a service's footprint. The sum and active-segment rules
// are judged only when every segment and the duration read cleanly, so a
// typo in one segment is not also reported as a wrong total.
func (b *business) segments(o input.Object, duration int, durationOK bool) []model.SegmentTemplate {
	arr, _ := o.Array("segments", input.Optional)
	segs := []model.SegmentTemplate{}
	before := b.errs.Len()
	eachObject(arr, func(so input.Object) {
		kind, _ := so.Option("kind", input.Required, string(model.Active), string(model.Gap))
		d, _ := so.Int("durationMinutes", input.Required, 1, maxDay)
		label, _ := so.NullableString("label", maxName)
		segs = append(segs, model.SegmentTemplate{Kind: model.SegmentKind(kind), DurationMinutes: d, Label: label})
	})
	if len(segs) != arr.Len() || b.errs.Len() != before || len(segs) == 0 || !durationOK {
		return segs
	}
	sum, active := 0, false
	for _, s := range segs {
		sum += s.DurationMinutes
		active = active || s.Kind == model.Active
	}
	if sum != duration {
		b.errs.Add(arr.Path(), problem.Invalid, "The segments' durations must add up to durationMinutes.")
	}
	if !active {
		b.errs.Add(arr.Path(), problem.Invalid, "Must include at least one active segment.")
	}
	return segs
}

func (b *business) pricingRules(o input.Object) []model.PricingRule {
	arr, _ := o.Array("pricingRules", input.Optional)
	rules := []model.PricingRule{}
	eachObject(arr, func(ro input.Object) {
		r := model.PricingRule{Days: b.days(ro)}
		from, ok1 := b.clock(ro, "from")
		to, ok2 := b.clock(ro, "to")
		if ok1 && ok2 && from >= to {
			b.errs.Add(ro.PathOf("to"), problem.Invalid, "Must be later than from.")
		}
		r.From, r.To = from, to
		r.PriceCents, _ = ro.Int("priceCents", input.Required, 0, maxCents)
		rules = append(rules, r)
	})
	return rules
}

// dayNames are the world file's weekday names, in the order messages list them.
var dayNames = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

func (b *business) days(o input.Object) []time.Weekday {
	arr, ok := o.Array("days", input.Required)
	days := []time.Weekday{}
	if ok && arr.Len() == 0 {
		b.errs.Add(arr.Path(), problem.Required, "Must name at least one day.")
	}
	for _, d := range b.distinctOptions(arr, dayNames) {
		days = append(days, model.Weekdays[d])
	}
	return days
}

// distinctOptions returns the members of arr, each one of allowed, reporting
// values outside allowed and repeats at their index.
func (b *business) distinctOptions(arr input.Array, allowed []string) []string {
	return distinct(b.errs, arr, func(i int) (string, bool) { return arr.Option(i, allowed...) })
}

// distinct returns the members of arr that read (which reports what is
// wrong with a member and says false) accepts, in order, with every one
// that repeats an earlier one reported at its index and left out. Never
// nil: an absent list is an empty one.
func distinct[T comparable](errs *input.Errors, arr input.Array, read func(i int) (T, bool)) []T {
	out := []T{}
	seen := map[T]bool{}
	for i := 0; i < arr.Len(); i++ {
		v, ok := read(i)
		switch {
		case !ok:
		case seen[v]:
			errs.Add(arr.PathOf(i), problem.Invalid, msgDuplicate)
		default:
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
