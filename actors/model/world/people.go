package world

import (
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/calendar"
	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/model/input"
	"github.com/slotd/slotd/actors/problem"
)

// statuses are the appointment statuses a world file may declare.
var statuses = model.Statuses.Strings()

func (b *business) readCustomers(o input.Object) {
	arr, _ := o.Array("customers", input.Optional)
	b.spec.Customers = make([]model.Customer, 0, arr.Len())
	b.customers = make(map[uuid.UUID]bool, arr.Len())
	emails := map[string]bool{} // lower-cased: the API dedups addresses case-insensitively
	eachObject(arr, func(co input.Object) {
		c := model.Customer{}
		c.ID, _ = b.claim(co, b.customers, "customer")
		c.FirstName, _ = co.String("firstName", input.Required, maxName)
		c.LastName, _ = co.String("lastName", input.Optional, maxName)
		var ok bool
		if c.Email, ok = co.Email("email", input.Required); ok {
			key := strings.ToLower(c.Email)
			if emails[key] {
				b.errs.Add(co.PathOf("email"), problem.Invalid, "Another customer of this business has this e-mail address.")
			}
			emails[key] = true
		}
		c.Phone, _ = co.String("phone", input.Optional, maxPhone)
		b.spec.Customers = append(b.spec.Customers, c)
	})
}

// readSeries runs before readAppointments so occurrences can name their series.
func (b *business) readSeries(o input.Object) {
	arr, _ := o.Array("recurringSeries", input.Optional)
	b.spec.Series = make([]model.Series, 0, arr.Len())
	eachObject(arr, func(so input.Object) {
		s := model.Series{}
		s.ID, _ = b.claim(so, b.series, "recurring series")
		s.CustomerID = b.ref(so, "customerId", b.customers, msgCustomerRef)
		s.ServiceID = b.ref(so, "serviceId", b.liveServices, msgLiveService)
		s.StaffMemberID = b.optRef(so, "staffMemberId", b.staff, msgStaffRef)
		var r calendar.Rule
		if rule, ok := so.String("rule", input.Required, calendar.MaxRuleLen); ok {
			var err error
			if r, err = calendar.ParseRule(rule); err != nil {
				b.errs.Add(so.PathOf("rule"), problem.InvalidFormat,
					"Must be a recurrence rule like FREQ=WEEKLY;BYDAY=TU;COUNT=6 (FREQ, INTERVAL, BYDAY, COUNT or UNTIL).")
			}
			s.Rule = rule
		}
		var ok bool
		if s.FirstStart, ok = so.Time("firstStart", input.Required); ok && len(r.ByDay) > 0 {
			if loc, err := model.Zone(b.spec.Business.Timezone); err == nil && !slices.Contains(r.ByDay, s.FirstStart.In(loc).Weekday()) {
				b.errs.Add(so.PathOf("firstStart"), problem.Invalid, "Must fall on one of the rule's BYDAY days, in the business's time zone.")
			}
		}
		b.spec.Series = append(b.spec.Series, s)
	})
}

func (b *business) readAppointments(o input.Object) {
	arr, _ := o.Array("appointments", input.Optional)
	b.spec.Appointments = make([]model.WorldAppointment, 0, arr.Len())
	b.appointments = make(map[uuid.UUID]bool, arr.Len())
	eachObject(arr, func(ao input.Object) {
		b.spec.Appointments = append(b.spec.Appointments, b.appointment(ao))
	})
}

func (b *business) appointment(o input.Object) model.WorldAppointment {
	a := model.WorldAppointment{}
	var ok bool
	// A series id is never an appointment (a series fetched as an
	// appointment is a 404), so the two share one id space.
	if a.ID, ok = b.claim(o, b.appointments, "appointment"); ok && b.series[a.ID] {
		b.errs.Add(o.PathOf("id"), problem.Invalid, "A recurring series of this business has this id.")
	}
	a.CustomerID = b.ref(o, "customerId", b.customers, msgCustomerRef)
	a.ServiceID = b.ref(o, "serviceId", b.liveServices, msgLiveService)
	a.StaffMemberID = b.optRef(o, "staffMemberId", b.staff, msgStaffRef)
	a.StartTime, _ = o.Time("startTime", input.Required)
	a.Status, _ = o.Option("status", input.Required, statuses...)
	a.Notes, _ = o.NullableString("notes", maxText)
	a.RecurringSeriesID = b.optRef(o, "recurringSeriesId", b.series, msgSeriesRef)
	a.IsRecurringOccurrence, _ = o.Bool("isRecurringOccurrence", input.Optional)
	return a
}
