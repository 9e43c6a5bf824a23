package api

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"
)

// Fuzz targets for the bodies of decisions §11: many appointments in one
// write. They reuse the helpers of fuzz_six_test.go.

var sixSeries = `"customer":{"firstName":"Sam","email":"sam@example.com"}`

var seriesSeeds = []string{
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-08T09:00:00Z","rule":"FREQ=WEEKLY;COUNT=4",` + sixSeries + `}`,
	`{"serviceId":"` + sixSvc + `","staffMemberId":"` + sixStaff + `","startTime":"2030-01-08T09:00:00Z","rule":"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;UNTIL=20300301T000000Z","customerId":"` + sixStaff + `","onConflict":"skip"}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-31T09:00:00Z","rule":"FREQ=MONTHLY;COUNT=52",` + sixSeries + `,"notes":null,"metadata":{"a":"b"},"enforceBookingRules":false}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-08T09:00:00Z","rule":"FREQ=WEEKLY;COUNT=53",` + sixSeries + `}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-08T09:00:00Z","rule":"FREQ=YEARLY;COUNT=2",` + sixSeries + `}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-08T09:00:00Z","rule":"FREQ=DAILY;UNTIL=20290101T000000Z",` + sixSeries + `}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-08T09:00:00Z","rule":"FREQ=DAILY",` + sixSeries + `,"customerId":"` + sixStaff + `"}`,
	`{"serviceId":"` + sixSvc + `","startTime":"2030-01-08T09:00:00Z","rule":"FREQ=DAILY;COUNT=2","onConflict":"maybe"}`,
	`{}`, ``, `[]`,
}

var seriesRoots = []string{"serviceId", "staffMemberId", "startTime", "rule", "customer", "customerId", "notes", "metadata",
	"enforceBookingRules", "onConflict"}

// FuzzSeriesBody fuzzes the appointment-series body decoder: a refusal
// names the body's members; an accepted body has a rule of the subset
// that ends (COUNT of at most 52, or an UNTIL not before the start),
// exactly one of customer and customerId, and the service and start as
// sent.
func FuzzSeriesBody(f *testing.F) {
	for _, b := range seriesSeeds {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := decodeSeries(body)
		sixCheckRefusal(t, err, body, seriesRoots...)
		if err != nil {
			return
		}
		m := sixMembers(t, body)
		if svc := sixUUID(t, m["serviceId"]); in.ServiceID != svc {
			t.Fatalf("serviceId %s read as %s", m["serviceId"], in.ServiceID)
		}
		if start := sixTime(t, m["startTime"]); !in.Start.Equal(start) {
			t.Fatalf("startTime %s read as %v", m["startTime"], in.Start)
		}
		if sixString(t, m["rule"]) != in.RuleText {
			t.Fatalf("rule %s kept as %q", m["rule"], in.RuleText)
		}
		r := in.Rule
		if r.Count > 52 || r.Count == 0 && r.Until.IsZero() || !r.Until.IsZero() && r.Until.Before(in.Start) {
			t.Fatalf("rule %q accepted: %+v", in.RuleText, r)
		}
		if (in.Customer == nil) == (in.CustomerID == nil) {
			t.Fatalf("customer %v and customerId %v both or neither", in.Customer, in.CustomerID)
		}
		if _, skip := m["onConflict"]; !skip && in.Skip {
			t.Fatal("skip without onConflict")
		}
	})
}

var basketSeeds = []string{
	`{"startTime":"2030-01-08T09:00:00Z","items":[{"serviceId":"` + sixSvc + `"},{"serviceId":"` + sixStaff + `","staffMemberId":"` + sixStaff + `"}],` + sixSeries + `}`,
	`{"startTime":"2030-01-08T09:00:00Z","items":[{"serviceId":"` + sixSvc + `","staffMemberId":null},{"serviceId":"` + sixSvc + `"},{"serviceId":"` + sixSvc + `"}],"customerId":"` + sixStaff + `","notes":"n","metadata":{},"enforceBookingRules":false}`,
	`{"startTime":"2030-01-08T09:00:00Z","items":[{"serviceId":"` + sixSvc + `"}],` + sixSeries + `}`,
	`{"startTime":"2030-01-08T09:00:00Z","items":[{},{},{},{},{},{}],` + sixSeries + `}`,
	`{"startTime":"2030-01-08T09:00:00Z","items":[1,"x"],` + sixSeries + `}`,
	`{"startTime":"2030-01-08T09:00:00Z","items":{},` + sixSeries + `,"customerId":"` + sixStaff + `"}`,
	`{"items":[{"serviceId":"` + sixSvc + `","x":1},{"serviceId":"nope"}]}`,
	`{}`, ``, `null`,
}

var basketRoots = []string{"startTime", "items", "customer", "customerId", "notes", "metadata", "enforceBookingRules"}

// FuzzBasketBody fuzzes the basket body decoder: a refusal names the
// body's members (items.N.… for an item's); an accepted body has 2 to 5
// items, each its service and staff member as sent, the start as sent,
// and exactly one of customer and customerId.
func FuzzBasketBody(f *testing.F) {
	for _, b := range basketSeeds {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := decodeBasket(body)
		sixCheckRefusal(t, err, body, basketRoots...)
		if err != nil {
			return
		}
		m := sixMembers(t, body)
		if start := sixTime(t, m["startTime"]); !in.Start.Equal(start) {
			t.Fatalf("startTime %s read as %v", m["startTime"], in.Start)
		}
		if len(in.Items) < 2 || len(in.Items) > 5 {
			t.Fatalf("%d items accepted", len(in.Items))
		}
		var items []map[string]any
		if err := json.Unmarshal(m["items"], &items); err != nil || len(items) != len(in.Items) {
			t.Fatalf("items %s read as %d items (%v)", m["items"], len(in.Items), err)
		}
		for i, it := range in.Items {
			if svc, _ := items[i]["serviceId"].(string); uuid.MustParse(svc) != it.ServiceID {
				t.Fatalf("items.%d.serviceId %v read as %s", i, items[i]["serviceId"], it.ServiceID)
			}
			staff, _ := items[i]["staffMemberId"].(string)
			if (it.StaffID == nil) != (staff == "") || it.StaffID != nil && uuid.MustParse(staff) != *it.StaffID {
				t.Fatalf("items.%d.staffMemberId %v read as %v", i, items[i]["staffMemberId"], it.StaffID)
			}
		}
		if (in.Customer == nil) == (in.CustomerID == nil) {
			t.Fatalf("customer %v and customerId %v both or neither", in.Customer, in.CustomerID)
		}
		if _, given := m["enforceBookingRules"]; !given && !in.Enforce {
			t.Fatal("the rules off without enforceBookingRules")
		}
	})
}
