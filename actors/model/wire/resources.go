package wire

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/slotd/slotd/actors/model"
	"github.com/slotd/slotd/actors/problem"
)

// AppendMe appends the GET /me body (decisions §3).
func AppendMe(b []byte, biz *model.Business, k *model.Key) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, biz.ID)
	b = AppendKey(b, "name")
	b = AppendString(b, biz.Name)
	b = AppendKey(b, "timezone")
	b = AppendString(b, biz.Timezone)
	b = AppendKey(b, "currency")
	b = AppendString(b, biz.Currency)
	b = AppendKey(b, "plan")
	b = AppendString(b, string(biz.Plan))
	b = AppendKey(b, "scopes")
	b = AppendStrings(b, k.Scopes)
	return append(b, '}')
}

// AppendService appends a service; detail adds its pricing rules.
func AppendService(b []byte, s *model.Service, detail bool) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, s.ID)
	b = AppendKey(b, "name")
	b = AppendString(b, s.Name)
	b = AppendKey(b, "description")
	b = AppendNullString(b, s.Description)
	b = AppendKey(b, "durationMinutes")
	b = AppendInt(b, s.DurationMinutes)
	b = AppendKey(b, "priceCents")
	b = AppendInt(b, s.PriceCents)
	b = AppendKey(b, "isActive")
	b = AppendBool(b, s.IsActive)
	b = AppendKey(b, "categoryId")
	b = AppendUUID(b, s.CategoryID)
	b = AppendKey(b, "paymentRequired")
	b = AppendBool(b, s.PaymentRequired)
	b = AppendKey(b, "depositCents")
	b = AppendNullInt(b, s.DepositCents)
	b = AppendKey(b, "imageUrl")
	b = AppendNullString(b, s.ImageURL)
	b = AppendKey(b, "segments")
	b = appendSegmentTemplates(b, s.Segments)
	b = AppendKey(b, "bufferBeforeMinutes")
	b = AppendInt(b, s.BufferBeforeMinutes)
	b = AppendKey(b, "bufferAfterMinutes")
	b = AppendInt(b, s.BufferAfterMinutes)
	b = AppendKey(b, "bookingLimits")
	var lim model.BookingLimits
	if s.Limits != nil {
		lim = *s.Limits
	}
	b = append(b, '{')
	b = AppendKey(b, "perDay")
	b = AppendNullInt(b, lim.PerDay)
	b = AppendKey(b, "perWeek")
	b = AppendNullInt(b, lim.PerWeek)
	b = append(b, '}')
	b = AppendKey(b, "capacity")
	b = AppendInt(b, s.Seats())
	b = AppendKey(b, "timetable")
	b = appendTimetable(b, s.Timetable)
	b = AppendKey(b, "repeatWeeks")
	if s.RepeatWeeks > 1 {
		b = AppendInt(b, s.RepeatWeeks)
	} else {
		b = append(b, "null"...)
	}
	b = AppendKey(b, "resources")
	b = appendNeeds(b, s.Resources, false)
	if detail {
		b = AppendKey(b, "pricingRules")
		b = appendPricingRules(b, s.PricingRules)
	}
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, s.CreatedAt)
	b = AppendKey(b, "updatedAt")
	b = AppendTime(b, s.UpdatedAt)
	return append(b, '}')
}

func appendSegmentTemplates(b []byte, segs []model.SegmentTemplate) []byte {
	b = append(b, '[')
	for i, sg := range segs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = AppendKey(b, "position")
		b = AppendInt(b, i)
		b = AppendKey(b, "kind")
		b = AppendString(b, string(sg.Kind))
		b = AppendKey(b, "durationMinutes")
		b = AppendInt(b, sg.DurationMinutes)
		b = AppendKey(b, "label")
		b = AppendNullString(b, sg.Label)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendPricingRules(b []byte, rules []model.PricingRule) []byte {
	b = append(b, '[')
	for i, r := range rules {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = AppendKey(b, "days")
		b = append(b, '[')
		for j, d := range r.Days {
			if j > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, model.DayName(d))
		}
		b = append(b, ']')
		b = AppendKey(b, "from")
		b = append(r.From.Append(append(b, '"')), '"') // digits and a colon: nothing to escape
		b = AppendKey(b, "to")
		b = append(r.To.Append(append(b, '"')), '"')
		b = AppendKey(b, "priceCents")
		b = AppendInt(b, r.PriceCents)
		b = append(b, '}')
	}
	return append(b, ']')
}

// AppendCategory appends a service category.
func AppendCategory(b []byte, c *model.Category) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, c.ID)
	b = AppendKey(b, "name")
	b = AppendString(b, c.Name)
	b = AppendKey(b, "parentId")
	b = AppendNullUUID(b, c.ParentID)
	b = AppendKey(b, "position")
	b = AppendInt(b, c.Position)
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, c.CreatedAt)
	b = AppendKey(b, "updatedAt")
	b = AppendTime(b, c.UpdatedAt)
	return append(b, '}')
}

// AppendResource appends a resource (decisions §10).
func AppendResource(b []byte, r *model.Resource) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, r.ID)
	b = AppendKey(b, "name")
	b = AppendString(b, r.Name)
	b = AppendKey(b, "quantity")
	b = AppendInt(b, r.Quantity)
	b = AppendKey(b, "isActive")
	b = AppendBool(b, r.IsActive)
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, r.CreatedAt)
	b = AppendKey(b, "updatedAt")
	b = AppendTime(b, r.UpdatedAt)
	return append(b, '}')
}

// AppendStaff appends a staff member.
func AppendStaff(b []byte, s *model.Staff) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, s.ID)
	b = AppendKey(b, "name")
	b = AppendString(b, s.Name)
	b = AppendKey(b, "isActive")
	b = AppendBool(b, s.IsActive)
	b = AppendKey(b, "isBookable")
	b = AppendBool(b, s.IsBookable)
	b = AppendKey(b, "assignedServiceIds")
	b = append(b, '[')
	for i, id := range s.AssignedServiceIDs {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendUUID(b, id)
	}
	b = append(b, ']')
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, s.CreatedAt)
	b = AppendKey(b, "updatedAt")
	b = AppendTime(b, s.UpdatedAt)
	return append(b, '}')
}

// AppendCustomer appends the standalone customer (decisions §3).
func AppendCustomer(b []byte, c *model.Customer) []byte {
	b = appendPerson(append(b, '{'), c)
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, c.CreatedAt)
	b = AppendKey(b, "updatedAt")
	b = AppendTime(b, c.UpdatedAt)
	return append(b, '}')
}

// AppendAppointment appends an appointment (api-v1 §2.1) embedding cu, its
// customer (nil: only the id is known).
func AppendAppointment(b []byte, a *model.Appointment, cu *model.Customer) []byte {
	return AppendAppointmentLinked(b, a, cu, "")
}

// AppendAppointmentLinked appends a as AppendAppointment does, with
// manageUrl, the customer's manage link (decisions §7), when it is not "":
// the API's answers and webhook payloads carry it (integrators send their
// own e-mails with it).
func AppendAppointmentLinked(b []byte, a *model.Appointment, cu *model.Customer, manageURL string) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, a.ID)
	b = AppendKey(b, "status")
	b = AppendString(b, string(a.Status))
	b = AppendKey(b, "startTime")
	b = AppendTime(b, a.StartTime)
	b = AppendKey(b, "endTime")
	b = AppendTime(b, a.EndTime)
	b = AppendKey(b, "notes")
	b = AppendNullString(b, a.Notes)
	b = AppendKey(b, "bookingReference")
	b = AppendNullString(b, a.BookingReference)
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, a.CreatedAt)
	b = AppendKey(b, "updatedAt")
	b = AppendTime(b, a.UpdatedAt)
	b = AppendKey(b, "version")
	b = AppendInt(b, a.Version)
	b = AppendKey(b, "customer")
	b = appendEmbeddedCustomer(b, a.CustomerID, cu)
	b = AppendKey(b, "service")
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, a.Service.ID)
	b = AppendKey(b, "name")
	b = AppendString(b, a.Service.Name)
	b = AppendKey(b, "durationMinutes")
	b = AppendInt(b, a.Service.DurationMinutes)
	b = AppendKey(b, "priceCents")
	b = AppendInt(b, a.Service.PriceCents)
	b = append(b, '}')
	b = AppendKey(b, "staffMember")
	if a.Staff == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		b = AppendKey(b, "id")
		b = AppendUUID(b, a.Staff.ID)
		b = AppendKey(b, "name")
		b = AppendString(b, a.Staff.Name)
		b = append(b, '}')
	}
	b = AppendKey(b, "basePriceCents")
	b = AppendNullInt(b, a.BasePriceCents)
	b = AppendKey(b, "totalPriceCents")
	b = AppendNullInt(b, a.TotalPriceCents)
	b = AppendKey(b, "depositCents")
	b = AppendNullInt(b, a.DepositCents)
	b = AppendKey(b, "currency")
	b = AppendString(b, a.Currency)
	b = AppendKey(b, "recurringSeriesId")
	b = AppendNullUUID(b, a.RecurringSeriesID)
	b = AppendKey(b, "isRecurringOccurrence")
	b = AppendBool(b, a.IsRecurringOccurrence)
	b = AppendKey(b, "basketId")
	b = AppendNullUUID(b, a.BasketID)
	b = AppendKey(b, "segments")
	b = appendSegments(b, a.Segments)
	b = AppendKey(b, "bufferBeforeMinutes")
	b = AppendInt(b, a.Buffers.Before)
	b = AppendKey(b, "bufferAfterMinutes")
	b = AppendInt(b, a.Buffers.After)
	b = AppendKey(b, "resources")
	b = appendNeeds(b, a.Resources, true)
	b = AppendKey(b, "session")
	if s := a.Session; s != nil {
		b = append(b, `{"capacity":`...)
		b = AppendInt(b, s.Capacity)
		b = append(b, `,"seatsTaken":`...)
		b = AppendInt(b, s.SeatsTaken)
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = AppendKey(b, "metadata")
	b = AppendStringMap(b, a.Metadata)
	if manageURL != "" {
		b = AppendKey(b, "manageUrl")
		b = AppendString(b, manageURL)
	}
	return append(b, '}')
}

// AppendStringMap appends m as a JSON object, its keys sorted so that the
// same map always reads the same ({} when empty).
func AppendStringMap(b []byte, m map[string]string) []byte {
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(AppendString(b, k), ':') // quoted: AppendKey trusts its keys
		b = AppendString(b, m[k])
	}
	return append(b, '}')
}

func appendEmbeddedCustomer(b []byte, id uuid.UUID, c *model.Customer) []byte {
	if c == nil {
		c = &model.Customer{ID: id}
	}
	return append(appendPerson(append(b, '{'), c), '}')
}

// appendPerson appends the members the embedded and standalone customer
// share.
func appendPerson(b []byte, c *model.Customer) []byte {
	b = AppendKey(b, "id")
	b = AppendUUID(b, c.ID)
	b = AppendKey(b, "firstName")
	b = AppendString(b, c.FirstName)
	b = AppendKey(b, "lastName")
	b = AppendString(b, c.LastName)
	b = AppendKey(b, "email")
	b = AppendString(b, c.Email)
	b = AppendKey(b, "phone")
	return AppendString(b, c.Phone)
}

func appendSegments(b []byte, segs []model.Segment) []byte {
	b = append(b, '[')
	for i := range segs {
		sg := &segs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = AppendKey(b, "id")
		b = AppendUUID(b, sg.ID)
		b = AppendKey(b, "position")
		b = AppendInt(b, sg.Position)
		b = AppendKey(b, "kind")
		b = AppendString(b, string(sg.Kind))
		b = AppendKey(b, "startTime")
		b = AppendTime(b, sg.StartTime)
		b = AppendKey(b, "endTime")
		b = AppendTime(b, sg.EndTime)
		b = AppendKey(b, "staffMemberId")
		b = AppendNullUUID(b, sg.StaffMemberID)
		b = AppendKey(b, "label")
		b = AppendNullString(b, sg.Label)
		b = append(b, '}')
	}
	return append(b, ']')
}

// AppendError appends the api-v1 §7.1 body of e.
func AppendError(b []byte, e *problem.Error) []byte {
	b = append(b, '{')
	b = AppendKey(b, "error")
	b = AppendString(b, e.Message)
	b = AppendKey(b, "code")
	b = AppendString(b, string(e.Code))
	if e.Code == problem.Validation || len(e.Fields) > 0 {
		b = AppendKey(b, "fields")
		b = appendFields(b, e.Fields)
	}
	if e.Scope != "" {
		b = AppendKey(b, "scope")
		b = AppendString(b, e.Scope)
	}
	if e.RequiredPlan != "" {
		b = AppendKey(b, "requiredPlan")
		b = AppendString(b, e.RequiredPlan)
	}
	if e.Code == problem.SeriesConflict {
		b = AppendKey(b, "conflicts")
		b = append(b, '[')
		for i, c := range e.Conflicts {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"startTime":`...)
			b = AppendTime(b, c.StartTime)
			b = append(b, `,"code":`...)
			b = AppendString(b, string(c.Code))
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendFields(b []byte, fs []problem.Field) []byte {
	b = append(b, '[')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = AppendKey(b, "path")
		b = AppendString(b, f.Path)
		b = AppendKey(b, "reason")
		b = AppendString(b, string(f.Reason))
		b = AppendKey(b, "message")
		b = AppendString(b, f.Message)
		if f.Limit != nil {
			b = AppendKey(b, "limit")
			b = strconv.AppendInt(b, *f.Limit, 10)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// AppendEndpoint appends a webhook endpoint (api-v1 §2.6); the secret only
// when withSecret, which is only in the answer to its registration.
func AppendEndpoint(b []byte, e *model.Endpoint, withSecret bool) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, e.ID)
	b = AppendKey(b, "url")
	b = AppendString(b, e.URL)
	b = AppendKey(b, "eventTypes")
	b = AppendStrings(b, e.EventTypes)
	b = AppendKey(b, "description")
	b = AppendString(b, e.Description)
	b = AppendKey(b, "isActive")
	b = AppendBool(b, e.IsActive)
	b = AppendKey(b, "status")
	b = AppendString(b, e.Status)
	b = AppendKey(b, "payloadStyle")
	b = AppendString(b, e.PayloadStyle)
	b = AppendKey(b, "consecutiveFailures")
	b = AppendInt(b, e.ConsecutiveFailures)
	if withSecret {
		b = AppendKey(b, "secret")
		b = AppendString(b, e.Secret)
	}
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, e.CreatedAt)
	b = AppendKey(b, "updatedAt")
	b = AppendTime(b, e.UpdatedAt)
	return append(b, '}')
}

// AppendDelivery appends a webhook delivery record (api-v1 §2.7). Absent
// response status, body, error, retry and delivery times are null.
func AppendDelivery(b []byte, d *model.Delivery) []byte {
	b = append(b, '{')
	b = AppendKey(b, "id")
	b = AppendUUID(b, d.ID)
	b = AppendKey(b, "endpointId")
	b = AppendUUID(b, d.EndpointID)
	b = AppendKey(b, "eventId")
	b = AppendString(b, d.EventID)
	b = AppendKey(b, "eventType")
	b = AppendString(b, d.EventType)
	b = AppendKey(b, "status")
	b = AppendString(b, d.Status)
	b = AppendKey(b, "attempt")
	b = AppendInt(b, d.Attempt)
	b = AppendKey(b, "responseStatus")
	if d.ResponseStatus == 0 {
		b = append(b, "null"...)
	} else {
		b = AppendInt(b, d.ResponseStatus)
	}
	b = AppendKey(b, "responseBody")
	b = AppendNullString(b, d.ResponseBody)
	b = AppendKey(b, "errorMessage")
	if d.ErrorMessage == "" {
		b = append(b, "null"...)
	} else {
		b = AppendString(b, d.ErrorMessage)
	}
	b = AppendKey(b, "durationMs")
	b = strconv.AppendInt(b, d.DurationMs, 10)
	b = AppendKey(b, "nextRetryAt")
	b = appendZeroNullTime(b, d.NextRetryAt)
	b = AppendKey(b, "deliveredAt")
	b = appendZeroNullTime(b, d.DeliveredAt)
	b = AppendKey(b, "payload")
	if len(d.Payload) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, d.Payload...)
	}
	b = AppendKey(b, "createdAt")
	b = AppendTime(b, d.CreatedAt)
	return append(b, '}')
}

func appendZeroNullTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	return AppendTime(b, t)
}

// appendTimetable appends a service's timetable as the world file writes
// it, every day from mon to sun (an empty list: not offered that day), or
// null when the service follows the slot grid.
func appendTimetable(b []byte, t *model.Timetable) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for _, d := range [...]time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday, time.Sunday} {
		b = AppendKey(b, model.DayName(d))
		b = append(b, '[')
		for j, c := range t[d] {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = c.Append(b)
			b = append(b, '"')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendNeeds appends the resources a service needs ({resourceId,
// quantity}) or, taken, an appointment takes ({id, name, quantity}).
func appendNeeds(b []byte, ns []model.ResourceNeed, taken bool) []byte {
	b = append(b, '[')
	for i, n := range ns {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		if taken {
			b = AppendKey(b, "id")
			b = AppendUUID(b, n.ResourceID)
			b = AppendKey(b, "name")
			b = AppendString(b, n.Name)
		} else {
			b = AppendKey(b, "resourceId")
			b = AppendUUID(b, n.ResourceID)
		}
		b = AppendKey(b, "quantity")
		b = AppendInt(b, n.Quantity)
		b = append(b, '}')
	}
	return append(b, ']')
}
