package world

import (
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

const (
	msgDate  = "Must be a date like 2026-12-24."
	msgClock = "Must be a time of day like 09:30 (00:00 to 24:00)."
)

// date reads a required local date member.
func (b *business) date(o input.Object, key string) (model.Date, bool) {
	s, ok := o.String(key, input.Required, maxShort)
	if !ok {
		return model.Date{}, false
	}
	return b.parseDate(o.PathOf(key), s)
}

// dateAt reads element i of arr as a local date.
func (b *business) dateAt(arr input.Array, i int) (model.Date, bool) {
	s, ok := arr.String(i, maxShort)
	if !ok {
		return model.Date{}, false
	}
	return b.parseDate(arr.PathOf(i), s)
}

func (b *business) parseDate(path, s string) (model.Date, bool) {
	d, err := model.ParseDate(s)
	if err != nil {
		b.errs.Add(path, problem.InvalidDate, msgDate)
		return model.Date{}, false
	}
	return d, true
}

// clock reads a required "HH:MM" member.
func (b *business) clock(o input.Object, key string) (model.Clock, bool) {
	s, ok := o.String(key, input.Required, maxShort)
	if !ok {
		return 0, false
	}
	return b.parseClock(s, func() string { return o.PathOf(key) })
}

// clockAt reads element i of arr as "HH:MM".
func (b *business) clockAt(arr input.Array, i int) (model.Clock, bool) {
	s, ok := arr.String(i, maxShort)
	if !ok {
		return 0, false
	}
	return b.parseClock(s, func() string { return arr.PathOf(i) })
}

// parseClock parses s; path is only asked for a problem, as building
// paths was a tenth of the bytes a world file's reading allocated.
func (b *business) parseClock(s string, path func() string) (model.Clock, bool) {
	c, err := model.ParseClock(s)
	if err != nil {
		b.errs.Add(path(), problem.InvalidFormat, msgClock)
		return 0, false
	}
	return c, true
}
