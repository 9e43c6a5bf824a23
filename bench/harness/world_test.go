package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testNow = time.Date(2026, 11, 24, 15, 4, 5, 0, time.UTC) // a Tuesday

func testLayout(t *testing.T, spec WorldSpec) *layout {
	t.Helper()
	if spec.Now.IsZero() {
		spec.Now = testNow
	}
	l, err := newLayout(spec)
	require.NoError(t, err)
	return l
}

func smallSpec() WorldSpec {
	return WorldSpec{Tag: "main", Businesses: 3, Staff: 4, Appointments: 90, Customers: 5, WindowDays: 10, Seed: 1}
}

// decoded is the part of a world file the tests look at.
type decoded struct {
	Businesses []struct {
		ID      string `json:"id"`
		APIKeys []struct {
			Key    string         `json:"key"`
			Limits map[string]int `json:"limits"`
		} `json:"apiKeys"`
		Services []struct {
			ID              string `json:"id"`
			DurationMinutes int    `json:"durationMinutes"`
		} `json:"services"`
		Staff []struct {
			ID                 string                `json:"id"`
			AssignedServiceIDs []string              `json:"assignedServiceIds"`
			Hours              map[string][][]string `json:"hours"`
		} `json:"staff"`
		Customers []struct {
			ID    string `json:"id"`
			Email string `json:"email"`
		} `json:"customers"`
		Appointments []struct {
			ID            string    `json:"id"`
			CustomerID    string    `json:"customerId"`
			ServiceID     string    `json:"serviceId"`
			StaffMemberID string    `json:"staffMemberId"`
			StartTime     time.Time `json:"startTime"`
			Status        string    `json:"status"`
		} `json:"appointments"`
	} `json:"businesses"`
}

func writeAndDecode(t *testing.T, l *layout) ([]byte, decoded) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, writeWorld(&buf, l))
	var w decoded
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	require.NoError(t, dec.Decode(&w), "the world file is JSON")
	return buf.Bytes(), w
}

func TestWorldFile(t *testing.T) {
	l := testLayout(t, smallSpec())
	_, w := writeAndDecode(t, l)
	require.Len(t, w.Businesses, 3)
	ids := map[string]bool{}
	unique := func(id string) {
		t.Helper()
		require.Len(t, id, 36)
		require.False(t, ids[id], "id %s used twice", id)
		ids[id] = true
	}
	for b, biz := range w.Businesses {
		unique(biz.ID)
		assert.Equal(t, l.businesses[b].String(), biz.ID)
		require.Len(t, biz.APIKeys, 1)
		assert.Equal(t, l.keys[b], biz.APIKeys[0].Key)
		assert.Equal(t, map[string]int{"perMinute": maxLimit, "perHour": maxLimit, "mutationsPerMinute": maxLimit}, biz.APIKeys[0].Limits)
		require.Len(t, biz.Services, len(services))
		for v, svc := range biz.Services {
			unique(svc.ID)
			assert.Equal(t, l.serviceID(b, v).String(), svc.ID)
		}
		require.Len(t, biz.Staff, 4)
		for s, st := range biz.Staff {
			unique(st.ID)
			assert.Equal(t, l.staffID(b, s).String(), st.ID)
			assert.Len(t, st.AssignedServiceIDs, len(services))
			assert.Equal(t, [][]string{{"09:00", "18:00"}}, st.Hours["mon"])
			assert.Empty(t, st.Hours["sun"])
		}
		require.Len(t, biz.Customers, 5)
		for c, cu := range biz.Customers {
			unique(cu.ID)
			assert.Equal(t, l.customerEmail(b, c), cu.Email)
		}
		require.Len(t, biz.Appointments, 90)
		type slot struct {
			staff string
			at    time.Time
		}
		taken := map[slot]bool{}
		for _, a := range biz.Appointments {
			unique(a.ID)
			assert.Equal(t, "confirmed", a.Status)
			assert.Equal(t, biz.Services[1].ID, a.ServiceID, "booked appointments are the one-hour service")
			// One-hour blocks on whole hours within opening hours, on a
			// working day, after the base day: no two of one staff member
			// share an hour.
			at := a.StartTime
			assert.True(t, !at.Before(l.base) && at.Weekday() != time.Sunday, "%s", at)
			assert.True(t, at.Hour() >= openHour && at.Hour() < openHour+openHours && at.Minute() == 0, "%s", at)
			k := slot{a.StaffMemberID, at}
			require.False(t, taken[k], "two appointments of %s at %s", a.StaffMemberID, at)
			taken[k] = true
		}
	}
}

// The same spec and day give the same bytes; another seed gives other ids.
func TestWorldIsDeterministic(t *testing.T) {
	a, _ := writeAndDecode(t, testLayout(t, smallSpec()))
	b, _ := writeAndDecode(t, testLayout(t, smallSpec()))
	assert.Equal(t, a, b)
	other := smallSpec()
	other.Seed = 2
	c, _ := writeAndDecode(t, testLayout(t, other))
	assert.NotEqual(t, a, c)
	assert.Equal(t, len(a), len(c), "only ids and keys change")
}

func TestBaseDay(t *testing.T) {
	for _, now := range []time.Time{testNow, time.Date(2026, 11, 28, 23, 59, 0, 0, time.UTC), time.Date(2027, 3, 28, 1, 0, 0, 0, time.UTC)} {
		d := baseDay(now)
		assert.Equal(t, time.Monday, d.Weekday())
		assert.True(t, d.Sub(now) >= 24*time.Hour && d.Sub(now) < 9*24*time.Hour, "%s from %s", d, now)
		assert.Equal(t, d, d.Truncate(24*time.Hour))
	}
	assert.Equal(t, 0, dayOf(0))
	assert.Equal(t, 5, dayOf(5))
	assert.Equal(t, 7, dayOf(6), "Sunday is skipped")
	assert.Equal(t, 6, workingDaysBefore(7))
	assert.Equal(t, 12, workingDaysBefore(14))
}

// The storm's and the race's slots are free: they never meet a booked
// appointment or each other, also past the booked horizon.
func TestStormAndRaceSlotsAreFree(t *testing.T) {
	for _, spec := range []WorldSpec{
		smallSpec(),
		{Tag: "main", Businesses: 2, Staff: 3, Appointments: 1000, Customers: 2, WindowDays: 1, Seed: 3}, // dense
		{Tag: "main", Businesses: 2, Staff: 3, Appointments: 0, Customers: 2, WindowDays: 1, Seed: 3},    // empty
	} {
		l := testLayout(t, spec)
		type key struct{ b, s int }
		busy := map[key][][2]time.Time{}
		for b := range l.Businesses {
			for k := range l.Appointments {
				s, at := l.booked(k)
				busy[key{b, s}] = append(busy[key{b, s}], [2]time.Time{at, at.Add(time.Hour)})
			}
		}
		clash := func(k key, at time.Time, minutes int) bool {
			end := at.Add(time.Duration(minutes) * time.Minute)
			for _, iv := range busy[k] {
				if at.Before(iv[1]) && iv[0].Before(end) {
					return true
				}
			}
			return false
		}
		n := 2 * l.Businesses * l.Staff * (len(l.free[0]) + halfHours*8) // well past the horizon
		for i := range n {
			b, s, at := l.stormSlot(i)
			require.False(t, clash(key{b, s}, at, 30), "storm booking %d (%d, %d, %s) clashes", i, b, s, at)
			busy[key{b, s}] = append(busy[key{b, s}], [2]time.Time{at, at.Add(30 * time.Minute)})
		}
		for k := range 50 {
			b, s, at := l.raceSlot(k)
			require.False(t, clash(key{b, s}, at, 30), "race slot %d clashes", k)
			busy[key{b, s}] = append(busy[key{b, s}], [2]time.Time{at, at.Add(30 * time.Minute)})
		}
		// The series phase's rounds, over several blocks of 12 weeks: the
		// booking at 06:00, the series at 06:30 on 12 weekdays a week apart.
		rounds := 3*workWeekDays*l.Businesses*l.Staff + 1
		for k := range rounds {
			b, s, day := l.seriesRound(k)
			require.NotEqual(t, time.Sunday, day.Weekday(), "round %d", k)
			at := day.Add(seriesHour * time.Hour)
			require.False(t, clash(key{b, s}, at, 30), "series round %d's booking clashes", k)
			busy[key{b, s}] = append(busy[key{b, s}], [2]time.Time{at, at.Add(30 * time.Minute)})
			for w := range seriesWeeks {
				at := day.AddDate(0, 0, 7*w).Add(seriesHour*time.Hour + 30*time.Minute)
				require.False(t, clash(key{b, s}, at, 30), "series round %d's occurrence %d clashes", k, w)
				busy[key{b, s}] = append(busy[key{b, s}], [2]time.Time{at, at.Add(30 * time.Minute)})
			}
		}
		assert.Equal(t, 3*seriesWeeks*7+(seriesWeeks-1)*7, seriesLastDay(rounds, l.Businesses, l.Staff),
			"the last round (the first of the fourth block) ends 11 weeks after its day")
	}
}

// Every query of a rotation is distinct, so none is answered from the
// memo; and each asks a real window.
func TestQueriesAreDistinct(t *testing.T) {
	o := defaults()
	o.Businesses, o.Staff, o.Queries = 4, 3, 120
	l := testLayout(t, o.mainWorld())
	seen := map[string]bool{}
	for q := range o.Queries {
		b, svc, from := l.weekQuery(q)
		p := slotsPath(l, b, svc, -1, from, 7*24*time.Hour)
		require.False(t, seen[p], "query %d repeats %s", q, p)
		seen[p] = true
		assert.True(t, from.Before(l.base.AddDate(0, 0, l.days-6)), "the window is inside the horizon")
	}
	b, svc, from := l.sampleWeek(0)
	assert.False(t, seen[slotsPath(l, b, svc, -1, from, 7*24*time.Hour)], "the sample is outside the rotation")

	seen = map[string]bool{}
	for n := range l.dayQueries() {
		b, s, svc, from := l.dayQuery(n)
		p := slotsPath(l, b, svc, s, from, 24*time.Hour)
		require.False(t, seen[p], "query %d repeats %s", n, p)
		seen[p] = true
		assert.NotEqual(t, time.Sunday, from.Weekday())
		assert.True(t, strings.Contains(p, "&staffMemberId="))
	}
}

func TestLayoutRefuses(t *testing.T) {
	for name, spec := range map[string]WorldSpec{
		"no staff":        {Tag: "x", Businesses: 1, Staff: 0, Customers: 1, WindowDays: 1},
		"too many days":   {Tag: "x", Businesses: 1, Staff: 1, Customers: 1, WindowDays: 4000},
		"too many booked": {Tag: "x", Businesses: 1, Staff: 1, Customers: 1, WindowDays: 1, Appointments: 30_000},
	} {
		_, err := newLayout(spec)
		assert.Error(t, err, name)
	}
}

// The new-customer storm books the storm slots after the storm's (the
// slotd's slot range goes on from where the storm stopped), so its
// bookings never meet the storm's, the booked appointments or the race's;
// and every one of its bookings brings a customer of its own, whom the
// world does not have.
func TestNewCustomerStormSlots(t *testing.T) {
	for _, spec := range []WorldSpec{
		smallSpec(),
		{Tag: "main", Businesses: 2, Staff: 3, Appointments: 1000, Customers: 2, WindowDays: 1, Seed: 3}, // dense
	} {
		l := testLayout(t, spec)
		type slot struct {
			b, s int
			at   time.Time
		}
		s := &slotd{nextSlot: 7} // the mixed phase booked the first seven
		// The storm: more requests than the free half hours of the horizon.
		perStaff := len(l.free[0]) + halfHours*3
		storm := newSlotRange(s)
		stormSlots := map[slot]int{}
		for n := range uint64(l.Businesses * l.Staff * perStaff) {
			b, sm, at := l.stormSlot(storm.take(n))
			stormSlots[slot{b, sm, at}]++
		}
		storm.done(s)
		fresh := newSlotRange(s)
		assert.Equal(t, 7+l.Businesses*l.Staff*perStaff, fresh.take(0), "the new-customer storm starts where the storm stopped")

		booked := map[slot]bool{}
		for b := range l.Businesses {
			for k := range l.Appointments {
				sm, at := l.booked(k)
				booked[slot{b, sm, at}], booked[slot{b, sm, at.Add(30 * time.Minute)}] = true, true
			}
		}
		raced := map[slot]bool{}
		for k := range 50 {
			b, sm, at := l.raceSlot(k)
			raced[slot{b, sm, at}] = true
		}
		emails := map[string]bool{}
		for c := range l.Customers {
			for b := range l.Businesses {
				emails[l.customerEmail(b, c)] = true
			}
		}
		mine := map[slot]bool{}
		for n := range uint64(l.Businesses * l.Staff * perStaff) {
			i := fresh.take(n)
			b, sm, at := l.stormSlot(i)
			k := slot{b, sm, at}
			require.Zero(t, stormSlots[k], "new-customer booking %d (%d, %d, %s) asks for a slot of the storm", n, b, sm, at)
			require.False(t, mine[k], "new-customer booking %d asks for a slot twice", n)
			require.False(t, booked[k], "new-customer booking %d clashes with a booked appointment", n)
			require.False(t, raced[k], "new-customer booking %d clashes with the race", n)
			assert.True(t, at.Minute() == 0 || at.Minute() == 30)
			mine[k] = true

			email := string(l.appendNewCustomerEmail(nil, i))
			require.False(t, emails[email], "booking %d's customer %s is not new", n, email)
			emails[email] = true
		}
		for k, n := range stormSlots {
			require.Equal(t, 1, n, "the storm asks for %v once", k)
		}
	}
}

// A new-customer booking's body is the storm's booking with a customer
// of its own; the storm's names one of the world's.
func TestNewCustomerBookingBody(t *testing.T) {
	l := testLayout(t, smallSpec())
	type body struct {
		ServiceID, StaffMemberID string
		StartTime                time.Time
		EnforceBookingRules      *bool
		Customer                 map[string]string
	}
	decode := func(b []byte) body {
		t.Helper()
		var out body
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&out), "%s", b)
		return out
	}
	i := 2*l.Businesses + 1
	b, s, at := l.stormSlot(i)
	reused := decode(bookingBody(nil, l, b, s, l.stormCustomer(i), at))
	fresh := decode(newCustomerBookingBody(nil, l, b, s, i, at))
	assert.Equal(t, l.serviceID(b, 0).String(), fresh.ServiceID)
	assert.Equal(t, l.staffID(b, s).String(), fresh.StaffMemberID)
	assert.True(t, at.Equal(fresh.StartTime))
	require.NotNil(t, fresh.EnforceBookingRules)
	assert.False(t, *fresh.EnforceBookingRules)
	assert.Equal(t, reused.ServiceID, fresh.ServiceID)
	assert.True(t, reused.StartTime.Equal(fresh.StartTime))
	assert.Equal(t, l.customerEmail(b, l.stormCustomer(i)), reused.Customer["email"])
	assert.Equal(t, "new1.i7.b1@bench.example", fresh.Customer["email"], "seed 1, slot 7 of business 7 mod 3")
	assert.Equal(t, map[string]string{"firstName": "New", "lastName": "7", "email": "new1.i7.b1@bench.example"}, fresh.Customer)
}
