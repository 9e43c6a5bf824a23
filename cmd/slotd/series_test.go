package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Series (decisions §11).

// seriesBody is a series of haircuts from tue at start with rule.
func seriesBody(start, staff, rule, extra string) string {
	b := fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"rule":%q,"customer":{"firstName":"Sam","email":"sam@example.com"}`, haircutID, tue+start, rule)
	if staff != "" {
		b += fmt.Sprintf(`,"staffMemberId":%q`, staff)
	}
	return b + extra + "}"
}

// preview is the occurrences of a series preview, as "MM-DD HH:MM code
// staff" lines (code "ok" for one that fits).
func preview(t *testing.T, s *server, body string) []string {
	t.Helper()
	r := s.post("/api/v1/appointment-series/preview", keyFull, "", body)
	require.Equal(t, 200, r.Status, "%s", r.Raw)
	var out []string
	for _, x := range r.Body["occurrences"].([]any) {
		o := x.(map[string]any)
		code := "ok"
		if o["ok"] != true {
			code = o["code"].(string)
		}
		var who []string
		for _, id := range o["staffMemberIds"].([]any) {
			who = append(who, map[string]string{annaID: "anna", bramID: "bram", chrisID: "chris"}[id.(string)])
		}
		out = append(out, fmt.Sprintf("%s %s %s", o["startTime"].(string)[5:16], code, strings.Join(who, ",")))
	}
	return out
}

// TestSeriesPreview: every occurrence is judged against the state and
// against the series' own earlier occurrences, on the business's wall
// clock; nothing is booked.
func TestSeriesPreview(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(biz map[string]any) {
		for _, x := range biz["services"].([]any) {
			if svc := x.(map[string]any); svc["id"] == haircutID {
				svc["bookingLimits"] = map[string]any{"perDay": nil, "perWeek": 2}
			}
		}
	}))
	// Anna's third Tuesday at 10:00 is taken.
	taken := s.post("/api/v1/appointments", keyFull, "t-1", booking(colourID, "2026-12-22T09:45:00Z", annaID, "t@example.com"))
	require.Equal(t, 201, taken.Status, "%s", taken.Raw)
	assert.Equal(t, []string{"12-08T10:00 ok anna", "12-15T10:00 ok anna", "12-22T10:00 SLOT_TAKEN ", "12-29T10:00 ok anna"},
		preview(t, s, seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=4", "")))
	// Daily from Tuesday against two haircuts a week: the series' own
	// first two occurrences reach the limit for the rest of the week.
	assert.Equal(t, []string{"12-08T10:00 ok anna", "12-09T10:00 ok anna", "12-10T10:00 BOOKING_LIMIT_REACHED ", "12-11T10:00 BOOKING_LIMIT_REACHED "},
		preview(t, s, seriesBody("10:00:00Z", annaID, "FREQ=DAILY;COUNT=4", "")))
	// Unpinned, each occurrence is assigned on its own.
	assert.Equal(t, []string{"12-08T10:00 ok anna", "12-09T10:00 ok anna", "12-10T10:00 ok bram", "12-11T10:00 ok bram"},
		preview(t, s, seriesBody("10:00:00Z", "", "FREQ=DAILY;COUNT=4", `,"enforceBookingRules":true`)))
	// BYDAY, every other week.
	assert.Equal(t, []string{"12-08T10:00 ok anna", "12-10T10:00 ok anna", "12-22T10:00 SLOT_TAKEN ", "12-24T10:00 ok anna"},
		preview(t, s, seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=4", "")))
	// Nothing was booked: the first is still free.
	assert.Equal(t, 201, s.post("/api/v1/appointments", keyFull, "t-2", booking(haircutID, tue+"10:00:00Z", annaID, "t2@example.com")).Status)
}

// TestSeriesPreviewAcrossDST: a weekly series keeps its local time across
// the spring change of the clocks.
func TestSeriesPreviewAcrossDST(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(biz map[string]any) {
		biz["bookingRules"].(map[string]any)["maxAdvanceDays"] = 200
	}))
	got := preview(t, s, fmt.Sprintf(`{"serviceId":%q,"startTime":"2027-03-23T09:00:00Z","staffMemberId":%q,"rule":"FREQ=WEEKLY;COUNT=3","customerId":%q}`, haircutID, annaID, evaID))
	assert.Equal(t, []string{"03-23T09:00 ok anna", "03-30T08:00 ok anna", "04-06T08:00 ok anna"}, got, "10:00 in Amsterdam, CET then CEST")
}

// TestSeriesValidation: each bad input is named by its path.
func TestSeriesValidation(t *testing.T) {
	s := start(t, "", "--world", salonWorld(t, func(map[string]any) {}))
	post := func(body string) resp { return s.post("/api/v1/appointment-series/preview", keyFull, "", body) }
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=YEARLY;COUNT=2", "")), "rule", "invalid_format")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;BYSETPOS=1;COUNT=2", "")), "rule", "invalid_format")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=53", "")), "rule", "too_large")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY", "")), "rule", "invalid")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;UNTIL=20261201T000000Z", "")), "rule", "invalid")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=DAILY;UNTIL=20291201T000000Z", "")), "rule", "invalid") // past maxAdvanceDays
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;BYDAY=MO;COUNT=2", "")), "startTime", "invalid") // a Tuesday
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=2", `,"onConflict":"maybe"`)), "onConflict", "invalid_option")
	requireField(t, post(seriesBody("10:00:00Z", annaID, "FREQ=WEEKLY;COUNT=2", `,"customerId":"`+evaID+`"`)), "customer", "invalid")
	requireField(t, post(fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"rule":"FREQ=WEEKLY;COUNT=2"}`, haircutID, tue+"10:00:00Z")), "customer", "invalid")
	requireField(t, post(fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"rule":"FREQ=WEEKLY;COUNT=2","customerId":%q}`, haircutID, tue+"10:00:00Z", annaID)), "customerId", "invalid")
	requireField(t, post(fmt.Sprintf(`{"serviceId":%q,"startTime":%q,"rule":"FREQ=WEEKLY;COUNT=2","customerId":%q}`, annaID, tue+"10:00:00Z", evaID)), "serviceId", "invalid")
}
