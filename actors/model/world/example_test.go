package world

import (
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/slotd/slotd/actors/model"
)

func readExample(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/world.example.json")
	require.NoError(t, err)
	return data
}

func TestParseExample(t *testing.T) {
	specs, err := Parse(readExample(t))
	require.NoError(t, err)
	require.Len(t, specs, 2)

	salon := specs[0]
	b := salon.Business
	require.Equal(t, uuid.MustParse("f719a757-6018-5706-847c-e556c8b6c4b7"), b.ID)
	require.Equal(t, "Salon Example", b.Name)
	require.Equal(t, "Europe/Amsterdam", b.Timezone)
	require.Equal(t, "EUR", b.Currency)
	require.Equal(t, model.Pro, b.Plan)
	require.Equal(t, model.AllModules, b.Modules)
	require.Equal(t, "owner@salon.example", b.OwnerEmail)
	require.Equal(t, model.LeastBusy, b.Assignment)
	require.Equal(t, []model.Date{{Year: 2026, Month: 12, Day: 25}, {Year: 2026, Month: 12, Day: 26}}, b.ClosedDates)
	require.Equal(t, model.BookingRules{
		MinNoticeMinutes: 60, MaxAdvanceDays: 90, SlotIntervalMinutes: 15, MinGapMinutes: 30,
		RestrictedPeriods: []model.Period{{
			From: time.Date(2026, 12, 31, 12, 0, 0, 0, time.UTC),
			To:   time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC),
		}},
	}, b.Rules)
	require.Equal(t, model.Payments{HoldMinutes: 15}, b.Payments)
	require.True(t, b.CreatedAt.IsZero() && b.UpdatedAt.IsZero())

	checkExampleKeys(t, salon)
	checkExampleCatalogue(t, salon)
	checkExampleStaff(t, salon)

	require.Equal(t, []model.Customer{{
		ID: uuid.MustParse("8655f79b-a982-58c8-9a30-d42c1d7f0156"), FirstName: "Eva", LastName: "de Vries",
		Email: "eva@example.com", Phone: "+31600000001",
	}}, salon.Customers)
	require.Empty(t, salon.Appointments)
	staff := uuid.MustParse("95269c55-98d9-5dac-a440-a4ad84eb6baa")
	require.Equal(t, []model.Series{{
		ID:            uuid.MustParse("b69f2ff5-8789-5324-8710-1b16313c5229"),
		CustomerID:    uuid.MustParse("8655f79b-a982-58c8-9a30-d42c1d7f0156"),
		ServiceID:     uuid.MustParse("53b482a1-21f5-5ac8-935a-e510da576e07"),
		StaffMemberID: &staff, Rule: "FREQ=WEEKLY;COUNT=4",
		FirstStart: time.Date(2027, 1, 5, 9, 0, 0, 0, time.UTC),
	}}, salon.Series)

	studio := specs[1].Business
	require.Equal(t, "Studio Small", studio.Name)
	require.Equal(t, model.Groei, studio.Plan)
	require.Equal(t, []model.Module{model.ModAppointments}, studio.Modules)
	require.Equal(t, model.FirstAvailable, studio.Assignment)
	require.Equal(t, 30, studio.Rules.SlotIntervalMinutes)
	require.Empty(t, studio.ClosedDates)
}

func checkExampleKeys(t *testing.T, s model.Spec) {
	require.Len(t, s.Keys, 4)
	full := s.Keys[0]
	require.Equal(t, model.HashKey("sk_example_salon_full"), full.Hash)
	require.Equal(t, uuid.NewSHA1(s.Business.ID, full.Hash[:]), full.ID)
	require.Len(t, full.Scopes, 7)
	require.True(t, full.HasScope("customers:write"))
	require.False(t, full.Revoked)
	require.Nil(t, full.ExpiresAt)
	require.Nil(t, full.Limits)
	require.True(t, s.Keys[2].Revoked)
	require.Equal(t, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), *s.Keys[3].ExpiresAt)
	require.Equal(t, []string{"appointments:read", "services:read", "staff:read"}, s.Keys[1].Scopes)
}

func checkExampleCatalogue(t *testing.T, s model.Spec) {
	require.Len(t, s.Categories, 3)
	hair := uuid.MustParse("a6527942-ec49-515c-b83d-8a3e8480a2a9")
	require.Nil(t, s.Categories[0].ParentID)
	require.Equal(t, hair, *s.Categories[1].ParentID)
	require.Equal(t, 2, s.Categories[2].Position)

	require.Len(t, s.Services, 5)
	cut := s.Services[0]
	require.Equal(t, "Haircut", cut.Name)
	require.Equal(t, "Wash, cut and style", *cut.Description)
	require.Equal(t, 30, cut.DurationMinutes)
	require.Equal(t, 3500, cut.PriceCents)
	require.Equal(t, hair, cut.CategoryID)
	require.Nil(t, cut.DepositCents)
	require.Nil(t, cut.ImageURL)
	require.Empty(t, cut.Segments)
	require.Equal(t, []model.PricingRule{{Days: []time.Weekday{time.Thursday}, From: 18 * 60, To: 21 * 60, PriceCents: 4000}}, cut.PricingRules)

	colour := s.Services[1]
	require.Equal(t, 2000, *colour.DepositCents)
	label := func(s string) *string { return &s }
	require.Equal(t, []model.SegmentTemplate{
		{Kind: model.Active, DurationMinutes: 30, Label: label("Apply colour")},
		{Kind: model.Gap, DurationMinutes: 40, Label: label("Processing")},
		{Kind: model.Active, DurationMinutes: 20, Label: label("Rinse and style")},
	}, colour.Segments)
	require.Nil(t, s.Services[2].Description)
	require.False(t, s.Services[3].IsActive)
	require.True(t, s.Services[4].Deleted)
}

func checkExampleStaff(t *testing.T, s model.Spec) {
	require.Len(t, s.Staff, 4)
	anna := s.Staff[0]
	require.Equal(t, "Anna", anna.Name)
	require.True(t, anna.IsActive && anna.IsBookable)
	require.True(t, anna.Performs(uuid.MustParse("d2694ab1-3c85-5e54-bf1d-996f6e4cd775")))
	span := func(a, b model.Clock) model.Span { return model.Span{From: a, To: b} }
	require.Equal(t, []model.Span{span(540, 750), span(780, 1080)}, anna.Hours[time.Monday])
	require.Equal(t, []model.Span{span(540, 750), span(780, 1260)}, anna.Hours[model.Weekdays["thu"]])
	require.Equal(t, []model.Span{span(540, 960)}, anna.Hours[time.Saturday])
	require.Empty(t, anna.Hours[time.Sunday])
	require.Equal(t, []model.Exception{{Date: model.Date{Year: 2026, Month: 12, Day: 24}, Hours: []model.Span{span(540, 780)}}}, anna.Exceptions)
	require.False(t, s.Staff[2].IsBookable)
	dana := s.Staff[3]
	require.False(t, dana.IsActive)
	for d := range dana.Hours {
		require.NotNil(t, dana.Hours[d])
		require.Empty(t, dana.Hours[d])
	}
}

func TestParseIsDeterministic(t *testing.T) {
	data := readExample(t)
	a, err := Parse(data)
	require.NoError(t, err)
	b, err := Parse(data)
	require.NoError(t, err)
	require.True(t, reflect.DeepEqual(a, b))

	bad := file(minimal(), obj{"id": "x", "zeta": 1, "alpha": 2, "mu": 3})
	_, err1 := Parse(bad)
	_, err2 := Parse(bad)
	require.Equal(t, err1.Error(), err2.Error())
}

func TestDefaults(t *testing.T) {
	specs, err := Parse(file(minimal()))
	require.NoError(t, err)
	s := specs[0]
	require.Equal(t, model.AllModules, s.Business.Modules)
	s.Business.Modules[0] = "mutated"
	require.Equal(t, model.ModAppointments, model.AllModules[0], "the default must not alias model.AllModules")
	require.Equal(t, model.LeastBusy, s.Business.Assignment)
	rules := model.DefaultRules()
	rules.RestrictedPeriods = []model.Period{}
	require.Equal(t, rules, s.Business.Rules)
	require.Equal(t, model.Payments{HoldMinutes: 15}, s.Business.Payments)
	require.Equal(t, "", s.Business.OwnerEmail)
	require.Equal(t, []model.Date{}, s.Business.ClosedDates)

	k := s.Keys[0]
	require.False(t, k.Revoked)
	require.Nil(t, k.ExpiresAt)
	require.Nil(t, k.Limits)
	require.Equal(t, 0, s.Categories[0].Position)
	svc := s.Services[0]
	require.True(t, svc.IsActive)
	require.False(t, svc.PaymentRequired || svc.Deleted)
	require.Nil(t, svc.Description)
	require.Equal(t, []model.SegmentTemplate{}, svc.Segments)
	require.Equal(t, []model.PricingRule{}, svc.PricingRules)
	st := s.Staff[0]
	require.True(t, st.IsActive && st.IsBookable)
	require.Equal(t, []model.Exception{}, st.Exceptions)
	require.Equal(t, []model.Span{}, st.Hours[time.Tuesday])
	c := s.Customers[0]
	require.Equal(t, "", c.LastName)
	require.Equal(t, "", c.Phone)
	a := s.Appointments[0]
	require.Nil(t, a.StaffMemberID)
	require.Nil(t, a.Notes)
	require.Nil(t, a.RecurringSeriesID)
	require.False(t, a.IsRecurringOccurrence)
	require.Nil(t, s.Series[0].StaffMemberID)
}

func TestExplicitValues(t *testing.T) {
	b := minimal()
	set(b, "modules", arr{})
	set(b, "ownerEmail", "  boss@shop.example ")
	set(b, "assignment", "round_robin")
	set(b, "plan", "custom_plan-2")
	set(b, "payments", obj{"provider": "redirect", "requiresPayment": true, "holdMinutes": 30,
		"baseUrl": "https://pay.example", "apiKey": "secret", "webhookSecret": "whsec_1", "returnUrl": "https://shop.example/thanks"})
	set(b, "apiKeys.0.limits", obj{"perMinute": 600})
	set(b, "apiKeys.0.scopes", arr{"reports:export"})
	set(b, "apiKeys.0.revoked", true)
	set(b, "categories", arr{obj{"id": otherID, "name": "Child", "parentId": catID, "position": 3},
		obj{"id": catID, "name": "Hair", "parentId": nil}})
	set(b, "services.0.segments", arr{obj{"kind": "gap", "durationMinutes": 10, "label": nil},
		obj{"kind": "active", "durationMinutes": 20}})
	set(b, "services.0.depositCents", 500)
	set(b, "staff.0.hours", obj{"mon": arr{arr{"13:00", "17:00"}, arr{"09:00", "12:00"}, arr{"12:00", "13:00"}}, "sun": arr{}})
	set(b, "staff.0.staffless", nil)
	del(b, "staff.0.staffless")
	set(b, "customers.0.email", " Eva@Example.com ")
	set(b, "appointments.0.staffMemberId", staffID)
	set(b, "appointments.0.recurringSeriesId", seriesID)
	set(b, "appointments.0.isRecurringOccurrence", true)
	set(b, "appointments.0.notes", "ring twice")
	set(b, "appointments.0.startTime", "2027-01-04T10:00:00+01:00")

	specs, err := Parse(file(b))
	require.NoError(t, err)
	s := specs[0]
	require.Equal(t, []model.Module{}, s.Business.Modules)
	require.Equal(t, "boss@shop.example", s.Business.OwnerEmail)
	require.Equal(t, model.RoundRobin, s.Business.Assignment)
	require.Equal(t, model.Plan("custom_plan-2"), s.Business.Plan)
	require.Equal(t, model.Payments{Provider: "redirect", RequiresPayment: true, HoldMinutes: 30,
		BaseURL: "https://pay.example", APIKey: "secret", WebhookSecret: "whsec_1", ReturnURL: "https://shop.example/thanks"}, s.Business.Payments)
	require.Equal(t, &model.Limits{PerMinute: 600}, s.Keys[0].Limits)
	require.Equal(t, []string{"reports:export"}, s.Keys[0].Scopes)
	require.True(t, s.Keys[0].Revoked)
	require.Equal(t, 3, s.Categories[0].Position)
	require.Equal(t, 500, *s.Services[0].DepositCents)
	require.Equal(t, model.Gap, s.Services[0].Segments[0].Kind)
	require.Equal(t, []model.Span{{From: 540, To: 720}, {From: 720, To: 780}, {From: 780, To: 1020}},
		s.Staff[0].Hours[time.Monday], "spans are sorted by start")
	require.Equal(t, "Eva@Example.com", s.Customers[0].Email)
	a := s.Appointments[0]
	require.Equal(t, staffID, a.StaffMemberID.String())
	require.Equal(t, seriesID, a.RecurringSeriesID.String())
	require.True(t, a.IsRecurringOccurrence)
	require.Equal(t, "ring twice", *a.Notes)
	require.Equal(t, time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC), a.StartTime)
}

func TestKeyIDIsStableAcrossLoads(t *testing.T) {
	a, err := ParseBusiness(mustJSON(minimal()))
	require.NoError(t, err)
	b, err := Parse(file(minimal()))
	require.NoError(t, err)
	require.Equal(t, a.Keys[0].ID, b[0].Keys[0].ID)
	require.Equal(t, a, b[0])
}
