package world

import (
	"sort"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

func (b *business) readStaff(o input.Object) {
	arr, _ := o.Array("staff", input.Optional)
	b.spec.Staff = make([]model.Staff, 0, arr.Len())
	eachObject(arr, func(so input.Object) {
		b.spec.Staff = append(b.spec.Staff, b.staffMember(so))
	})
}

func (b *business) staffMember(o input.Object) model.Staff {
	s := model.Staff{IsActive: true, IsBookable: true}
	s.ID, _ = b.claim(o, b.staff, "staff member")
	s.Name, _ = o.String("name", input.Required, maxName)
	boolOr(o, "isActive", &s.IsActive)
	boolOr(o, "isBookable", &s.IsBookable)
	s.AssignedServiceIDs = b.assigned(o)
	s.Hours = b.weekHours(o)
	s.Exceptions = b.exceptions(o)
	return s
}

// assigned may name any service of the business, deleted ones included:
// the assignment is history the dashboard keeps.
func (b *business) assigned(o input.Object) []uuid.UUID {
	arr, _ := o.Array("assignedServiceIds", input.Optional)
	return distinct(b.errs, arr, func(i int) (uuid.UUID, bool) {
		id, ok := arr.UUID(i)
		if ok && !b.services[id] {
			b.errs.Add(arr.PathOf(i), problem.Invalid, msgServiceRef)
			return id, false
		}
		return id, ok
	})
}

func (b *business) weekHours(o input.Object) model.WeekHours {
	var wh model.WeekHours
	for d := range wh {
		wh[d] = []model.Span{}
	}
	ho, _ := o.Object("hours", input.Optional)
	for _, name := range dayNames {
		arr, _ := ho.Array(name, input.Optional)
		wh[model.Weekdays[name]] = b.spans(arr)
	}
	ho.Done()
	return wh
}

func (b *business) exceptions(o input.Object) []model.Exception {
	arr, _ := o.Array("exceptions", input.Optional)
	out := []model.Exception{}
	seen := map[model.Date]bool{}
	eachObject(arr, func(eo input.Object) {
		d, ok := b.date(eo, "date")
		if ok && seen[d] {
			b.errs.Add(eo.PathOf("date"), problem.Invalid, "Another exception of this staff member has this date.")
		}
		if ok {
			seen[d] = true
		}
		hours, _ := eo.Array("hours", input.Required)
		out = append(out, model.Exception{Date: d, Hours: b.spans(hours)})
	})
	return out
}

// span is a parsed span with the index it came from, kept so that overlap
// problems found after sorting still name the element the author wrote.
type span struct {
	model.Span
	at int
}

// spans reads [["09:00","12:30"], ...] and returns the spans sorted by
// start. Order in the file is free; overlap is an error because it almost
// always means a typo, and merging would hide it.
func (b *business) spans(arr input.Array) []model.Span {
	list := make([]span, 0, arr.Len())
	for i := 0; i < arr.Len(); i++ {
		if s, ok := b.spanAt(arr, i); ok {
			list = append(list, s)
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].From < list[j].From })
	out := make([]model.Span, 0, len(list))
	end := model.Clock(-1)
	for _, s := range list {
		if s.From < end {
			b.errs.Add(arr.PathOf(s.at), problem.Invalid, "Overlaps another span of the same day.")
		}
		end = max(end, s.To)
		out = append(out, s.Span)
	}
	return out
}

func (b *business) spanAt(arr input.Array, i int) (span, bool) {
	pair, ok := arr.Array(i)
	if !ok {
		return span{}, false
	}
	if pair.Len() != 2 {
		b.errs.Add(arr.PathOf(i), problem.Invalid, "Must be a pair of times of day [from, to].")
		return span{}, false
	}
	from, ok1 := b.clockAt(pair, 0)
	to, ok2 := b.clockAt(pair, 1)
	if !ok1 || !ok2 {
		return span{}, false
	}
	if from >= to {
		b.errs.Add(arr.PathOf(i), problem.Invalid, "The end must be later than the start.")
		return span{}, false
	}
	return span{model.Span{From: from, To: to}, i}, true
}
