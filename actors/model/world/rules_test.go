package world

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
)

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// ruleCase mutates the minimal business and expects exactly fields, given
// relative to the business (Parse prefixes them with "businesses.0.").
type ruleCase struct {
	name   string
	mutate func(b obj)
	fields []string
}

func setTo(path string, v any) func(obj) { return func(b obj) { set(b, path, v) } }
func remove(path string) func(obj)       { return func(b obj) { del(b, path) } }

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := minimal()
			tc.mutate(b)
			want := make([]string, len(tc.fields))
			for i, f := range tc.fields {
				want[i] = "businesses.0." + f
			}
			specs, err := Parse(file(b))
			if len(want) == 0 {
				require.NoError(t, err)
				require.Len(t, specs, 1)
				return
			}
			require.Nil(t, specs, "a bad file returns no specs")
			require.Equal(t, want, fieldsOf(t, err))

			// ParseBusiness applies the same rules with relative paths.
			_, err = ParseBusiness(mustJSON(b))
			require.Equal(t, tc.fields, fieldsOf(t, err))
		})
	}
}

func TestBusinessRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{"id missing", remove("id"), []string{"id required"}},
		{"staff limit zero", setTo("bookingLimits", obj{"perStaffPerDay": 0}), []string{"bookingLimits.perStaffPerDay too_small 1"}},
		{"staff limit string", setTo("bookingLimits", obj{"perStaffPerWeek": "5"}), []string{"bookingLimits.perStaffPerWeek invalid"}},
		{"staff limits not an object", setTo("bookingLimits", 5), []string{"bookingLimits invalid"}},
		{"staff limits ok", setTo("bookingLimits", obj{"perStaffPerDay": 8, "perStaffPerWeek": 30}), nil},
		{"reminders ok", setTo("reminders", []any{obj{"offsetMinutes": 1440, "channel": "email"}, obj{"offsetMinutes": 1440, "channel": "webhook"},
			obj{"offsetMinutes": 10, "channel": "email"}}), nil},
		{"reminders empty", setTo("reminders", []any{}), nil},
		{"reminders four", setTo("reminders", []any{obj{"offsetMinutes": 60, "channel": "email"}, obj{"offsetMinutes": 61, "channel": "email"},
			obj{"offsetMinutes": 62, "channel": "email"}, obj{"offsetMinutes": 63, "channel": "email"}}), []string{"reminders too_large 3"}},
		{"reminder offset short", setTo("reminders", []any{obj{"offsetMinutes": 9, "channel": "email"}}), []string{"reminders.0.offsetMinutes too_small 10"}},
		{"reminder offset long", setTo("reminders", []any{obj{"offsetMinutes": 10081, "channel": "webhook"}}), []string{"reminders.0.offsetMinutes too_large 10080"}},
		{"reminder offset missing", setTo("reminders", []any{obj{"channel": "webhook"}}), []string{"reminders.0.offsetMinutes required"}},
		{"reminder channel sms", setTo("reminders", []any{obj{"offsetMinutes": 60, "channel": "sms"}}), []string{"reminders.0.channel invalid_option"}},
		{"reminder twice", setTo("reminders", []any{obj{"offsetMinutes": 60, "channel": "email"}, obj{"offsetMinutes": 60, "channel": "email"}}),
			[]string{"reminders.1 invalid"}},
		{"reminder unknown member", setTo("reminders", []any{obj{"offsetMinutes": 60, "channel": "email", "since": "2026-01-01T00:00:00Z"}}),
			[]string{"reminders.0.since unknown_field"}},
		{"reminders not a list", setTo("reminders", obj{"offsetMinutes": 60}), []string{"reminders invalid"}},
		{"id not a uuid", setTo("id", "biz-1"), []string{"id invalid_format"}},
		{"name missing", remove("name"), []string{"name required"}},
		{"name empty", setTo("name", ""), []string{"name required"}},
		{"name too long", setTo("name", strings.Repeat("x", 201)), []string{"name too_long 200"}},
		{"name at limit", setTo("name", strings.Repeat("é", 200)), nil},
		{"timezone missing", remove("timezone"), []string{"timezone required"}},
		{"timezone unknown", setTo("timezone", "Mars/Olympus"), []string{"timezone invalid_option"}},
		{"timezone Local", setTo("timezone", "Local"), []string{"timezone invalid_option"}},
		{"timezone UTC", setTo("timezone", "UTC"), nil},
		{"currency missing", remove("currency"), []string{"currency required"}},
		{"currency lower", setTo("currency", "eur"), []string{"currency invalid_format"}},
		{"currency long", setTo("currency", "EURO"), []string{"currency too_long 3"}},
		{"plan missing", remove("plan"), []string{"plan required"}},
		{"plan upper", setTo("plan", "Pro"), []string{"plan invalid_format"}},
		{"plan spaces", setTo("plan", "my plan"), []string{"plan invalid_format"}},
		{"plan too long", setTo("plan", strings.Repeat("p", 41)), []string{"plan too_long 40"}},
		{"plan unknown slug", setTo("plan", "enterprise_2"), nil},
		{"modules unknown", setTo("modules", arr{"appointments", "calendar"}), []string{"modules.1 invalid_option"}},
		{"modules duplicate", setTo("modules", arr{"webhooks", "webhooks"}), []string{"modules.1 invalid"}},
		{"modules not array", setTo("modules", "all"), []string{"modules invalid"}},
		{"ownerEmail invalid", setTo("ownerEmail", "owner"), []string{"ownerEmail invalid_email"}},
		{"ownerEmail null", setTo("ownerEmail", nil), []string{"ownerEmail invalid"}},
		{"assignment unknown", setTo("assignment", "random"), []string{"assignment invalid_option"}},
		{"closedDates impossible", setTo("closedDates", arr{"2026-02-30"}), []string{"closedDates.0 invalid_date"}},
		{"closedDates format", setTo("closedDates", arr{"2026-12-25", "25-12-2026"}), []string{"closedDates.1 invalid_date"}},
		{"closedDates duplicate", setTo("closedDates", arr{"2026-12-25", "2026-12-25"}), []string{"closedDates.1 invalid"}},
		{"unknown member", setTo("colour", "red"), []string{"colour unknown_field"}},
	})
}

func TestBookingRulesAndPayments(t *testing.T) {
	rules := func(k string, v any) func(obj) { return setTo("bookingRules", obj{k: v}) }
	pay := func(k string, v any) func(obj) { return setTo("payments", obj{k: v}) }
	period := func(from, to any) func(obj) {
		return setTo("bookingRules", obj{"restrictedPeriods": arr{obj{"from": from, "to": to}}})
	}
	runRuleCases(t, []ruleCase{
		{"minNotice negative", rules("minNoticeMinutes", -1), []string{"bookingRules.minNoticeMinutes too_small 0"}},
		{"maxAdvance zero", rules("maxAdvanceDays", 0), []string{"bookingRules.maxAdvanceDays too_small 1"}},
		{"maxAdvance large", rules("maxAdvanceDays", 3651), []string{"bookingRules.maxAdvanceDays too_large 3650"}},
		{"slotInterval zero", rules("slotIntervalMinutes", 0), []string{"bookingRules.slotIntervalMinutes too_small 1"}},
		{"slotInterval large", rules("slotIntervalMinutes", 1441), []string{"bookingRules.slotIntervalMinutes too_large 1440"}},
		{"slotInterval fraction", rules("slotIntervalMinutes", 7.5), []string{"bookingRules.slotIntervalMinutes invalid"}},
		{"minGap negative", rules("minGapMinutes", -1), []string{"bookingRules.minGapMinutes too_small 0"}},
		{"preventGaps string", rules("preventGaps", "yes"), []string{"bookingRules.preventGaps invalid"}},
		{"requireExisting number", rules("requireExistingCustomer", 1), []string{"bookingRules.requireExistingCustomer invalid"}},
		{"rules unknown", rules("maxDays", 3), []string{"bookingRules.maxDays unknown_field"}},
		{"rules not object", setTo("bookingRules", arr{}), []string{"bookingRules invalid"}},
		{"period reversed", period("2027-01-02T00:00:00Z", "2026-12-31T12:00:00Z"), []string{"bookingRules.restrictedPeriods.0.to invalid"}},
		{"period empty", period("2027-01-02T00:00:00Z", "2027-01-02T01:00:00+01:00"), []string{"bookingRules.restrictedPeriods.0.to invalid"}},
		{"period bad ts", period("2027-01-02", "2027-01-03T00:00:00Z"), []string{"bookingRules.restrictedPeriods.0.from invalid_date"}},
		{"period missing to", setTo("bookingRules", obj{"restrictedPeriods": arr{obj{"from": "2027-01-02T00:00:00Z"}}}), []string{"bookingRules.restrictedPeriods.0.to required"}},
		{"provider unknown", pay("provider", "stripe"), []string{"payments.provider invalid_option"}},
		{"provider client_secret", pay("provider", "client_secret"), nil},
		{"provider wrong type", pay("provider", 3), []string{"payments.provider invalid"}},
		{"holdMinutes zero", pay("holdMinutes", 0), []string{"payments.holdMinutes too_small 1"}},
		{"holdMinutes large", pay("holdMinutes", 1441), []string{"payments.holdMinutes too_large 1440"}},
		{"requiresPayment string", pay("requiresPayment", "true"), []string{"payments.requiresPayment invalid"}},
		{"baseUrl number", pay("baseUrl", 1), []string{"payments.baseUrl invalid"}},
		{"baseUrl relative", pay("baseUrl", "/v1"), []string{"payments.baseUrl invalid_url"}},
		{"baseUrl ftp", pay("baseUrl", "ftp://pay.example"), []string{"payments.baseUrl invalid_url"}},
		{"baseUrl credentials", pay("baseUrl", "https://u:p@pay.example"), []string{"payments.baseUrl invalid_url"}},
		{"baseUrl local http", pay("baseUrl", "http://127.0.0.1:9000"), nil},
		{"returnUrl bad", pay("returnUrl", "salon.example/thanks"), []string{"payments.returnUrl invalid_url"}},
		{"webhookSecret number", pay("webhookSecret", 5), []string{"payments.webhookSecret invalid"}},
		{"payments unknown", pay("secret", "x"), []string{"payments.secret unknown_field"}},
	})
}

// customerChanges (decisions §7): what customers may change through their
// manage links; absent, the defaults.
func TestCustomerChangesRules(t *testing.T) {
	cc := func(k string, v any) func(obj) { return setTo("customerChanges", obj{k: v}) }
	runRuleCases(t, []ruleCase{
		{"all given", setTo("customerChanges", obj{"allowCancel": false, "allowReschedule": true,
			"cancelMinNoticeMinutes": 1440, "rescheduleMinNoticeMinutes": 120, "maxReschedules": 2}), nil},
		{"maxReschedules null", cc("maxReschedules", nil), nil},
		{"maxReschedules zero", cc("maxReschedules", 0), nil},
		{"maxReschedules negative", cc("maxReschedules", -1), []string{"customerChanges.maxReschedules too_small 0"}},
		{"maxReschedules fraction", cc("maxReschedules", 1.5), []string{"customerChanges.maxReschedules invalid"}},
		{"notice negative", cc("cancelMinNoticeMinutes", -5), []string{"customerChanges.cancelMinNoticeMinutes too_small 0"}},
		{"reschedule notice string", cc("rescheduleMinNoticeMinutes", "60"), []string{"customerChanges.rescheduleMinNoticeMinutes invalid"}},
		{"allowCancel string", cc("allowCancel", "no"), []string{"customerChanges.allowCancel invalid"}},
		{"unknown member", cc("allowRefund", true), []string{"customerChanges.allowRefund unknown_field"}},
		{"not an object", setTo("customerChanges", arr{}), []string{"customerChanges invalid"}},
	})
	specs, err := Parse(file(minimal()))
	require.NoError(t, err)
	require.Nil(t, specs[0].Business.Changes, "absent: the defaults")
	require.Equal(t, model.DefaultCustomerChanges(), specs[0].Business.CustomerChanges())
	b := minimal()
	set(b, "customerChanges", obj{"cancelMinNoticeMinutes": 60})
	specs, err = Parse(file(b))
	require.NoError(t, err)
	got := specs[0].Business.CustomerChanges()
	require.True(t, got.AllowCancel, "a member left out keeps its default")
	require.Equal(t, 60, got.CancelMinNoticeMinutes)
	require.Nil(t, got.MaxReschedules)
}

func TestKeyRules(t *testing.T) {
	key := func(k string, v any) func(obj) { return setTo("apiKeys.0."+k, v) }
	runRuleCases(t, []ruleCase{
		{"key missing", remove("apiKeys.0.key"), []string{"apiKeys.0.key required"}},
		{"key short", key("key", "sk_1234"), []string{"apiKeys.0.key too_short 8"}},
		{"key long", key("key", strings.Repeat("k", 201)), []string{"apiKeys.0.key too_long 200"}},
		{"key space", key("key", "sk test key"), []string{"apiKeys.0.key invalid_format"}},
		{"key non-ascii", key("key", "sk_tést_key"), []string{"apiKeys.0.key invalid_format"}},
		{"key repeated", setTo("apiKeys", arr{obj{"key": "sk_same_key"}, obj{"key": "sk_other"}, obj{"key": "sk_same_key"}}), []string{"apiKeys.2.key invalid"}},
		{"scope malformed", key("scopes", arr{"appointments:read", "admin"}), []string{"apiKeys.0.scopes.1 invalid_format"}},
		{"scope upper", key("scopes", arr{"Appointments:read"}), []string{"apiKeys.0.scopes.0 invalid_format"}},
		{"scope two colons", key("scopes", arr{"a:b:c"}), []string{"apiKeys.0.scopes.0 invalid_format"}},
		{"scope duplicate", key("scopes", arr{"staff:read", "staff:read"}), []string{"apiKeys.0.scopes.1 invalid"}},
		{"scope not string", key("scopes", arr{7}), []string{"apiKeys.0.scopes.0 invalid"}},
		{"scope unknown but well-formed", key("scopes", arr{"reports:export"}), nil},
		{"revoked string", key("revoked", "no"), []string{"apiKeys.0.revoked invalid"}},
		{"expiresAt bad", key("expiresAt", "never"), []string{"apiKeys.0.expiresAt invalid_date"}},
		{"limits zero", key("limits", obj{"perMinute": 0}), []string{"apiKeys.0.limits.perMinute too_small 1"}},
		{"limits perHour", key("limits", obj{"perHour": -5}), []string{"apiKeys.0.limits.perHour too_small 1"}},
		{"limits mutations", key("limits", obj{"mutationsPerMinute": "10"}), []string{"apiKeys.0.limits.mutationsPerMinute invalid"}},
		{"limits unknown", key("limits", obj{"perDay": 1}), []string{"apiKeys.0.limits.perDay unknown_field"}},
		{"key unknown member", key("name", "ci"), []string{"apiKeys.0.name unknown_field"}},
		{"key not object", setTo("apiKeys", arr{"sk_plain_key"}), []string{"apiKeys.0 invalid"}},
		{"kind unknown", key("kind", "public"), []string{"apiKeys.0.kind invalid_option"}},
		{"kind secret", key("kind", "secret"), nil},
		{"secret with origins", key("allowedOrigins", arr{"https://a.example"}), []string{"apiKeys.0.allowedOrigins invalid"}},
		{"secret text of a publishable key", key("key", "pk_live_looks_public"), []string{"apiKeys.0.key invalid_format"}},
	})
}

// A publishable key (decisions §7): pk_live_ text, exact web origins as
// browsers send them, scopes optional.
func TestPublishableKeyRules(t *testing.T) {
	pk := func(members obj) func(obj) {
		k := obj{"key": "pk_live_salon_page", "kind": "publishable", "allowedOrigins": arr{"https://salon.example"}}
		for name, v := range members {
			if v == nil {
				delete(k, name)
			} else {
				k[name] = v
			}
		}
		return setTo("apiKeys", arr{k})
	}
	origins := func(list ...any) func(obj) { return pk(obj{"allowedOrigins": append(arr{}, list...)}) }
	runRuleCases(t, []ruleCase{
		{"valid", pk(nil), nil},
		{"with scopes", pk(obj{"scopes": arr{"services:read"}}), nil},
		{"many origins", origins("https://salon.example", "http://localhost:5173", "https://[::1]:8443", "http://127.0.0.1:8080", "https://xn--bcher-kva.example"), nil},
		{"text without pk_live_", pk(obj{"key": "sk_live_salon_page"}), []string{"apiKeys.0.key invalid_format"}},
		{"origins missing", pk(obj{"allowedOrigins": nil}), []string{"apiKeys.0.allowedOrigins required"}},
		{"origins empty", origins(), []string{"apiKeys.0.allowedOrigins required"}},
		{"origin with path", origins("https://salon.example/book"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin with slash", origins("https://salon.example/"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin wildcard", origins("*"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin wildcard host", origins("https://*.salon.example"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin upper case", origins("https://Salon.example"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin default port", origins("https://salon.example:443"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin http default port", origins("http://salon.example:80"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin bad port", origins("https://salon.example:99999"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin empty port", origins("https://salon.example:"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin user", origins("https://me@salon.example"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin query", origins("https://salon.example?x"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin scheme", origins("ftp://salon.example"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin no scheme", origins("salon.example"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin null", origins("null"), []string{"apiKeys.0.allowedOrigins.0 invalid_format"}},
		{"origin repeated", origins("https://a.example", "https://a.example"), []string{"apiKeys.0.allowedOrigins.1 invalid"}},
		{"origin not string", origins(7), []string{"apiKeys.0.allowedOrigins.0 invalid"}},
	})
}

func TestKeyRepeatedAcrossBusinesses(t *testing.T) {
	a, b := minimal(), minimal()
	set(b, "id", otherID)
	specs, err := Parse(file(a, b))
	require.Nil(t, specs)
	require.Equal(t, []string{"businesses.1.apiKeys.0.key invalid"}, fieldsOf(t, err))
	// The message must not leak the key.
	require.NotContains(t, err.Error(), "sk_test_minimal")
}

func TestCategoryRules(t *testing.T) {
	cats := func(list ...obj) func(obj) {
		return func(b obj) {
			a := arr{}
			for _, c := range list {
				a = append(a, c)
			}
			set(b, "categories", a)
		}
	}
	hair := obj{"id": catID, "name": "Hair"}
	runRuleCases(t, []ruleCase{
		{"name missing", remove("categories.0.name"), []string{"categories.0.name required"}},
		{"name too long", setTo("categories.0.name", strings.Repeat("n", 201)), []string{"categories.0.name too_long 200"}},
		{"position negative", setTo("categories.0.position", -1), []string{"categories.0.position too_small 0"}},
		{"parent unknown", setTo("categories.0.parentId", otherID), []string{"categories.0.parentId invalid"}},
		{"parent bad", setTo("categories.0.parentId", "root"), []string{"categories.0.parentId invalid_format"}},
		{"parent self", setTo("categories.0.parentId", catID), []string{"categories.0.parentId invalid"}},
		{"parent later in list", cats(obj{"id": otherID, "name": "C", "parentId": catID}, hair), nil},
		{"cycle", cats(obj{"id": catID, "name": "A", "parentId": otherID}, obj{"id": otherID, "name": "B", "parentId": catID}),
			[]string{"categories.0.parentId invalid", "categories.1.parentId invalid"}},
		{"duplicate id", cats(hair, obj{"id": catID, "name": "Again"}), []string{"categories.1.id invalid"}},
		{"unknown member", setTo("categories.0.slug", "hair"), []string{"categories.0.slug unknown_field"}},
	})
}

func TestServiceRules(t *testing.T) {
	svc := func(k string, v any) func(obj) { return setTo("services.0."+k, v) }
	seg := func(kind string, d int) obj { return obj{"kind": kind, "durationMinutes": d, "label": nil} }
	rule := func(days arr, from, to string) func(obj) {
		return svc("pricingRules", arr{obj{"days": days, "from": from, "to": to, "priceCents": 100}})
	}
	runRuleCases(t, []ruleCase{
		{"id missing", remove("services.0.id"), []string{"services.0.id required", "staff.0.assignedServiceIds.0 invalid",
			"recurringSeries.0.serviceId invalid", "appointments.0.serviceId invalid"}},
		{"name missing", remove("services.0.name"), []string{"services.0.name required"}},
		{"description too long", svc("description", strings.Repeat("d", 2001)), []string{"services.0.description too_long 2000"}},
		{"description number", svc("description", 1), []string{"services.0.description invalid"}},
		{"duration missing", remove("services.0.durationMinutes"), []string{"services.0.durationMinutes required"}},
		{"duration zero", svc("durationMinutes", 0), []string{"services.0.durationMinutes too_small 1"}},
		{"duration too long", svc("durationMinutes", 1441), []string{"services.0.durationMinutes too_large 1440"}},
		{"price negative", svc("priceCents", -1), []string{"services.0.priceCents too_small 0"}},
		{"price huge", svc("priceCents", 1e12), []string{"services.0.priceCents too_large 2147483647"}},
		{"price fraction", svc("priceCents", 10.5), []string{"services.0.priceCents invalid"}},
		{"isActive string", svc("isActive", "yes"), []string{"services.0.isActive invalid"}},
		{"category unknown", svc("categoryId", otherID), []string{"services.0.categoryId invalid"}},
		{"category missing", remove("services.0.categoryId"), []string{"services.0.categoryId required"}},
		{"paymentRequired null", svc("paymentRequired", nil), []string{"services.0.paymentRequired invalid"}},
		{"deposit negative", svc("depositCents", -1), []string{"services.0.depositCents too_small 0"}},
		{"imageUrl number", svc("imageUrl", 5), []string{"services.0.imageUrl invalid"}},
		{"deleted string", svc("deleted", "no"), []string{"services.0.deleted invalid"}},
		{"buffer before negative", svc("bufferBeforeMinutes", -5), []string{"services.0.bufferBeforeMinutes too_small 0"}},
		{"buffer after too long", svc("bufferAfterMinutes", 241), []string{"services.0.bufferAfterMinutes too_large 240"}},
		{"buffer fraction", svc("bufferAfterMinutes", 7.5), []string{"services.0.bufferAfterMinutes invalid"}},
		{"limit zero", svc("bookingLimits", obj{"perDay": 0}), []string{"services.0.bookingLimits.perDay too_small 1"}},
		{"limit huge", svc("bookingLimits", obj{"perWeek": 1001}), []string{"services.0.bookingLimits.perWeek too_large 1000"}},
		{"limit unknown", svc("bookingLimits", obj{"perMonth": 3}), []string{"services.0.bookingLimits.perMonth unknown_field"}},
		{"limits ok", svc("bookingLimits", obj{"perDay": 3, "perWeek": nil}), nil},
		{"buffers ok", func(b obj) { set(b, "services.0.bufferBeforeMinutes", 240); set(b, "services.0.bufferAfterMinutes", 0) }, nil},
		{"segments sum", svc("segments", arr{seg("active", 10), seg("gap", 10)}), []string{"services.0.segments invalid"}},
		{"segments no active", svc("segments", arr{seg("gap", 30)}), []string{"services.0.segments invalid"}},
		{"segments ok", svc("segments", arr{seg("active", 10), seg("gap", 15), seg("active", 5)}), nil},
		{"segment kind", svc("segments", arr{seg("idle", 30)}), []string{"services.0.segments.0.kind invalid_option"}},
		{"segment zero", svc("segments", arr{seg("active", 30), seg("gap", 0)}), []string{"services.0.segments.1.durationMinutes too_small 1"}},
		{"segment label long", svc("segments", arr{obj{"kind": "active", "durationMinutes": 30, "label": strings.Repeat("l", 201)}}),
			[]string{"services.0.segments.0.label too_long 200"}},
		{"segment unknown", svc("segments", arr{obj{"kind": "active", "durationMinutes": 30, "staff": 1}}),
			[]string{"services.0.segments.0.staff unknown_field"}},
		{"pricing days empty", rule(arr{}, "17:00", "21:00"), []string{"services.0.pricingRules.0.days required"}},
		{"pricing day unknown", rule(arr{"mon", "funday"}, "17:00", "21:00"), []string{"services.0.pricingRules.0.days.1 invalid_option"}},
		{"pricing day duplicate", rule(arr{"mon", "mon"}, "17:00", "21:00"), []string{"services.0.pricingRules.0.days.1 invalid"}},
		{"pricing from format", rule(arr{"mon"}, "9:00", "21:00"), []string{"services.0.pricingRules.0.from invalid_format"}},
		{"pricing to 24:30", rule(arr{"mon"}, "17:00", "24:30"), []string{"services.0.pricingRules.0.to invalid_format"}},
		{"pricing reversed", rule(arr{"mon"}, "21:00", "17:00"), []string{"services.0.pricingRules.0.to invalid"}},
		{"pricing until midnight", rule(arr{"sun"}, "17:00", "24:00"), nil},
		{"pricing price missing", svc("pricingRules", arr{obj{"days": arr{"mon"}, "from": "17:00", "to": "18:00"}}),
			[]string{"services.0.pricingRules.0.priceCents required"}},
		{"timetable ok", svc("timetable", obj{"tue": arr{"19:30", "18:00"}, "sat": arr{"09:00"}}), nil},
		{"timetable null", svc("timetable", nil), nil},
		{"timetable time format", svc("timetable", obj{"mon": arr{"18:00", "6pm"}}), []string{"services.0.timetable.mon.1 invalid_format"}},
		{"timetable 24:00", svc("timetable", obj{"mon": arr{"24:00"}}), []string{"services.0.timetable.mon.0 invalid_format"}},
		{"timetable repeated time", svc("timetable", obj{"fri": arr{"18:00", "18:00"}}), []string{"services.0.timetable.fri.1 invalid"}},
		{"timetable unknown day", svc("timetable", obj{"mon": arr{"18:00"}, "funday": arr{"18:00"}}), []string{"services.0.timetable.funday unknown_field"}},
		{"timetable empty", svc("timetable", obj{"mon": arr{}}), []string{"services.0.timetable invalid"}},
		{"timetable too many", svc("timetable", obj{"wed": func() arr {
			var times arr
			for i := range 49 {
				times = append(times, model.Clock(i*15).String())
			}
			return times
		}()}), []string{"services.0.timetable.wed invalid"}},
		{"timetable not an object", svc("timetable", arr{"18:00"}), []string{"services.0.timetable invalid"}},
		{"capacity class", svc("capacity", 12), nil},
		{"capacity one", svc("capacity", 1), nil},
		{"capacity 500", svc("capacity", 500), nil},
		{"capacity zero", svc("capacity", 0), []string{"services.0.capacity too_small 1"}},
		{"capacity 501", svc("capacity", 501), []string{"services.0.capacity too_large 500"}},
		{"capacity fraction", svc("capacity", 2.5), []string{"services.0.capacity invalid"}},
		{"capacity text", svc("capacity", "10"), []string{"services.0.capacity invalid"}},
		{"duplicate id", func(b obj) {
			s := minimal()["services"].(arr)[0]
			set(b, "services", arr{b["services"].(arr)[0], s})
		}, []string{"services.1.id invalid"}},
	})
}

func TestResourceRules(t *testing.T) {
	room := func(fields obj) func(obj) {
		return setTo("resources", arr{fields})
	}
	id := "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	runRuleCases(t, []ruleCase{
		{"ok", room(obj{"id": id, "name": "Treatment room", "quantity": 2, "isActive": false}), nil},
		{"quantity defaults", room(obj{"id": id, "name": "Chair"}), nil},
		{"id missing", room(obj{"name": "Room"}), []string{"resources.0.id required"}},
		{"name missing", room(obj{"id": id}), []string{"resources.0.name required"}},
		{"quantity zero", room(obj{"id": id, "name": "Room", "quantity": 0}), []string{"resources.0.quantity too_small 1"}},
		{"quantity 101", room(obj{"id": id, "name": "Room", "quantity": 101}), []string{"resources.0.quantity too_large 100"}},
		{"quantity fraction", room(obj{"id": id, "name": "Room", "quantity": 1.5}), []string{"resources.0.quantity invalid"}},
		{"unknown member", room(obj{"id": id, "name": "Room", "capacity": 3}), []string{"resources.0.capacity unknown_field"}},
		{"not a list", setTo("resources", obj{}), []string{"resources invalid"}},
		{"repeated id", setTo("resources", arr{obj{"id": id, "name": "A"}, obj{"id": id, "name": "B"}}), []string{"resources.1.id invalid"}},
	})
	// Services name the resources they need.
	other := "9b2f6a3e-1c4d-4e5f-8a7b-6c5d4e3f2a10"
	needs := func(resources arr, ns ...obj) func(obj) {
		return func(b obj) {
			set(b, "resources", resources)
			list := arr{}
			for _, n := range ns {
				list = append(list, n)
			}
			set(b, "services.0.resources", list)
		}
	}
	two := arr{obj{"id": id, "name": "Room", "quantity": 2}, obj{"id": other, "name": "Laser", "isActive": false}}
	runRuleCases(t, []ruleCase{
		{"need ok", needs(two, obj{"resourceId": id, "quantity": 2}), nil},
		{"need default quantity", needs(two, obj{"resourceId": id}), nil},
		{"need unknown", needs(two, obj{"resourceId": "1b2f6a3e-1c4d-4e5f-8a7b-6c5d4e3f2a10"}), []string{"services.0.resources.0.resourceId invalid"}},
		{"need inactive", needs(two, obj{"resourceId": other}), []string{"services.0.resources.0.resourceId invalid"}},
		{"need too many units", needs(two, obj{"resourceId": id, "quantity": 3}), []string{"services.0.resources.0.quantity invalid"}},
		{"need zero units", needs(two, obj{"resourceId": id, "quantity": 0}), []string{"services.0.resources.0.quantity too_small 1"}},
		{"need twice", needs(two, obj{"resourceId": id}, obj{"resourceId": id}), []string{"services.0.resources.1.resourceId invalid"}},
		{"need unknown member", needs(two, obj{"resourceId": id, "units": 1}), []string{"services.0.resources.0.units unknown_field"}},
		{"six needs", needs(two, obj{"resourceId": id}, obj{"resourceId": id}, obj{"resourceId": id}, obj{"resourceId": id}, obj{"resourceId": id}, obj{"resourceId": id}),
			[]string{"services.0.resources invalid", "services.0.resources.1.resourceId invalid", "services.0.resources.2.resourceId invalid",
				"services.0.resources.3.resourceId invalid", "services.0.resources.4.resourceId invalid", "services.0.resources.5.resourceId invalid"}},
	})

	b := minimal()
	set(b, "resources", arr{obj{"id": id, "name": "Chair"}})
	specs, err := Parse(file(b))
	require.NoError(t, err)
	require.Equal(t, []model.Resource{{ID: uuid.MustParse(id), Name: "Chair", Quantity: 1, IsActive: true}}, specs[0].Resources)
}

func TestStaffRules(t *testing.T) {
	st := func(k string, v any) func(obj) { return setTo("staff.0."+k, v) }
	mon := func(spans ...arr) func(obj) {
		a := arr{}
		for _, s := range spans {
			a = append(a, s)
		}
		return st("hours", obj{"mon": a})
	}
	exc := func(list ...obj) func(obj) {
		a := arr{}
		for _, e := range list {
			a = append(a, e)
		}
		return st("exceptions", a)
	}
	runRuleCases(t, []ruleCase{
		{"name missing", remove("staff.0.name"), []string{"staff.0.name required"}},
		{"isBookable string", st("isBookable", "no"), []string{"staff.0.isBookable invalid"}},
		{"assigned unknown", st("assignedServiceIds", arr{svcID, otherID}), []string{"staff.0.assignedServiceIds.1 invalid"}},
		{"assigned duplicate", st("assignedServiceIds", arr{svcID, svcID}), []string{"staff.0.assignedServiceIds.1 invalid"}},
		{"assigned bad", st("assignedServiceIds", arr{"svc"}), []string{"staff.0.assignedServiceIds.0 invalid_format"}},
		{"assigned deleted service", func(b obj) { set(b, "services.0.deleted", true); del(b, "appointments"); del(b, "recurringSeries") }, nil},
		{"hours unknown day", st("hours", obj{"monday": arr{}}), []string{"staff.0.hours.monday unknown_field"}},
		{"hours not object", st("hours", arr{}), []string{"staff.0.hours invalid"}},
		{"span not pair", mon(arr{"09:00"}), []string{"staff.0.hours.mon.0 invalid"}},
		{"span triple", mon(arr{"09:00", "10:00", "11:00"}), []string{"staff.0.hours.mon.0 invalid"}},
		{"span not array", st("hours", obj{"mon": arr{"09:00-17:00"}}), []string{"staff.0.hours.mon.0 invalid"}},
		{"span bad clock", mon(arr{"09:00", "25:00"}), []string{"staff.0.hours.mon.0.1 invalid_format"}},
		{"span reversed", mon(arr{"17:00", "09:00"}), []string{"staff.0.hours.mon.0 invalid"}},
		{"span empty", mon(arr{"09:00", "09:00"}), []string{"staff.0.hours.mon.0 invalid"}},
		{"spans overlap", mon(arr{"13:00", "18:00"}, arr{"09:00", "13:30"}), []string{"staff.0.hours.mon.0 invalid"}},
		{"spans overlap non-adjacent", mon(arr{"08:00", "18:00"}, arr{"09:00", "10:00"}, arr{"11:00", "12:00"}),
			[]string{"staff.0.hours.mon.1 invalid", "staff.0.hours.mon.2 invalid"}},
		{"spans touch", mon(arr{"12:00", "18:00"}, arr{"09:00", "12:00"}), nil},
		{"exception ok", exc(obj{"date": "2026-12-24", "hours": arr{arr{"09:00", "13:00"}}}, obj{"date": "2026-12-31", "hours": arr{}}), nil},
		{"exception date bad", exc(obj{"date": "2026-13-01", "hours": arr{}}), []string{"staff.0.exceptions.0.date invalid_date"}},
		{"exception date duplicate", exc(obj{"date": "2026-12-24", "hours": arr{}}, obj{"date": "2026-12-24", "hours": arr{}}),
			[]string{"staff.0.exceptions.1.date invalid"}},
		{"exception hours missing", exc(obj{"date": "2026-12-24"}), []string{"staff.0.exceptions.0.hours required"}},
		{"exception overlap", exc(obj{"date": "2026-12-24", "hours": arr{arr{"09:00", "13:00"}, arr{"12:00", "14:00"}}}),
			[]string{"staff.0.exceptions.0.hours.1 invalid"}},
		{"duplicate id", func(b obj) {
			s := minimal()["staff"].(arr)[0]
			set(b, "staff", arr{b["staff"].(arr)[0], s})
		}, []string{"staff.1.id invalid"}},
	})
}

func TestPeopleRules(t *testing.T) {
	cust := func(k string, v any) func(obj) { return setTo("customers.0."+k, v) }
	appt := func(k string, v any) func(obj) { return setTo("appointments.0."+k, v) }
	ser := func(k string, v any) func(obj) { return setTo("recurringSeries.0."+k, v) }
	second := obj{"id": otherID, "firstName": "Eve", "email": " EVA@example.COM "}
	runRuleCases(t, []ruleCase{
		{"firstName missing", remove("customers.0.firstName"), []string{"customers.0.firstName required"}},
		{"lastName too long", cust("lastName", strings.Repeat("l", 201)), []string{"customers.0.lastName too_long 200"}},
		{"email missing", remove("customers.0.email"), []string{"customers.0.email required"}},
		{"email invalid", cust("email", "eva"), []string{"customers.0.email invalid_email"}},
		{"email duplicate", func(b obj) { set(b, "customers", arr{b["customers"].(arr)[0], second}) }, []string{"customers.1.email invalid"}},
		{"phone number", cust("phone", 31600000000), []string{"customers.0.phone invalid"}},
		{"customer duplicate id", func(b obj) {
			c := obj{"id": custID, "firstName": "X", "email": "x@example.com"}
			set(b, "customers", arr{b["customers"].(arr)[0], c})
		}, []string{"customers.1.id invalid"}},

		{"appt customer unknown", appt("customerId", otherID), []string{"appointments.0.customerId invalid"}},
		{"appt service unknown", appt("serviceId", otherID), []string{"appointments.0.serviceId invalid"}},
		{"appt service deleted", func(b obj) { set(b, "services.0.deleted", true); del(b, "recurringSeries") },
			[]string{"appointments.0.serviceId invalid"}},
		{"appt service inactive is fine", setTo("services.0.isActive", false), nil},
		{"appt staff unknown", appt("staffMemberId", otherID), []string{"appointments.0.staffMemberId invalid"}},
		{"appt staff null", appt("staffMemberId", nil), nil},
		{"appt start bad", appt("startTime", "2027-01-04 09:00"), []string{"appointments.0.startTime invalid_date"}},
		{"appt start missing", remove("appointments.0.startTime"), []string{"appointments.0.startTime required"}},
		{"appt status unknown", appt("status", "booked"), []string{"appointments.0.status invalid_option"}},
		{"appt status payment_expired", appt("status", "payment_expired"), nil},
		{"appt notes too long", appt("notes", strings.Repeat("n", 2001)), []string{"appointments.0.notes too_long 2000"}},
		{"appt series unknown", appt("recurringSeriesId", otherID), []string{"appointments.0.recurringSeriesId invalid"}},
		{"appt occurrence string", appt("isRecurringOccurrence", "true"), []string{"appointments.0.isRecurringOccurrence invalid"}},
		{"appt id is a series id", appt("id", seriesID), []string{"appointments.0.id invalid"}},
		{"appt duplicate id", func(b obj) {
			a := minimal()["appointments"].(arr)[0]
			set(b, "appointments", arr{b["appointments"].(arr)[0], a})
		}, []string{"appointments.1.id invalid"}},

		{"series rule byday", ser("rule", "FREQ=WEEKLY;BYDAY=TU,TH"), nil},
		{"series rule byday off its day", ser("rule", "FREQ=WEEKLY;BYDAY=MO"), []string{"recurringSeries.0.firstStart invalid"}},
		{"series rule byday ordinal", ser("rule", "FREQ=MONTHLY;BYDAY=1MO"), []string{"recurringSeries.0.rule invalid_format"}},
		{"series rule missing", remove("recurringSeries.0.rule"), []string{"recurringSeries.0.rule required"}},
		{"series customer unknown", ser("customerId", otherID), []string{"recurringSeries.0.customerId invalid"}},
		{"series service deleted", func(b obj) { set(b, "services.0.deleted", true); del(b, "appointments") },
			[]string{"recurringSeries.0.serviceId invalid"}},
		{"series staff unknown", ser("staffMemberId", otherID), []string{"recurringSeries.0.staffMemberId invalid"}},
		{"series firstStart missing", remove("recurringSeries.0.firstStart"), []string{"recurringSeries.0.firstStart required"}},
		{"series duplicate id", func(b obj) {
			s := minimal()["recurringSeries"].(arr)[0]
			set(b, "recurringSeries", arr{b["recurringSeries"].(arr)[0], s})
		}, []string{"recurringSeries.1.id invalid"}},
		{"series unknown member", ser("exdates", arr{}), []string{"recurringSeries.0.exdates unknown_field"}},
	})
}

// TestTimetableParsed: a timetable's times come out sorted, by weekday,
// and a service without one follows the grid (nil).
func TestTimetableParsed(t *testing.T) {
	b := minimal()
	set(b, "services.0.timetable", obj{"tue": arr{"19:30", "18:00"}, "sun": arr{"09:00"}})
	specs, err := Parse(file(b))
	require.NoError(t, err)
	tt := specs[0].Services[0].Timetable
	require.NotNil(t, tt)
	require.Equal(t, []model.Clock{18 * 60, 19*60 + 30}, tt[time.Tuesday])
	require.Equal(t, []model.Clock{9 * 60}, tt[time.Sunday])
	require.Empty(t, tt[time.Monday])
	require.True(t, tt.Offers(time.Tuesday, 19*60+30))
	require.False(t, tt.Offers(time.Wednesday, 18*60))

	specs, err = Parse(file(minimal()))
	require.NoError(t, err)
	require.Nil(t, specs[0].Services[0].Timetable)
}
