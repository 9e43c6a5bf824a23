package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// The world: -businesses identical bookable businesses in UTC, each with
// its own API key, one 30-minute service and two staff members working
// 08:00-18:00 every weekday. Every id is a SHA-1 UUID of a fixed
// namespace, so two runs load the same world and book the same slots.

// namespace is the root of every id the tool writes.
var namespace = uuid.NewSHA1(uuid.NameSpaceOID, []byte("slotd/bench/cluster"))

const (
	staffPerBusiness = 2
	serviceMinutes   = 30
	dayStartHour     = 8  // staff start at 08:00 UTC
	dayEndHour       = 18 // and stop at 18:00 UTC
	slotsPerStaffDay = (dayEndHour - dayStartHour) * 60 / serviceMinutes
	slotsPerDay      = slotsPerStaffDay * staffPerBusiness
	maxAdvanceDays   = 3650 // the largest booking window a world accepts
	// maxLimit is the largest per-key quota a world accepts: no benchmark
	// request is ever refused by a quota.
	maxLimit = 1<<31 - 1
)

var keyScopes = []string{
	"appointments:read", "appointments:write", "services:read", "staff:read",
	"customers:read", "customers:write",
}

// world is the generated world and the walk of its free slots.
type world struct {
	n     int
	first time.Time // 00:00 UTC of the first Monday the walk books
}

// newWorld returns a world of n businesses whose slot walk starts on the
// first Monday at least two days after now, inside every booking window.
func newWorld(n int, now time.Time) *world {
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 2)
	for day.Weekday() != time.Monday {
		day = day.AddDate(0, 0, 1)
	}
	return &world{n: n, first: day}
}

func (w *world) id(kind string, b, i int) uuid.UUID {
	return uuid.NewSHA1(namespace, []byte(kind+"/"+strconv.Itoa(b)+"/"+strconv.Itoa(i)))
}

func (w *world) businessID(b int) uuid.UUID { return w.id("business", b, 0) }
func (w *world) serviceID(b int) uuid.UUID  { return w.id("service", b, 0) }
func (w *world) staffID(b, s int) uuid.UUID { return w.id("staff", b, s) }
func (w *world) key(b int) string           { return "sk_bench_" + strconv.Itoa(b) }
func (w *world) bearer(b int) string        { return "Bearer " + w.key(b) }

// capacity is how many distinct slots the walk has: every weekday of the
// booking window, less a week of margin, for every business.
func (w *world) capacity() int {
	weekdays := (maxAdvanceDays - 7) / 7 * 5
	return weekdays * slotsPerDay * w.n
}

// slot is the k-th slot of the walk: business k mod n, then, within the
// business, staff member, time of day and weekday. Consecutive k spread
// over every business; no two k share a slot.
func (w *world) slot(k int) (b, staff int, start time.Time) {
	b, j := k%w.n, k/w.n
	staff = j % staffPerBusiness
	t := (j / staffPerBusiness) % slotsPerStaffDay
	weekday := j / slotsPerDay
	day := w.first.AddDate(0, 0, weekday/5*7+weekday%5)
	start = day.Add(dayStartHour*time.Hour + time.Duration(t*serviceMinutes)*time.Minute)
	return b, staff, start
}

// bookingBody is the POST /api/v1/appointments body of slot k, for a
// customer shared by one client of one business.
func (w *world) bookingBody(k, client int) (b int, body []byte) {
	b, s, start := w.slot(k)
	body = fmt.Appendf(nil, `{"serviceId":"%s","staffMemberId":"%s","startTime":"%s",`+
		`"customer":{"firstName":"Bench","lastName":"Client %d","email":"c%d@b%d.bench.example"}}`,
		w.serviceID(b), w.staffID(b, s), start.Format(time.RFC3339), client, client, b)
	return b, body
}

// write writes the world file to path.
func (w *world) write(path string) error {
	businesses := make([]any, w.n)
	for b := range businesses {
		businesses[b] = w.business(b)
	}
	data, err := json.MarshalIndent(map[string]any{"businesses": businesses}, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

type object = map[string]any

func (w *world) business(b int) object {
	n := strconv.Itoa(b)
	staff := make([]object, staffPerBusiness)
	for s := range staff {
		staff[s] = w.staffMember(b, s)
	}
	return object{
		"id": w.businessID(b), "name": "Bench business " + n, "timezone": "UTC", "currency": "EUR",
		"plan": "pro", "modules": []string{"appointments", "customers"},
		"ownerEmail": "owner" + n + "@bench.example", "assignment": "least_busy", "closedDates": []string{},
		"bookingRules": object{
			"minNoticeMinutes": 0, "maxAdvanceDays": maxAdvanceDays, "slotIntervalMinutes": serviceMinutes,
			"requireExistingCustomer": false, "restrictedPeriods": []any{}, "preventGaps": false, "minGapMinutes": 30,
		},
		"payments": object{"provider": nil, "requiresPayment": false, "holdMinutes": 15, "baseUrl": "", "apiKey": ""},
		"apiKeys": []object{{
			"key": w.key(b), "scopes": keyScopes, "revoked": false, "expiresAt": nil,
			"limits": object{"perMinute": maxLimit, "perHour": maxLimit, "mutationsPerMinute": maxLimit},
		}},
		"categories": []object{{"id": w.id("category", b, 0), "name": "Everything", "parentId": nil, "position": 0}},
		"services": []object{{
			"id": w.serviceID(b), "name": "Cut", "description": nil, "durationMinutes": serviceMinutes,
			"priceCents": 3000, "isActive": true, "categoryId": w.id("category", b, 0), "paymentRequired": false,
			"depositCents": nil, "imageUrl": nil, "deleted": false, "segments": []any{}, "pricingRules": []any{},
		}},
		"staff": staff, "customers": []any{}, "appointments": []any{}, "recurringSeries": []any{},
	}
}

func (w *world) staffMember(b, s int) object {
	hours := object{}
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		hours[d] = [][2]string{{fmt.Sprintf("%02d:00", dayStartHour), fmt.Sprintf("%02d:00", dayEndHour)}}
	}
	hours["sat"], hours["sun"] = []any{}, []any{}
	return object{
		"id": w.staffID(b, s), "name": "Staff " + strconv.Itoa(s), "isActive": true, "isBookable": true,
		"assignedServiceIds": []uuid.UUID{w.serviceID(b)}, "hours": hours, "exceptions": []any{},
	}
}
